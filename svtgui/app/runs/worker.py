"""The window's handle on a run that streams in a child process (:mod:`svtgui.app.runs.process`).

Why it is built this way
------------------------
* The run (validation, charge, evaluation, mechanism, ledger commits) executes in a ``spawn``ed
  child process, so the GUI thread never competes with it for the interpreter lock; see
  :mod:`svtgui.app.runs.process` for the measurements and the write-ahead rule.
* Nothing here blocks the GUI thread: messages to the child go through a queue that a sender
  thread drains (it first streams the job and the planned queries in chunks, so pickling a
  million queries never freezes the window); messages from the child are read by the window's
  timer with a non-blocking ``poll`` (:meth:`RunWorker.events`).
* No Qt signal is emitted off the GUI thread: PySide6 6.12.0's ``Signal.emit()`` leaks a
  reference to ``True`` per call (see ``svtgui.ui.run.run_controller``).
* Back-pressure: the child sends at most ``MAX_IN_FLIGHT`` batches the window has not
  acknowledged, so memory stays bounded on both sides whatever the stream's length.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import queue
import threading
from typing import Any, NamedTuple

from svtgui.app.runs.process import ReleasedBatch, RunJob, RunView, child_main

__all__ = ["ReleasedBatch", "RunJob", "RunView", "RunWorker", "discard_prepared", "prepare"]

CHUNK = 5_000  # planned queries per message: each pickling holds the GIL for a few ms at most
MAX_EVENTS_PER_POLL = 32  # bounded work per timer tick
TERMINAL = ("refused", "ended", "failed")
NICENESS = 5  # the run process yields the CPU to the window when both want it


class _Spawned(NamedTuple):
    process: Any
    to_child: Any  # Connection: window → child
    from_child: Any  # Connection: child → window


_prepared: _Spawned | None = None


def _spawn() -> _Spawned:
    ctx = multiprocessing.get_context("spawn")  # never fork a process that runs Qt threads
    ctrl_child, ctrl = ctx.Pipe(duplex=False)
    from_child, out_child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=child_main, args=(ctrl_child, out_child), name="svtgui-run", daemon=True)
    proc.start()
    # Background work: when the CPU is short, the window's thread (repaints, input) goes first.
    with contextlib.suppress(OSError):
        os.setpriority(os.PRIO_PROCESS, proc.pid, os.getpriority(os.PRIO_PROCESS, 0) + NICENESS)
    ctrl_child.close()
    out_child.close()
    return _Spawned(proc, ctrl, from_child)


def prepare() -> None:
    """Start a run process ahead of the job (the Run confirmation is showing): it imports the
    runner and waits, so that spending starts the run at once. Nothing is charged by this."""
    global _prepared
    if _prepared is None or not _prepared.process.is_alive():
        _prepared = _spawn()


def discard_prepared() -> None:
    """Let a prepared, unused run process exit (it sees the closed pipe)."""
    global _prepared
    if _prepared is not None:
        _prepared.to_child.close()
        _prepared.from_child.close()
        _prepared = None


def _take() -> _Spawned:
    global _prepared
    spawned, _prepared = _prepared, None
    if spawned is not None and spawned.process.is_alive():
        return spawned
    return _spawn()


class RunWorker:
    """Starts the run process, forwards requests to it, hands its outcomes to the window's timer."""

    def __init__(self, job: RunJob, queries: list[Any]) -> None:
        self._job = job
        self._queries = queries
        self._outbox: queue.SimpleQueue = queue.SimpleQueue()
        self._local: queue.SimpleQueue = queue.SimpleQueue()  # the sender thread's own failures
        self._job_sent = threading.Event()
        self._proc: Any = None
        self._from_child: Any = None
        self._sender: threading.Thread | None = None
        self._paused = False
        self._done = False
        self.run_: RunView | None = None

    # -- lifetime ----------------------------------------------------------------------------------
    def start(self) -> None:
        self._proc, ctrl, self._from_child = _take()
        self._sender = threading.Thread(target=self._send_all, args=(ctrl,), name="svtgui-run-feed",
                                        daemon=True)
        self._sender.start()

    def _send_all(self, ctrl: Any) -> None:
        """Sender thread: the job, the queries in chunks, then control messages until closed."""
        try:
            ctrl.send(self._job)
            for i in range(0, len(self._queries), CHUNK):
                ctrl.send(self._queries[i:i + CHUNK])
            ctrl.send(None)
            self._job_sent.set()
            while (message := self._outbox.get()) is not None:
                ctrl.send(message)
        except OSError:
            pass  # the child has ended; whatever it did is in the ledger and in its last messages
        except Exception as exc:  # noqa: BLE001 - e.g. a query that cannot be pickled: say so
            if not self._job_sent.is_set():
                self._local.put(("refused", f"the run could not be handed to its process "
                                 f"({type(exc).__name__}: {exc}); nothing was charged"))
        finally:
            ctrl.close()

    def wait(self, ms: int) -> bool:
        """Wait up to ``ms`` for the child to exit; True when it has."""
        if self._proc is None:
            return True
        self._proc.join(ms / 1000)
        alive = self._proc.is_alive()
        if not alive:
            self._outbox.put(None)
        return not alive

    def close(self) -> None:
        """Stop forwarding requests; the child exits on its own after its last message."""
        self._done = True
        self._outbox.put(None)

    def kill(self) -> None:
        """Last resort when the child does not exit: the next ledger open marks its run interrupted."""
        if self._proc is not None and self._proc.is_alive():
            self._proc.terminate()
            self._proc.join(2)
        self._outbox.put(None)

    # -- outcomes ----------------------------------------------------------------------------------
    def events(self) -> list[tuple[str, Any]]:
        """What the child reported since the last call (GUI thread; never blocks)."""
        out: list[tuple[str, Any]] = []
        if self._done or self._from_child is None:
            return out
        while not self._local.empty():
            out.append(self._local.get())
        try:
            while len(out) < MAX_EVENTS_PER_POLL and self._from_child.poll():
                out.append(self._from_child.recv())
        except (EOFError, OSError):
            if not any(kind in TERMINAL for kind, _ in out):
                code = self._proc.exitcode if self._proc is not None else None
                out.append(("failed", f"the run process exited unexpectedly (exit code {code})"))
        for kind, payload in out:
            if kind == "started_run":
                self.run_ = payload
            elif kind == "ended" and self.run_ is not None:
                self.run_.status = payload
            elif kind == "failed" and self.run_ is not None:
                self.run_.status = "interrupted"
            if kind in TERMINAL:
                self._done = True
        return out

    # -- requests from the GUI thread ------------------------------------------------------------
    def _tell(self, kind: str, payload: Any = None) -> None:
        if not self._done:
            self._outbox.put((kind, payload))

    def acknowledge(self) -> None:
        """The window has taken a batch: one more may come."""
        self._tell("ack")

    def pause(self) -> None:
        self._paused = True
        self._tell("pause")

    def resume(self) -> None:
        self._paused = False
        self._tell("resume")

    def step(self) -> None:
        """Answer exactly one more planned query (pauses the stream)."""
        self._paused = True
        self._tell("step")

    def stop(self) -> None:
        """End the run now (status ``stopped``; the budget stays spent)."""
        self._tell("stop")

    def finish(self) -> None:
        """End the run after the queued work (``finished`` if every planned query was answered)."""
        self._tell("finish")

    def ask(self, query: Any) -> None:
        """Queue an adaptive query, answered before the next planned batch."""
        self._tell("ask", query)

    @property
    def paused(self) -> bool:
        return self._paused
