"""Table model of a run's released rows, reading straight from a :class:`ResultStore`.

Rows are announced to the view in coalesced steps (:meth:`ResultsModel.refresh`, called by the
window's UI timer), never once per query, so a million-row stream costs a few dozen
``rowsInserted`` signals per second at most.
"""

from __future__ import annotations

import math
import time as _time
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor

from svtgui.app.runs.results import ResultStore
from svtgui.core.wording import plain
from svtgui.ui.common.theme import ABOVE_COLOR, ABOVE_TEXT, BELOW_COLOR, BELOW_TEXT

Index = QModelIndex | QPersistentModelIndex
COLUMNS = ("#", "Query", "Answer", "Released value", "Time")
COL_INDEX, COL_QUERY, COL_ANSWER, COL_VALUE, COL_TIME = range(5)
PAID_TEXT, FREE_TEXT = "▲ paid", "○ free"  # PMW: symbol and word, not colour alone


def format_value(v: float) -> str:
    if math.isnan(v):
        return ""
    return plain(v, 6)  # "2,554", "415.313", "1,234,568": six significant digits, never an exponent


def format_time(t: float) -> str:
    return _time.strftime("%H:%M:%S", _time.localtime(t)) + f".{int((t % 1) * 1000):03d}"


class ResultsModel(QAbstractTableModel):
    """⊤/⊥ badges with colour *and* symbol; ⊥ rows never show a value."""

    def __init__(self, store: ResultStore, describe: Callable[[int], str], parent=None) -> None:
        """``describe(ref)`` gives the text of a query from its ``ResultStore.ref``."""
        super().__init__(parent)
        self.store = store
        self.describe = describe
        self._shown = 0
        self._only_above = False
        self._above_brush = QBrush(ABOVE_COLOR)
        self._below_brush = QBrush(BELOW_COLOR)
        self._above_bg = QBrush(QColor(ABOVE_COLOR.red(), ABOVE_COLOR.green(), ABOVE_COLOR.blue(), 40))
        # PMW runs: rows read "paid" (⊤) / "free" (⊥); a free answer's value is a release too (the
        # store keeps it, exactly as committed to the ledger).
        self.free_paid = False

    @property
    def only_above(self) -> bool:
        return self._only_above

    def set_only_above(self, on: bool) -> None:
        self.beginResetModel()
        self._only_above = on
        self._shown = self._available()
        self.endResetModel()

    def _available(self) -> int:
        return self.store.n_tops if self._only_above else self.store.n

    def refresh(self) -> None:
        """Announce the rows appended to the store since the last refresh (or a reset after a clear)."""
        available = self._available()
        if available < self._shown:
            self.beginResetModel()
            self._shown = available
            self.endResetModel()
        elif available > self._shown:
            self.beginInsertRows(QModelIndex(), self._shown, available - 1)
            self._shown = available
            self.endInsertRows()

    def reset(self) -> None:
        self.beginResetModel()
        self._shown = self._available()
        self.endResetModel()

    def store_row(self, row: int) -> int:
        return int(self.store.tops[row]) if self._only_above else row

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else self._shown

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(COLUMNS)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or index.row() >= self._shown:
            return None
        r = self.store_row(index.row())
        col = index.column()
        above = bool(self.store.above[r])
        if role == Qt.ItemDataRole.DisplayRole:
            if col == COL_INDEX:
                return f"{int(self.store.index[r]) + 1:,}"
            if col == COL_QUERY:
                return self.describe(int(self.store.ref[r]))
            if col == COL_ANSWER:
                if self.free_paid:
                    return PAID_TEXT if above else FREE_TEXT
                return ABOVE_TEXT if above else BELOW_TEXT
            if col == COL_VALUE:
                shown = above or bool(self.store.free[r])
                return format_value(float(self.store.value[r])) if shown else ""
            if col == COL_TIME:
                return format_time(float(self.store.time[r]))
        elif role == Qt.ItemDataRole.ForegroundRole and col == COL_ANSWER:
            return self._above_brush if above else self._below_brush
        elif role == Qt.ItemDataRole.BackgroundRole and above:
            return self._above_bg
        elif role == Qt.ItemDataRole.ToolTipRole and col == COL_ANSWER and self.free_paid:
            return (
                "paid: a fresh noisy answer; the synthetic histogram was off, so one of the c paid answers "
                "was used" if above else
                "free: answered from the public synthetic histogram; costs nothing, does not use up c"
            )
        elif role == Qt.ItemDataRole.ToolTipRole and col == COL_ANSWER:
            return (
                "⊤: the mechanism found this query above the threshold; it used one of the c ⊤ answers"
                if above
                else "⊥: below the threshold. ⊥ answers are free: they do not use up the cutoff c"
            )
        elif role == Qt.ItemDataRole.TextAlignmentRole and col in (COL_INDEX, COL_VALUE):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return COLUMNS[section]
        return None
