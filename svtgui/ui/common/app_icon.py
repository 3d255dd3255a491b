"""The application id and icon, shared by the main window, dialogs and the desktop file.

The icon is assembled from the committed PNG renderings (``resources/icons/hicolor``) rather
than the SVG so that it needs no SVG image plug-in, which keeps the frozen bundle lean.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QIcon

from svtgui.assets import asset

APP_ID = "io.github.svtstudio.SvtStudio"
ICON_SIZES = (16, 24, 32, 48, 64, 128, 256, 512)


def icon_path(size: int) -> Path:
    """Path of the ``size``-pixel PNG (FileNotFoundError if that size was never rendered)."""
    return asset(f"icons/hicolor/{size}x{size}/apps/{APP_ID}.png")


def app_icon() -> QIcon:
    """The SVT Studio icon at every rendered size (for ``setWindowIcon``)."""
    icon = QIcon()
    for size in ICON_SIZES:
        icon.addFile(str(icon_path(size)))
    return icon
