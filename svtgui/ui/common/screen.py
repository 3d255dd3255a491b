"""Windows that fit the screen they open on (a 1366×768 laptop included).

Why: a fixed 1100×760 teaching window is taller than what a 768-pixel screen leaves under its panel
and title bar, so the bottom row (Back, Step, Play) fell off the screen. Windows ask for their
preferred size, capped by the available area minus room for the window frame.
"""

from __future__ import annotations

from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QWidget

FRAME_ROOM = 48  # title bar and borders drawn by the window manager, outside the widget's size


def fit_to_screen(window: QWidget, width: int, height: int) -> None:
    """Resize ``window`` to ``width`` × ``height``, or less where its screen is smaller."""
    screen = window.screen() or QGuiApplication.primaryScreen()
    if screen is not None:
        avail = screen.availableGeometry()
        width = min(width, avail.width() - FRAME_ROOM)
        height = min(height, avail.height() - FRAME_ROOM)
    hint = window.minimumSizeHint()
    window.resize(max(width, hint.width()), max(height, hint.height()))
