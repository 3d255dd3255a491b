"""A virtual table model over a pandas DataFrame: only the visible cells are ever formatted.

The view asks for a few dozen cells per repaint, so a 1,000,000-row frame scrolls as smoothly as a
100-row one: ``data()`` reads one value from a per-column numpy array (no per-row objects, no copy
of the frame) and formats it on demand.
"""

from __future__ import annotations

import datetime
import math
from typing import Any

import numpy as np
from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt

from svtgui.core.wording import plain

Index = QModelIndex | QPersistentModelIndex


def format_cell(value: Any) -> str:
    """One cell as text: missing values as an em dash, item sets as {a, b}, floats compactly."""
    if value is None:
        return "—"
    if isinstance(value, float | np.floating):
        return "—" if math.isnan(value) else plain(float(value), 6)  # "1,234,568", never "1.23457e+06"
    if isinstance(value, tuple | frozenset | list | set):
        items = sorted(value, key=str) if isinstance(value, frozenset | set) else list(value)
        shown = ", ".join(str(v) for v in items[:12])
        return "{" + shown + (", …" if len(items) > 12 else "") + "}"
    try:
        if value is np.datetime64("NaT") or (hasattr(value, "isna") and value.isna()):
            return "—"
    except (TypeError, ValueError):
        pass
    if isinstance(value, np.datetime64 | datetime.datetime):
        return _moment(value)
    text = str(value)
    return "—" if text in ("nan", "NaT", "<NA>") else text


def _moment(value: np.datetime64 | datetime.datetime) -> str:
    """A date as 2024-03-01 and a moment as 2024-03-01 14:05:09: numpy's own text,
    '2024-03-01T00:00:00.000000000', did not fit the preview's column and was cut off."""
    if value != value:  # noqa: PLR0124 - NaT, numpy's or pandas', is not equal to itself
        return "—"
    if isinstance(value, np.datetime64):
        text = str(np.datetime_as_string(value, unit="s"))
    else:
        text = value.strftime("%Y-%m-%dT%H:%M:%S")
    day, _, time = text.partition("T")
    return day if time in ("", "00:00:00") else f"{day} {time}"


class FrameModel(QAbstractTableModel):
    """Read-only preview of a DataFrame (the dataset's private rows: shown only to the curator)."""

    def __init__(self, frame=None, parent=None) -> None:
        super().__init__(parent)
        self._columns: list[np.ndarray] = []
        self._names: list[str] = []
        self._rows = 0
        if frame is not None:
            self.set_frame(frame)

    def set_frame(self, frame) -> None:
        self.beginResetModel()
        self._names = [str(c) for c in frame.columns]
        # to_numpy() per column is a view for numeric dtypes: no copy of the data.
        self._columns = [frame[c].to_numpy() for c in frame.columns]
        self._rows = len(frame)
        self.endResetModel()

    def clear(self) -> None:
        self.beginResetModel()
        self._columns, self._names, self._rows = [], [], 0
        self.endResetModel()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else self._rows

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._names)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return format_cell(self._columns[index.column()][index.row()])
        if role == Qt.ItemDataRole.TextAlignmentRole:
            col = self._columns[index.column()]
            if col.dtype.kind in "iuf":
                return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        if orientation == Qt.Orientation.Horizontal:
            return self._names[section] if section < len(self._names) else None
        return f"{section + 1:,}"
