"""The window's handle on a run that streams in a child process, as a task (:mod:`svtgui.app.tasks`).

Why it is built this way
------------------------
* The run (validation, charge, evaluation, mechanism, ledger commits) executes in a ``spawn``ed
  child process (:mod:`svtgui.app.runs.process`), so the GUI thread never competes with it for
  the interpreter lock; see that module for the measurements and the write-ahead rule.
* Between the window and the child sits one task, :func:`relay`, on its own thread: it streams the
  job and the planned queries in chunks (pickling a million queries never freezes the window),
  then forwards the window's control messages to the child and hands every message of the child
  to the window as a *partial result*. The window drains them with :meth:`RunWorker.events` from
  its timer (never blocking); no Qt object is touched off the GUI thread. Cancelling the task
  asks the child to stop the run.
* Back-pressure: the child sends at most ``MAX_IN_FLIGHT`` batches the window has not
  acknowledged (:meth:`RunWorker.acknowledge`), so memory stays bounded on both sides whatever
  the stream's length.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import queue
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import TYPE_CHECKING, NamedTuple

from svtgui.app.runs.process import Control, Event, ReleasedBatch, RunJob, RunView, child_main
from svtgui.app.tasks import Task, TaskState, submit

if TYPE_CHECKING:
    from svtgui.data.queries import Query

__all__ = ["Event", "ReleasedBatch", "RunJob", "RunView", "RunWorker", "discard_prepared", "prepare", "relay"]

CHUNK = 5_000  # planned queries per message: each pickling holds the GIL for a few ms at most
MAX_EVENTS_PER_POLL = 32  # bounded work per timer tick
TERMINAL = ("refused", "ended", "failed")
NICENESS = 5  # the run process yields the CPU to the window when both want it
RELAY_POLL_SECONDS = 0.01  # how long the relay waits for the child before forwarding control again


class Spawned(NamedTuple):
    """A run process and its two pipes, seen from the window's side."""

    process: BaseProcess
    to_child: Connection  # window → child
    from_child: Connection  # child → window


_prepared: Spawned | None = None


def _spawn() -> Spawned:
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
    return Spawned(proc, ctrl, from_child)


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


def _take() -> Spawned:
    global _prepared
    spawned, _prepared = _prepared, None
    if spawned is not None and spawned.process.is_alive():
        return spawned
    return _spawn()


def relay(state: TaskState, spawned: Spawned, job: RunJob, queries: list[Query],
          outbox: queue.SimpleQueue) -> str:
    """Task: hand ``job`` and ``queries`` to the run process, then relay until the run's last message.

    Every message of the child becomes a partial result ``(kind, payload)``; messages put on
    ``outbox`` go to the child (``None``: stop forwarding). Cancelling asks the child to stop.
    Returns the kind of the child's last message (``refused``, ``ended`` or ``failed``).
    """
    ctrl, from_child = spawned.to_child, spawned.from_child
    try:
        try:
            ctrl.send(job)
            for i in range(0, len(queries), CHUNK):
                ctrl.send(queries[i:i + CHUNK])
            ctrl.send(None)
        except OSError:
            pass  # the child has ended already: what it said (if anything) is read below
        except Exception as exc:  # noqa: BLE001 - e.g. a query that cannot be pickled: say so
            state.set_partial_result(("refused", f"the run could not be handed to its process "
                                      f"({type(exc).__name__}: {exc}); nothing was charged"))
            return "refused"
        forwarding, stop_sent = True, False
        while True:
            while forwarding:
                try:
                    message = outbox.get_nowait()
                except queue.Empty:
                    break
                forwarding = _forward(ctrl, message)
            if forwarding and state.is_cancelled() and not stop_sent:
                stop_sent = True
                forwarding = _forward(ctrl, ("stop", None))
            if not forwarding:
                ctrl.close()  # the child sees the window gone: it ends the run (budget stays spent)
            try:
                if not from_child.poll(RELAY_POLL_SECONDS):
                    continue
                kind, payload = from_child.recv()
            except (EOFError, OSError):
                code = spawned.process.exitcode if spawned.process is not None else None
                state.set_partial_result(("failed", f"the run process exited unexpectedly "
                                                    f"(exit code {code})"))
                return "failed"
            state.set_partial_result((kind, payload))
            if kind in TERMINAL:
                return kind
    finally:
        ctrl.close()
        from_child.close()


def _forward(ctrl: Connection, message: Control | None) -> bool:
    """Send one control message; False once forwarding has ended (closed by the window, or the child)."""
    if message is None:
        return False
    try:
        ctrl.send(message)
    except OSError:
        return False  # the child has ended; whatever it did is in the ledger and in its last messages
    return True


class RunWorker:
    """Starts the run process and its relay task, forwards requests, hands outcomes to the window's timer."""

    def __init__(self, job: RunJob, queries: list[Query]) -> None:
        self._job = job
        self._queries = queries
        self._outbox: queue.SimpleQueue = queue.SimpleQueue()
        self._proc: BaseProcess | None = None
        self.task: Task | None = None
        self._paused = False
        self._done = False
        self.synced = 0  # the token of the last ``synced`` the child sent (see :meth:`sync`)
        self._sync_tokens = 0

    # -- lifetime ----------------------------------------------------------------------------------
    def start(self) -> None:
        spawned = _take()
        self._proc = spawned.process
        self.task = submit(relay, spawned, self._job, self._queries, self._outbox, name="run-relay")
        self._queries = []  # the relay holds them until they are sent

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
    def events(self) -> list[Event]:
        """What the child reported since the last call (GUI thread; never blocks)."""
        if self._done or self.task is None:
            return []
        out: list[Event] = []
        for event in self.task.events(MAX_EVENTS_PER_POLL):
            if event.kind == "partial" and event.payload[0] == "synced":
                self.synced = event.payload[1]  # a barrier the caller waits on, not an event of the run
            elif event.kind == "partial":
                out.append(event.payload)
            elif event.kind == "failed" and not any(kind in TERMINAL for kind, _ in out):
                exc = event.payload
                out.append(("failed", f"the run's relay failed ({type(exc).__name__}: {exc})"))
        if any(kind in TERMINAL for kind, _ in out):
            self._done = True
        return out

    # -- requests from the GUI thread ------------------------------------------------------------
    def _tell(self, kind: str, payload: float | int | Query | None = None) -> None:
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

    def set_pace(self, rate: float | None) -> None:
        """Answer about ``rate`` queries per second from now on (None: as fast as possible)."""
        self._tell("pace", rate)

    def ask(self, query: Query) -> None:
        """Queue an adaptive query, answered before the next planned batch."""
        self._tell("ask", query)

    def sync(self) -> int:
        """Send a barrier; :attr:`synced` equals the returned token once every message the child sent
        before it handled the barrier has been drained by :meth:`events`."""
        self._sync_tokens += 1
        self._tell("sync", self._sync_tokens)
        return self._sync_tokens

    @property
    def paused(self) -> bool:
        return self._paused
