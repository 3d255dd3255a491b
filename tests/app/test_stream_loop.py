"""The run process's stream loop (Qt-free), driven message by message: back-pressure, pause, step,
stop, finish, adaptive queries, the barrier, the window going away, and the batch arrays.

The loop runs on a thread against a scripted run; every wait is on a pipe message (a ``sync`` barrier
where the test must know that nothing more was sent), never on a clock.
"""

from __future__ import annotations

import threading
from multiprocessing import Pipe

import numpy as np
import pytest

from svtgui.app.runs import process
from svtgui.app.runs.process import FIRST_BATCH, MAX_IN_FLIGHT, StreamLoop, to_arrays
from svtgui.ledger import ResponseBatch

TIMEOUT = 30  # seconds; only reached when something is broken
STAMP = "2026-11-25T00:00:00+00:00"


def row(index: int, above: bool, value: float | None, free: bool | None = None, query: str = "q") -> tuple:
    return (index, query, above, value, None) + (() if free is None else (free,))


def committed(rows: list[tuple]) -> ResponseBatch:
    """Rows as the run hands them back: one batch, stamped by the ledger's commit."""
    batch = ResponseBatch.of(rows)
    batch.time = STAMP
    return batch


class ScriptedRun:
    """A charged run of ``total`` planned queries; query i is ⊤ (value i) when i % 3 == 0."""

    def __init__(self, total: int) -> None:
        self.total, self.done, self.status = total, 0, "running"
        self.asked: list[str] = []

    @property
    def finished(self) -> bool:
        return self.status != "running"

    def _row(self, i: int) -> tuple:
        top = i % 3 == 0
        return row(i, top, float(i) if top else 7.0)  # a ⊥ row carrying a number: masked by the batch

    def next_batch(self, n: int) -> ResponseBatch:
        rows = [self._row(i) for i in range(self.done, min(self.done + n, self.total))]
        self.done += len(rows)
        return committed(rows)

    def submit_query(self, q: str) -> ResponseBatch:
        if q == "bad":
            raise ValueError("column 'nope' is not in the data")
        self.asked.append(q)
        return committed([row(10_000 + len(self.asked), True, 1.5, query=q)])

    def stop(self) -> ScriptedRun:
        self.status = "stopped"
        return self

    def finish(self) -> ScriptedRun:
        self.status = "finished" if self.done == self.total else "stopped"
        return self


class Window:
    """The window's end of the two pipes, with the loop running on a thread."""

    def __init__(self, run: ScriptedRun) -> None:
        self.inbox, out = Pipe(duplex=False)
        ctrl, self.outbox = Pipe(duplex=False)
        self.thread = threading.Thread(target=StreamLoop(run, out, ctrl).loop, daemon=True)
        self.thread.start()
        self.tokens = 0

    def send(self, kind: str, payload=None) -> None:
        try:
            self.outbox.send((kind, payload))
        except BrokenPipeError:
            # the loop has ended and its end of the pipe is gone while this window acked the last
            # rows it read (the window's own relay, app.runs.worker, ignores a send to an ended run);
            # whether the loop ended as it should is what the "ended" message read next tells
            if kind != "ack":
                raise

    def next(self) -> tuple[str, object]:
        assert self.inbox.poll(TIMEOUT), "the loop sent nothing"
        return self.inbox.recv()

    def until_synced(self) -> list[tuple[str, object]]:
        """Send a barrier; everything the loop sent before handling it (the barrier excluded)."""
        self.tokens += 1
        self.send("sync", self.tokens)
        got = []
        while (message := self.next()) != ("synced", self.tokens):
            got.append(message)
        return got

    def rows(self, messages) -> list[int]:
        return [i for kind, b in messages if kind == "released" for i in b.index.tolist()]

    def end(self) -> None:
        self.thread.join(TIMEOUT)
        assert not self.thread.is_alive()


def test_back_pressure_at_most_max_in_flight_unacknowledged_batches():
    w = Window(ScriptedRun(10**6))
    first = [w.next() for _ in range(MAX_IN_FLIGHT)]
    assert [kind for kind, _ in first] == ["released"] * MAX_IN_FLIGHT
    assert w.until_synced() == []  # no credit left: nothing more, though 10^6 queries wait
    w.send("ack")
    more = w.until_synced()  # one credit: exactly one more batch (it may come before or after sync)
    more += [] if more else [w.next()]
    assert [kind for kind, _ in more] == ["released"]
    assert w.until_synced() == []
    w.send("stop")
    assert w.next() == ("ended", "stopped")
    w.end()


def test_pause_answers_nothing_and_step_answers_exactly_one():
    run = ScriptedRun(10**6)
    w = Window(run)
    w.send("pause")
    before = w.rows(w.until_synced())
    assert w.until_synced() == []  # went round its loop, paused: answered nothing
    w.send("ack"), w.send("ack"), w.send("ack"), w.send("ack")  # credit is not the reason
    assert w.until_synced() == []
    w.send("step")
    stepped = [w.next()]
    assert w.rows(stepped) == [len(before)] and run.done == len(before) + 1
    assert w.until_synced() == []
    w.send("resume")
    w.send("finish")
    rest = []
    while (message := w.next())[0] != "ended":
        rest.append(message)
        w.send("ack")
    assert message == ("ended", "stopped")  # finish before the planned queries ran out: stopped
    w.end()


def test_adaptive_query_is_answered_before_the_next_planned_batch_and_errors_are_sent():
    run = ScriptedRun(10**6)
    w = Window(run)
    w.send("pause")
    w.until_synced()
    for _ in range(MAX_IN_FLIGHT):
        w.send("ack")  # give back every credit the first batches took
    w.send("ask", "count of rows where age ≥ 30")
    w.send("ask", "bad")
    kind, batch = w.next()
    assert kind == "released" and batch.ref.tolist() == [-1] and batch.value.tolist() == [1.5]
    assert w.next() == ("adaptive_failed", "column 'nope' is not in the data")
    assert w.until_synced() == []  # still paused: no planned batch followed
    w.send("stop")
    assert w.next() == ("ended", "stopped") and run.asked == ["count of rows where age ≥ 30"]
    w.end()


def test_drained_then_finish_ends_finished():
    w = Window(ScriptedRun(10))
    got = []
    while (message := w.next())[0] != "drained":
        got.append(message)
        w.send("ack")
    assert w.rows(got) == list(range(10))
    w.send("finish")
    assert w.next() == ("ended", "finished")
    w.end()


def test_the_window_going_away_stops_the_run():
    run = ScriptedRun(10**6)
    w = Window(run)
    w.send("pause")
    w.until_synced()
    w.outbox.close()  # the window's end of the control pipe: EOF in the child
    while (message := w.next())[0] != "ended":
        pass
    assert message == ("ended", "stopped") and run.status == "stopped"
    w.end()


class TimedRun(ScriptedRun):
    """A run whose batches take the given (fake) seconds each."""

    def __init__(self, clock: list[float], seconds: list[float]) -> None:
        super().__init__(10**7)
        self.clock, self.seconds = clock, iter(seconds)

    def next_batch(self, n: int) -> ResponseBatch:
        self.clock[0] += next(self.seconds)
        return super().next_batch(n)


def test_batches_grow_towards_the_target_duration(monkeypatch):
    """Fast batches grow (at most 4x each), a slow one shrinks (at most 4x); the clock is a fake."""
    clock = [100.0]
    monkeypatch.setattr(process.time, "perf_counter", lambda: clock[0])
    out_r, out_w = Pipe(duplex=False)
    ctrl_r, _ = Pipe(duplex=False)
    loop = StreamLoop(TimedRun(clock, [0.001, 0.001, 8 * process.TARGET_SECONDS]), out_w, ctrl_r)
    sent: list[int] = []  # read on a thread: a large batch fills the pipe before send() returns
    reader = threading.Thread(target=lambda: sent.extend(out_r.recv()[1].index.size for _ in range(3)))
    reader.start()
    sizes = []
    for _ in range(3):
        loop._next_batch()
        sizes.append(loop.batch_size)
    reader.join(TIMEOUT)
    assert sent == [FIRST_BATCH, 4 * FIRST_BATCH, 16 * FIRST_BATCH]
    assert sizes == [4 * FIRST_BATCH, 16 * FIRST_BATCH, 4 * FIRST_BATCH]


def test_a_batch_blanks_bottom_values_once_and_keeps_pmw_free_answers():
    rows = [row(0, True, 12.5), row(1, False, 99.0), row(2, False, None)]
    made = committed(rows)
    assert made.value[0] == 12.5 and np.isnan(made.value[1:]).all()  # blanked as the batch is made
    batch = to_arrays(made, np.arange(3))
    assert batch.above.tolist() == [True, False, False] and batch.free is None
    assert batch.value[0] == 12.5 and np.isnan(batch.value[1:]).all()  # ⊥ releases no number
    assert len(set(batch.time.tolist())) == 1
    pmw = [row(0, False, 3.0, free=True), row(1, True, 4.0, free=False), row(2, False, 5.0, free=False)]
    batch = to_arrays(committed(pmw), np.arange(3))
    assert batch.free.tolist() == [True, False, False]
    assert batch.value[:2].tolist() == [3.0, 4.0] and np.isnan(batch.value[2])


@pytest.mark.parametrize("kind", ["resume", "finish", "stop"])
def test_unknown_or_late_messages_never_break_a_finished_loop(kind):
    w = Window(ScriptedRun(3))
    while w.next()[0] != "drained":
        w.send("ack")
    w.send(kind)
    if kind == "resume":
        assert w.until_synced() == []  # drained: nothing to answer
        w.send("finish")
    assert w.next()[0] == "ended"
    w.end()
