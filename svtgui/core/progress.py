"""How long work reports progress and learns it was cancelled: one spelling for every layer.

Slow functions below the application layer (the dataset loaders in :mod:`svtgui.data`, the auditor
in :mod:`svtgui.core.audit`) take an optional object with exactly these two methods. The task
runner's :class:`svtgui.app.tasks.TaskState` is one; the layers below ``app`` only know this
protocol, so they stay independent of it (and of any thread, queue or GUI).
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable


@runtime_checkable
class ProgressState(Protocol):
    """What a slow function may tell its caller, and ask it."""

    def set_progress(self, fraction: float | None, text: str = "") -> None:
        """``fraction`` of the work done, in [0, 1] (``None``: unknown), and what is being done."""

    def is_cancelled(self) -> bool:
        """True once the caller asked the work to stop; the function decides how to stop."""


class NoProgress:
    """The state of work nobody watches: progress goes nowhere, nothing is ever cancelled."""

    def set_progress(self, fraction: float | None, text: str = "") -> None:
        pass

    def is_cancelled(self) -> bool:
        return False


NO_PROGRESS = NoProgress()
