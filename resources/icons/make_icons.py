"""Render the SVG icon to the PNG sizes desktops and the window manager want.

Run after editing ``io.github.svtstudio.SvtStudio.svg``::

    QT_QPA_PLATFORM=offscreen .venv/bin/python resources/icons/make_icons.py

The PNGs are committed (the wheel, the bundle and the desktop file use them without Qt's SVG
plug-in); ``tests/packaging/test_icons.py`` checks they are current renderings of the SVG.
Output follows the freedesktop icon-theme layout so ``hicolor/`` can be copied as is into
``~/.local/share/icons/hicolor``.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
APP_ID = "io.github.svtstudio.SvtStudio"
SVG = HERE / f"{APP_ID}.svg"
SIZES = (16, 24, 32, 48, 64, 128, 256, 512)


def png_path(size: int, root: Path = HERE) -> Path:
    """Where the ``size``-pixel rendering lives (hicolor theme layout)."""
    return root / "hicolor" / f"{size}x{size}" / "apps" / f"{APP_ID}.png"


def render(size: int):
    """The SVG rendered to a transparent ``size`` x ``size`` QImage (antialiased)."""
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    renderer = QSvgRenderer(str(SVG))
    if not renderer.isValid():
        raise ValueError(f"{SVG}: not a valid SVG")
    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
    renderer.render(painter)
    painter.end()
    return image


def main(root: Path = HERE) -> list[Path]:
    from PySide6.QtGui import QGuiApplication

    _app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])
    written = []
    for size in SIZES:
        out = png_path(size, root)
        out.parent.mkdir(parents=True, exist_ok=True)
        if not render(size).save(str(out), "PNG"):
            raise OSError(f"could not write {out}")
        written.append(out)
    return written


if __name__ == "__main__":
    for path in main():
        print(path.relative_to(HERE))
