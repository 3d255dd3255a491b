"""Everything fits a small screen: windows cap their size to the available area, bottom rows stay on it."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRect, QSize

from svtgui.ui.app import create_app
from svtgui.ui.common import screen as screen_module
from svtgui.ui.teaching.window import TeachingWindow


class Screen:
    """A stand-in screen: the area left to windows (the panel's height taken off)."""

    def __init__(self, width: int, height: int) -> None:
        self.area = QRect(0, 0, width, height)

    def availableGeometry(self) -> QRect:  # noqa: N802 - Qt's name
        return self.area


def SmallScreen() -> Screen:  # noqa: N802 - reads as the screen it stands for
    """A 1366×768 laptop with a 32-pixel panel."""
    return Screen(1366, 768 - 32)


def test_the_teaching_window_fits_a_1366_by_768_screen_with_its_controls_on_it(qtbot, monkeypatch):
    create_app()
    monkeypatch.setattr(TeachingWindow, "screen", lambda self: SmallScreen())
    win = TeachingWindow()
    qtbot.addWidget(win)
    win.show()
    avail = SmallScreen().availableGeometry()
    assert win.width() + screen_module.FRAME_ROOM <= avail.width()
    assert win.height() + screen_module.FRAME_ROOM <= avail.height()
    page = win.pages["walkthrough"]
    win.show_page("walkthrough")
    qtbot.waitUntil(page.isVisible)
    for button in (page.back_button, page.step_button, page.play_button):
        rect = QRect(button.mapTo(win, QPoint(0, 0)), button.size())
        assert win.rect().contains(rect), button.text()


def test_a_large_screen_gets_the_preferred_size(qtbot, monkeypatch):
    create_app()
    monkeypatch.setattr(TeachingWindow, "screen", lambda self: Screen(1920, 1080 - 40))
    win = TeachingWindow()
    qtbot.addWidget(win)
    assert win.size() == QSize(1100, 760)


def test_the_main_window_fits_a_1366_by_768_screen_on_first_start(qtbot, monkeypatch):
    from svtgui.ui.main_window import MainWindow

    create_app()
    monkeypatch.setattr(MainWindow, "screen", lambda self: SmallScreen())
    win = MainWindow()
    qtbot.addWidget(win)
    avail = SmallScreen().availableGeometry()
    assert win.width() + screen_module.FRAME_ROOM <= avail.width()
    assert win.height() + screen_module.FRAME_ROOM <= avail.height()
    win.run_presenter.shutdown()


def test_every_teaching_page_fits_the_small_screen_whatever_it_shows(qtbot, monkeypatch):
    """No page asks for more width than a 1366-pixel screen gives, also after switching the neighbour
    experiment to a broken variant (whose paragraph about the auditor's witness was once one line
    1,900 pixels long, widening the whole window off the screen)."""
    create_app()
    monkeypatch.setattr(TeachingWindow, "screen", lambda self: SmallScreen())
    win = TeachingWindow()
    qtbot.addWidget(win)
    win.show()
    neighbour = win.pages["neighbour"]
    room = SmallScreen().availableGeometry().width() - screen_module.FRAME_ROOM
    for variant in ("lecture_sparse_2011", "lyu_alg5_stoddard", "above_threshold"):
        neighbour.choice.setCurrentIndex(neighbour.choice.findData(variant))
        win.show_page("neighbour")
        assert win.minimumSizeHint().width() <= room, variant
        assert win.width() <= room, variant
    for name in win.pages:
        win.show_page(name)
        assert win.minimumSizeHint().width() <= room, name
