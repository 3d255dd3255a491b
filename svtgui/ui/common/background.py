"""The one Qt adapter of :mod:`svtgui.app.tasks`: a timer drains a task's events on the GUI thread.

Every background job of the window (a dataset load, History's rows, a release report, an audit,
a run's stream) is a task function ``fn(state, *args)`` started by :func:`svtgui.app.tasks.submit`;
the worker never touches a widget nor emits a signal. A :class:`Background` owns one task at a
time: a QTimer polls it every :data:`POLL_MS` and calls the callbacks here, on the GUI thread.
A newer :meth:`Background.start` supersedes the running task: it is cancelled and whatever it
still says is dropped.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QProgressBar

from svtgui.app.tasks import Task, TaskEvent, submit
from svtgui.ui.common.theme import named

POLL_MS = 30


class Background(QObject):
    """One task at a time; its outcome is handed to ``done(result)`` / ``failed(exception)`` on the
    GUI thread, as are its progress (``progress(fraction, text)``), partial results
    (``partial(value)``, at most ``partial_limit`` per tick) and a cancellation (``cancelled()``)."""

    def __init__(self, name: str, parent: QObject | None = None, *, interval_ms: int = POLL_MS,
                 yield_to_gui: bool = True, partial_limit: int | None = None) -> None:
        super().__init__(parent)
        self.name = name
        self.yield_to_gui = yield_to_gui
        self.partial_limit = partial_limit
        self.task: Task | None = None
        self._handlers: dict[str, Callable[..., None] | None] = {}
        self._timer = QTimer(self, interval=interval_ms)
        self._timer.timeout.connect(self.poll)

    @property
    def busy(self) -> bool:
        return self.task is not None

    def start(self, fn: Callable[..., Any], done: Callable[[Any], None],
              failed: Callable[[BaseException], None], *args: Any,
              progress: Callable[[float | None, str], None] | None = None,
              partial: Callable[[Any], None] | None = None,
              cancelled: Callable[[], None] | None = None) -> Task:
        """Start ``fn(state, *args)`` off the GUI thread (cancelling and superseding any task still running).

        Without a ``cancelled`` callback, a cancelled task is reported to ``failed``.
        """
        self.cancel()
        self._handlers = {"done": done, "failed": failed, "progress": progress, "partial": partial,
                          "cancelled": cancelled}
        self.task = submit(fn, *args, name=self.name, yield_to_gui=self.yield_to_gui)
        self._timer.start()
        return self.task

    def cancel(self) -> None:
        """Ask the running task to stop and forget it: nothing more it says is handed over."""
        if self.task is not None:
            self.task.cancel()
        self.task = None
        self._handlers = {}
        self._timer.stop()

    def poll(self) -> None:
        """Hand the current task's events to their callbacks (the timer; also callable directly)."""
        task = self.task
        if task is None:
            self._timer.stop()
            return
        for event in task.events(self.partial_limit):
            if task is not self.task:
                return  # a callback started or cancelled a task: the rest is stale
            self._hand_over(event)

    def _hand_over(self, event: TaskEvent) -> None:
        handlers = self._handlers
        if event.final:
            self.task = None
            self._handlers = {}
            self._timer.stop()
        if event.kind == "progress":
            if (on_progress := handlers.get("progress")) is not None:
                on_progress(*event.payload)
        elif event.kind == "partial":
            if (on_partial := handlers.get("partial")) is not None:
                on_partial(event.payload)
        elif event.kind == "cancelled" and handlers.get("cancelled") is not None:
            handlers["cancelled"]()
        elif event.kind == "done":
            handlers["done"](event.payload)
        else:  # failed, or cancelled without its own callback
            handlers["failed"](event.payload)


def busy_bar(name: str, tip: str) -> QProgressBar:
    """A small indeterminate progress bar (hidden) to show while a background job runs."""
    bar = named(QProgressBar(), name, tip)
    bar.setRange(0, 0)  # indeterminate: how long a ledger read or an export takes is not known ahead
    bar.setMaximumWidth(160)
    bar.hide()
    return bar
