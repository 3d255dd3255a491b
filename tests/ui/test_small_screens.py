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


def test_the_standard_svt_panel_needs_no_scrolling_at_1366_by_768(qtbot, monkeypatch):
    """Issue 24 §5: every Standard SVT parameter was below the fold. Tick boxes, the slider and the
    derived Δ reserve no room for a typing error they cannot have; the form has no margin of its own."""
    from PySide6.QtWidgets import QScrollArea

    from svtgui.ui.main_window import MainWindow

    create_app()
    monkeypatch.setattr(MainWindow, "screen", lambda self: SmallScreen())
    win = MainWindow()
    qtbot.addWidget(win)
    win.show()
    win.open_sample("census")
    qtbot.waitUntil(lambda: win.ds is not None, timeout=30_000)
    win.mechanism.picker.select("standard_svt")
    win.show_page("mechanism")
    win.mechanism.flush()
    scroll = win.mechanism.findChild(QScrollArea)
    qtbot.waitUntil(lambda: scroll.viewport().height() > 300)  # laid out in the window
    below = scroll.widget().sizeHint().height() - scroll.viewport().height()
    assert below <= 0, f"{below} pixels below the fold"
    win.run_presenter.shutdown()
