"""The Qt adapter of the task runner: outcomes, progress and partial results reach their callbacks on
the GUI thread; a newer task supersedes (cancels and silences) the one still running."""

from __future__ import annotations

import threading

from svtgui.app.tasks import TaskCancelled, TaskState
from svtgui.ui.common.background import Background

TIMEOUT = 30


def test_outcome_progress_and_partials_arrive_on_the_gui_thread(qtbot):
    job = Background("t")
    seen: list = []
    gui = threading.get_ident()

    def work(state: TaskState, n: int) -> int:
        for i in range(n):
            state.set_partial_result(i)
        state.set_progress(0.5, "half")
        return n

    def record(kind):
        return lambda *payload: seen.append((kind, payload, threading.get_ident() == gui))

    job.start(work, record("done"), record("failed"), 3, progress=record("progress"),
              partial=record("partial"))
    assert job.busy
    qtbot.waitUntil(lambda: not job.busy, timeout=TIMEOUT * 1000)
    assert all(on_gui for *_, on_gui in seen)
    assert [p for k, p, _ in seen if k == "partial"] == [(0,), (1,), (2,)]
    assert ("progress", (0.5, "half")) in [(k, p) for k, p, _ in seen]
    assert seen[-1][:2] == ("done", (3,))


def test_a_newer_task_supersedes_the_running_one(qtbot):
    job = Background("t")
    release = threading.Event()
    first_state: list[TaskState] = []
    outcomes: list = []

    def slow(state: TaskState) -> str:
        first_state.append(state)
        release.wait(TIMEOUT)
        return "stale"

    job.start(slow, outcomes.append, outcomes.append)
    qtbot.waitUntil(lambda: bool(first_state), timeout=TIMEOUT * 1000)
    job.start(lambda state: "fresh", outcomes.append, outcomes.append)
    assert first_state[0].is_cancelled()  # asked to stop
    qtbot.waitUntil(lambda: not job.busy, timeout=TIMEOUT * 1000)
    release.set()
    assert outcomes == ["fresh"]  # the first task's result, whenever it comes, is dropped


def test_failure_and_cancellation_have_their_own_callbacks(qtbot):
    job = Background("t")
    got: list = []

    def fail(state: TaskState) -> None:
        raise OSError("Permission denied: /x")

    job.start(fail, got.append, lambda exc: got.append(("failed", str(exc))))
    qtbot.waitUntil(lambda: not job.busy, timeout=TIMEOUT * 1000)

    def cancelled_inside(state: TaskState) -> None:
        raise TaskCancelled("the curator cancelled")

    job.start(cancelled_inside, got.append, got.append, cancelled=lambda: got.append("cancelled"))
    qtbot.waitUntil(lambda: not job.busy, timeout=TIMEOUT * 1000)
    assert got == [("failed", "Permission denied: /x"), "cancelled"]


def test_dataset_loader_reports_progress_and_cancel_ends_it_cancelled(qtbot, monkeypatch, tmp_path):
    """The window's loader is a task: the load's progress reaches the bar, Cancel reaches the load
    (through its state) and ends it ``cancelled``; nothing is ``loaded``."""
    from svtgui.data import LoadCancelled
    from svtgui.ui.setup import loader as loader_module

    def load_until_cancelled(path, options=None, progress=None, **engine):
        progress.set_progress(0.25, "reading")
        while not progress.is_cancelled():  # a load between two reads, until the curator cancels
            pass
        raise LoadCancelled("loading was cancelled")

    monkeypatch.setattr(loader_module, "open_dataset", load_until_cancelled)
    loader = loader_module.DatasetLoader()
    seen: list = []
    loader.progress.connect(lambda f: seen.append(f))
    loader.loaded.connect(lambda ds: seen.append("loaded"))
    loader.load(tmp_path / "big.csv")
    qtbot.waitUntil(lambda: 0.25 in seen, timeout=TIMEOUT * 1000)
    assert loader.busy
    with qtbot.waitSignal(loader.cancelled, timeout=TIMEOUT * 1000):
        loader.cancel()
    assert not loader.busy and "loaded" not in seen
