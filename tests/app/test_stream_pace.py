"""Paced streams (demonstrations): batches of about a tick's worth of queries, due one after another;
a step is answered at once whatever the pace. The clock is a fake: nothing here waits on real time."""

from __future__ import annotations

import threading
from multiprocessing import Pipe

import pytest

from svtgui.app.runs import process
from svtgui.app.runs.process import PACE_TICK, StreamLoop
from svtgui.ledger import ResponseBatch


class FakeRun:
    """A charged run of ``total`` planned queries, all ⊥ (the loop only needs what it releases)."""

    def __init__(self, total: int) -> None:
        self.total, self.done, self.status, self.finished = total, 0, "running", False
        self.batches: list[int] = []

    def next_batch(self, n: int) -> ResponseBatch:
        k = min(n, self.total - self.done)
        rows = ResponseBatch.of([(self.done + i, "q", False, None, None) for i in range(k)])
        rows.time = "2026-11-25T00:00:00+00:00"  # as the ledger's commit stamps it
        self.done += k
        self.batches.append(k)
        if self.done == self.total:
            self.finished, self.status = True, "finished"
        return rows


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch):
    c = Clock()
    monkeypatch.setattr(process.time, "perf_counter", c)
    return c


def _loop(total: int, pace: float | None) -> tuple[StreamLoop, FakeRun, object]:
    out_r, out_w = Pipe(duplex=False)
    ctrl_r, _ctrl_w = Pipe(duplex=False)
    run = FakeRun(total)
    return StreamLoop(run, out_w, ctrl_r, pace=pace), run, out_r


@pytest.mark.parametrize(("pace", "size"), [(2.0, 1), (5.0, 1), (20.0, 2), (100.0, 10), (1000.0, 100)])
def test_a_paced_batch_holds_about_one_tick_of_queries(clock, pace, size):
    loop, run, _out = _loop(10_000, pace)
    loop._next_batch()
    assert run.batches == [size] == [max(1, round(pace * PACE_TICK))]
    assert loop.next_due == pytest.approx(100.0 + size / pace)


def test_the_next_batch_waits_until_it_is_due(clock):
    loop, run, _out = _loop(10, 2.0)
    loop._next_batch()
    clock.now = 100.3
    assert loop._idle() and loop._wait() == pytest.approx(0.2)
    clock.now = 100.5
    assert not loop._idle()
    loop._next_batch()
    assert loop.next_due == pytest.approx(101.0)  # due times add up: no drift from late wake-ups


def test_a_step_is_answered_at_once_whatever_the_pace(clock):
    loop, run, _out = _loop(10, 2.0)
    loop._next_batch()
    loop._apply(("step", None))
    assert not loop._idle()  # not due for 0.5 s, but a step is the curator asking for one now
    loop._next_batch()
    assert run.batches == [1, 1] and loop.steps == 0 and loop._idle()


def test_pace_can_change_mid_run_and_none_means_as_fast_as_possible(clock):
    loop, run, _out = _loop(100_000, 2.0)
    loop._next_batch()
    loop._apply(("pace", None))
    assert loop.pace is None and not loop._idle()
    loop._next_batch()
    assert run.batches[-1] == process.FIRST_BATCH
    loop._apply(("pace", 50))
    loop._next_batch()
    assert run.batches[-1] == 5


@pytest.mark.parametrize("bad", [-1, float("nan"), float("inf")])
def test_a_bad_pace_is_refused(bad):
    with pytest.raises(ValueError, match="pace"):
        process._pace(bad)


def test_a_paced_loop_streams_every_query_then_ends():
    """The real loop on a thread with the real clock at a fast pace: every query arrives, in order,
    in batches of the paced size (this checks the loop's flow, not its timing)."""
    out_r, out_w = Pipe(duplex=False)
    ctrl_r, ctrl_w = Pipe(duplex=False)
    run = FakeRun(200)
    worker = threading.Thread(target=StreamLoop(run, out_w, ctrl_r, pace=2000.0).loop, daemon=True)
    worker.start()
    indices: list[int] = []
    while True:
        assert out_r.poll(30), "the loop stopped sending"
        kind, payload = out_r.recv()
        if kind == "released":
            indices.extend(payload.index.tolist())
            ctrl_w.send(("ack", None))
        if kind == "ended":
            break
    worker.join(10)
    assert payload == "finished" and indices == list(range(200))
    assert set(run.batches) == {round(2000 * PACE_TICK)}
