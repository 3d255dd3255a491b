"""The stream chart: query index against released values, the public threshold T, ⊤ marks.

Only public things are drawn. A ⊥ query has no released value, so it has no point; a ⊤ of a
mechanism that releases no number is marked on the T line. The noisy threshold is never known
here and therefore never drawn.
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QGraphicsItem, QVBoxLayout, QWidget

from svtgui.ui.theme import ABOVE_COLOR, THRESHOLD_COLOR, named

TOP_LABEL = "⊤ above-threshold answer (released value, or on the line)"
SELECTED_LABEL = "⊤ selected query (no number released)"
MAX_POINTS = 20_000  # ⊤ marks drawn at most; beyond, an even sample (a scatter of 10⁶ marks stalls)


class LiveChart(QWidget):
    """pyqtgraph plot of the run so far; :meth:`update_from` is called by the coalescing UI timer."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        pal = self.palette()
        self.plot = pg.PlotWidget(background=pal.color(QPalette.ColorRole.Base))
        named(
            self.plot,
            "Stream chart",
            "Query number against released value. Dashed line: the public threshold T. "
            "▲ marks: ⊤ answers. ⊥ answers are not plotted: nothing about them is released.",
        )
        fg = pal.color(QPalette.ColorRole.Text)
        for axis in ("left", "bottom"):
            ax = self.plot.getAxis(axis)
            ax.setTextPen(fg)
            ax.setPen(fg)
        for axis in ("left", "bottom"):  # a repaint after an overlay or a ⊤ then reuses the axes' pixels
            self.plot.getAxis(axis).setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self.plot.setLabel("bottom", "query number")
        self.plot.setLabel("left", "released value")
        self.plot.showGrid(x=False, y=True, alpha=0.15)  # an x grid doubles the cost of an axis repaint
        self.plot.setClipToView(True)
        self.legend = self.plot.addLegend(offset=(10, 10), labelTextColor=fg)
        self.threshold_line = pg.InfiniteLine(
            angle=0,
            movable=False,
            pen=pg.mkPen(THRESHOLD_COLOR, width=2, style=pg.QtCore.Qt.PenStyle.DashLine),
            label="T = {value:g}",
            labelOpts={"position": 0.05, "color": THRESHOLD_COLOR, "movable": False},
        )
        self.plot.addItem(self.threshold_line)
        self.threshold_line.hide()  # until a run says which T it tests against
        self.plot.getAxis("left").enableAutoSIPrefix(False)  # "(x0.001)" on an empty chart misleads
        self.plot.setRange(xRange=(0, 10), yRange=(0, 1), padding=0)
        self.legend.addItem(
            pg.PlotDataItem(pen=pg.mkPen(THRESHOLD_COLOR, width=2, style=pg.QtCore.Qt.PenStyle.DashLine)),
            "public threshold",  # not "T": in most fonts T and ⊤ look the same
        )
        self.tops = pg.ScatterPlotItem(
            symbol="t1", size=11, pen=pg.mkPen(ABOVE_COLOR.darker(130)), brush=pg.mkBrush(ABOVE_COLOR)
        )
        self.plot.addItem(self.tops)
        self.legend.addItem(self.tops, TOP_LABEL)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.plot)
        self._threshold = 0.0
        self._x_max = -1.0
        self._tops = -1
        self.xs = np.empty(0)
        self.ys = np.empty(0)

    def set_threshold(self, threshold: float | None) -> None:
        """The public threshold T; ``None`` for a mechanism without one (top-c selection): no line is
        drawn and the ⊤ marks (selected queries, no released number) sit on the zero line."""
        has = threshold is not None
        self._threshold = float(threshold) if has else 0.0
        self.threshold_line.setVisible(has)  # first: a hidden line's label ignores value changes
        self.threshold_line.setValue(self._threshold)
        self.legend.items[0][0].setVisible(has)
        self.legend.items[0][1].setVisible(has)
        self.legend.items[1][1].setText(TOP_LABEL if has else SELECTED_LABEL)

    def clear(self) -> None:
        self.tops.setData([], [])
        self.xs, self.ys = np.empty(0), np.empty(0)
        self._x_max, self._tops = -1.0, -1

    def update_from(self, indices: np.ndarray, values: np.ndarray, n_answered: int) -> None:
        """Redraw from the ⊤ rows (0-based query indices); ``values`` NaN = no released number.

        Called at the UI timer's rate, so it does as little as it can: the points are replaced only
        when a ⊤ arrived, and the x range grows in 1-2-5 steps, so a long stream of ⊥ answers
        repaints the chart a few times per decade of queries instead of on every tick (an axis and
        grid repaint costs ~15 ms on a software-rendered screen).
        """
        if len(indices) != self._tops:
            self._tops = len(indices)
            xs = indices.astype(np.float64) + 1
            ys = np.where(np.isnan(values), self._threshold, values)
            self.xs, self.ys = xs, ys
            if len(xs) > MAX_POINTS:  # evenly thinned; the table still lists every ⊤
                keep = np.linspace(0, len(xs) - 1, MAX_POINTS).astype(np.int64)
                xs, ys = xs[keep], ys[keep]
            self.tops.setData(xs, ys)
            span = [self._threshold, *(ys if len(ys) else [])]
            lo, hi = float(np.min(span)), float(np.max(span))
            pad = max(1.0, 0.15 * (hi - lo), 0.1 * abs(self._threshold))
            self.plot.setYRange(lo - pad, hi + pad, padding=0)
        x_max = nice_ceiling(max(10, n_answered) * 1.02)
        if x_max != self._x_max:
            self._x_max = x_max
            self.plot.setXRange(0, x_max, padding=0)


def nice_ceiling(x: float) -> float:
    """The smallest of 1, 2, 5 × 10^k that is ≥ ``x`` (for x > 0)."""
    scale = 10.0 ** math.floor(math.log10(x))
    return next(m * scale for m in (1, 2, 5, 10) if m * scale >= x)
