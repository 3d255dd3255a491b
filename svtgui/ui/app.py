"""The QApplication: identity (desktop app id, icon), style and palette, high-DPI policy."""

from __future__ import annotations

import sys

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication

from svtgui import __version__
from svtgui.ui.common.theme import apply_palette

APP_ID = "io.github.svtstudio.SvtStudio"


def window_icon():
    """The application icon (committed PNG renderings), or None if the resources are missing."""
    try:
        from svtgui.ui.common.app_icon import app_icon

        return app_icon()
    except (ImportError, FileNotFoundError):
        return None


def create_app(argv: list[str] | None = None) -> QApplication:
    """The one QApplication (created once; reused by tests and --screenshot)."""
    app = QApplication.instance()
    if app is None:
        QGuiApplication.setHighDpiScaleFactorRoundingPolicy(Qt.HighDpiScaleFactorRoundingPolicy.PassThrough)
        QApplication.setApplicationName("SVT Studio")
        QApplication.setOrganizationName("SVT Studio")
        QApplication.setApplicationVersion(__version__)
        app = QApplication(argv if argv is not None else sys.argv[:1])
    assert isinstance(app, QApplication)
    app.setDesktopFileName(APP_ID)
    apply_palette(app)
    app.styleHints().colorSchemeChanged.connect(lambda _scheme: apply_palette(app))
    icon = window_icon()
    if icon is not None:
        app.setWindowIcon(icon)
    return app
