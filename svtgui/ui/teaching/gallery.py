"""Broken variants gallery: published SVT variants that leak, and the auditor's live evidence."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from svtgui.core import mechanisms
from svtgui.core.audit import AuditResult
from svtgui.ui.common.background import Background
from svtgui.ui.common.theme import ABOVE_COLOR, WARNING_COLOR, named
from svtgui.ui.teaching.common import banner, glossary_label, term
from svtgui.ui.teaching.worker import audit_task, failure_text

BROKEN = ["lecture_sparse_2011", "lyu_alg4_lee_clifton", "lyu_alg5_stoddard", "lyu_alg6_chen"]
CLAIMED_EPSILON = 1.0


def p_text(p: float) -> str:
    """A p-value for people who do not know the word: 'below 1 in 10^300' rather than 0."""
    if p < 1e-300:
        return "below 1 in 10<sup>300</sup>"
    if p < 1e-4:
        return f"below 1 in 10<sup>{int(-math.log10(p))}</sup>"
    return f"{p:.2g}"


def short(event: str, items: int = 2) -> str:
    """The first ``items`` alternatives of an event description (cards are small)."""
    head, sep, rest = event.partition(" ∈ {")
    if not sep:
        return event
    parts = rest.rstrip("}").split("; ")
    more = f"; … {len(parts) - items} more" if len(parts) > items else ""
    return f"{head} ∈ {{{'; '.join(parts[:items])}{more}}}"


class VariantCard(QFrame):
    """One broken variant: its name, its mistake in one sentence, and the auditor's verdict."""

    requested = Signal(str)  # the user asked for an audit of this variant

    def __init__(self, mechanism_id: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        info = mechanisms.info(mechanism_id)
        self.mechanism_id = mechanism_id
        self.result: AuditResult | None = None
        title = QLabel(f"<b>{info.name}</b>")
        title.setWordWrap(True)
        mistake = named(QLabel(f"<b>The mistake:</b> {info.why_not_private}"), f"Mistake {mechanism_id}",
                        info.citation)
        mistake.setWordWrap(True)
        self.status = named(QLabel("Not audited yet."), f"Evidence {mechanism_id}")
        self.status.setWordWrap(True)
        self.bar = named(QProgressBar(), f"Audit progress {mechanism_id}")
        self.bar.setRange(0, 100)
        self.bar.setValue(0)
        self.bar.setTextVisible(False)
        self.bar.setMaximumHeight(8)
        self.button = named(QPushButton("Run the auditor"), f"Audit {mechanism_id}",
                            "Run this variant thousands of times on neighbouring datasets and measure its ε")
        lay = QVBoxLayout(self)
        lay.addWidget(title)
        lay.addWidget(mistake)
        lay.addWidget(self.bar)
        lay.addWidget(self.status)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(self.button)
        lay.addLayout(row)
        lay.addStretch(1)
        self.button.clicked.connect(self._request)

    def _request(self) -> None:
        self.requested.emit(self.mechanism_id)

    def started(self) -> None:
        self.button.setEnabled(False)
        self.status.setText("Auditing: running the variant on two neighbouring datasets…")
        self.bar.setValue(0)

    def show_progress(self, message: str, fraction: float) -> None:
        self.bar.setValue(int(100 * fraction))

    def show_result(self, r: AuditResult) -> None:
        self.result = r
        self.bar.setValue(100)
        self.button.setEnabled(True)
        self.button.setText("Run again")
        if r.violation:
            factor = "over a million" if r.epsilon_lcb > 13.8 else f"{math.exp(r.epsilon_lcb):.3g}"
            self.status.setText(
                f"<span style='color:{WARNING_COLOR.name()}; font-weight:bold'>LEAKS.</span> Promised "
                f"ε = {r.epsilon:g}; measured ε ≥ <b>{r.epsilon_lcb:.2f}</b> (99% confidence; chance of a "
                f"fluke {p_text(r.p_value)}). Some output is at least {factor} times more likely on one of "
                f"two neighbouring datasets than on the other; ε = {r.epsilon:g} allows at most "
                f"{math.exp(r.epsilon):.3g}.<br><small>Evidence: output {short(r.event)}, seen "
                f"{r.counts[0]:,} vs {r.counts[1]:,} times in {r.runs:,} runs on each dataset.</small>")
        else:
            self.status.setText(
                f"<span style='color:{ABOVE_COLOR.name()}'>No leak found this time</span> (measured "
                f"ε ≥ {r.epsilon_lcb:.2f}, chance of a fluke {p_text(r.p_value)}); try again.")

    def show_failure(self, message: str) -> None:
        self.button.setEnabled(True)
        self.status.setText(f"The audit failed: {message}")


class GalleryPage(QWidget):
    """A card per broken variant; audits run one after another in a worker thread."""

    title = "Broken variants"

    def __init__(self, parent: QWidget | None = None, **audit_kwargs: Any) -> None:
        super().__init__(parent)
        self.audit_kwargs = audit_kwargs or {"seconds": 5.0}
        self.audit_kwargs.setdefault("seed", 1)
        intro = glossary_label(
            f"<h2>Broken variants: SVT is easy to get wrong</h2>Each of these was published, claiming "
            f"ε-{term('differential privacy', 'ε (epsilon)')}. Lyu, Su and Li (2017) showed that they are "
            f"not private. Press a button to let the {term('auditor', 'auditor')} run the variant "
            f"thousands of times on two {term('neighbouring datasets', 'neighbouring datasets')} and measure "
            f"how much it really leaks ({term('ε_lcb', 'ε_lcb')}), against the promised ε = "
            f"{CLAIMED_EPSILON:g}.",
            "ε (epsilon)", "auditor", "neighbouring datasets", "ε_lcb", name="Gallery introduction")
        self.run_all_button = named(QPushButton("Audit all four"), "Audit all",
                                    "Run the auditor on every variant, one after another")
        self.cards = {mid: VariantCard(mid) for mid in BROKEN}
        grid = QGridLayout()
        for i, card in enumerate(self.cards.values()):
            grid.addWidget(card, i // 2, i % 2)
            card.requested.connect(self.enqueue_one)
        self.run_all_button.clicked.connect(self.enqueue_all)
        top = QHBoxLayout()
        top.addWidget(intro, 1)
        top.addWidget(self.run_all_button)
        lay = QVBoxLayout(self)
        lay.addWidget(banner())
        lay.addLayout(top)
        lay.addLayout(grid)
        lay.addStretch(1)
        self.queue: list[str] = []
        self.job = Background("audit", self, yield_to_gui=False)  # one audit at a time, off the GUI thread

    @property
    def busy(self) -> bool:
        return self.job.busy or bool(self.queue)

    def enqueue_one(self, mechanism_id: str) -> None:
        self.enqueue([mechanism_id])

    def enqueue_all(self) -> None:
        self.enqueue(BROKEN)

    def enqueue(self, ids: list[str]) -> None:
        for mid in ids:
            if mid not in self.queue:
                self.queue.append(mid)
                self.cards[mid].button.setEnabled(False)
                self.cards[mid].status.setText("Waiting for the auditor…")
        self._next()

    def _next(self) -> None:
        if self.job.busy or not self.queue:
            return
        mid = self.queue.pop(0)
        card = self.cards[mid]
        card.started()
        self.job.start(audit_task, lambda result: self._ended(card.show_result, result),
                       lambda exc: self._ended(card.show_failure, failure_text(exc)),
                       mid, CLAIMED_EPSILON, self.audit_kwargs,
                       progress=lambda fraction, text: card.show_progress(text, fraction or 0.0))

    def _ended(self, show: Callable[[Any], None], outcome: Any) -> None:
        show(outcome)
        self._next()

    def stop(self) -> None:
        """Cancel queued audits and wait for the running one (window closing)."""
        self.queue.clear()
        task = self.job.task
        self.job.cancel()
        if task is not None:
            task.wait()
