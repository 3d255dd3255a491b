"""Plain-language glossary of the teaching mode: tooltips everywhere and a help page.

Written for someone who has never heard of differential privacy: no formulas in the first
sentence of any entry.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QScrollArea, QVBoxLayout, QWidget

from svtgui.ui.common.theme import named

GLOSSARY: dict[str, str] = {
    "ε (epsilon)": "The privacy budget: how much the published answers may change when one person's data is "
                   "added or removed. Smaller ε means more privacy and more noise. ε = 1 means no answer "
                   "becomes more than e¹ ≈ 2.7 times more likely because of any one person.",
    "δ (delta)": "A tiny probability with which the ε promise may fail. Pure ε-differential privacy has "
                 "δ = 0; everything in this teaching mode has δ = 0.",
    "sensitivity (Δ)": "The most one person can change the true answer to a question. For a count of people "
                       "it is 1: adding or removing you changes the count by at most one.",
    "threshold (T)": "The public bar the answers are compared with: SVT only tells you whether each "
                     "answer is above or below it.",
    "noisy threshold": "The threshold after SVT secretly adds random noise to it, once, at the start. Nobody "
                       "outside sees it; the teaching mode shows it because the data is a toy.",
    "cutoff (c)": "How many 'above' answers SVT gives before it stops. The privacy cost depends on c, not on "
                  "how many questions were asked.",
    "⊤ (above)": "SVT's answer 'this question's noisy answer is above the noisy threshold'.",
    "⊥ (below)": "SVT's answer 'this question's noisy answer is below the noisy threshold'. Below answers "
                 "cost no extra privacy: that is the trick that makes SVT cheap.",
    "neighbouring datasets": "Two datasets that differ in one person only: the same table with and without "
                             "you. Differential privacy promises that any published result is almost equally "
                             "likely on both.",
    "noise (Laplace)": "Random numbers added to answers, mostly small, occasionally large. Their typical "
                       "size is sensitivity ÷ ε, so they hide any one person's effect.",
    "auditor": "A program that runs a mechanism thousands of times on neighbouring datasets and measures "
               "how different the results are. If they differ more than ε allows, the mechanism leaks.",
    "ε_lcb": "The auditor's measured ε: with 99% confidence the mechanism's true privacy loss is at least "
             "this large. If it exceeds the promised ε, the promise is broken.",
}


def tip(term: str) -> str:
    """The glossary text of ``term`` (a key of :data:`GLOSSARY`), for a tooltip."""
    return f"<b>{term}</b>: {GLOSSARY[term]}"


class GlossaryPage(QWidget):
    """Every glossary entry, one paragraph each (also available as tooltips on the other pages)."""

    title = "Glossary"

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        body = QWidget()
        col = QVBoxLayout(body)
        intro = QLabel("<h2>Words used in this teaching mode</h2><p>Hover over underlined words on the other "
                       "pages to see these explanations where you need them.</p>")
        intro.setWordWrap(True)
        col.addWidget(intro)
        self.entries: dict[str, QLabel] = {}
        for term, text in GLOSSARY.items():
            label = named(QLabel(f"<p><b>{term}</b><br>{text}</p>"), f"Glossary {term}")
            label.setWordWrap(True)
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            col.addWidget(label)
            self.entries[term] = label
        col.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(body)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(scroll)
