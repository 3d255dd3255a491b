"""Slow reads and writes (History's rows, release reports) on a worker thread, results on the GUI thread.

The same pattern as :mod:`svtgui.ui.setup.loader`: the job runs on a plain Python thread and never
touches a widget; what it returns (or raises) is put on a queue that a QTimer drains on the GUI
thread, where the callback runs. No Qt signal is emitted from the worker (PySide6 6.12.0's
``Signal.emit`` mis-counts references; see :mod:`svtgui.ui.run.run_controller`).

A newer :meth:`Background.start` supersedes the running job: its result is dropped.

The interpreter lock: the worker is Python too, and the GUI thread needs the lock for every Python
callback of an event (a model's ``data()``, a timer slot). With CPython's default 5 ms switch
interval each hand-over can cost the GUI thread up to 5 ms (the "convoy effect": measured, a 10 ms
heartbeat waited 120-150 ms while History read 200,000 rows). While a job runs the interval is
lowered to :data:`SWITCH_SECONDS` and restored after the last job ends.

The cyclic garbage collector: a full collection holds the lock while it walks every object, and a
job that builds 200,000 records triggers several (measured: 90-170 ms each). So the automatic
collector is paused while jobs run, and when the last one ends the survivors are frozen
(``gc.freeze``: they are records without reference cycles, freed by reference counting when
dropped) so later collections do not walk them again — as the run controller does during a run.
"""

from __future__ import annotations

import gc
import queue
import sys
import threading
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QProgressBar

from svtgui.ui.common.theme import named

POLL_MS = 30
SWITCH_SECONDS = 0.0005  # the interpreter's switch interval while a job runs (default 0.005)
_running = 0  # jobs running in this process (all Background objects)
_default_switch = sys.getswitchinterval()

class Background(QObject):
    """One job at a time; ``done(result)`` or ``failed(exception)`` is called on the GUI thread."""

    def __init__(self, name: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.name = name
        self._events: queue.SimpleQueue = queue.SimpleQueue()
        self._token: object | None = None
        self._handlers: tuple[Callable[[Any], None], Callable[[BaseException], None]] | None = None
        self._timer = QTimer(self, interval=POLL_MS)
        self._timer.timeout.connect(self.poll)

    @property
    def busy(self) -> bool:
        return self._token is not None

    def start(self, job: Callable[[], Any], done: Callable[[Any], None],
              failed: Callable[[BaseException], None]) -> None:
        """Run ``job()`` on a new thread (superseding any job still running)."""
        token = object()
        self._token, self._handlers = token, (done, failed)
        events = self._events

        def work() -> None:
            try:
                events.put(("done", token, job()))
            except BaseException as exc:  # noqa: BLE001 - every failure is reported on the GUI thread
                events.put(("failed", token, exc))
            finally:
                _job_ended()

        _job_started()
        threading.Thread(target=work, name=f"svtgui-{self.name}", daemon=True).start()
        self._timer.start()

    def cancel(self) -> None:
        """Forget the running job: its result will be dropped (the thread ends by itself)."""
        self._token = self._handlers = None

    def poll(self) -> None:
        """Drain the queue (timer): hand the current job's outcome to its callback."""
        while True:
            try:
                kind, token, payload = self._events.get_nowait()
            except queue.Empty:
                if self._token is None:
                    self._timer.stop()
                return
            if token is not self._token or self._handlers is None:
                continue  # a superseded job finishing in the background
            done, failed = self._handlers
            self._token = self._handlers = None
            (done if kind == "done" else failed)(payload)


_count_lock = threading.Lock()


_gc_was_enabled = True


def _job_started() -> None:
    global _running, _gc_was_enabled
    with _count_lock:
        if _running == 0:
            _gc_was_enabled = gc.isenabled()
            gc.disable()
            sys.setswitchinterval(SWITCH_SECONDS)
        _running += 1


def _job_ended() -> None:
    global _running
    with _count_lock:
        _running -= 1
        if _running == 0:
            sys.setswitchinterval(_default_switch)
            gc.freeze()
            if _gc_was_enabled:
                gc.enable()


def busy_bar(name: str, tip: str) -> QProgressBar:
    """A small indeterminate progress bar (hidden) to show while a background job runs."""
    bar = named(QProgressBar(), name, tip)
    bar.setRange(0, 0)  # indeterminate: how long a ledger read or an export takes is not known ahead
    bar.setMaximumWidth(160)
    bar.hide()
    return bar
