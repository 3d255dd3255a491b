"""The Run page's pace: a slow stream an audience can watch, Pause/Step at any pace, remembered."""

from __future__ import annotations

from PySide6.QtCore import Qt

from svtgui.ui.common.settings import Settings
from svtgui.ui.main_window import MainWindow

LEFT = Qt.MouseButton.LeftButton


def test_a_slow_pace_streams_slowly_pause_and_step_still_work_and_the_pace_is_remembered(qtbot, window, act):
    win = window
    act.load(qtbot, win)
    q = win.queries.queries[0]
    win.queries.set_queries([q] * 2000)  # at 2 queries per second: about 17 minutes unpaced by the test
    act.set_param(win, "threshold", "1000000")
    page, c, store = win.run_page, win.run_model, win.store
    page.pace.setCurrentIndex(page.pace.findData(2.0))
    assert Settings().pace == 2.0
    win.show_page("run")
    qtbot.mouseClick(page.run_button, LEFT)
    qtbot.mouseClick(page.confirm.spend, LEFT)
    qtbot.waitUntil(lambda: store.n >= 1, timeout=30_000)
    qtbot.mouseClick(page.pause_button, LEFT)
    assert c.state == "paused"
    # 2 per second: 50 rows would take 25 s after the first; the window shows one row at a time.
    assert store.n < 50
    # How far the paced run got and about how long the rest takes at this pace (issue 24 §5).
    left = round((2000 - store.n) / 2.0)
    assert page.progress.isVisible() and page.progress.value() == store.n and page.progress.maximum() == 2000
    assert page.progress.format() == f"{store.n:,} of 2,000 — about {left // 60} min {left % 60} s left"
    before = store.n
    qtbot.mouseClick(page.step_button, LEFT)  # a step is answered at once, not in half a second
    qtbot.waitUntil(lambda: store.n >= before + 1, timeout=30_000)
    page.pace.setCurrentIndex(page.pace.findData(None))  # as fast as possible, mid-run
    qtbot.mouseClick(page.pause_button, LEFT)  # resume
    qtbot.waitUntil(lambda: c.state in ("ended", "drained"), timeout=60_000)
    assert store.n == 2000

    again = MainWindow()
    qtbot.addWidget(again)
    assert again.run_page.pace_rate() is None  # the last choice (as fast as possible) comes back
    page.pace.setCurrentIndex(page.pace.findData(5.0))
    third = MainWindow()
    qtbot.addWidget(third)
    assert third.run_page.pace_rate() == 5.0
    again.run_presenter.shutdown()
    third.run_presenter.shutdown()
