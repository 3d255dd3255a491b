"""The one way work leaves the GUI thread: a task function, the state it is given, a runner. Qt-free.

In the spirit of Orange3's ``TaskState``::

    def count_rows(state: TaskState, path: Path) -> int:
        for i, chunk in enumerate(chunks(path)):
            state.check_cancelled()                        # raises TaskCancelled once cancelled
            state.set_progress(i / n, f"chunk {i + 1} of {n}")
            state.set_partial_result(len(chunk))           # optional: results as they come
        return total

    task = submit(count_rows, path, name="count")          # runs on its own thread
    for event in task.events():                            # the owner's thread, never blocks
        ...                                                # TaskEvent("progress" | "partial" | "done" | ...)

Why it is built this way
------------------------
* The worker never calls back into its owner: everything it says is stored (the latest progress)
  or queued (partial results, the outcome) and the owner *drains* it when it likes. So a worker
  never touches a Qt object, never emits a Qt signal (PySide6 6.12.0's ``Signal.emit`` leaked a
  reference per call when emitted off the GUI thread), and the window decides how much to take per
  timer tick (:mod:`svtgui.ui.common.background` is the one Qt adapter that drains tasks).
* Progress is coalesced: a worker may report a million times, the owner sees only the latest
  value at each drain. Partial results are never coalesced; all of them come before the outcome.
* Cancellation is cooperative: ``cancel()`` sets a flag; the function checks it
  (:meth:`TaskState.is_cancelled`, or :meth:`TaskState.check_cancelled` which raises) and decides
  how to stop — the auditor tests what it has run so far, a loader gives up. Layers below ``app``
  see the state only through :class:`svtgui.core.progress.ProgressState`.
* Sharing the interpreter lock: a Python worker and the GUI thread take turns at the lock, and with
  CPython's default 5 ms switch interval each hand-over can cost the GUI thread up to 5 ms (the
  "convoy effect": measured, a 10 ms heartbeat waited 120-150 ms while History read 200,000 rows).
  A task started with ``yield_to_gui=True`` lowers the interval to :data:`SWITCH_SECONDS` and
  pauses the cyclic garbage collector while it runs (a full collection holds the lock while it
  walks every object: 90-170 ms each, measured, for a job building 200,000 records); when the last
  such task ends, the interval is restored and the survivors are frozen (``gc.freeze``) so later
  collections do not walk them again.
"""

from __future__ import annotations

import gc
import queue
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["SWITCH_SECONDS", "Task", "TaskCancelled", "TaskEvent", "TaskState", "submit"]

SWITCH_SECONDS = 0.0005  # the interpreter's switch interval while a yield_to_gui task runs (default 0.005)


class TaskCancelled(Exception):
    """Raised inside a task by :meth:`TaskState.check_cancelled`; the task then ends ``cancelled``."""


class TaskState:
    """What a task function is given: report progress, hand over partial results, see cancellation.

    Every method may be called from any thread.
    """

    def __init__(self) -> None:
        self._cancel = threading.Event()
        self._lock = threading.Lock()
        self._progress: tuple[float | None, str] | None = None  # the latest, not yet drained
        self._partials: queue.SimpleQueue[object] = queue.SimpleQueue()

    def set_progress(self, fraction: float | None, text: str = "") -> None:
        """``fraction`` done in [0, 1] (clamped; ``None``: unknown) and what is being done."""
        if fraction is not None:
            fraction = min(max(float(fraction), 0.0), 1.0)
        with self._lock:
            self._progress = (fraction, text)

    def set_partial_result(self, value: object) -> None:
        """Hand ``value`` to the owner now (in order; all of them arrive before the outcome)."""
        self._partials.put(value)

    def cancel(self) -> None:
        self._cancel.set()

    def is_cancelled(self) -> bool:
        return self._cancel.is_set()

    def check_cancelled(self) -> None:
        """Raise :class:`TaskCancelled` if the owner cancelled the task."""
        if self._cancel.is_set():
            raise TaskCancelled("cancelled")

    def _take_progress(self) -> tuple[float | None, str] | None:
        with self._lock:
            progress, self._progress = self._progress, None
        return progress

    def _take_partials(self, limit: int | None) -> list[object]:
        out: list[object] = []
        while limit is None or len(out) < limit:
            try:
                out.append(self._partials.get_nowait())
            except queue.Empty:
                break
        return out


@dataclass(frozen=True)
class TaskEvent:
    """One thing a task said. ``kind``: ``progress`` (payload ``(fraction, text)``), ``partial``
    (a partial result), then exactly one of ``done`` (the result), ``failed`` (the exception) or
    ``cancelled`` (the :class:`TaskCancelled`)."""

    kind: str
    payload: object = None  # whatever the task function hands over or returns: the runner never looks

    @property
    def final(self) -> bool:
        return self.kind in ("done", "failed", "cancelled")


class Task:
    """One task function call and what it has said so far (see the module docs)."""

    def __init__(self, fn: Callable[..., object], *args: object, name: str = "task",
                 **kwargs: object) -> None:
        self.name = name
        self.state = TaskState()
        self._call = (fn, args, kwargs)
        self._outcome: TaskEvent | None = None
        self._delivered = False
        self._ended = threading.Event()

    def run(self) -> None:
        """Call the function here (the runner's thread) and record its outcome; never raises."""
        fn, args, kwargs = self._call
        try:
            outcome = TaskEvent("done", fn(self.state, *args, **kwargs))
        except TaskCancelled as exc:
            outcome = TaskEvent("cancelled", exc)
        except BaseException as exc:  # noqa: BLE001 - every failure goes to the owner, never lost
            outcome = TaskEvent("failed", exc)
        self._call = None  # drop the arguments (a run's planned queries) as soon as the work is over
        self._outcome = outcome
        self._ended.set()

    def cancel(self) -> None:
        self.state.cancel()

    @property
    def finished(self) -> bool:
        """True once the function has returned or raised (its events may still wait to be drained)."""
        return self._ended.is_set()

    def events(self, limit: int | None = None) -> list[TaskEvent]:
        """What the task said since the last call, oldest first; never blocks.

        The latest progress (if any) comes first, then up to ``limit`` partial results, then the
        outcome once, after every partial result has been drained.
        """
        outcome = self._outcome  # read before draining: every partial result put before it is seen
        out: list[TaskEvent] = []
        if (progress := self.state._take_progress()) is not None:
            out.append(TaskEvent("progress", progress))
        partials = self.state._take_partials(limit)
        out.extend(TaskEvent("partial", p) for p in partials)
        # fewer partial results than the limit: the queue was drained, so the outcome may follow
        if outcome is not None and not self._delivered and (limit is None or len(partials) < limit):
            self._delivered = True
            out.append(outcome)
        return out

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the function has ended (not on the GUI thread); True when it has."""
        return self._ended.wait(timeout)

    def result(self, timeout: float | None = None) -> object:
        """Block until the end; return the result or raise what the function raised."""
        if not self._ended.wait(timeout):
            raise TimeoutError(f"task {self.name} still running after {timeout} s")
        assert self._outcome is not None
        if self._outcome.kind == "done":
            return self._outcome.payload
        raise self._outcome.payload


def submit(fn: Callable[..., object], *args: object, name: str = "task", yield_to_gui: bool = False,
           **kwargs: object) -> Task:
    """Start ``fn(state, *args, **kwargs)`` on a new daemon thread and return its :class:`Task`.

    ``yield_to_gui``: share the interpreter lock politely while it runs (see the module docs); for
    jobs that build many Python objects while the window must stay responsive.
    """
    task = Task(fn, *args, name=name, **kwargs)

    def work() -> None:
        try:
            task.run()
        finally:
            if yield_to_gui:
                _lock_sharing.leave()

    if yield_to_gui:
        _lock_sharing.enter()
    threading.Thread(target=work, name=f"svtgui-{name}", daemon=True).start()
    return task


class _LockSharing:
    """The process-wide interpreter settings while ``yield_to_gui`` tasks run (counted)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._running = 0
        self._default_switch = sys.getswitchinterval()
        self._gc_was_enabled = True

    def enter(self) -> None:
        with self._lock:
            if self._running == 0:
                self._default_switch = sys.getswitchinterval()
                self._gc_was_enabled = gc.isenabled()
                gc.disable()
                sys.setswitchinterval(SWITCH_SECONDS)
            self._running += 1

    def leave(self) -> None:
        with self._lock:
            self._running -= 1
            if self._running == 0:
                sys.setswitchinterval(self._default_switch)
                gc.freeze()
                if self._gc_was_enabled:
                    gc.enable()


_lock_sharing = _LockSharing()
