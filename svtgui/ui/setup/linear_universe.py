"""The universe column chooser for PMW and SparseProject (linear queries over a universe).

Only what is public can make a universe: categorical columns with *declared* levels (the schema's
categories; levels the schema marks as read from the data are shown in orange, and a release over
them is refused unless the curator allows it) and numeric columns cut at declared bounds (``k``
equal bins) or at edges the curator types. Columns without them are listed but disabled, with the
reason and the fix in the tooltip — their levels would otherwise be read off the private data.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QGroupBox,
    QHeaderView,
    QLabel,
    QLineEdit,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
)

from svtgui.app.numbers import exact
from svtgui.app.runs.linear import universe_of
from svtgui.data.schema import ColumnKind
from svtgui.ui.common.theme import WARNING_COLOR, named
from svtgui.ui.setup.param_form import ErrorLabel

DEFAULT_BINS = 8
COL_USE, COL_NAME, COL_LEVELS = range(3)


def spec_for(column: str, kind: ColumnKind, text: str) -> str:
    """The universe spec of one chosen column: ``name``, ``name:k`` (k bins) or ``name@e0,e1,…``."""
    if kind != ColumnKind.NUMERIC:
        return column
    t = text.strip().replace(" ", "")
    return f"{column}:{t}" if t.isdigit() else f"{column}@{t}"


class UniverseChooser(QGroupBox):
    """Columns of the schema with a check box each; numeric ones take bins or edges."""

    changed = Signal()

    def __init__(self, parent=None) -> None:
        super().__init__("Universe: the columns whose histogram answers the queries", parent)
        named(self, "Universe columns",
              "PMW and SparseProject answer count queries over the cross product of these columns' levels.")
        self.table = named(QTableWidget(0, 3), "Universe column table")
        self.table.setHorizontalHeaderLabels(["Use", "Column", "Levels / bins (numeric: k or edges)"])
        self.table.verticalHeader().hide()
        hh = self.table.horizontalHeader()
        hh.setSectionResizeMode(COL_LEVELS, QHeaderView.ResizeMode.Stretch)
        hh.setSectionResizeMode(COL_USE, QHeaderView.ResizeMode.ResizeToContents)
        self.table.setMinimumHeight(180)
        self.size_label = named(QLabel(), "Universe size")
        self.error = ErrorLabel("Universe")
        lay = QVBoxLayout(self)
        lay.addWidget(self.table)
        lay.addWidget(self.size_label)
        lay.addWidget(self.error)
        self.schema: Any = None
        self.rows: dict[str, tuple[QCheckBox, ColumnKind, QLineEdit | None]] = {}
        self._problem: str | None = "open a dataset first: the universe's columns come from its schema"
        self._update()

    # -- building -------------------------------------------------------------------------------
    def set_schema(self, schema: Any) -> None:
        """List the schema's columns, keeping the current choice where it still applies."""
        chosen = self.specs()
        self.schema = schema
        self.rows = {}
        self.table.setRowCount(0)
        for col in schema.columns:
            if col.kind not in (ColumnKind.CATEGORICAL, ColumnKind.BOOLEAN, ColumnKind.NUMERIC):
                continue
            self._add_row(col)
        self.set_specs(chosen)

    def _add_row(self, col: Any) -> None:
        r = self.table.rowCount()
        self.table.insertRow(r)
        use = named(QCheckBox(), f"Use {col.name} in the universe")
        name = QTableWidgetItem(col.name)
        name.setFlags(Qt.ItemFlag.ItemIsEnabled)
        editor: QLineEdit | None = None
        if col.kind == ColumnKind.NUMERIC:
            bounded = col.lower is not None and col.upper is not None
            editor = named(QLineEdit(str(DEFAULT_BINS) if bounded else ""), f"Bins of {col.name}",
                           "A number k: k equal bins between the declared bounds. Or bin edges, e.g. "
                           "17,25,35,45,55,65,91 (values outside go to the first/last bin).")
            editor.setPlaceholderText("edges, e.g. 0,10,20,40" if not bounded else "")
            editor.textChanged.connect(self._update)
            self.table.setCellWidget(r, COL_LEVELS, editor)
            tip = (f"declared bounds [{exact(col.lower)}, {exact(col.upper)}]" if bounded else
                   "no declared bounds: type bin edges (or declare bounds in the Schema step)")
            name.setToolTip(tip)
        else:
            levels = col.categories or ()
            kind = "levels read from the data (NOT public)" if col.levels_from_data else "declared levels"
            text = (f"{len(levels)} {kind} (+ other, missing): {', '.join(levels)}" if levels else
                    "no declared levels — declare them in the Schema step (they would be read from the "
                    "private data)")
            item = QTableWidgetItem(("⚠ " if col.levels_from_data else "") + text)
            item.setFlags(Qt.ItemFlag.ItemIsEnabled)
            item.setToolTip(text)
            if col.levels_from_data:  # a release over them is refused unless allowed (Queries step)
                item.setForeground(WARNING_COLOR)
            self.table.setItem(r, COL_LEVELS, item)
            if not levels:
                use.setEnabled(False)
                use.setToolTip(text)
        use.toggled.connect(self._update)
        self.table.setCellWidget(r, COL_USE, use)
        self.table.setItem(r, COL_NAME, name)
        self.rows[col.name] = (use, col.kind, editor)

    def set_specs(self, specs: list[str]) -> None:
        """Check the columns of ``specs`` (numeric ones with their bins or edges)."""
        wanted: dict[str, str] = {}
        for s in specs:
            for sep in (":", "@", "="):
                if sep in s:
                    name, _, arg = s.partition(sep)
                    wanted[name.strip()] = arg
                    break
            else:
                wanted[s.strip()] = ""
        for name, (use, _kind, editor) in self.rows.items():
            use.blockSignals(True)
            use.setChecked(name in wanted and use.isEnabled())
            use.blockSignals(False)
            if editor is not None and wanted.get(name):
                editor.setText(wanted[name])
        self._update()

    # -- reading back ----------------------------------------------------------------------------
    def specs(self) -> list[str]:
        return [spec_for(name, kind, editor.text() if editor else "")
                for name, (use, kind, editor) in self.rows.items() if use.isChecked()]

    def problem(self) -> str | None:
        return self._problem

    def _update(self) -> None:
        specs = self.specs()
        self._problem = None
        self.size: int | None = None  # |X| of a valid choice
        if self.schema is None:
            self._problem = "open a dataset first: the universe's columns come from its schema"
        elif not specs:
            self._problem = "choose at least one universe column"
        else:
            try:
                # The schema alone builds it: only declared levels and bins are accepted.
                universe = universe_of(SimpleNamespace(schema=self.schema, frame=None), specs)
            except ValueError as exc:
                self._problem = str(exc)
            else:
                self.size = universe.size
                axes = " × ".join(f"{a.column} ({a.size})" for a in universe.axes)
                self.size_label.setText(f"|X| = {universe.size:,} cells: {axes}")
        if self._problem:
            self.size_label.setText("|X| = —")
        self.error.show_error(self._problem if self.schema is not None else None)
        self.changed.emit()
