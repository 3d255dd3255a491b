"""The schema editor: column kinds, the curator's declared public bounds and categorical levels.

Bounds are typed by the curator, never read off the data (that would leak the extreme rows).
A numeric column without bounds gets a visible warning: sums and means over it are refused
until bounds are declared; a bound that cannot be (lower above upper) is shown on its own row.
Levels of a categorical column are typed or pasted (:mod:`svtgui.ui.setup.levels_dialog`), or read
from the data with a warning that stays on the row: such levels are not public.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from svtgui.app.numbers import exact, field_text
from svtgui.core.wording import count
from svtgui.data.evaluate import evaluate
from svtgui.data.generators import observed_values
from svtgui.data.predicates import Condition, QueryError
from svtgui.data.queries import Count
from svtgui.data.schema import ColumnKind, Neighbouring, Schema, SchemaError
from svtgui.ui.common.theme import WARNING_COLOR, named
from svtgui.ui.setup.levels_dialog import LevelsDialog
from svtgui.ui.setup.param_form import ErrorLabel, parse_number

COL_NAME, COL_KIND, COL_LOWER, COL_UPPER, COL_LEVELS, COL_STATUS = range(6)
LEVEL_KINDS = (ColumnKind.CATEGORICAL, ColumnKind.BOOLEAN)
LEVELS_FROM_DATA = "⚠ levels read from the data: NOT public (a release using them is refused unless allowed)"
NO_BOUNDS = "⚠ no declared bounds — sums and means over this column are refused"
NO_LEVELS = "no declared levels — a query per value (Queries ▸ Generate) needs them"
RELATIONS = (
    ("Add or remove one row (n private)", Neighbouring.ADD_REMOVE),
    ("Replace one row (n public)", Neighbouring.REPLACE),
)


class SchemaEditor(QWidget):
    """Edits a :class:`Schema`; emits ``schema_changed`` with each valid new schema."""

    schema_changed = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.schema: Schema | None = None
        self.n_rows = 0
        self.dataset = None  # for reading levels off the data, on the curator's explicit request
        self.bound_errors: dict[str, str] = {}  # column → why its typed bounds are not declared
        self.missing: dict[str, int] = {}  # column → rows without a value (for the curator's eyes only)
        self.warning = named(QLabel(), "Missing bounds warning")
        self.warning.setWordWrap(True)
        self.warning.setStyleSheet(f"color: {WARNING_COLOR.name()}; font-weight: bold;")
        self.relation = named(
            QComboBox(),
            "Neighbouring relation",
            "Which datasets count as neighbours; sensitivities follow from it.",
        )
        for text, rel in RELATIONS:
            self.relation.addItem(text, rel.value)
        self.public_n = named(
            QSpinBox(),
            "Public number of rows",
            "Under 'replace one row' the number of rows n is public: type it in.",
        )
        self.public_n.setRange(1, 2_000_000_000)
        self.public_n.setGroupSeparatorShown(True)
        self.public_n.setEnabled(False)
        self.table = named(
            QTableWidget(0, 6),
            "Schema table",
            "Column kinds, declared public bounds and categorical levels. Double-click a bound to edit it.",
        )
        self.table.setHorizontalHeaderLabels(
            ["Column", "Kind", "Lower bound", "Upper bound", "Levels", "Status"])
        self.table.horizontalHeader().setSectionResizeMode(COL_STATUS, QHeaderView.ResizeMode.Stretch)
        self.table.verticalHeader().hide()
        self.error = ErrorLabel("Schema")
        rel_row = QHBoxLayout()
        rel_row.addWidget(QLabel("Neighbouring datasets differ by:"))
        rel_row.addWidget(self.relation)
        rel_row.addWidget(QLabel("n ="))
        rel_row.addWidget(self.public_n)
        rel_row.addStretch(1)
        hint = QLabel(
            "Bounds are public promises about the data: type them from what you know about the "
            "domain (e.g. age 17–90), never from the data itself."
        )
        hint.setWordWrap(True)
        hint.setEnabled(False)
        lay = QVBoxLayout(self)
        lay.addLayout(rel_row)
        lay.addWidget(self.warning)
        lay.addWidget(self.table, 1)
        lay.addWidget(self.error)
        lay.addWidget(hint)
        self.table.itemChanged.connect(self._item_changed)
        self.relation.currentIndexChanged.connect(self._relation_changed)
        self.public_n.editingFinished.connect(self._relation_changed)
        self._filling = False

    def set_schema(self, schema: Schema, n_rows: int = 0, dataset=None) -> None:
        """Show ``schema``; ``dataset`` (optional) lets the curator read levels off its rows."""
        if dataset is not None and dataset is not self.dataset:
            self.dataset, self.bound_errors = dataset, {}
            self.missing = missing_counts(dataset)
        self.schema, self.n_rows = schema, n_rows
        self._filling = True
        try:
            self.table.setRowCount(len(schema.columns))
            for r, col in enumerate(schema.columns):
                name = QTableWidgetItem(col.name)
                name.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable)
                self.table.setItem(r, COL_NAME, name)
                kind = QComboBox()
                named(kind, f"Kind of {col.name}", "How this column is read: numeric, categorical, …")
                for k in ColumnKind:
                    kind.addItem(k.value, k.value)
                kind.setCurrentIndex(kind.findData(col.kind.value))
                kind.currentIndexChanged.connect(lambda _i, c=col.name, w=kind: self._kind_changed(c, w))
                self.table.setCellWidget(r, COL_KIND, kind)
                numeric = col.kind == ColumnKind.NUMERIC
                for c, v in ((COL_LOWER, col.lower), (COL_UPPER, col.upper)):
                    item = QTableWidgetItem("" if v is None else field_text(v))
                    flags = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
                    item.setFlags(flags | Qt.ItemFlag.ItemIsEditable if numeric else flags)
                    item.setToolTip(
                        "Declared public bound (type a number; clear both to remove)"
                        if numeric
                        else "Only numeric columns have bounds"
                    )
                    self.table.setItem(r, c, item)
                self._set_levels_button(r, col)
                self._set_status(r, col)
            self.relation.setCurrentIndex(self.relation.findData(schema.neighbouring.value))
            self.public_n.setEnabled(schema.neighbouring == Neighbouring.REPLACE)
            if schema.n is not None:
                self.public_n.setValue(schema.n)
        finally:
            self._filling = False
        self.table.resizeColumnsToContents()
        self._update_warning()

    def _set_levels_button(self, row: int, col) -> None:
        if col.kind not in LEVEL_KINDS:
            self.table.removeCellWidget(row, COL_LEVELS)
            self.table.setItem(row, COL_LEVELS, QTableWidgetItem(""))
            return
        n = len(col.categories or ())
        button = named(QPushButton(f"{count(n, 'level')}…" if n else "Declare…"), f"Levels of {col.name}",
                       "Declare the possible values of this column (typed, pasted, or read from the data)")
        button.clicked.connect(lambda _=False, name=col.name: self.edit_levels(name))
        self.table.setCellWidget(row, COL_LEVELS, button)

    def edit_levels(self, name: str) -> LevelsDialog:
        """Open the levels dialog for ``name``; an accepted list becomes the column's declared levels."""
        assert self.schema is not None
        col = self.schema.column(name)
        read = (lambda: observed_values(self.dataset, name)) if self.dataset is not None else (lambda: [])
        dlg = LevelsDialog(name, list(col.categories or ()), read, self,
                           current_from_data=col.levels_from_data)
        dlg.read_button.setEnabled(self.dataset is not None)
        dlg.accepted.connect(lambda: self._levels_accepted(name, dlg))
        dlg.open()
        return dlg

    def _levels_accepted(self, name: str, dlg: LevelsDialog) -> None:
        assert self.schema is not None
        # the provenance rides in the schema: saved with it, remembered by the ledger, checked by the plan
        self._commit(self.schema.with_categories(name, dlg.levels, from_data=dlg.from_data), refill=True)

    def _set_status(self, row: int, col) -> None:
        problem = self.bound_errors.get(col.name)
        if problem is not None:
            item = QTableWidgetItem(f"⚠ {problem}")
            item.setForeground(WARNING_COLOR)
        elif col.levels_from_data:
            item = QTableWidgetItem(LEVELS_FROM_DATA)
            item.setForeground(WARNING_COLOR)
        elif col.kind == ColumnKind.NUMERIC and not col.bounded:
            item = QTableWidgetItem(NO_BOUNDS)
            item.setForeground(WARNING_COLOR)
        elif col.kind == ColumnKind.NUMERIC:
            item = QTableWidgetItem(f"✓ bounded to [{exact(col.lower)}, {exact(col.upper)}]")
        elif col.categories:
            item = QTableWidgetItem(f"{count(len(col.categories), 'declared category')}")
        elif col.kind in LEVEL_KINDS:
            item = QTableWidgetItem(NO_LEVELS)
        else:
            item = QTableWidgetItem("")
        missing = self.missing.get(col.name, 0)
        if missing:  # a summary for the curator, as the preview shows the rows: never released
            share = f" ({missing / self.n_rows:.1%})" if self.n_rows else ""
            item.setText(f"{item.text()} · {missing:,} missing{share}".lstrip(" ·"))
            item.setToolTip("Rows with no value in this column (empty, NA, NaN …): every query skips them. "
                            "Counted from the data for you only; never released.")
        item.setFlags(Qt.ItemFlag.ItemIsEnabled)
        self.table.setItem(row, COL_STATUS, item)

    def missing_bounds(self) -> list[str]:
        if self.schema is None:
            return []
        return [c.name for c in self.schema.of_kind(ColumnKind.NUMERIC) if not c.bounded]

    def _update_warning(self) -> None:
        missing = self.missing_bounds()
        self.warning.setText(
            f"⚠ {count(len(missing), 'numeric column')} without declared bounds: {', '.join(missing)}. "
            "Declare bounds before using them in sums or means."
            if missing
            else ""
        )
        self.warning.setVisible(bool(missing))

    # -- edits --------------------------------------------------------------------------------------
    def _item_changed(self, item: QTableWidgetItem) -> None:
        if self._filling or self.schema is None or item.column() not in (COL_LOWER, COL_UPPER):
            return
        r = item.row()
        name = self.schema.columns[r].name
        lo_text, hi_text = self.table.item(r, COL_LOWER).text(), self.table.item(r, COL_UPPER).text()
        try:
            if not lo_text.strip() and not hi_text.strip():
                new = self.schema.with_bounds(name, None, None)
            else:
                lo = parse_number(lo_text, f"lower bound of {name}")
                hi = parse_number(hi_text, f"upper bound of {name}")
                new = self.schema.with_bounds(name, lo, hi)
        except (ValueError, SchemaError) as exc:
            # what is wrong with what was typed comes first ("abc" is not a number), then what is missing
            typed_wrong = _not_a_number(lo_text, f"lower bound of {name}") or \
                _not_a_number(hi_text, f"upper bound of {name}")
            if typed_wrong is not None:
                problem = typed_wrong
            elif not lo_text.strip() or not hi_text.strip():
                problem = "type both a lower and an upper bound"
            else:  # on its own row: the column's name is said once, by the row and the message below
                problem = str(exc).removeprefix(f"column {name!r}: ")
            self.bound_errors[name] = problem
            self.error.show_error(f"Column {name!r}: {problem}.")
            self._set_status(r, self.schema.columns[r])  # on the row itself, not "no declared bounds"
            return
        self.bound_errors.pop(name, None)
        self._commit(new)

    def _kind_changed(self, name: str, combo: QComboBox) -> None:
        if self.schema is None or self._filling:
            return
        try:
            new = self.schema.with_kind(name, combo.currentData())
        except SchemaError as exc:
            self.error.show_error(str(exc))
            return
        self._commit(new, refill=True)

    def _relation_changed(self) -> None:
        if self.schema is None or self._filling:
            return
        rel = Neighbouring(self.relation.currentData())
        self.public_n.setEnabled(rel == Neighbouring.REPLACE)
        try:
            new = self.schema.with_neighbouring(
                rel, self.public_n.value() if rel == Neighbouring.REPLACE else None
            )
        except SchemaError as exc:
            self.error.show_error(str(exc))
            return
        self._commit(new)

    def _commit(self, schema: Schema, refill: bool = False) -> None:
        self.error.show_error(None)
        self.schema = schema
        if refill:
            self.set_schema(schema, self.n_rows)
        else:
            self._filling = True
            try:
                for r, col in enumerate(schema.columns):
                    self._set_status(r, col)
            finally:
                self._filling = False
            self._update_warning()
        self.schema_changed.emit(schema)


def _not_a_number(text: str, what: str) -> str | None:
    """Why a typed (non-empty) bound is not a number, or None (empty, or a number)."""
    if not text.strip():
        return None
    try:
        parse_number(text, what)
    except ValueError as exc:
        return str(exc)
    return None


def missing_counts(dataset) -> dict[str, int]:
    """Rows without a value per column, by the engines' one definition of a missing cell
    (``is_missing`` counts); only for data held in memory, where it is one quick vectorised pass (a
    file read in place or a cluster would be scanned again just for this)."""
    if getattr(dataset, "engine", "memory") != "memory":
        return {}
    names = [c.name for c in dataset.schema.columns if c.kind != ColumnKind.ITEMSET]
    try:
        counts = evaluate(dataset, [Count(Condition(name, "is_missing")) for name in names])
    except (QueryError, ValueError):
        return {}
    return {name: int(n) for name, n in zip(names, counts, strict=True) if n}
