"""The first window: shown before the heavy modules load, replaced by the main window when it is ready.

Why: importing Qt's widgets, pandas, pyarrow and pyqtgraph takes about a second before the main
window can even be built, and a click on the desktop icon that shows nothing for two seconds looks
broken. The splash needs only QtWidgets and the icon, so it is on screen within a few hundred
milliseconds; it says what is happening and closes when the main window appears.

On X11 a window is mapped asynchronously: painting it before the X server exposes it draws nothing,
and the imports that follow block the event loop for a second or more, so a splash that was only
``show()``n and ``repaint()``ed stayed blank until the main window replaced it. :func:`show_splash`
therefore processes events until the splash has painted while exposed (bounded by a deadline), which
hands the frame to the window system before the heavy imports start.
"""

from __future__ import annotations

import time

from PySide6.QtCore import QEventLoop, Qt
from PySide6.QtGui import QColor, QPainter, QPaintEvent, QPixmap
from PySide6.QtWidgets import QApplication, QLabel, QWidget

from svtgui import __version__

SIZE = (420, 220)
BACKGROUND = "#f5f6f7"
PAINT_DEADLINE = 2.0  # seconds: a window system that never exposes the splash does not hold start-up


def splash_pixmap() -> QPixmap:
    """The splash picture: the icon, the name and version, on the window colour."""
    pixmap = QPixmap(*SIZE)
    pixmap.fill(QColor(BACKGROUND))
    painter = QPainter(pixmap)
    try:
        from svtgui.ui.common.app_icon import icon_path

        icon = QPixmap(str(icon_path(128)))
        painter.drawPixmap(24, (SIZE[1] - 128) // 2, icon)
    except FileNotFoundError:  # a broken install still starts; the icon is decoration
        pass
    painter.setPen(QColor("#1a1a1a"))
    font = painter.font()
    font.setPointSize(18)
    font.setBold(True)
    painter.setFont(font)
    painter.drawText(170, 95, "SVT Studio")
    font.setPointSize(10)
    font.setBold(False)
    painter.setFont(font)
    painter.drawText(170, 120, f"version {__version__}")
    painter.setPen(QColor("#444444"))
    painter.drawText(170, 170, "Starting…")
    painter.end()
    return pixmap


class Splash(QLabel):
    """A frameless picture window. Not QSplashScreen: that one waits up to a second for the window
    system to report the window exposed, which some platforms (offscreen, some Wayland) never do."""

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("SVT_Studio_splash")
        self.setWindowFlags(Qt.WindowType.SplashScreen | Qt.WindowType.FramelessWindowHint)
        self.setPixmap(splash_pixmap())
        self.setFixedSize(*SIZE)
        self.painted = False  # painted while the window system showed it (not before it was mapped)

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        handle = self.windowHandle()
        self.painted = self.painted or (handle is not None and handle.isExposed())

    def finish(self, window: QWidget) -> None:
        """Close once ``window`` is shown."""
        self.close()
        window.raise_()


def show_splash() -> Splash:
    """Show the splash and return once it has painted on screen (or after :data:`PAINT_DEADLINE`)."""
    splash = Splash()
    splash.show()
    splash.repaint()
    app = QApplication.instance()
    deadline = time.monotonic() + PAINT_DEADLINE
    while app is not None and not splash.painted and time.monotonic() < deadline:
        app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 10)  # the map, expose and paint
    if app is not None:
        app.processEvents()  # flush the painted frame to the window system
    return splash
