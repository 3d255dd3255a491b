"""Why SVT is cheap: the privacy cost of answering k questions, naive Laplace vs. SVT."""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDoubleSpinBox, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from svtgui.core import bounds
from svtgui.ui.common.theme import ABOVE_COLOR, BELOW_COLOR, named
from svtgui.ui.teaching.common import banner, glossary_label, styled_plot, term

MAX_QUESTIONS = 100


def naive_alpha(epsilon: float, beta: float = 0.05) -> float:
    """One Laplace answer of scale 1/ε (a count): |noise| ≤ ln(1/β)/ε with probability 1 − β."""
    return math.log(1 / beta) / epsilon


def svt_alpha(epsilon: float, beta: float = 0.05) -> float:
    """AboveThreshold over the page's questions (counts, Δ = 1): Dwork & Roth's α, Theorem 3.24."""
    return bounds.above_threshold(epsilon, MAX_QUESTIONS, beta)


def costs(k: np.ndarray, per_question: float, svt_total: float) -> tuple[np.ndarray, np.ndarray]:
    """(naive, svt) total ε after k questions: k·ε for Laplace on each, a flat ε for SVT."""
    return k * per_question, np.full(k.shape, svt_total, dtype=float)


class CheapPage(QWidget):
    """One chart: cost growing linearly (naive) against a flat line (SVT), with adjustable ε and c."""

    title = "Why SVT is cheap"

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        text = glossary_label(
            f"<h2>Why SVT is cheap</h2>The naive way to answer a question privately is to add "
            f"{term('Laplace noise', 'noise (Laplace)')} to its true answer. Each such answer spends "
            f"{term('ε', 'ε (epsilon)')} from the privacy budget, so k questions cost k·ε. SVT only tells "
            f"you which questions are above a threshold, and it charges only for the ⊤ answers, at most c "
            f"of them: its total cost stays at ε however many questions you ask.",
            "noise (Laplace)", "ε (epsilon)", "cutoff (c)", name="Why SVT is cheap explanation")
        self.eps = named(QDoubleSpinBox(), "Epsilon per answer", "ε spent by one naive answer")
        self.eps.setRange(0.1, 5.0)
        self.eps.setSingleStep(0.1)
        self.eps.setDecimals(1)
        self.eps.setValue(1.0)
        self.plot = styled_plot(self, "Cost chart",
                                "Number of questions against total privacy cost ε: rising orange line for "
                                "answering each question with noise, flat blue line for SVT.")
        self.plot.setLabel("bottom", "number of questions asked")
        self.plot.setLabel("left", "total privacy cost ε")
        legend = self.plot.addLegend(offset=(10, 10), labelTextColor=self.palette().text().color())
        self.naive = pg.PlotDataItem(pen=pg.mkPen(BELOW_COLOR, width=3))
        self.svt = pg.PlotDataItem(pen=pg.mkPen(ABOVE_COLOR, width=3))
        self.plot.addItem(self.naive)
        self.plot.addItem(self.svt)
        legend.addItem(self.naive, "naive: noise on every answer (k·ε)")
        legend.addItem(self.svt, "SVT: only ⊤/⊥, stops after c ⊤ (ε in total)")
        self.summary = named(QLabel(), "Cost summary")
        self.summary.setWordWrap(True)
        self.summary.setStyleSheet("QLabel { font-size: 12pt; }")
        row = QHBoxLayout()
        row.addWidget(QLabel("privacy cost of one naive answer, ε ="))
        row.addWidget(self.eps)
        row.addStretch(1)
        lay = QVBoxLayout(self)
        lay.addWidget(banner())
        lay.addWidget(text)
        lay.addLayout(row)
        lay.addWidget(self.plot, 1)
        lay.addWidget(self.summary)
        self.eps.valueChanged.connect(self.refresh)
        self.refresh()

    def refresh(self) -> None:
        eps = round(self.eps.value(), 1)
        k = np.arange(1, MAX_QUESTIONS + 1)
        naive, svt = costs(k, eps, eps)
        self.naive.setData(k, naive)
        self.svt.setData(k, svt)
        self.plot.setXRange(0, MAX_QUESTIONS, padding=0.02)
        self.plot.setYRange(0, naive[-1], padding=0.05)
        self.summary.setText(
            f"With ε = {eps:g} per answer, asking {MAX_QUESTIONS} questions the naive way costs "
            f"ε = {naive[-1]:g} — {MAX_QUESTIONS} times the cost of one SVT run (ε = {eps:g}), which "
            f"finds the questions above the threshold among all {MAX_QUESTIONS}. The price is paid twice. "
            f"SVT tells you only <i>which</i> answers are large, not their values. And its answers are "
            f"coarser: with 95 % probability each naive answer is within ±{naive_alpha(eps):.1f} of the "
            f"truth, while SVT (AboveThreshold, counting queries) only promises to tell apart answers more "
            f"than ±{svt_alpha(eps):.0f} from the threshold.")
        self.summary.setTextFormat(Qt.TextFormat.RichText)
