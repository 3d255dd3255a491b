"""The states of a run as the curator sees them, and the clock of its running time.

One enum instead of state names spelled in several files: the window, the CLI and the tests all
compare against :class:`RunState` (a ``str`` enum, so ``RunState.ENDED == "ended"``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from enum import StrEnum


class RunState(StrEnum):
    """Where the run of the open dataset is (one run at a time per window)."""

    IDLE = "idle"  # no run since the dataset was opened, or the last attempt was refused
    RUNNING = "running"  # answering planned queries
    PAUSED = "paused"  # charged and open, answering nothing until resumed or stepped
    DRAINED = "drained"  # every planned query answered; the run stays open for adaptive queries
    ENDED = "ended"  # halted, finished, stopped or interrupted: its rows stay on view

    @property
    def live(self) -> bool:
        """A run process exists: another run, another dataset or a session cannot start now."""
        return self in (RunState.RUNNING, RunState.PAUSED, RunState.DRAINED)

    @property
    def steppable(self) -> bool:
        """Pause/Resume and Step apply (the stream still has planned queries to answer)."""
        return self in (RunState.RUNNING, RunState.PAUSED)


class RunClock:
    """Running time only: a stretch of RUNNING is added when it ends (pause, drain, end).

    A run paused for an hour took seconds, not an hour; ``idled`` says that some time was left
    out (paused, or waiting for an adaptive query), so the status line can say so.
    """

    def __init__(self, now: Callable[[], float] = time.perf_counter) -> None:
        self.now = now
        self.reset()

    def reset(self) -> None:
        self._elapsed = 0.0
        self._since: float | None = None
        self.idled = False

    def enter(self, state: RunState) -> None:
        """The run entered ``state``: start or close a stretch of running time."""
        t = self.now()
        if state == RunState.RUNNING and self._since is None:
            self._since = t
        elif state != RunState.RUNNING and self._since is not None:
            self._elapsed += t - self._since
            self._since = None
        self.idled = self.idled or state in (RunState.PAUSED, RunState.DRAINED)

    @property
    def elapsed(self) -> float:
        """Seconds of running time so far (the current stretch included)."""
        return self._elapsed + (self.now() - self._since if self._since is not None else 0.0)
