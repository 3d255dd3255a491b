"""Neighbour experiment: the same mechanism on the toy data with and without one person.

For a variant known not to be private the toy data may hide the leak, and a page that then said
"the output reveals little" would teach the opposite of the truth. So for those variants the page
shows the auditor's witness instead: two lists of answers that removing one person could produce
(each moves by at most 1) and the kind of output whose odds differ most between them.
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from svtgui.core import mechanisms
from svtgui.core.audit.compare import Comparison, compare, witness_comparison
from svtgui.core.audit.inputs import number
from svtgui.ui.common.theme import ABOVE_COLOR, BELOW_COLOR, WARNING_COLOR, named
from svtgui.ui.teaching import toy
from svtgui.ui.teaching.common import banner, glossary_label, styled_plot, term
from svtgui.ui.teaching.glossary import tip

RUNS = 20_000  # about 50 ms of simulation: instant, so no worker thread is needed
CHOICES = [("above_threshold", "AboveThreshold (private)"), ("standard_svt", "Standard SVT, c = 1 (private)"),
           ("lecture_sparse_2011", "Lecture-notes Sparse (NOT private)"),
           ("lyu_alg5_stoddard", "Stoddard et al. (NOT private)")]


class NeighbourPage(QWidget):
    """Two overlaid output distributions and the measured ε next to the promised ε."""

    title = "Neighbour experiment"

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.seed = 0
        d1, d2 = toy.answers(), toy.answers(toy.without(toy.LEFT_OUT))
        self.d1, self.d2 = d1, d2
        intro = glossary_label(
            f"<h2>Does one person change what the world sees?</h2>We run the mechanism {RUNS:,} times on "
            f"the toy table, and {RUNS:,} times on the same table without {toy.LEFT_OUT} (two "
            f"{term('neighbouring datasets', 'neighbouring datasets')}). The output here is: at which "
            f"question did the first ⊤ come? With ε = {toy.EPSILON:g}, no output may become more than "
            f"e<sup>{toy.EPSILON:g}</sup> ≈ {math.exp(toy.EPSILON):.1f} times more likely because of "
            f"{toy.LEFT_OUT}.",
            "neighbouring datasets", "ε (epsilon)", name="Neighbour introduction")
        answers = named(QLabel(
            f"True answers with everyone: {_plain_list(d1)}<br>True answers without {toy.LEFT_OUT} "
            f"(who drinks 4 cups): {_plain_list(d2)}"), "Neighbour answers", tip("sensitivity (Δ)"))
        answers.setWordWrap(True)  # the witness is a paragraph: unwrapped, it widened the window
        self.answers = answers
        self.choice = named(QComboBox(), "Mechanism choice", "Which SVT variant to run")
        for mid, label in CHOICES:
            self.choice.addItem(label, mid)
        self.choice.setCurrentIndex(1)
        self.again = named(QPushButton("Run again"), "Run again", f"{RUNS:,} fresh runs on each dataset")
        self.plot = styled_plot(self, "Neighbour chart",
                                "For each question, the share of runs whose first ⊤ came there, with "
                                f"everyone (blue) and without {toy.LEFT_OUT} (orange).")
        self.plot.setLabel("bottom", "question of the first ⊤ (last = no ⊤ at all)")
        self.plot.setLabel("left", "% of runs")
        self.plot.getAxis("left").enableAutoSIPrefix(False)
        legend = self.plot.addLegend(offset=(-10, 10), labelTextColor=self.palette().text().color())
        self.legend = legend
        self.bars1 = pg.BarGraphItem(x=[0], height=[0], width=0.38, brush=pg.mkBrush(ABOVE_COLOR))
        self.bars2 = pg.BarGraphItem(x=[0], height=[0], width=0.38, brush=pg.mkBrush(BELOW_COLOR))
        self.plot.addItem(self.bars1)
        self.plot.addItem(self.bars2)
        legend.addItem(self.bars1, "with everyone")
        legend.addItem(self.bars2, f"without {toy.LEFT_OUT}")
        self.verdict = named(QLabel(), "Measured epsilon", tip("ε_lcb"))
        self.verdict.setWordWrap(True)
        self.verdict.setStyleSheet("QLabel { font-size: 13pt; padding: 4px; }")
        row = QHBoxLayout()
        row.addWidget(QLabel("mechanism:"))
        row.addWidget(self.choice)
        row.addWidget(self.again)
        row.addStretch(1)
        lay = QVBoxLayout(self)
        lay.addWidget(banner())
        lay.addWidget(intro)
        lay.addWidget(answers)
        lay.addLayout(row)
        lay.addWidget(self.plot, 1)
        lay.addWidget(self.verdict)
        self.choice.currentIndexChanged.connect(self.refresh)
        self.again.clicked.connect(self.run_again)
        self.comparison: Comparison | None = None
        self.refresh()

    def run_again(self) -> None:
        self.seed += 1
        self.refresh()

    def refresh(self, *_args: object) -> None:
        mid = self.choice.currentData()
        params = {"threshold": toy.THRESHOLD}
        if any(p.name == "cutoff" for p in mechanisms.info(mid).params):
            params["cutoff"] = 1
        broken = mechanisms.info(mid).status == mechanisms.KNOWN_NON_PRIVATE
        if broken:
            c = witness_comparison(mid, toy.EPSILON, runs=RUNS, seed=self.seed, params=params)
        else:
            c = compare(mid, toy.EPSILON, self.d1, self.d2, runs=RUNS, seed=self.seed, params=params)
        self.comparison = c
        self._show_inputs(c)
        x = np.arange(1, len(c.labels) + 1)
        self.bars1.setOpts(x=x - 0.2, height=100 * c.freq1)
        self.bars2.setOpts(x=x + 0.2, height=100 * c.freq2)
        every = max(1, math.ceil((len(c.labels) - 1) / 20))  # at most about 20 labelled questions
        ticks = [(i + 1, str(i + 1)) for i in range(0, len(c.labels) - 1, every)] + [(len(c.labels), "none")]
        self.plot.getAxis("bottom").setTicks([ticks])
        self.plot.setYRange(0, 100 * max(c.freq1.max(), c.freq2.max()) * 1.15, padding=0)
        self.verdict.setText(verdict_text(c, toy.EPSILON))

    def _show_inputs(self, c: Comparison) -> None:
        names = ("first list", "second list") if c.witness else ("with everyone", f"without {toy.LEFT_OUT}")
        self.legend.clear()
        self.legend.addItem(self.bars1, names[0])
        self.legend.addItem(self.bars2, names[1])
        if c.witness:
            lines = "<br>".join(c.witness[:6]) + ("<br>…" if len(c.witness) > 6 else "")
            self.answers.setText(
                f"This variant is known to leak, but our toy table with and without {toy.LEFT_OUT} "
                "happens not to show it clearly. So the auditor searched for two lists of answers that "
                "adding or removing one person could produce (every answer moves by at most 1), and "
                f"where the leak shows. Below, the mechanism runs {c.runs:,} times on each list:<br>{lines}")
        else:
            self.answers.setText(
                f"True answers with everyone: {_plain_list(self.d1)}<br>True answers without "
                f"{toy.LEFT_OUT} (who drinks 4 cups): {_plain_list(self.d2)}")


def _plain_list(values: list[float]) -> str:
    return ", ".join(number(v) for v in values)


def _percent(share: float) -> str:
    return f"{100 * share:.2f}%" if share >= 0.0001 or share == 0 else "less than 0.01%"


def verdict_text(c: Comparison, promised: float) -> str:
    """The measured ε against the promise, in words; never "reveals little" (a miss proves nothing)."""
    first, second = ("the first list", "the second list") if c.witness else (
        "everyone", f"without {toy.LEFT_OUT}")
    evidence = (f"How it was measured: on fresh runs, the auditor counted how often {c.event}. That happened "
                f"in {_percent(c.shares[0])} of the runs with {first} and {_percent(c.shares[1])} with "
                f"{second}." + ("" if c.witness else f" (The first list of answers is everyone's, the second "
                                                     f"is without {toy.LEFT_OUT}'s.)"))
    bound = (f"measured ε of at least <b>{c.epsilon_lcb:.2f}</b> (a lower bound on the true privacy loss, "
             "at 99% confidence)")
    if c.epsilon_lcb > promised:
        head = (f"<span style='color:{WARNING_COLOR.name()}; font-weight:bold'>Promise broken:</span> "
                f"{bound}, but the promise was ε = {promised:g}: one person's presence changes the odds of "
                f"this output by more than e<sup>{promised:g}</sup> ≈ {math.exp(promised):.1f} times.")
    else:
        head = (f"A {bound}, within the promised ε = <b>{promised:g}</b>. This experiment did not detect a "
                "leak; that is not a proof that there is none.")
    return f"{head}<br><small>{evidence}</small>"
