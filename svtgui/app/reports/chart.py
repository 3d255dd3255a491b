"""The report's chart: query index vs. released values, the public threshold T, ⊤ marks. PNG bytes.

Drawn with pyqtgraph's ImageExporter, which needs a Qt application: if none exists (the CLI), an
offscreen one is created. Only released information is plotted; ⊥ queries appear as a count in
the title, never as points (they have no released value).
"""

from __future__ import annotations

import os
from typing import Any

WIDTH, HEIGHT = 900, 360
TOP_COLOUR = (0, 114, 178)  # Okabe–Ito blue: colour-blind safe; ⊤ also has its own symbol
THRESHOLD_COLOUR = (213, 94, 0)  # Okabe–Ito vermillion, dashed


def ensure_qt_app() -> Any:
    """The running QApplication, or a new offscreen one when there is no display (headless CLI)."""
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    if app is None:
        if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
            os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
        app = QApplication([])
    return app


def chart_png(data: dict[str, Any]) -> bytes:
    """PNG of the released stream."""
    ensure_qt_app()
    import pyqtgraph as pg
    from pyqtgraph.exporters import ImageExporter
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice

    rows = data["rows"]
    params = data["parameters"]
    # PMW's threshold (in rows) bounds the error of a synthetic answer; it is not on the answers' scale
    threshold = None if params.get("threshold_unit") == "rows" else params.get("threshold")
    tops = [r for r in rows if r["above"]]
    plot = pg.PlotItem()
    plot.setGeometry(0, 0, WIDTH, HEIGHT)
    view = pg.GraphicsLayoutWidget()
    view.setBackground("w")
    view.addItem(plot)
    view.resize(WIDTH, HEIGHT)
    plot.setLabel("bottom", "query index")
    plot.setLabel("left", "released value" if any(r["value"] is not None for r in tops) else "")
    plot.setTitle(f"{len(tops)} ⊤ of {len(rows)} answered; ⊥ answers release nothing and are not drawn",
                  color="k")
    plot.showGrid(x=True, y=True, alpha=0.2)
    last = max((r["index"] for r in rows), default=0)
    if threshold is not None:
        pen = pg.mkPen(THRESHOLD_COLOUR, width=2, style=pg.QtCore.Qt.PenStyle.DashLine)
        plot.addItem(pg.InfiniteLine(pos=float(threshold), angle=0, pen=pen,
                                     label=f"public threshold T = {float(threshold):g}",
                                     labelOpts={"color": THRESHOLD_COLOUR, "position": 0.1}))
    if tops:
        xs = [r["index"] for r in tops]
        # ⊤ without a released number (Sparse, AboveThreshold) are marked on the threshold line
        base = float(threshold) if threshold is not None else 0.0
        ys = [float(r["value"]) if r["value"] is not None else base for r in tops]
        plot.plot(xs, ys, pen=None, symbol="t1", symbolSize=11, symbolBrush=TOP_COLOUR,
                  symbolPen=pg.mkPen("k"), name="⊤")
    plot.setXRange(0, max(last, 1), padding=0.02)
    view.show()  # lays out axes; offscreen, nothing appears
    exporter = ImageExporter(plot)
    exporter.parameters()["width"] = WIDTH
    image = exporter.export(toBytes=True)
    view.close()
    buf = QBuffer()
    buf.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buf, "PNG")
    out = bytes(QByteArray(buf.data()))
    buf.close()
    return out
