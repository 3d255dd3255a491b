"""PDF report: the HTML report typeset by QTextDocument and printed with QPdfWriter (no browser engine).

The one module below ``svtgui.ui`` that imports Qt (the listed exception of the import contracts):
Qt typesets the document and rasterises the chart's SVG (:mod:`.chart`) for it. It is imported only
when a PDF is written; HTML, JSON and CSV reports never load Qt. With no QApplication running (the
CLI, the report process), an offscreen one is created.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from PySide6.QtCore import QByteArray, QMarginsF, QSizeF, QUrl
from PySide6.QtGui import QColor, QFont, QImage, QPageLayout, QPageSize, QPainter, QPdfWriter, QTextDocument
from PySide6.QtSvg import QSvgRenderer
from PySide6.QtWidgets import QApplication

from svtgui.app.reports.chart import HEIGHT, WIDTH
from svtgui.app.reports.document import Document
from svtgui.app.reports.html import render

CHART_RESOURCE = "svtgui-chart.png"
CHART_SCALE = 2  # the chart is rasterised at twice its size, then printed 700 px wide: sharp on paper
# The creation and modification times Qt stamps into every PDF (its Info dictionary and XMP metadata)
_INFO_TIME = re.compile(rb"(/(?:CreationDate|ModDate) )\(D:(\d{8})\d{6}[^)]*\)")
_XMP_TIME = re.compile(rb'(xmp:\w*Date=)"(\d{4}-\d{2}-\d{2})T[^"]*"')


def ensure_qt_app() -> QApplication:
    """The running QApplication, or a new offscreen one when there is no display (headless CLI)."""
    app = QApplication.instance()
    if app is None:
        if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
            os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
        app = QApplication([])
    return app


def chart_image(svg: str) -> QImage:
    """The chart's SVG rasterised (QTextDocument shows images, not SVG)."""
    image = QImage(WIDTH * CHART_SCALE, HEIGHT * CHART_SCALE, QImage.Format.Format_ARGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    QSvgRenderer(QByteArray(svg.encode("utf-8"))).render(painter)
    painter.end()
    return image


def write_pdf(data: Document, svg: str | None, path: Path) -> None:
    """A run's report as PDF: its HTML with the chart rasterised."""
    ensure_qt_app()
    images = {}
    chart = None
    if svg is not None:
        images[CHART_RESOURCE] = chart_image(svg)
        chart = (f'<img src="{CHART_RESOURCE}" alt="released answers by query index, with the public '
                 'threshold" width="700">')
    write_html_pdf(render(data, chart), f"SVT Studio release report, run {data['run']['id']}",
                   f"{data['software']['name']} {data['software']['version']}", path, images)


def write_html_pdf(html: str, title: str, creator: str, path: Path,
                   images: dict[str, QImage] | None = None) -> None:
    """Typeset ``html`` (a report or a release) on A4 pages; ``images``: resources its ``<img>`` name."""
    ensure_qt_app()
    doc = QTextDocument()
    # No ligatures: text copied or searched in the PDF must match what was written ("ff" in a
    # dataset id such as ds-…ff… and in "cutoff" would otherwise come out as the one glyph "ﬀ")
    font = doc.defaultFont()
    font.setStyleStrategy(QFont.StyleStrategy.PreferNoShaping)
    doc.setDefaultFont(font)
    doc.setDefaultStyleSheet("td, th { padding: 3px; } .top { color: #0072b2; } .warning { color: #a03c00; }")
    for name, image in (images or {}).items():
        doc.addResource(QTextDocument.ResourceType.ImageResource, QUrl(name), image)
    doc.setHtml(html)
    writer = QPdfWriter(str(path))
    writer.setTitle(title)
    writer.setCreator(creator)
    writer.setPageLayout(QPageLayout(QPageSize(QPageSize.PageSizeId.A4), QPageLayout.Orientation.Portrait,
                                     QMarginsF(15, 15, 15, 15), QPageLayout.Unit.Millimeter))
    writer.setResolution(150)
    layout = writer.pageLayout()
    rect = layout.paintRectPixels(writer.resolution())
    doc.setPageSize(QSizeF(rect.width(), rect.height()))
    doc.print_(writer)
    del writer  # flushes and closes the file
    if not path.exists() or path.stat().st_size == 0:
        raise OSError(f"Qt did not write {path}")
    path.write_bytes(dates_only(path.read_bytes()))


def dates_only(pdf: bytes) -> bytes:
    """The PDF with the day kept and the time of day dropped from the dates Qt stamps into it.

    Why: exports state dates only (docs/guarantees.md §6); QPdfWriter writes the moment the file was
    made to the second, which, written at the end of a run (``run --report``), says when it ended.
    Each date is shortened in place and padded with blanks (white space between PDF tokens and XML
    attributes), so every byte offset of the file's cross-reference table stays valid.
    """
    def pad(new: bytes, old: bytes) -> bytes:
        return new + b" " * (len(old) - len(new))

    pdf = _INFO_TIME.sub(lambda m: pad(m[1] + b"(D:" + m[2] + b")", m[0]), pdf)
    return _XMP_TIME.sub(lambda m: pad(m[1] + b'"' + m[2] + b'"', m[0]), pdf)
