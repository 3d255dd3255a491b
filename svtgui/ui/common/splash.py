"""The first window: shown before the heavy modules load, replaced by the main window when it is ready.

Why: importing Qt's widgets, pandas, pyarrow and pyqtgraph takes about a second before the main
window can even be built, and a click on the desktop icon that shows nothing for two seconds looks
broken. The splash needs only QtWidgets and the icon, so it is on screen within a few hundred
milliseconds; it says what is happening and closes when the main window appears.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPainter, QPixmap
from PySide6.QtWidgets import QLabel, QWidget

from svtgui import __version__

SIZE = (420, 220)


def splash_pixmap() -> QPixmap:
    """The splash picture: the icon, the name and version, on the window colour."""
    pixmap = QPixmap(*SIZE)
    pixmap.fill(QColor("#f5f6f7"))
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

    def finish(self, window: QWidget) -> None:
        """Close once ``window`` is shown."""
        self.close()
        window.raise_()


def show_splash() -> Splash:
    """Show the splash now (the event loop has not started: paint it at once)."""
    splash = Splash()
    splash.show()
    splash.repaint()
    return splash
