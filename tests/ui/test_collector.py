"""Cycles are collected on the GUI thread, never on a worker's (``svtgui.ui.common.collector``).

A collection that runs on a worker can destroy Qt objects the GUI thread made while the GUI thread
destroys their parent: each then waits for a lock the other holds (a hang, once a crash, seen in
``tests/ui/test_session_gui.py``). With a window open, a worker that leaves far more garbage than
every threshold collects nothing; the GUI thread's timer collects it.
"""

from __future__ import annotations

import gc
import threading
import weakref

from svtgui.ui.common.collector import GuiThreadCollector, install


class _Node:
    def __init__(self) -> None:
        self.me = self  # a cycle: only the cyclic collector frees it


def _cycle_noting_its_thread(where: list[str]) -> None:
    node = _Node()
    weakref.finalize(node, lambda: where.append(threading.current_thread().name))


def test_a_worker_leaving_garbage_past_every_threshold_collects_nothing(window, qtbot) -> None:
    assert not gc.isenabled()
    where: list[str] = []
    _cycle_noting_its_thread(where)
    threshold = gc.get_threshold()[0]

    def leave_garbage() -> None:  # cycles: automatic collection would have run many times here
        for _ in range(50 * threshold):
            _Node()

    worker = threading.Thread(target=leave_garbage, name="svtgui-test-worker")
    worker.start()
    worker.join()
    assert gc.get_count()[0] > threshold and where == []  # due, and not collected on the worker
    qtbot.waitUntil(lambda: where != [], timeout=5_000)  # the GUI thread's timer collects it
    assert where == [threading.main_thread().name]


def test_one_collector_per_application(window) -> None:
    first = install()
    assert first is not None and install() is first
    assert len(first.parent().findChildren(GuiThreadCollector)) == 1
