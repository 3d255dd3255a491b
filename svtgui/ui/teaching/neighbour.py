"""Neighbour experiment: the same mechanism on the toy data with and without one person."""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from svtgui.core import mechanisms
from svtgui.core.audit.compare import Comparison, compare
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
            f"e^{toy.EPSILON:g} ≈ {math.exp(toy.EPSILON):.1f} times more likely because of {toy.LEFT_OUT}.",
            "neighbouring datasets", "ε (epsilon)", name="Neighbour introduction")
        answers = named(QLabel(
            f"True answers with everyone: {d1}<br>True answers without {toy.LEFT_OUT} "
            f"(who drinks 4 cups): {d2}"), "Neighbour answers", tip("sensitivity (Δ)"))
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
        legend = self.plot.addLegend(offset=(10, 10), labelTextColor=self.palette().text().color())
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
        c = compare(mid, toy.EPSILON, self.d1, self.d2, runs=RUNS, seed=self.seed, params=params)
        self.comparison = c
        x = np.arange(1, len(c.labels) + 1)
        self.bars1.setOpts(x=x - 0.2, height=100 * c.freq1)
        self.bars2.setOpts(x=x + 0.2, height=100 * c.freq2)
        ticks = [(i + 1, str(i + 1)) for i in range(len(c.labels) - 1)] + [(len(c.labels), "none")]
        self.plot.getAxis("bottom").setTicks([ticks])
        self.plot.setYRange(0, 100 * max(c.freq1.max(), c.freq2.max()) * 1.15, padding=0)
        promised = toy.EPSILON
        if c.epsilon_lcb > promised:
            verdict = (f"<span style='color:{WARNING_COLOR.name()}; font-weight:bold'>Promise broken:</span> "
                       f"measured ε ≥ <b>{c.epsilon_lcb:.2f}</b> but promised ε = {promised:g}.")
        else:
            verdict = (f"Measured ε ≥ <b>{c.epsilon_lcb:.2f}</b> (99% confidence) — within the promised "
                       f"ε = <b>{promised:g}</b>: the two distributions differ no more than ε allows, so "
                       f"the output reveals little about whether {toy.LEFT_OUT} is in the data.")
        self.verdict.setText(f"{verdict}<br><small>Measured by the auditor on held-out runs; event: "
                             f"{c.event}.</small>")
