"""PDF report: the HTML report typeset by QTextDocument and printed with QPdfWriter (no browser engine)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from svtgui.app.reports.chart import ensure_qt_app
from svtgui.app.reports.html import render

CHART_RESOURCE = "svtgui-chart.png"


def write_pdf(data: dict[str, Any], png: bytes | None, path: Path) -> None:
    ensure_qt_app()
    from PySide6.QtCore import QMarginsF, QSizeF, QUrl
    from PySide6.QtGui import QImage, QPageLayout, QPageSize, QPdfWriter, QTextDocument

    doc = QTextDocument()
    doc.setDefaultStyleSheet("td, th { padding: 3px; } .top { color: #0072b2; } .warning { color: #a03c00; }")
    if png is not None:
        image = QImage()
        image.loadFromData(png, "PNG")
        doc.addResource(QTextDocument.ResourceType.ImageResource, QUrl(CHART_RESOURCE), image)
    doc.setHtml(render(data, CHART_RESOURCE if png is not None else None, for_pdf=True))
    writer = QPdfWriter(str(path))
    writer.setTitle(f"SVT Studio release report, run {data['run']['id']}")
    writer.setCreator(f"{data['software']['name']} {data['software']['version']}")
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
