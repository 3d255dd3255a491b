"""Queries → Recipes…: the seeds' recipes from the window, with what each will spend before it spends.

A thin view over :mod:`svtgui.app.recipes`: the dialog builds a :class:`~svtgui.app.recipes.RecipePlan`
from its fields on every edit, shows the plan's own check (never a rule of its own) and the cost
against the dataset's remaining budget, and runs the plan as a background task that opens its own
ledger connection (SQLite connections belong to one thread). What a recipe released is shown in
words; the run lands in the ledger and the history like any other.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QStackedWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from svtgui.app import dataset_identity, gate, recipes
from svtgui.app.domains import OVERRIDE_LABEL, Domains, reminder
from svtgui.app.numbers import amount, exact, field_text
from svtgui.app.reports.content import statistics
from svtgui.app.reports.html import statistics_table
from svtgui.data import generators
from svtgui.data.provenance import items_note
from svtgui.data.schema import ColumnKind
from svtgui.ledger import Ledger
from svtgui.ui.common.background import Background, busy_bar
from svtgui.ui.common.theme import named

AUTO_MEAN, SCREEN, ITEMS = "auto_mean", "screen_ranges", "frequent_items"


def _number(text: str, name: str) -> float:
    if not text.strip():
        raise ValueError(f"{name} is empty: type a number")
    try:
        return float(text.strip())
    except ValueError:
        raise ValueError(f"{name} must be a number, got {text.strip()!r}") from None


def _field(name: str, text: str, tip: str) -> QLineEdit:
    return named(QLineEdit(text), name, tip)


class RecipesDialog(QDialog):
    """Pick a recipe, fill its fields, read what it will spend, run it (one ledger run)."""

    ran = Signal(int)  # the ledger run id of a finished recipe

    def __init__(self, dataset: Any, ledger_path: Path, dataset_id: str | None,
                 remaining: Callable[[], Fraction | None], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Recipes")
        self.ds, self.ledger_path, self.dataset_id = dataset, ledger_path, dataset_id
        self._remaining = remaining
        self.plan: recipes.RecipePlan | None = None
        self._ready = False  # fields fill in while the forms are built: no plan until all exist
        self.background = Background("recipe", self)
        numeric = [c.name for c in dataset.schema.columns if c.kind == ColumnKind.NUMERIC]

        self.picker = named(QComboBox(), "Recipe", "Which recipe to run")
        self.forms = QStackedWidget()
        for key, info, form in ((AUTO_MEAN, recipes.AUTO_MEAN, self._mean_form(numeric)),
                                (SCREEN, recipes.SCREEN_RANGES, self._screen_form(numeric)),
                                (ITEMS, recipes.FREQUENT_ITEMS, self._items_form())):
            self.picker.addItem(info.name.replace(" (recipe)", ""), key)
            self.forms.addWidget(form)
        if dataset.is_transactions:
            self.picker.setCurrentIndex(2)
        self.about = named(QLabel(), "Recipe description")
        self.about.setWordWrap(True)
        self.cost = named(QLabel(), "Recipe cost")
        self.cost.setWordWrap(True)
        # A recipe can be the first release on a dataset: its total budget is declared here, as on the
        # Run page, and recorded with the recipe's charge (nothing is written before Run).
        self.total = _field("Dataset total epsilon", "", "The total ε every release on these rows may ever "
                            "spend together (all runs and recipes). Recorded in the ledger with the first "
                            "release; it can be raised later, with a logged reason, never lowered")
        self.total.setPlaceholderText("e.g. 2")
        self.total_row = QWidget()
        total_form = QFormLayout(self.total_row)
        total_form.setContentsMargins(0, 0, 0, 0)
        total_form.addRow(named(QLabel("This dataset is new to the ledger. Its total budget ε:"),
                                "Dataset total label"), self.total)
        self.total_row.setVisible(dataset_id is None)
        self.total.textChanged.connect(self.refresh)
        self.run_button = named(QPushButton("Run"), "Run recipe")
        self.busy = busy_bar("Recipe running", "The recipe is running")
        self.result = named(QTextBrowser(), "Recipe result")
        self.result.setMinimumHeight(140)
        self.result.setPlaceholderText("What the recipe releases appears here.")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)

        layout = QVBoxLayout(self)
        layout.addWidget(self.picker)
        layout.addWidget(self.about)
        layout.addWidget(self.forms)
        layout.addWidget(self.total_row)
        layout.addWidget(self.cost)
        layout.addWidget(self.run_button, alignment=Qt.AlignmentFlag.AlignLeft)
        layout.addWidget(self.busy)
        layout.addWidget(self.result, 1)
        layout.addWidget(buttons)

        self.picker.currentIndexChanged.connect(self._switch)
        self.run_button.clicked.connect(self.run)
        self._ready = True
        self._switch()
        self.resize(560, 620)

    # ------------------------------------------------------------------ forms
    def _mean_form(self, numeric: list[str]) -> QWidget:
        w, form = QWidget(), QFormLayout()
        w.setLayout(form)
        self.mean_column = named(QComboBox(), "Mean column", "The numeric column whose mean is released")
        self.mean_column.addItems(numeric)
        self.mean_epsilon = _field("Mean epsilon", "1",
                                   "ε of the whole recipe, split between its three steps")
        self.mean_split = _field("Mean split", "1, 1, 1",
                                 "How ε is shared between the bound search, the sum and the count, as "
                                 "proportions: 1, 1, 1 gives each a third; 1, 2, 1 gives the sum half")
        self.mean_sweep = _field("Mean sweep", "", "Bounds tried: start, stop, step. The default comes from "
                                 "the column's declared upper bound (never from the data)")
        form.addRow("Column", self.mean_column)
        form.addRow("ε", self.mean_epsilon)
        form.addRow("Shares of ε\n(bound search, sum, count)", self.mean_split)
        form.addRow("Bounds tried\n(from, to, step)", self.mean_sweep)
        note = named(QLabel("The bounds tried go past the column's declared upper bound on purpose: "
                            "AboveThreshold needs a stretch where clipping loses nothing."),
                     "Mean sweep note")
        note.setWordWrap(True)
        form.addRow("", note)
        self.mean_column.currentIndexChanged.connect(self._default_sweep)
        for box in (self.mean_epsilon, self.mean_split, self.mean_sweep):
            box.textChanged.connect(self.refresh)
        self._default_sweep()
        return w

    def _default_sweep(self) -> None:
        column = self.mean_column.currentText()
        if column:
            start, stop, step = recipes.default_sweep(self.ds, column)
            self.mean_sweep.setText(", ".join(field_text(v) for v in (start, stop, step)))

    def _screen_form(self, numeric: list[str]) -> QWidget:
        w, form = QWidget(), QFormLayout()
        w.setLayout(form)
        self.screen_column = named(QComboBox(), "Screen column", "The numeric column the ranges are on")
        self.screen_column.addItems(numeric)
        self.screen_ranges = _field("Screen ranges", "", "Ranges [a, a + width) for a = start, start + "
                                    "step, …: start, stop, width")
        self.screen_threshold = _field("Screen threshold", "", "Public threshold T: ranges whose count is "
                                       "above it are answered. Choose it from what you know of the "
                                       "population, never from the data")
        self.screen_threshold.setPlaceholderText("e.g. 1000")
        self.screen_cutoff = _field("Screen cutoff", "3", "At most c ranges are answered")
        self.screen_epsilon = _field("Screen epsilon", "1",
                                     "ε of the whole recipe: half selects, half answers")
        form.addRow("Column", self.screen_column)
        form.addRow("Ranges\n(from, to, width)", self.screen_ranges)
        form.addRow("Threshold T", self.screen_threshold)
        form.addRow("Cutoff c", self.screen_cutoff)
        form.addRow("ε", self.screen_epsilon)
        self.screen_column.currentIndexChanged.connect(self._default_ranges)
        for box in (self.screen_ranges, self.screen_threshold, self.screen_cutoff, self.screen_epsilon):
            box.textChanged.connect(self.refresh)
        self._default_ranges()
        return w

    def _default_ranges(self) -> None:
        name = self.screen_column.currentText()
        if not name:
            return
        col = self.ds.schema.column(name)
        lo, hi = (col.lower, col.upper) if col.lower is not None and col.upper is not None else (0.0, 100.0)
        width = max((hi - lo) / 10, 1.0)
        if float(lo).is_integer() and float(hi).is_integer():  # whole bounds: whole ranges (17 ≤ age < 25,
            width = float(math.ceil(width))                   # not 17 ≤ age < 24.3)
        self.screen_ranges.setText(", ".join(field_text(v) for v in (lo, hi + 1, width)))

    def _items_form(self) -> QWidget:
        w, form = QWidget(), QFormLayout()
        w.setLayout(form)
        self.items_domain = _field("Item domain", "", "The PUBLIC list of possible items as a range LO-HI "
                                   "(e.g. every product id of the catalogue)")
        self.items_from_data = named(QCheckBox("Use the items that occur in the data (NOT public)"),
                                     "Items from data", "Reading the item list off the data reveals which "
                                     "items occur: use it only for demonstrations, never for a release")
        self.items_allow = named(QCheckBox(OVERRIDE_LABEL), "Allow items from data",
                                 "Without it a release over the items that occur is refused; with it, it is "
                                 "recorded and reported as NOT differentially private")
        self.items_allow.setVisible(False)
        self.items_cutoff = _field("Items cutoff", "10", "How many items to choose (c)")
        self.items_method = named(QComboBox(), "Items method", "The exponential mechanism (recommended) or "
                                  "Standard SVT, for comparison")
        for label, key in (("Exponential mechanism (top c)", "em_top_c"), ("Standard SVT", "standard_svt")):
            self.items_method.addItem(label, key)
        self.items_threshold = _field("Items threshold", "", "Public support threshold (Standard SVT only)")
        self.items_epsilon = _field("Items epsilon", "1", "ε of the whole recipe")
        form.addRow("Item domain", self.items_domain)
        form.addRow("", self.items_from_data)
        form.addRow("", self.items_allow)
        form.addRow("Cutoff c", self.items_cutoff)
        form.addRow("Method", self.items_method)
        form.addRow("Threshold T", self.items_threshold)
        form.addRow("ε", self.items_epsilon)
        for box in (self.items_domain, self.items_cutoff, self.items_threshold, self.items_epsilon):
            box.textChanged.connect(self.refresh)
        self.items_from_data.toggled.connect(self.items_allow.setVisible)
        self.items_from_data.toggled.connect(lambda on: on or self.items_allow.setChecked(False))
        self.items_from_data.toggled.connect(self.refresh)
        self.items_allow.toggled.connect(self.refresh)
        self.items_method.currentIndexChanged.connect(self.refresh)
        return w

    # ------------------------------------------------------------------ plan and cost
    def _switch(self) -> None:
        self.forms.setCurrentIndex(self.picker.currentIndex())
        info = recipes.RECIPES[f"recipe_{self.picker.currentData()}"]
        self.about.setText(f"{info.summary}<br><i>{info.citation}</i>")
        self.refresh()

    def _build(self) -> recipes.RecipePlan:
        key = self.picker.currentData()
        if key == AUTO_MEAN:
            sweep = _numbers(self.mean_sweep.text(), 3, "Bounds tried (start, stop, step)")
            split = _numbers(self.mean_split.text(), 3, "ε split")
            return recipes.auto_mean(self.ds, self.mean_column.currentText(),
                                     _number(self.mean_epsilon.text(), "ε"), sweep=tuple(sweep), split=split)
        if key == SCREEN:
            start, stop, width = _numbers(self.screen_ranges.text(), 3, "Ranges (start, stop, width)")
            queries = generators.range_sweep(self.screen_column.currentText(), start, stop, width)
            return recipes.screen_ranges(self.ds, queries, _number(self.screen_epsilon.text(), "ε"),
                                         _number(self.screen_threshold.text(), "Threshold T"),
                                         _count(self.screen_cutoff.text(), "Cutoff c"))
        method = self.items_method.currentData()
        threshold = None if method == "em_top_c" else _number(self.items_threshold.text(), "Threshold T")
        from_data = (items_note("items"),) if self.items_from_data.isChecked() else ()
        return recipes.frequent_items(self.ds, self._domain(), _count(self.items_cutoff.text(), "Cutoff c"),
                                      _number(self.items_epsilon.text(), "ε"), method=method,
                                      threshold=threshold,
                                      domains=Domains(from_data, self.items_allow.isChecked()))

    def _domain(self) -> list[Any]:
        if self.items_from_data.isChecked():
            return generators.observed_items(self.ds, "items")
        text = self.items_domain.text().strip()
        lo, sep, hi = text.partition("-")
        if not sep or not lo.strip().isdigit() or not hi.strip().isdigit():
            raise ValueError("give the public item domain as a range LO-HI (e.g. 0-16469)")
        if int(hi) < int(lo):
            raise ValueError(f"the item domain {text} is empty (HI is below LO)")
        return list(range(int(lo), int(hi) + 1))

    def refresh(self) -> None:
        """Rebuild the plan from the fields and say what it costs, or why it cannot run."""
        if not self._ready:
            return
        self.plan, problem = None, None
        try:
            plan = self._build()
            plan.check()
            self.plan = plan
        except ValueError as exc:
            problem = str(exc)
        remaining = self._remaining()
        if self.dataset_id is None:
            try:
                remaining = self._declared_total()
            except ValueError as exc:
                problem = problem or str(exc)
        if problem is None and self.plan is not None:
            cost = Fraction(repr(float(self.plan.epsilon)))
            if remaining is not None and cost > remaining:
                problem = (f"it needs ε = {amount(cost)} but the dataset has ε = {amount(remaining)} left"
                           if self.dataset_id is not None else
                           f"it needs ε = {amount(cost)}, more than the total ε = {amount(remaining)} "
                           "declared")
            else:
                left = f" of the {amount(remaining)} left" if remaining is not None else ""
                self.cost.setText(f"Running it spends ε = {amount(cost)}{left} (charged in full before the "
                                  "data is read; never refunded). "
                                  f"{reminder(self.plan.domains_from_data())}".strip())
        if problem is not None:
            self.cost.setText(f"Cannot run: {problem}.")
        self.cost.setStyleSheet("" if problem is None else "color: #D55E00;")
        self.run_button.setEnabled(problem is None and not self.background.busy)
        self.run_button.setToolTip(self.cost.text())
        if problem is None and self.plan is not None:
            self.run_button.setText(f"Run (spend ε = {amount(Fraction(repr(float(self.plan.epsilon))))})")

    def _declared_total(self) -> Fraction:
        """The total ε typed for a dataset new to the ledger; ValueError saying what is wrong."""
        text = self.total.text().strip()
        if not text:
            raise ValueError("this dataset is new to the ledger: declare its total budget ε (every release "
                             "on it, together) above")
        try:
            total = Fraction(text)
        except (ValueError, ZeroDivisionError):
            raise ValueError(f"the total budget ε must be a number (like 2, 0.5 or 1/3), "
                             f"got {text!r}") from None
        if total <= 0:
            raise ValueError(f"the total budget ε must be positive, got {text}")
        return total

    # ------------------------------------------------------------------ running
    def run(self) -> None:
        if self.plan is None:
            return
        total = None if self.dataset_id is not None else self.total.text().strip()
        self.run_button.setEnabled(False)
        self.busy.show()
        self.result.clear()
        self.background.start(_run_recipe, self._done, self._failed, self.plan, self.ledger_path,
                              self.dataset_id, self.ds, total)

    def _done(self, done: recipes.RecipeRun) -> None:
        if self.dataset_id is None:  # the recipe was the first release: the dataset is known from now on
            self.dataset_id = done.record.dataset_id
            self.total_row.hide()
        self.busy.hide()
        with Ledger.open(self.ledger_path) as led:  # a few ⊤ rows and facts: quick on this thread
            table = statistics(led, done.record.id)
        self.result.setHtml(describe(done, table))
        self.refresh()
        self.ran.emit(done.record.id)

    def _failed(self, exc: BaseException) -> None:
        self.busy.hide()
        self.result.setPlainText(f"The recipe failed: {exc}. If it had started, its ε stays spent (the run "
                                 "is marked interrupted in the ledger).")
        self.refresh()


def _run_recipe(_state: Any, plan: recipes.RecipePlan, ledger_path: Path, dataset_id: str | None,
                ds: Any, total: str | None) -> recipes.RecipeRun:
    """The task: this thread's own ledger connection; rows new to the ledger are registered with the
    declared ``total`` first (rows that look like a known dataset raise: the Run page asks which), then
    the recipe is charged through the gate to the rows' dataset."""
    with Ledger.open(ledger_path) as led:
        if dataset_id is None:
            plan.check()  # nothing is registered for a recipe that cannot run,
            gate.screen(led, plan.request())  # nor for one the gate refuses
            dataset_identity.register(led, ds, total)
        return plan.run(led)


def _numbers(text: str, n: int, name: str) -> list[float]:
    parts = [p for p in text.replace(";", ",").split(",") if p.strip()]
    if len(parts) != n:
        raise ValueError(f"{name}: give {n} numbers separated by commas")
    return [_number(p, name) for p in parts]


def _count(text: str, name: str) -> int:
    value = _number(text, name)
    if value != int(value) or value < 1:
        raise ValueError(f"{name} must be a whole number ≥ 1, got {text.strip()!r}")
    return int(value)


def describe(done: recipes.RecipeRun, table: list[dict[str, Any]]) -> str:
    """What a recipe released: its statistics table (values with their exact intervals, as its report
    opens with), and how the recipe got there. Only released values; user text is escaped."""
    f, rid = done.facts, done.record.mechanism_id
    head = f"<p><b>Run {done.record.id}</b> · charged ε = {amount(done.record.epsilon)}</p>"
    if rid == recipes.AUTO_MEAN.id:
        how = ("found by AboveThreshold" if f["bound_found"]
               else "AboveThreshold never fired: the last bound tried")
        head += f"<p>Clipping bound: <b>{exact(f['bound'])}</b> ({how}).</p>"
    elif rid == recipes.SCREEN_RANGES.id and not f["answers"]:
        head += f"<p>No range was found above the threshold ({f['examined']:,} examined).</p>"
    return head + "".join(statistics_table(table))
