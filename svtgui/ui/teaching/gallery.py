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


def plain_number(x: float) -> str:
    """3, 4.48, 1,234 or 176,000: three significant figures without exponent notation."""
    if x >= 100:
        return f"{round(x, -int(math.floor(math.log10(x))) + 2):,.0f}"
    return f"{x:.3g}"


class VariantCard(QFrame):
    """One broken variant: its name, its mistake in one sentence, and the auditor's verdict."""

    requested = Signal(str)  # the user asked for an audit of this variant
    cancelled = Signal(str)  # the user asked to stop (or unqueue) this variant's audit

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
        source = named(QLabel(f"<small><b>Source:</b> {info.citation}.</small>"), f"Source {mechanism_id}")
        source.setWordWrap(True)
        self.status = named(QLabel("Not audited yet."), f"Evidence {mechanism_id}")
        self.status.setWordWrap(True)
        self.bar = named(QProgressBar(), f"Audit progress {mechanism_id}")
        self.bar.setRange(0, 100)
        self.bar.setValue(0)
        self.bar.setTextVisible(False)
        self.bar.setMaximumHeight(8)
        self.cancel = named(QPushButton("Cancel"), f"Cancel audit {mechanism_id}",
                            "Stop this audit: the runs made so far are still tested")
        self.cancel.setEnabled(False)
        self.button = named(QPushButton("Run the auditor"), f"Audit {mechanism_id}",
                            "Run this variant thousands of times on neighbouring datasets and measure its ε")
        lay = QVBoxLayout(self)
        lay.addWidget(title)
        lay.addWidget(mistake)
        lay.addWidget(source)
        progress = QHBoxLayout()
        progress.addWidget(self.bar, 1)
        progress.addWidget(self.cancel)
        lay.addLayout(progress)
        lay.addWidget(self.status)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(self.button)
        lay.addLayout(row)
        lay.addStretch(1)
        self.button.clicked.connect(self._request)
        self.cancel.clicked.connect(self._cancel)

    def _request(self) -> None:
        self.requested.emit(self.mechanism_id)

    def _cancel(self) -> None:
        self.cancelled.emit(self.mechanism_id)

    def queued(self) -> None:
        self.button.setEnabled(False)
        self.cancel.setEnabled(True)
        self.status.setText("Waiting for the auditor…")

    def unqueued(self) -> None:
        self.button.setEnabled(True)
        self.cancel.setEnabled(False)
        self.status.setText("Cancelled before it started.")

    def started(self) -> None:
        self.button.setEnabled(False)
        self.cancel.setEnabled(True)
        self.status.setText("Auditing: running the variant on two neighbouring datasets…")
        self.bar.setValue(0)

    def show_progress(self, message: str, fraction: float) -> None:
        self.bar.setValue(int(100 * fraction))

    def show_result(self, r: AuditResult) -> None:
        self.result = r
        self.bar.setValue(100)
        self.button.setEnabled(True)
        self.cancel.setEnabled(False)
        self.button.setText("Run again")
        evidence = (f"<br><small>Evidence: the auditor counted how often {r.event_plain}. On fresh runs "
                    "this happened "
                    f"{r.counts[0]:,} times in {r.runs:,} runs on one dataset and {r.counts[1]:,} times in "
                    f"{r.runs_d2:,} runs on its neighbour.</small>")
        bound = (f"measured ε of at least <b>{r.epsilon_lcb:.2f}</b> (a lower bound on its true privacy "
                 f"loss, at {r.confidence} confidence; chance of a fluke {p_text(r.p_value)})")
        if r.violation:
            factor = "over a million" if r.epsilon_lcb > 13.8 else plain_number(math.exp(r.epsilon_lcb))
            self.status.setText(
                f"<span style='color:{WARNING_COLOR.name()}; font-weight:bold'>LEAKS.</span> Promised "
                f"ε = {r.epsilon:g}; {bound}. Some output is at least {factor} times more likely on one of "
                f"two neighbouring datasets than on the other; ε = {r.epsilon:g} allows at most "
                f"{math.exp(r.epsilon):.3g}.{evidence}")
        else:
            self.status.setText(
                f"<span style='color:{ABOVE_COLOR.name()}'>No violation found in this audit</span> "
                f"({bound}). That is not a proof of privacy: a longer audit may still find the leak."
                f"{evidence}")

    def show_failure(self, message: str) -> None:
        self.button.setEnabled(True)
        self.cancel.setEnabled(False)
        self.status.setText(f"The audit failed: {message}")


class GalleryPage(QWidget):
    """A card per broken variant; audits run one after another in a worker thread."""

    title = "Broken variants"

    def __init__(self, parent: QWidget | None = None, **audit_kwargs: Any) -> None:
        super().__init__(parent)
        self.audit_kwargs = audit_kwargs or {"seconds": 5.0}
        self.audit_kwargs.setdefault("seed", 1)
        intro = glossary_label(
            f"<h2>Broken variants: SVT is easy to get wrong</h2>Each of these was published or taught "
            f"(each card names its source), claiming ε-{term('differential privacy', 'ε (epsilon)')}. Lyu, "
            f"Su and Li (2017) showed that none of them is. Press a button to let the "
            f"{term('auditor', 'auditor')} run the variant millions of times on two "
            f"{term('neighbouring datasets', 'neighbouring datasets')} and measure a lower bound on how "
            f"much it really leaks (the {term('measured ε', 'ε_lcb')}), against the promised ε = "
            f"{CLAIMED_EPSILON:g}.",
            "ε (epsilon)", "auditor", "neighbouring datasets", "ε_lcb", name="Gallery introduction")
        self.run_all_button = named(QPushButton("Audit all four"), "Audit all",
                                    "Run the auditor on every variant, one after another")
        self.cards = {mid: VariantCard(mid) for mid in BROKEN}
        grid = QGridLayout()
        for i, card in enumerate(self.cards.values()):
            grid.addWidget(card, i // 2, i % 2)
            card.requested.connect(self.enqueue_one)
            card.cancelled.connect(self.cancel_one)
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
        self.running: str | None = None
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
                self.cards[mid].queued()
        self._next()

    def cancel_one(self, mechanism_id: str) -> None:
        """Unqueue this variant, or stop its running audit (which then tests the runs made so far)."""
        if mechanism_id in self.queue:
            self.queue.remove(mechanism_id)
            self.cards[mechanism_id].unqueued()
        elif self.running == mechanism_id and self.job.task is not None:
            # ask the audit itself to stop (not Background.cancel, which would drop its result): it
            # ends its search and final test early and reports the test of the runs made so far
            self.job.task.cancel()
            self.cards[mechanism_id].status.setText("Stopping: testing the runs made so far…")

    def _next(self) -> None:
        if self.job.busy or not self.queue:
            return
        mid = self.queue.pop(0)
        self.running = mid
        card = self.cards[mid]
        card.started()
        self.job.start(audit_task, lambda result: self._ended(card.show_result, result),
                       lambda exc: self._ended(card.show_failure, failure_text(exc)),
                       mid, CLAIMED_EPSILON, self.audit_kwargs,
                       progress=lambda fraction, text: card.show_progress(text, fraction or 0.0))

    def _ended(self, show: Callable[[Any], None], outcome: Any) -> None:
        self.running = None
        show(outcome)
        self._next()

    def stop(self) -> None:
        """Cancel queued audits and wait for the running one (window closing)."""
        self.queue.clear()
        task = self.job.task
        self.job.cancel()
        if task is not None:
            task.wait()
