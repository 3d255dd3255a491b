"""The run loop off the GUI thread: a QThread that drives :class:`svtgui.session.runner.Run`.

Why it is built this way
------------------------
* The runner commits every response to the ledger before returning it, so whatever this worker
  hands to the window is already on disk.
* Batches adapt their size to take about ``TARGET_SECONDS`` each: small at first (the first
  answers appear at once), large on long streams (a million queries at full speed).
* Back-pressure: at most ``MAX_IN_FLIGHT`` batches wait for the GUI. A fast stream therefore
  never piles up signals (bounded memory) and never starves the event loop.
* Pause / step / stop / adaptive queries are requests the loop picks up between batches; the
  GUI thread never calls the runner itself, so it never waits on the runner's lock.
"""

from __future__ import annotations

import queue
import threading
import time
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np

TARGET_SECONDS = 0.04
MIN_BATCH, MAX_BATCH, FIRST_BATCH = 64, 131_072, 256
MAX_IN_FLIGHT = 2


@dataclass
class ReleasedBatch:
    """Committed rows as compact arrays (public values only)."""

    index: np.ndarray
    ref: np.ndarray
    above: np.ndarray
    value: np.ndarray
    time: np.ndarray

    def __len__(self) -> int:
        return len(self.index)


def to_arrays(rows: list[Any], refs: np.ndarray) -> ReleasedBatch:
    """Runner rows (``Row``: index, above, value, time) to arrays; one timestamp parse per commit."""
    n = len(rows)
    index = np.fromiter((r.index for r in rows), dtype=np.int64, count=n)
    above = np.fromiter((r.above for r in rows), dtype=bool, count=n)
    value = np.fromiter(
        (np.nan if r.value is None or not r.above else r.value for r in rows), dtype=np.float64, count=n
    )
    stamps: dict[str, float] = {}
    times = np.fromiter(
        (stamps.setdefault(r.time, datetime.fromisoformat(r.time).timestamp()) for r in rows),
        dtype=np.float64,
        count=n,
    )
    return ReleasedBatch(index, refs, above, value, times)


class RunWorker:
    """Streams a charged run on a plain Python thread; the GUI polls :meth:`events`.

    No Qt call is made from this thread: PySide6 6.12 mis-counts references when a signal is
    emitted (see docs of ``svtgui.ui.run_controller``), so outcomes travel through a queue that
    the window's 30 Hz timer drains. Event kinds: ``started_run`` (the charged Run), ``refused``
    (nothing charged), ``released`` (ReleasedBatch), ``adaptive_failed``, ``drained`` (planned
    queue empty, run still open), ``ended`` (final status), ``failed`` (run marked interrupted).
    """

    def __init__(
        self, start: Any, refusals: tuple[type[BaseException], ...] = (ValueError,), parent=None
    ) -> None:
        """``start()`` charges and returns the Run; it is called on the worker thread, because
        validating and charging a million-query list would otherwise freeze the window."""
        self._start = start
        self._events: queue.SimpleQueue = queue.SimpleQueue()
        self._thread = threading.Thread(target=self.run, name="svtgui-run", daemon=True)
        self._refusals = refusals
        self.run_: Any = None
        self._credits = threading.Semaphore(MAX_IN_FLIGHT)
        self._wake = threading.Condition()
        self._paused = False
        self._steps = 0
        self._stop = False
        self._finish = False
        self._adaptive: queue.Queue = queue.Queue()
        self._adaptive_count = 0
        self._planned_done = 0
        self._drained = False
        self.batch_size = FIRST_BATCH

    # -- thread and events -------------------------------------------------------------------------
    def start(self) -> None:
        self._thread.start()

    def wait(self, ms: int) -> bool:
        self._thread.join(ms / 1000)
        return not self._thread.is_alive()

    def _post(self, kind: str, payload: Any) -> None:
        self._events.put((kind, payload))

    def events(self) -> list[tuple[str, Any]]:
        """Everything that happened since the last call (GUI thread)."""
        out = []
        while True:
            try:
                out.append(self._events.get_nowait())
            except queue.Empty:
                return out

    # -- requests from the GUI thread ------------------------------------------------------------
    def acknowledge(self) -> None:
        """The GUI has taken a batch: one more may be produced."""
        self._credits.release()

    def pause(self) -> None:
        with self._wake:
            self._paused = True

    def resume(self) -> None:
        with self._wake:
            self._paused = False
            self._wake.notify_all()

    def step(self) -> None:
        """Answer exactly one more planned query (pauses the stream)."""
        with self._wake:
            self._paused = True
            self._steps += 1
            self._wake.notify_all()

    def stop(self) -> None:
        """End the run now (status ``stopped``; the budget stays spent)."""
        with self._wake:
            self._stop = True
            self._wake.notify_all()

    def finish(self) -> None:
        """End the run after the queued work (status ``finished`` if every planned query was answered)."""
        with self._wake:
            self._finish = True
            self._wake.notify_all()

    def ask(self, query: Any) -> None:
        """Queue an adaptive query, answered before the next planned batch."""
        self._adaptive.put(query)
        with self._wake:
            self._wake.notify_all()

    @property
    def paused(self) -> bool:
        return self._paused

    # -- the loop ---------------------------------------------------------------------------------
    def run(self) -> None:  # noqa: C901 - one loop, each branch a request
        try:
            run = self.run_ = self._start()
        except self._refusals as exc:
            self._post("refused", str(exc))
            return
        except Exception as exc:  # noqa: BLE001 - shown to the curator, never swallowed
            self._post("failed", f"{type(exc).__name__}: {exc}")
            return
        self._post("started_run", run)
        try:
            while True:
                with self._wake:
                    while (
                        not self._stop
                        and self._adaptive.empty()
                        and not self._finish_ready()
                        and (self._drained or (self._paused and self._steps == 0))
                    ):
                        self._wake.wait(0.1)
                    if self._stop:
                        self._post("ended", run.stop().status if not run.finished else run.status)
                        return
                    stepping = self._paused and self._steps > 0
                if not self._adaptive.empty():
                    self._answer_adaptive()
                elif self._finish_ready():
                    self._post("ended", run.finish().status if not run.finished else run.status)
                    return
                else:
                    if not self._take_credit():
                        continue
                    started = time.perf_counter()
                    rows = run.next_batch(1 if stepping else self.batch_size)
                    if stepping:
                        with self._wake:
                            self._steps = max(0, self._steps - 1)
                    if rows:
                        refs = np.arange(self._planned_done, self._planned_done + len(rows), dtype=np.int64)
                        self._planned_done += len(rows)
                        self._post("released", to_arrays(rows, refs))
                        if not stepping:
                            self._adapt(time.perf_counter() - started, len(rows))
                    else:
                        self._credits.release()
                        if not run.finished:
                            self._drained = True
                            self._post("drained", None)
                if run.finished:
                    self._post("ended", run.status)
                    return
        except Exception as exc:  # the run must end visibly, never hang half-open
            try:
                if not run.finished:
                    run.ledger.finish_run(run.id, "interrupted")
                    run.status = "interrupted"
            except Exception:  # noqa: BLE001 - reporting the original error matters more
                pass
            self._post("failed", f"{type(exc).__name__}: {exc}")

    def _finish_ready(self) -> bool:
        return self._finish and self._adaptive.empty()

    def _take_credit(self) -> bool:
        return self._credits.acquire(timeout=0.1)

    def _answer_adaptive(self) -> None:
        q = self._adaptive.get_nowait()
        while not self._credits.acquire(timeout=0.1):
            if self._stop:
                return
        try:
            row = self.run_.submit_query(q)
        except ValueError as exc:
            self._credits.release()
            self._post("adaptive_failed", str(exc))
            return
        self._adaptive_count += 1
        self._post("released", to_arrays([row], np.array([-self._adaptive_count], dtype=np.int64)))

    def _adapt(self, seconds: float, n: int) -> None:
        if n < self.batch_size:
            return
        factor = TARGET_SECONDS / max(seconds, 1e-4)
        self.batch_size = int(min(MAX_BATCH, max(MIN_BATCH, self.batch_size * min(4.0, max(0.25, factor)))))
