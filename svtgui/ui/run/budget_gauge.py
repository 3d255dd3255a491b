"""The budget gauge: ⊤ used of c, this run's (ε, δ), and the dataset's budget across runs.

The design goal is that nobody can misread it: the cutoff bar counts only ⊤ answers, and a line
right under it counts the ⊥ answers *as free*, so the curator sees thousands of ⊥ next to a bar
that has not moved.
"""

from __future__ import annotations

from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QColor, QPainter, QPaintEvent, QPalette
from PySide6.QtWidgets import QFormLayout, QGroupBox, QLabel, QProgressBar, QVBoxLayout, QWidget

from svtgui.core.wording import plural
from svtgui.ui.common.theme import ABOVE_COLOR, BELOW_COLOR, named

_RESOLUTION = 10_000  # progress bars are integer-valued; budgets are not


class Gauge(QProgressBar):
    """A bar whose centred text stays readable across the fill edge.

    Why its own painting: a style draws the text in one colour over both the filled and the empty
    part, so black text vanished on the dark-blue fill of a full cutoff bar. Here the text is drawn
    twice, clipped: white over the fill, the palette's text colour over the rest.
    """

    def __init__(self, fill: QColor) -> None:
        super().__init__()
        self.fill = QColor(fill)
        self.setTextVisible(True)
        self.setMinimumHeight(self.fontMetrics().height() + 8)

    def filled_fraction(self) -> float:
        span = self.maximum() - self.minimum()
        return 0.0 if span <= 0 else min(max((self.value() - self.minimum()) / span, 0.0), 1.0)

    def paintEvent(self, _event: QPaintEvent) -> None:
        p = QPainter(self)
        pal = self.palette()
        frame = self.rect().adjusted(0, 0, -1, -1)
        p.setPen(pal.color(QPalette.ColorRole.Mid))
        p.setBrush(pal.color(QPalette.ColorRole.Base))
        p.drawRect(frame)
        inner = frame.adjusted(1, 1, 0, 0)
        width = round(inner.width() * self.filled_fraction())
        filled = QRect(inner.left(), inner.top(), width, inner.height())
        p.fillRect(filled, self.fill)
        text = self.text()
        for clip, colour in ((filled, QColor("white")),
                             (QRect(inner.left() + width, inner.top(), inner.width() - width, inner.height()),
                              pal.color(QPalette.ColorRole.Text))):
            p.setClipRect(clip)
            p.setPen(colour)
            p.drawText(frame, Qt.AlignmentFlag.AlignCenter, text)
        p.end()


class BudgetGauge(QGroupBox):
    """Public numbers only: counts of ⊤/⊥, the guarantee charged, the ledger's totals."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Budget", parent)
        named(self, "Budget gauge")
        self.cutoff_bar = named(
            Gauge(ABOVE_COLOR),
            "Cutoff used",
            "How many of the c ⊤ answers this run has used; the run halts at c.",
        )
        self.free_label = named(
            QLabel(),
            "Below-threshold answers",
            "⊥ answers cost nothing against the cutoff: only ⊤ answers count.",
        )
        self.free_label.setWordWrap(True)
        self.run_label = named(
            QLabel("No run yet."),
            "This run's privacy cost",
            "Charged in full before the first answer and never refunded.",
        )
        self.run_label.setWordWrap(True)
        self.dataset_bar = named(
            Gauge(ABOVE_COLOR.darker(115)),
            "Dataset budget spent",
            "The dataset's total ε spent by all runs so far (from the ledger).",
        )
        self.dataset_label = named(QLabel(), "Dataset budget")
        self.dataset_label.setWordWrap(True)
        form = QFormLayout()
        form.addRow("Cutoff c", self.cutoff_bar)
        form.addRow("", self.free_label)
        form.addRow("This run", self.run_label)
        form.addRow("Dataset", self.dataset_bar)
        form.addRow("", self.dataset_label)
        lay = QVBoxLayout(self)
        lay.addLayout(form)
        self.above = self.below = 0
        self.cutoff = 1
        self.set_counts(0, 0, 1)
        self.set_dataset(None, "no dataset")

    def set_counts(self, above: int, below: int, cutoff: int | None, halted: bool | None = None) -> None:
        """⊤ and ⊥ so far; ``cutoff`` None for mechanisms without one; ``halted`` whether the run
        stopped at c (default: c reached; a top-c selection reaches c without halting)."""
        self.above, self.below = above, below
        if cutoff is None:
            self.cutoff_bar.setRange(0, 1)
            self.cutoff_bar.setValue(0)
            self.cutoff_bar.setFormat(f"{above:,} ⊤ (no cutoff)")
        else:
            self.cutoff = cutoff
            self.cutoff_bar.setRange(0, cutoff)
            self.cutoff_bar.setValue(min(above, cutoff))
            if halted is None:
                halted = above >= cutoff
            self.cutoff_bar.setFormat(f"⊤ used: {above:,} of c = {cutoff:,}{' — halted' if halted else ''}")
        self.free_label.setText(
            f"<span style='color:{BELOW_COLOR.name()}'>▽ ⊥ {below:,}</span> {plural('answer', below)} so "
            "far — <b>free</b>: ⊥ answers do not use up the cutoff."
        )

    def set_run(self, text: str) -> None:
        self.run_label.setText(text)

    def set_dataset(self, share: float | None, bar: str, detail: str = "") -> None:
        """The dataset's budget as the run model words it
        (:meth:`~svtgui.app.runs.dataset_budget.DatasetBudget.gauge`): the bar's fill (None: empty),
        its text and the line under it."""
        if share is None:
            self.dataset_bar.setRange(0, 1)
            self.dataset_bar.setValue(0)
        else:
            self.dataset_bar.setRange(0, _RESOLUTION)
            self.dataset_bar.setValue(round(_RESOLUTION * share))
        self.dataset_bar.setFormat(bar)
        self.dataset_label.setText(detail)
