"""Point-and-click construction of one query of any kind (no code, no free-text expressions).

Every field is a combo box or a plain number/text field, and the result is built with the data
layer's query classes, which validate it. A preview line shows the query in words and its
sensitivity; a problem is shown right under the builder and disables its buttons' effect.

A condition on a categorical column with declared levels offers them as a pick list, and a value
outside them is refused (by the condition's own schema check, the same in the plan and the CLI): a
typo such as ``female`` for ``Female`` counted nothing and still spent budget. Levels read from the
data are marked as such in the list.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from svtgui.app.numbers import exact
from svtgui.data.predicates import OPS, Condition, Junction
from svtgui.data.queries import CLOSED, ClipDiff, ClippedSum, Count, ItemSupport, Mean, Query, RangeCount
from svtgui.data.schema import ColumnKind, Schema
from svtgui.ui.common.theme import named
from svtgui.ui.setup.param_form import ErrorLabel, parse_number

KINDS = (
    ("count", "Count of rows matching conditions"),
    ("range", "Range count over a numeric column"),
    ("sum", "Clipped sum of a numeric column"),
    ("clip_diff", "Clipped-sum difference (clipping-bound search)"),
    ("item_support", "Item support (baskets containing items)"),
    ("mean", "Fraction of rows matching conditions (needs public n)"),
)
OP_TEXT = {
    "=": "=",
    "!=": "≠",
    "<": "<",
    "<=": "≤",
    ">": ">",
    ">=": "≥",
    "in": "in (a, b, …)",
    "between": "between (low, high)",
    "is_missing": "is missing",
}


def _value(text: str, kind: ColumnKind, what: str) -> Any:
    """A typed value: a number for numeric columns, True/False for booleans, else the text."""
    t = text.strip()
    if kind == ColumnKind.NUMERIC:
        return parse_number(t, what)
    if kind == ColumnKind.BOOLEAN:
        if t.lower() in ("true", "yes", "1"):
            return True
        if t.lower() in ("false", "no", "0"):
            return False
        raise ValueError(f"{what} must be true or false, got {t!r}")
    if not t:
        raise ValueError(f"{what} is empty")
    return t


class ConditionRow(QWidget):
    """column · operator · value."""

    def __init__(self, schema: Schema, remove) -> None:
        super().__init__()
        self.schema = schema
        self.column = named(QComboBox(), "Condition column")
        for c in schema.columns:
            if c.kind != ColumnKind.ITEMSET:
                self.column.addItem(c.name)
        self.op = named(QComboBox(), "Condition operator")
        for op in OPS:
            self.op.addItem(OP_TEXT[op], op)
        self.value = named(QLineEdit(), "Condition value", "A number, a category, or a list a, b, … for 'in'")
        self.levels = named(QComboBox(), "Declared levels", "Pick one of the column's declared levels")
        # narrow beside the value: the list opens as wide as its longest level
        self.levels.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.levels.setMinimumContentsLength(7)
        self.levels.activated.connect(self._pick)
        self.remove = named(QPushButton("−"), "Remove condition", "Remove this condition")
        self.remove.setMaximumWidth(32)
        self.remove.clicked.connect(lambda: remove(self))
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.column, 2)
        lay.addWidget(self.op, 1)
        lay.addWidget(self.value, 3)
        lay.addWidget(self.levels, 1)
        lay.addWidget(self.remove)
        self.op.currentIndexChanged.connect(
            lambda: self.value.setEnabled(self.op.currentData() != "is_missing")
        )
        self.column.currentIndexChanged.connect(self._offer_levels)
        self._offer_levels()

    def _offer_levels(self) -> None:
        """The chosen column's declared levels as a pick list (hidden when it has none)."""
        name = self.column.currentText()
        col = self.schema.column(name) if name in self.schema else None
        levels = col.categories if col is not None and col.kind == ColumnKind.CATEGORICAL else None
        self.levels.clear()
        if levels:
            self.levels.addItem("⚠ levels (from data)" if col.levels_from_data else "levels…")
            self.levels.setItemData(0, "levels read from the data: NOT public" if col.levels_from_data
                                    else "the column's declared levels", Qt.ItemDataRole.ToolTipRole)
            self.levels.addItems(list(levels))
        self.levels.setVisible(bool(levels))

    def _pick(self, index: int) -> None:
        """A level picked: the value ('in' adds it to the list)."""
        if index <= 0:
            return
        level = self.levels.itemText(index)
        current = self.value.text().strip()
        self.value.setText(f"{current}, {level}" if self.op.currentData() == "in" and current else level)
        self.levels.setCurrentIndex(0)

    def condition(self) -> Condition:
        name = self.column.currentText()
        kind = self.schema.column(name).kind
        op = self.op.currentData()
        if op == "is_missing":
            return Condition(name, op)
        text = self.value.text()
        if op in ("in", "between"):
            parts = [p for p in text.split(",") if p.strip()]
            values = [_value(p, kind, f"value of {name}") for p in parts]
            if op == "between" and len(values) != 2:
                raise ValueError(f"'between' needs two values 'low, high' for {name}, got {text.strip()!r}")
            return Condition(name, op, values)
        return Condition(name, op, _value(text, kind, f"value of {name}"))


class PredicateEditor(QWidget):
    """AND/OR of condition rows (none = all rows)."""

    changed = Signal()

    def __init__(self) -> None:
        super().__init__()
        self.schema: Schema | None = None
        self.junction = named(QComboBox(), "Combine conditions with")
        self.junction.addItem("all of (AND)", "and")
        self.junction.addItem("any of (OR)", "or")
        self.rows: list[ConditionRow] = []
        self.rows_box = QVBoxLayout()
        self.add = named(QPushButton("+ condition"), "Add condition", "Add a condition on a column")
        self.add.clicked.connect(lambda: self.add_row())
        top = QHBoxLayout()
        top.addWidget(QLabel("Rows matching"))
        top.addWidget(self.junction)
        top.addStretch(1)
        top.addWidget(self.add)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addLayout(top)
        lay.addLayout(self.rows_box)

    def set_schema(self, schema: Schema) -> None:
        self.schema = schema
        for r in list(self.rows):
            self._remove(r)
        self.add_row()

    def add_row(self) -> ConditionRow:
        assert self.schema is not None
        row = ConditionRow(self.schema, self._remove)
        for sig in (row.column.currentIndexChanged, row.op.currentIndexChanged, row.value.textChanged):
            sig.connect(self.changed)
        self.rows.append(row)
        self.rows_box.addWidget(row)
        self.changed.emit()
        return row

    def _remove(self, row: ConditionRow) -> None:
        self.rows.remove(row)
        row.setParent(None)
        row.deleteLater()
        self.changed.emit()

    def predicate(self):
        conds = [r.condition() for r in self.rows]
        if not conds:
            return None
        return conds[0] if len(conds) == 1 else Junction(self.junction.currentData(), tuple(conds))


class QueryBuilder(QWidget):
    """Kind selector + a form per kind; ``query()`` returns the built query or raises ValueError."""

    submitted = Signal(object)  # Query

    def __init__(self, action_text: str, action_tip: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.schema: Schema | None = None
        self._touched = False
        self.kind = named(QComboBox(), "Query kind", "What kind of query to build")
        for k, text in KINDS:
            self.kind.addItem(text, k)
        self.stack = QStackedWidget()
        self.predicate = PredicateEditor()
        self.mean_predicate = PredicateEditor()
        self.range_col, self.range_low, self.range_high = QComboBox(), QLineEdit(), QLineEdit()
        self.range_closed = QComboBox()
        for c in CLOSED:
            self.range_closed.addItem(
                {
                    "left": "[low, high)",
                    "right": "(low, high]",
                    "both": "[low, high]",
                    "neither": "(low, high)",
                }[c],
                c,
            )
        self.sum_col, self.sum_low, self.sum_high = QComboBox(), QLineEdit(), QLineEdit()
        self.sum_low.setPlaceholderText("declared bound")
        self.sum_high.setPlaceholderText("declared bound")
        self.clip_col, self.clip_bound, self.clip_step = QComboBox(), QLineEdit(), QLineEdit("1")
        self.clip_norm = QCheckBox("divide by the step (sensitivity 1)")
        self.items_col, self.items = QComboBox(), QLineEdit()
        self.items.setPlaceholderText("e.g. 39, 48")
        for w, name in (
            (self.range_col, "Range column"),
            (self.range_low, "Range low"),
            (self.range_high, "Range high"),
            (self.range_closed, "Range ends"),
            (self.sum_col, "Sum column"),
            (self.sum_low, "Sum lower clip"),
            (self.sum_high, "Sum upper clip"),
            (self.clip_col, "Clip column"),
            (self.clip_bound, "Clip bound b"),
            (self.clip_step, "Clip step s"),
            (self.clip_norm, "Normalise clip difference"),
            (self.items_col, "Item column"),
            (self.items, "Items"),
        ):
            named(w, name)
        self.stack.addWidget(self.predicate)
        self.stack.addWidget(
            self._form(
                ("Column", self.range_col),
                ("Low", self.range_low),
                ("High", self.range_high),
                ("Ends", self.range_closed),
            )
        )
        self.stack.addWidget(
            self._form(("Column", self.sum_col), ("Clip lower", self.sum_low), ("Clip upper", self.sum_high))
        )
        self.stack.addWidget(
            self._form(
                ("Column", self.clip_col),
                ("Bound b", self.clip_bound),
                ("Step s", self.clip_step),
                ("", self.clip_norm),
            )
        )
        self.stack.addWidget(self._form(("Column", self.items_col), ("Items (all of)", self.items)))
        self.stack.addWidget(self.mean_predicate)
        self.preview = named(QLabel(), "Query preview")
        self.preview.setWordWrap(True)
        self.error = ErrorLabel("Query")
        self.action = named(QPushButton(action_text), action_text, action_tip)
        self.action.clicked.connect(self.submit)
        bottom = QHBoxLayout()
        bottom.addWidget(self.preview, 1)
        bottom.addWidget(self.action)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.kind)
        lay.addWidget(self.stack)
        lay.addLayout(bottom)
        lay.addWidget(self.error)
        self.kind.currentIndexChanged.connect(self._kind_changed)
        for w in (
            self.range_low,
            self.range_high,
            self.sum_low,
            self.sum_high,
            self.clip_bound,
            self.clip_step,
            self.items,
        ):
            w.textChanged.connect(self.update_preview)
        for cb in (self.range_col, self.range_closed, self.sum_col, self.clip_col, self.items_col):
            cb.currentIndexChanged.connect(self.update_preview)
        self.clip_norm.toggled.connect(self.update_preview)
        self.predicate.changed.connect(self.update_preview)
        self.mean_predicate.changed.connect(self.update_preview)

    @staticmethod
    def _form(*rows: tuple[str, QWidget]) -> QWidget:
        w = QWidget()
        f = QFormLayout(w)
        f.setContentsMargins(0, 0, 0, 0)
        for label, widget in rows:
            f.addRow(label, widget)
        return w

    def set_schema(self, schema: Schema) -> None:
        self.schema = schema
        numeric = [c.name for c in schema.of_kind(ColumnKind.NUMERIC)]
        itemsets = [c.name for c in schema.of_kind(ColumnKind.ITEMSET)]
        for combo, names in (
            (self.range_col, numeric),
            (self.sum_col, numeric),
            (self.clip_col, numeric),
            (self.items_col, itemsets),
        ):
            combo.blockSignals(True)
            combo.clear()
            combo.addItems(names)
            combo.blockSignals(False)
        self.predicate.set_schema(schema)
        self.mean_predicate.set_schema(schema)
        if itemsets and not numeric:
            self.kind.setCurrentIndex(self.kind.findData("item_support"))
        self._touched = False  # filling the form is not the user typing: no error until they do
        self.update_preview()

    def _kind_changed(self) -> None:
        self.stack.setCurrentIndex(self.kind.currentIndex())
        self.update_preview()

    def query(self) -> Query:
        """The query the fields describe (ValueError naming the field otherwise)."""
        if self.schema is None:
            raise ValueError("load a dataset first")
        kind = self.kind.currentData()
        q: Query
        if kind == "count":
            q = Count(self.predicate.predicate())
        elif kind == "mean":
            q = Mean(self.mean_predicate.predicate())
        elif kind == "range":
            q = RangeCount(
                self._column(self.range_col),
                parse_number(self.range_low.text(), "Low"),
                parse_number(self.range_high.text(), "High"),
                self.range_closed.currentData(),
            )
        elif kind == "sum":
            lo, hi = self.sum_low.text().strip(), self.sum_high.text().strip()
            q = ClippedSum(
                self._column(self.sum_col),
                parse_number(lo, "Clip lower") if lo or hi else None,
                parse_number(hi, "Clip upper") if lo or hi else None,
            )
        elif kind == "clip_diff":
            q = ClipDiff(
                self._column(self.clip_col),
                parse_number(self.clip_bound.text(), "Bound b"),
                parse_number(self.clip_step.text(), "Step s"),
                self.clip_norm.isChecked(),
            )
        else:
            parts = [p.strip() for p in self.items.text().split(",") if p.strip()]
            if not parts:
                raise ValueError("Items is empty: type one or more item ids separated by commas")
            q = ItemSupport(
                tuple(int(p) if p.lstrip("-").isdigit() else p for p in parts), self._column(self.items_col)
            )
        q.validate(self.schema)
        q.sensitivity(self.schema)  # refuses sums over undeclared bounds, means without public n
        return q

    @staticmethod
    def _column(combo: QComboBox) -> str:
        if not combo.currentText():
            raise ValueError("this dataset has no column of the kind this query needs")
        return combo.currentText()

    def update_preview(self) -> None:
        """Describe the query as it is typed; problems are shown once the user has typed something."""
        sender = self.sender()
        if isinstance(sender, QLineEdit | QCheckBox | PredicateEditor) and sender is not self.kind:
            self._touched = True
        try:
            q = self.query()
        except ValueError as exc:
            self.preview.setText("")
            self.error.show_error(str(exc) if self._touched else None)
            return
        self.error.show_error(None)
        assert self.schema is not None
        self.preview.setText(
            f"{q.describe()}   ·   Δ = {exact(q.sensitivity(self.schema))}"
            + ("" if q.monotonic_for(self.schema) else "   ·   not monotonic")
        )

    def submit(self) -> None:
        self._touched = True
        try:
            q = self.query()
        except ValueError as exc:
            self.error.show_error(str(exc))
            return
        self.submitted.emit(q)
