"""The task runner: progress, partial results, outcome, cancellation — waited on events, never on time."""

from __future__ import annotations

import threading

import pytest

from svtgui.app.tasks import Task, TaskCancelled, TaskState, submit
from svtgui.core.progress import NO_PROGRESS, ProgressState

TIMEOUT = 30  # seconds: only ever reached when something is broken


def drain(task: Task) -> list:
    """Every event of a task that has ended."""
    assert task.wait(TIMEOUT)
    return task.events()


def test_result_and_partials_arrive_in_order_and_the_outcome_last():
    def work(state: TaskState, n: int) -> int:
        for i in range(n):
            state.set_partial_result(i)
        return n * 10

    events = drain(submit(work, 5, name="order"))
    assert [(e.kind, e.payload) for e in events] == [("partial", i) for i in range(5)] + [("done", 50)]
    assert events[-1].final and not events[0].final


def test_progress_is_coalesced_to_the_latest_value_and_clamped():
    release = threading.Event()

    def work(state: TaskState) -> None:
        for i in range(1000):
            state.set_progress(i / 999 * 2, f"step {i}")  # runs past 1: clamped
        release.wait(TIMEOUT)

    task = submit(work)
    # wait for the last report without sleeping: the worker is blocked on `release` after it
    while (ev := task.events()) == [] or ev[0].payload[1] != "step 999":
        assert not task.finished
    assert ev == [ev[0]] and ev[0].kind == "progress" and ev[0].payload == (1.0, "step 999")
    assert task.events() == []  # nothing new since
    release.set()
    assert [e.kind for e in drain(task)] == ["done"]


def test_a_failure_is_the_outcome_and_result_reraises_it():
    def work(state: TaskState) -> None:
        raise OSError("disk full: /tmp/x")

    task = submit(work)
    events = drain(task)
    assert [e.kind for e in events] == ["failed"] and isinstance(events[0].payload, OSError)
    with pytest.raises(OSError, match="disk full"):
        task.result(TIMEOUT)
    assert task.events() == []  # the outcome is delivered once


def test_cancel_is_cooperative_check_cancelled_raises():
    started = threading.Event()

    def work(state: TaskState) -> int:
        started.set()
        while True:
            state.check_cancelled()

    task = submit(work)
    assert started.wait(TIMEOUT)
    assert not task.finished
    task.cancel()
    events = drain(task)
    assert [e.kind for e in events] == ["cancelled"] and isinstance(events[0].payload, TaskCancelled)


def test_a_task_may_answer_cancel_with_what_it_has():
    """The auditor's way: on cancel, stop early and return a result from the work done so far."""
    started = threading.Event()

    def work(state: TaskState) -> int:
        done = 0
        started.set()
        while not state.is_cancelled():
            done += 1
        return done

    task = submit(work)
    assert started.wait(TIMEOUT)
    task.cancel()
    assert task.result(TIMEOUT) >= 1


def test_events_limit_bounds_the_partials_and_holds_the_outcome_back():
    task = submit(lambda state: [state.set_partial_result(i) for i in range(7)] and "end")
    assert task.wait(TIMEOUT)
    first = task.events(limit=3)
    assert [e.payload for e in first] == [0, 1, 2]  # no outcome yet: partials are still waiting
    second = task.events(limit=3)
    assert [e.payload for e in second] == [3, 4, 5]
    third = task.events(limit=3)
    assert [(e.kind, e.payload) for e in third] == [("partial", 6), ("done", "end")]


def test_run_in_the_calling_thread_and_the_state_protocol():
    task = Task(lambda state, x: x + 1, 41)
    task.run()
    assert task.finished and task.result(0) == 42
    assert isinstance(task.state, ProgressState) and isinstance(NO_PROGRESS, ProgressState)
    assert not NO_PROGRESS.is_cancelled()


def test_yield_to_gui_restores_the_interpreter_settings():
    import gc
    import sys

    before_switch, before_gc = sys.getswitchinterval(), gc.isenabled()
    go = threading.Event()
    inside: list = []

    def work(state: TaskState) -> None:
        inside.append((sys.getswitchinterval(), gc.isenabled()))
        go.wait(TIMEOUT)

    task = submit(work, yield_to_gui=True)
    go.set()
    drain(task)
    assert inside == [(pytest.approx(0.0005), False)]
    # restored by the worker thread just after the outcome was recorded: wait for its thread to end
    for t in threading.enumerate():
        if t.name == "svtgui-task":
            t.join(TIMEOUT)
    assert (sys.getswitchinterval(), gc.isenabled()) == (before_switch, before_gc)
