"""The run's one-line status, worded from the run model's facts (no widget, no Qt).

Kept as one function of plain values so every wording — running, paused, drained, each ending,
not ready, refused — is reachable by a unit test, and the page and the window's status bar show
the same sentence.
"""

from __future__ import annotations

from dataclasses import dataclass

from svtgui.app.runs.state import RunState
from svtgui.core.wording import count

ENDINGS = {
    "halted": "Halted: the cutoff c was reached",
    "finished": "Finished: every planned query was answered",
    "stopped": "Stopped by you",
    "interrupted": "Interrupted",
}


@dataclass(frozen=True)
class StatusFacts:
    """Everything the status line depends on (public counts and states only)."""

    state: RunState
    answered: int = 0
    tops: int = 0
    planned: int = 0
    run_status: str | None = None  # the ledger status of the current run (None: no run charged)
    release: bool = False  # the run writes a release (SparseProject) instead of answering queries
    cutoff: int | None = None
    elapsed: float = 0.0
    idled: bool = False
    blocked: str | None = None  # why Run is disabled now (IDLE only)
    refused: bool = False  # the last attempt was refused or cancelled: nothing was charged


def status_line(f: StatusFacts) -> str:
    s = f.state
    if s == RunState.RUNNING:
        return f"Running — {f.answered:,} of {f.planned:,} planned queries answered."
    if s == RunState.PAUSED:
        return f"Paused after {count(f.answered, 'answer')}. Step (F10) answers one more; Pause (F6) resumes."
    if s == RunState.DRAINED and not f.planned and not f.answered:
        return "No queries were queued: ask one below (Next query), or Stop to end the run."
    if s == RunState.DRAINED:
        planned = f"All {count(f.planned, 'planned query')}" if f.planned != 1 else "The planned query"
        return f"{planned} answered. Ask another query below (adaptive), or Stop to end the run."
    if s == RunState.ENDED and f.run_status is not None:
        return _ended(f)
    if f.refused:
        return "Nothing was charged: the run did not start (the reason is below)."
    if f.blocked:
        return "Not ready to run: the line below says what is missing."
    return "Ready: choose parameters and queries, then Run (F5)."


def _ended(f: StatusFacts) -> str:
    status = f.run_status or ""
    if f.release:
        return (f"Release {'written' if status == 'finished' else status} in {f.elapsed:.2f} s: no query is "
                "answered in this run; anyone answers count queries from the file later (Tools ▸ Answer "
                "from a release file…).")
    ending = ENDINGS.get(status, status)
    if status in ("stopped", "interrupted") and f.answered < f.planned:  # cut short: how far it got
        text = f"{ending} after {f.answered:,} of {count(f.planned, 'planned query')} — {f.tops:,} ⊤"
    elif not f.answered:
        text = f"{ENDINGS['stopped'] if status == 'finished' else ending} — no query was asked"
    else:
        text = f"{ending} — {count(f.answered, 'answer')}, {f.tops:,} ⊤"
    if status == "halted" and f.cutoff is not None:
        text += f" (c = {f.cutoff:,})"
    return text + f"; running time {f.elapsed:.2f} s" + (" (pauses left out)." if f.idled else ".")
