"""The run loop in its own process: charge, stream, commit, then send committed batches as arrays.

This module is Qt-free: it is what the child process imports (``spawn``), next to the runner.

Why a process and not a thread
------------------------------
The runner is pure Python between numpy and SQLite calls. On a thread it shares the GUI's
interpreter lock, and every Python callback the window makes while painting (table cells,
chart items, timers) waited for the lock: measured on 300,000 queries, a 10 ms heartbeat timer
waited 23 ms at the median and 80–140 ms at worst. In a child process the window never waits
for the run, and the run never waits for a repaint.

The write-ahead rule holds unchanged: the child commits every response to the ledger (the
runner's ``next_batch``) *before* it sends the batch, so whatever the window shows is already
on disk. The secrets (true answers, noise, the noisy threshold) never leave the child: the
messages carry exactly what the ledger records as released.

Protocol (one ``Pipe`` each way, pickled tuples ``(kind, payload)``)
-------------------------------------------------------------------
window → child: ``RunJob`` first, then the planned queries in chunks, then ``None``; afterwards
control messages ``ack`` (one more batch may come), ``pause``, ``resume``, ``step``, ``stop``,
``finish``, ``ask`` (an adaptive query), ``pace`` (queries per second, or None: as fast as possible),
``sync`` (a token, echoed back: a barrier, see below).
child → window: ``started_run`` (:class:`RunView`), ``refused`` (nothing charged), ``released``
(:class:`ReleasedBatch`), ``adaptive_failed``, ``drained`` (planned queue empty, run open),
``synced`` (the token of a ``sync``), ``ended`` (final status), ``failed`` (run marked interrupted).

Messages are handled in order, so ``synced`` arrives after everything the child sent before it saw
the ``sync``: a window (or a test) that has paused and then seen two ``synced`` in a row knows the
child went round its loop without answering anything — no waiting on a clock to prove it.
"""

from __future__ import annotations

import gc
import time
from collections import deque
from dataclasses import dataclass
from datetime import datetime
from multiprocessing.connection import Connection
from typing import TYPE_CHECKING, Union

import numpy as np

if TYPE_CHECKING:  # annotations only: the run process imports the data layer with the runner
    from svtgui.app.params import Params
    from svtgui.app.plan import Plan
    from svtgui.app.runs.runner import Run
    from svtgui.data.dataset import Dataset
    from svtgui.data.queries import Query
    from svtgui.ledger import ResponseBatch, RunRecord

from svtgui.app.domains import DECLARED, Domains

TARGET_SECONDS = 0.25  # per batch: one commit (fsync) each; Pause takes effect within about this
MIN_BATCH, MAX_BATCH, FIRST_BATCH = 64, 131_072, 256
MAX_IN_FLIGHT = 4  # batches sent but not yet taken by the window: bounds memory on both sides
POLL_SECONDS = 0.1
PACE_TICK = 0.1  # a paced run sends a batch about this often (one query at a time below 1/PACE_TICK per s)

#: A control message, window → child: its kind and what it carries (a pace, an adaptive query, a
#: sync token, or nothing).
Control = tuple[str, Union[float, int, "Query", None]]
#: A message of the run, child → window: its kind and what it carries (the charged run, a released
#: batch, a refusal's or an error's words, the final status, a sync token, or nothing).
Event = tuple[str, Union["RunView", "ReleasedBatch", str, int, None]]


@dataclass
class ReleasedBatch:
    """Committed rows as compact arrays (public values only)."""

    index: np.ndarray
    ref: np.ndarray
    above: np.ndarray
    value: np.ndarray
    time: np.ndarray
    free: np.ndarray | None = None  # PMW: the ⊥ rows answered (free) from the public synthetic data

    def __len__(self) -> int:
        return len(self.index)


@dataclass(frozen=True)
class RunJob:
    """Everything the child needs to charge and start a run (the queries follow in chunks)."""

    ledger_path: str
    dataset: Dataset
    mechanism_id: str
    params: Params
    seed: int | None = None
    monotonic: bool = False
    pace: float | None = None  # queries per second for demonstrations; None: as fast as possible
    domains: Domains = DECLARED  # the queue's domains read from the data, and the curator's override
    plan: Plan | None = None  # the set-up's plan of exactly these inputs (None: the run plans them itself)


@dataclass
class RunView:
    """The public face of the child's run, as the window sees it (status kept current by the worker)."""

    record: RunRecord  # as charged, at the start
    cutoff: int | None
    params: Params
    status: str = "running"
    total: int = 0

    @property
    def id(self) -> int:
        return self.record.id

    @property
    def finished(self) -> bool:
        return self.status != "running"

    @classmethod
    def of(cls, run: Run) -> RunView:
        return cls(run.record, run.cutoff, run.params, run.status, run.total)


def to_arrays(batch: ResponseBatch, refs: np.ndarray) -> ReleasedBatch:
    """A committed batch as the window takes it: its columns unchanged (its ⊥ values are already
    blanked, PMW's free answers kept: :class:`~svtgui.ledger.ResponseBatch` does that once), where
    each query came from (``refs``), and the commit time as a number. The descriptions stay here: the
    window looks them up from its own query list when a row is painted."""
    stamp = datetime.fromisoformat(batch.time).timestamp()
    return ReleasedBatch(batch.index, refs, batch.above, batch.value, np.full(len(batch), stamp),
                         batch.simulated)


class StreamLoop:
    """Streams a charged run, answering control messages between batches (child process)."""

    def __init__(self, run: Run, out: Connection, ctrl: Connection, pace: float | None = None) -> None:
        self.run, self.out, self.ctrl = run, out, ctrl
        self.pace = _pace(pace)
        self.next_due = 0.0  # a paced run's next batch is due at this perf_counter time
        self.paused = False
        self.steps = 0
        self.stop = False
        self.finish = False
        self.adaptive: deque[Query] = deque()
        self.credits = MAX_IN_FLIGHT
        self.drained = False
        self.batch_size = FIRST_BATCH
        self.planned_done = 0
        self.adaptive_count = 0

    # -- control ---------------------------------------------------------------------------------
    def _apply(self, message: Control) -> None:
        kind, payload = message
        if kind == "ack":
            self.credits += 1
        elif kind == "pause":
            self.paused = True
        elif kind == "resume":
            self.paused = False
        elif kind == "step":
            self.paused = True
            self.steps += 1
        elif kind == "stop":
            self.stop = True
        elif kind == "finish":
            self.finish = True
        elif kind == "ask":
            self.adaptive.append(payload)
        elif kind == "pace":
            self.pace = _pace(payload)
            self.next_due = 0.0
        elif kind == "sync":
            self._send("synced", payload)

    def _pump(self, timeout: float) -> None:
        """Apply every waiting control message (waiting up to ``timeout`` for the first)."""
        try:
            while self.ctrl.poll(timeout):
                self._apply(self.ctrl.recv())
                timeout = 0
        except (EOFError, OSError):  # the window is gone: end the run, the budget stays spent
            self.stop = True

    def _idle(self) -> bool:
        if self.stop or self.adaptive or self._finish_ready():
            return False
        if self.credits == 0 or self.drained:
            return True
        if self.paused:
            return self.steps == 0  # a step is answered at once, whatever the pace
        return self._wait() > 0

    def _wait(self) -> float:
        """Seconds until a paced run's next batch is due (0 when unpaced or due)."""
        return 0.0 if self.pace is None else max(0.0, self.next_due - time.perf_counter())

    def _finish_ready(self) -> bool:
        return self.finish and not self.adaptive

    def _send(self, kind: str, payload: RunView | ReleasedBatch | str | int | None = None) -> None:
        self.out.send((kind, payload))

    # -- the loop --------------------------------------------------------------------------------
    def loop(self) -> None:
        run = self.run
        while True:
            self._pump(0)
            while self._idle():
                self._pump(min(POLL_SECONDS, self._wait()) or POLL_SECONDS)
            if self.stop:
                self._send("ended", run.status if run.finished else run.stop().status)
                return
            if self.adaptive:
                self._answer_adaptive()
            elif self._finish_ready():
                self._send("ended", run.status if run.finished else run.finish().status)
                return
            else:
                self._next_batch()
            if run.finished:
                self._send("ended", run.status)
                return

    def _next_batch(self) -> None:
        stepping = self.paused and self.steps > 0
        started = time.perf_counter()
        if stepping:
            size = 1
        else:
            size = self.batch_size if self.pace is None else max(1, round(self.pace * PACE_TICK))
        batch = self.run.next_batch(size)  # committed before it returns
        if stepping:
            self.steps -= 1
        if not len(batch):
            if not self.run.finished:
                self.drained = True
                self._send("drained")
            return
        refs = np.arange(self.planned_done, self.planned_done + len(batch), dtype=np.int64)
        self.planned_done += len(batch)
        self.credits -= 1
        self._send("released", to_arrays(batch, refs))
        if self.pace is not None:
            self.next_due = max(self.next_due, started) + len(batch) / self.pace
        elif not stepping:
            self._adapt(time.perf_counter() - started, len(batch))

    def _answer_adaptive(self) -> None:
        q = self.adaptive.popleft()
        try:
            batch = self.run.submit_query(q)
        except ValueError as exc:
            self._send("adaptive_failed", str(exc))
            return
        self.adaptive_count += 1
        self.credits -= 1
        self._send("released", to_arrays(batch, np.array([-self.adaptive_count], dtype=np.int64)))

    def _adapt(self, seconds: float, n: int) -> None:
        """Aim at ``TARGET_SECONDS`` per batch: the first answers show at once, long streams run at speed."""
        if n < self.batch_size:
            return
        factor = min(4.0, max(0.25, TARGET_SECONDS / max(seconds, 1e-4)))
        self.batch_size = int(min(MAX_BATCH, max(MIN_BATCH, self.batch_size * factor)))


def child_main(ctrl: Connection, out: Connection) -> None:
    """Entry point of the run process: receive the job, charge, stream until the run ends.

    The process may be started ahead of the job (:func:`svtgui.app.runs.worker.prepare`): it
    imports the runner and the data layer first, then waits, so a confirmed run starts at once.
    """
    from svtgui.app.runs.runner import start_run
    from svtgui.data import evaluate  # noqa: F401 - warm: the runner's evaluator imports it lazily
    from svtgui.ledger import BudgetExceeded, Ledger, LedgerError

    try:
        job: RunJob = ctrl.recv()
        queries: list[Query] = []
        while (chunk := ctrl.recv()) is not None:
            queries.extend(chunk)
    except (EOFError, OSError):
        return  # the window went away (or never sent a job): nothing was charged
    # Millions of short-lived rows: full cyclic collections would only walk the batch in flight.
    gc.freeze()
    t0, t1, _ = gc.get_threshold()
    gc.set_threshold(t0, t1, 10**9)
    try:
        ledger = Ledger.open(job.ledger_path)
    except LedgerError as exc:
        out.send(("refused", str(exc)))
        return
    try:
        try:
            run = start_run(ledger, job.dataset, queries, job.mechanism_id, job.params,
                            seed=job.seed, monotonic=job.monotonic, domains=job.domains, plan=job.plan)
        except (BudgetExceeded, ValueError, LedgerError) as exc:
            out.send(("refused", str(exc)))
            return
        except Exception as exc:  # noqa: BLE001 - shown to the curator, never swallowed
            out.send(("failed", f"{type(exc).__name__}: {exc}"))
            return
        out.send(("started_run", RunView.of(run)))
        try:
            StreamLoop(run, out, ctrl, pace=job.pace).loop()
        except Exception as exc:  # the run must end visibly, never hang half-open
            _interrupt(run)
            try:
                out.send(("failed", f"{type(exc).__name__}: {exc}"))
            except OSError:
                pass  # the window is gone; the ledger says "interrupted"
    finally:
        ledger.close()


def _pace(rate: float | int | None) -> float | None:
    """A pace in queries per second (None or 0: as fast as possible)."""
    if rate is None or rate == 0:
        return None
    rate = float(rate)
    if not rate > 0 or rate == float("inf"):
        raise ValueError(f"pace must be a positive number of queries per second, got {rate!r}")
    return rate


def _interrupt(run: Run) -> None:
    try:
        if not run.finished:
            run.ledger.finish_run(run.id, "interrupted")
            run.status = "interrupted"
    except Exception:  # noqa: BLE001 - reporting the original error matters more
        pass
