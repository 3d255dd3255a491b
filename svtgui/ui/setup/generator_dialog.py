"""Generators as a dialog: sweeps, random ranges, clip-bound searches, items, values, marginals.

Each generator is a small form of public inputs whose defaults come from the column's declared
bounds (never from the data). "Add to queue" reads the form on the GUI thread, then builds the
list as a background task with a progress bar and Cancel (two million ranges take seconds);
``ValueError`` naming the field otherwise. Domains read off the data ("the items that occur",
schema levels read from the data) are named in a reminder under the form as the curator picks
them, and the list takes them along (``from_data``) into the queue: a release over it is refused
unless the curator allows it, and is then NOT differentially private (:mod:`svtgui.app.domains`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from svtgui.app.domains import listing
from svtgui.app.numbers import field_text
from svtgui.app.recipes import default_sweep
from svtgui.app.tasks import TaskCancelled
from svtgui.core.progress import NO_PROGRESS, ProgressState
from svtgui.data import generators, provenance
from svtgui.data.schema import ColumnKind
from svtgui.ui.common.background import Background
from svtgui.ui.common.theme import WARNING_COLOR, named
from svtgui.ui.setup.param_form import ErrorLabel, parse_number

Job = Callable[[ProgressState], list[Any]]  # the form's values bound in; runs off the GUI thread


class GeneratorDialog(QDialog):
    """Pick a generator, fill in its public inputs, get a query list (appended to the queue)."""

    def __init__(self, dataset, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Generate queries")
        self.ds = dataset
        schema = dataset.schema
        numeric = [c.name for c in schema.of_kind(ColumnKind.NUMERIC)]
        categorical = [
            c.name for c in schema.columns if c.kind in (ColumnKind.CATEGORICAL, ColumnKind.BOOLEAN)
        ]
        itemsets = [c.name for c in schema.of_kind(ColumnKind.ITEMSET)]
        self.kind = named(QComboBox(), "Generator")
        self.stack = QStackedWidget()
        self.fields: dict[str, QWidget] = {}
        self.builders: list[Callable[[], Job]] = []
        self.sources: list[Callable[[], list[str]]] = []  # per generator: the domains it reads off the data
        self.background = Background("generate", self)

        def combo(name: str, names: list[str]) -> QComboBox:
            c = named(QComboBox(), name)
            c.addItems(names)
            return c

        def line(name: str, text: str = "") -> QLineEdit:
            return named(QLineEdit(text), name)

        def num(key: str, what: str) -> float:
            w = self.fields[key]
            assert isinstance(w, QLineEdit)
            return parse_number(w.text(), what)

        def col(key: str) -> str:
            w = self.fields[key]
            assert isinstance(w, QComboBox)
            if not w.currentText():
                raise ValueError("this dataset has no column of the kind this generator needs")
            return w.currentText()

        def declared(*names: str) -> list[str]:
            """Columns whose levels are declared; else what to do, in this window's words."""
            for name in names:
                if not schema.column(name).categories:
                    raise ValueError(f"column {name!r} has no declared levels: declare them on the Schema "
                                     "page (the Declare… button in its row), then generate")
            return list(names)

        def bounds_of(name: str) -> tuple[str, str]:
            c = schema.column(name) if name else None
            if c is not None and c.bounded:
                return field_text(c.lower), field_text(c.upper)
            return "", ""

        lo0, hi0 = bounds_of(numeric[0] if numeric else "")
        self._page(
            "Random ranges over a numeric column",
            [
                ("Column", "rr_col", combo("Random ranges column", numeric)),
                ("Low", "rr_low", line("Random ranges low", lo0)),
                ("High", "rr_high", line("Random ranges high", hi0)),
                ("How many", "rr_k", self._spin("Number of random ranges", 10_000)),
                ("Seed (public)", "rr_seed", self._spin("Random ranges seed", 1, 0)),
            ],
            lambda: _bind(
                generators.random_ranges,
                col("rr_col"),
                num("rr_low", "Low"),
                num("rr_high", "High"),
                self._int("rr_k"),
                seed=self._int("rr_seed"),
            ),
        )
        self._page(
            "Range sweep (sliding windows)",
            [
                ("Column", "rs_col", combo("Sweep column", numeric)),
                ("Start", "rs_start", line("Sweep start", lo0)),
                ("Stop", "rs_stop", line("Sweep stop", hi0)),
                ("Window width", "rs_width", line("Sweep width", "5")),
                ("Step (empty = width)", "rs_step", line("Sweep step")),
            ],
            lambda: _bind(
                generators.range_sweep,
                col("rs_col"),
                num("rs_start", "Start"),
                num("rs_stop", "Stop"),
                num("rs_width", "Window width"),
                num("rs_step", "Step") if self._text("rs_step") else None,
            ),
        )
        geo = named(QCheckBox("geometric (step is a ratio > 1)"), "Geometric sweep")
        stall = named(QCheckBox("ask \"has the sum stopped growing?\" (for AboveThreshold, T = 0)"),
                      "Stopped growing form",
                      "Ticked: each query is −(Σclip(b+s) − Σclip(b)), so AboveThreshold with T = 0 answers "
                      "⊤ at the first bound b past the data. Unticked: the plain difference, which is "
                      "large at small b, so AboveThreshold would halt at once on the first bound.")
        stall.setChecked(True)
        self._page(
            "Clip-bound sweep (choose a clipping bound)",
            [
                ("Column", "cb_col", combo("Clip sweep column", numeric)),
                ("Start", "cb_start", line("Clip sweep start", "1")),
                ("Stop", "cb_stop", line("Clip sweep stop", "150000")),
                ("Step", "cb_step", line("Clip sweep step", "5")),
                ("", "cb_geo", geo),
                ("", "cb_stall", stall),
            ],
            lambda: _bind(
                generators.clip_bound_sweep,
                col("cb_col"),
                num("cb_start", "Start"),
                num("cb_stop", "Stop"),
                num("cb_step", "Step"),
                geometric=geo.isChecked(),
                stalls=stall.isChecked(),
            ),
        )
        self._page(
            "Every value of a categorical column (declared categories)",
            [
                ("Column", "ev_col", combo("Every value column", categorical)),
            ],
            lambda: _fixed(generators.every_value(schema, *declared(col("ev_col")))),
            lambda: provenance.schema_notes(schema, [col("ev_col")]),
        )
        marg = named(QListWidget(), "Marginal columns")
        marg.addItems(categorical)
        marg.setSelectionMode(QListWidget.SelectionMode.MultiSelection)
        self._page(
            "All k-way marginal cells",
            [
                ("Columns", "mg_cols", marg),
                ("k", "mg_k", self._spin("Marginal order k", 2, 1)),
            ],
            lambda: _fixed(generators.marginals(schema, declared(*[i.text() for i in marg.selectedItems()]),
                                                self._int("mg_k"))),
            lambda: provenance.schema_notes(schema, [i.text() for i in marg.selectedItems()]),
        )
        observed = named(
            QCheckBox("use the items that occur in the data (reveals which items occur)"),
            "Use observed items",
        )
        self._page(
            "Every item (transaction data)",
            [
                ("Column", "ei_col", combo("Item column", itemsets)),
                ("Items (comma-separated)", "ei_items", line("Item list")),
                ("", "ei_obs", observed),
            ],
            lambda: _fixed(generators.every_item(
                generators.observed_items(self.ds, col("ei_col"))
                if observed.isChecked()
                else [
                    int(p) if p.strip().lstrip("-").isdigit() else p.strip()
                    for p in self._text("ei_items").split(",")
                    if p.strip()
                ],
                col("ei_col"),
            )),
            lambda: [provenance.items_note(col("ei_col"))] if observed.isChecked() else [],
        )

        self.error = ErrorLabel("Generator")
        self.reminder = named(QLabel(), "Domains read from the data reminder")
        self.reminder.setWordWrap(True)
        self.reminder.setStyleSheet(f"color: {WARNING_COLOR.name()}; font-weight: bold;")
        self.count = named(QLabel(""), "Generated count")
        self.progress = named(QProgressBar(), "Generator progress", "Queries built so far")
        self.progress.hide()
        self.cancel_button = named(QPushButton("Cancel generation"), "Cancel generation",
                                   "Stop building the list; nothing is added to the queue")
        self.cancel_button.hide()
        self.cancel_button.clicked.connect(self._cancel)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Add to queue")
        self.buttons.accepted.connect(self._accept)
        self.buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addWidget(self.kind)
        lay.addWidget(self.stack)
        lay.addWidget(self.reminder)
        lay.addWidget(self.error)
        lay.addWidget(self.progress)
        lay.addWidget(self.cancel_button)
        lay.addWidget(self.buttons)
        self.kind.currentIndexChanged.connect(self.stack.setCurrentIndex)
        self._follow_bounds(numeric)
        self._clear_errors_on_edit()
        if itemsets and not numeric:
            self.kind.setCurrentIndex(self.kind.count() - 1)
        self.result: list = []
        self.from_data: tuple[str, ...] = ()  # the domains read off the data the result was built from
        self._remind()

    def _spin(self, name: str, value: int, minimum: int = 1) -> QSpinBox:
        s = named(QSpinBox(), name)
        s.setRange(minimum, generators.MAX_QUERIES)
        s.setGroupSeparatorShown(True)
        s.setValue(value)
        return s

    def _int(self, key: str) -> int:
        w = self.fields[key]
        assert isinstance(w, QSpinBox)
        return w.value()

    def _text(self, key: str) -> str:
        w = self.fields[key]
        assert isinstance(w, QLineEdit)
        return w.text().strip()

    def _page(self, title: str, rows: list[tuple[str, str, QWidget]], build: Callable[[], Job],
              reads: Callable[[], list[str]] = list) -> None:
        """One generator's form; ``reads`` names the domains it would read off the data as filled in."""
        page = QWidget()
        form = QFormLayout(page)
        for label, key, widget in rows:
            self.fields[key] = widget
            form.addRow(label, widget)
        self.stack.addWidget(page)
        self.kind.addItem(title)
        self.builders.append(build)
        self.sources.append(reads)

    def select(self, title_start: str) -> None:
        for i in range(self.kind.count()):
            if self.kind.itemText(i).startswith(title_start):
                self.kind.setCurrentIndex(i)
                return
        raise KeyError(title_start)

    def _follow_bounds(self, numeric: list[str]) -> None:
        """Each numeric generator's defaults follow its column's declared bounds as the column changes."""
        schema, f = self.ds.schema, self.fields

        def fill(low_key: str, high_key: str, name: str) -> None:
            c = schema.column(name) if name else None
            if c is not None and c.bounded:
                f[low_key].setText(field_text(c.lower))
                f[high_key].setText(field_text(c.upper))

        def sweep(name: str) -> None:
            if name:
                start, stop, step = default_sweep(self.ds, name)
                for key, value in (("cb_start", start), ("cb_stop", stop), ("cb_step", step)):
                    f[key].setText(field_text(value))

        f["rr_col"].currentTextChanged.connect(lambda name: fill("rr_low", "rr_high", name))
        f["rs_col"].currentTextChanged.connect(lambda name: fill("rs_start", "rs_stop", name))
        f["cb_col"].currentTextChanged.connect(sweep)
        if numeric:
            sweep(numeric[0])

    def _clear_errors_on_edit(self) -> None:
        """An error belongs to the input that caused it: any edit or another generator clears it."""
        self.kind.currentIndexChanged.connect(self.error.hide)
        self.kind.currentIndexChanged.connect(self._remind)
        for w in self.fields.values():
            for signal in ("textChanged", "currentIndexChanged", "valueChanged", "toggled",
                           "itemSelectionChanged"):
                if hasattr(w, signal):
                    getattr(w, signal).connect(self.error.hide)
                    getattr(w, signal).connect(self._remind)

    def reads_from_data(self) -> tuple[str, ...]:
        """The domains the current generator, as filled in, reads off the data."""
        try:
            return tuple(self.sources[self.kind.currentIndex()]())
        except ValueError:  # no column of the kind yet: nothing is read
            return ()

    def _remind(self) -> None:
        """At Generate: say which domains come from the data, before the list is made."""
        notes = self.reads_from_data()
        self.reminder.setText(f"⚠ This list is built from {listing(notes)}, read from the private data: NOT "
                              "public. A release that uses it is refused unless you allow it on the Queries "
                              "step, and is then NOT differentially private." if notes else "")
        self.reminder.setVisible(bool(notes))

    def job(self) -> Job:
        """The current generator with the form's values bound in (``ValueError`` naming a field)."""
        return self.builders[self.kind.currentIndex()]()

    def queries(self) -> list:
        """The list, built here and now (for scripts and tests; the dialog builds it off the thread)."""
        return self.job()(NO_PROGRESS)

    def _accept(self) -> None:
        try:
            job = self.job()
        except ValueError as exc:
            self.error.show_error(str(exc))
            return
        self.error.hide()
        self.from_data = self.reads_from_data()
        self._busy(True)
        self.background.start(_generate, self._generated, self._failed, job, progress=self._progressed,
                              cancelled=self._cancelled)

    def _busy(self, busy: bool) -> None:
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(not busy)
        self.stack.setEnabled(not busy)
        self.kind.setEnabled(not busy)
        self.progress.setVisible(busy)
        self.cancel_button.setVisible(busy)
        self.progress.setRange(0, 0)  # indeterminate until the first report

    def _progressed(self, fraction: float | None, text: str) -> None:
        if fraction is not None:
            self.progress.setRange(0, 1000)
            self.progress.setValue(int(1000 * fraction))
        self.progress.setFormat(text or "%p%")

    def _generated(self, queries: list) -> None:
        self._busy(False)
        self.result = queries
        self.accept()

    def _failed(self, exc: BaseException) -> None:
        self._busy(False)
        self.error.show_error(str(exc) if isinstance(exc, ValueError) else
                              f"the generator failed ({type(exc).__name__}: {exc})")

    def _cancel(self) -> None:
        if self.background.task is not None:
            self.background.task.cancel()

    def _cancelled(self) -> None:
        self._busy(False)
        self.error.show_error("generation cancelled; nothing was added to the queue")

    def reject(self) -> None:
        self.background.cancel()
        super().reject()


def _bind(generator: Callable[..., list[Any]], *args: Any, **kwargs: Any) -> Job:
    """A generator call with its public inputs fixed; the task supplies the progress state."""
    return lambda progress: generator(*args, progress=progress, **kwargs)


def _fixed(queries: list[Any]) -> Job:
    """A small list built at once (categories, marginals, items): nothing to report."""
    return lambda _progress: queries


def _generate(state: Any, job: Job) -> list[Any]:
    """The task: build the list, turning the generator's own cancellation into the task's."""
    try:
        return job(state)
    except generators.GenerationCancelled as exc:
        raise TaskCancelled(str(exc)) from None
