"""The stream chart: query index against released values, the public threshold T, ⊤ marks.

Only public things are drawn. A ⊥ query has no released value, so it has no point; a ⊤ of a
mechanism that releases no number is marked on the T line. The noisy threshold is never known
here and therefore never drawn.

PMW is different: every answer is released — *paid* ones (fresh noisy counts, ▲) and *free*
ones (from the public synthetic histogram, ○) — and its T bounds the *error* of a free answer,
not the answer itself, so no T line is drawn on the answers' scale; a caption says what T is.
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QGraphicsItem, QLabel, QVBoxLayout, QWidget

from svtgui.core.wording import plain
from svtgui.ui.common.plain_axis import PlainAxis
from svtgui.ui.common.theme import ABOVE_COLOR, BELOW_COLOR, THRESHOLD_COLOR, named

TOP_LABEL = "⊤ above-threshold answer (released value, or on the line)"
SELECTED_LABEL = "⊤ selected query (no number released)"
PAID_LABEL = "▲ paid answer (fresh noisy count; one of the c paid)"
FREE_LABEL = "○ free answer (from the public synthetic histogram; costs nothing)"
TIP = ("Query number against released value. Dashed line: the public threshold T. ▲ marks: ⊤ answers. "
       "⊥ answers are not plotted: nothing about them is released.")
PMW_TIP = ("Query number against released value, in rows. ▲ marks: paid answers (fresh noisy counts). "
           "○ marks: free answers from the public synthetic histogram. PMW's T bounds a free answer's error, "
           "so it is not drawn on this scale.")
MAX_POINTS = 20_000  # marks drawn per scatter at most; beyond, an even sample


class LiveChart(QWidget):
    """pyqtgraph plot of the run so far; :meth:`update_from` is called by the coalescing UI timer."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        pal = self.palette()
        self.plot = pg.PlotWidget(background=pal.color(QPalette.ColorRole.Base),
                                  axisItems={"left": PlainAxis("left"), "bottom": PlainAxis("bottom")})
        named(self.plot, "Stream chart", TIP)
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
            label="T = {value:,.15g}",  # 30,000,000, never 3e+07
            labelOpts={"position": 0.05, "color": THRESHOLD_COLOR, "movable": False},
        )
        self.plot.addItem(self.threshold_line)
        self.threshold_line.hide()  # until a run says which T it tests against
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
        # PMW's free answers: hollow orange circles next to the filled blue ▲ of the paid ones
        # (Okabe–Ito pair, and a different symbol, so colour is never the only cue).
        self.frees = pg.ScatterPlotItem(symbol="o", size=7, pen=pg.mkPen(BELOW_COLOR, width=1.5), brush=None)
        self.plot.addItem(self.frees)
        self.caption = named(QLabel(), "Stream chart caption")
        self.caption.setWordWrap(True)
        self.caption.hide()
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.plot)
        lay.addWidget(self.caption)
        self._threshold = 0.0
        self._line = False  # is T drawn (and part of the y range)?
        self._x_max = -1.0
        self._tops = -1
        self._frees = -1
        self.xs = np.empty(0)
        self.ys = np.empty(0)
        self.free_xs = np.empty(0)
        self.free_ys = np.empty(0)

    def set_threshold(self, threshold: float | None) -> None:
        """The public threshold T; ``None`` for a mechanism without one (top-c selection): no line is
        drawn and the ⊤ marks (selected queries, no released number) sit on the zero line."""
        has = threshold is not None
        self._show_threshold(float(threshold) if has else None)
        self.legend.items[1][1].setText(TOP_LABEL if has else SELECTED_LABEL)
        self._set_free_legend(False)
        self.caption.hide()
        self.plot.setToolTip(TIP)

    def set_pmw(self, threshold_rows: float) -> None:
        """A PMW run: paid ▲ and free ○ answers, both in rows; T is named in the caption, not drawn,
        because it bounds how far a free answer may be from the truth, not the answers themselves."""
        self._show_threshold(None)
        self.legend.items[1][1].setText(PAID_LABEL)
        self._set_free_legend(True)
        self.caption.setText(
            f"T = {plain(threshold_rows, 6)} rows is not drawn: in PMW it is not a threshold on the answers. "
            "It bounds the error of a free answer: a query is paid for (▲) when its answer from the public "
            "synthetic histogram is off by more than about T rows; otherwise that answer is released, "
            "free (○).")
        self.caption.show()
        self.plot.setToolTip(PMW_TIP)

    def _show_threshold(self, threshold: float | None) -> None:
        self._line = threshold is not None
        self._threshold = threshold if threshold is not None else 0.0
        self.threshold_line.setVisible(self._line)  # first: a hidden line's label ignores value changes
        self.threshold_line.setValue(self._threshold)
        self.legend.items[0][0].setVisible(self._line)
        self.legend.items[0][1].setVisible(self._line)

    def _set_free_legend(self, on: bool) -> None:
        listed = any(sample.item is self.frees for sample, _ in self.legend.items)
        if on and not listed:
            self.legend.addItem(self.frees, FREE_LABEL)
        elif not on and listed:
            self.legend.removeItem(self.frees)

    def legend_labels(self) -> list[str]:
        """The visible legend entries' texts (what a reader of the chart is told)."""
        return [label.text for item, label in self.legend.items if label.isVisible()]

    def forget_run(self) -> None:
        """No run on view (another dataset was opened): no points, no threshold line, no PMW caption."""
        self.clear()
        self.set_threshold(None)
        self.legend.items[1][1].setText(TOP_LABEL)

    def clear(self) -> None:
        self.tops.setData([], [])
        self.frees.setData([], [])
        self.xs, self.ys = np.empty(0), np.empty(0)
        self.free_xs, self.free_ys = np.empty(0), np.empty(0)
        self._x_max, self._tops, self._frees = -1.0, -1, -1

    def update_from(self, indices: np.ndarray, values: np.ndarray, n_answered: int,
                    free_indices: np.ndarray | None = None, free_values: np.ndarray | None = None) -> None:
        """Redraw from the ⊤ rows (0-based query indices; ``values`` NaN = no released number) and,
        for PMW, the free answers.

        Called at the UI timer's rate, so it does as little as it can: the points are replaced only
        when a ⊤ (or a free answer) arrived, and the x range grows in 1-2-5 steps, so a long stream
        of ⊥ answers repaints the chart a few times per decade of queries instead of on every tick
        (an axis and grid repaint costs ~15 ms on a software-rendered screen).
        """
        changed = False
        if len(indices) != self._tops:
            self._tops, changed = len(indices), True
            self.xs = indices.astype(np.float64) + 1
            self.ys = np.where(np.isnan(values), self._threshold, values)
            self.tops.setData(*_thinned(self.xs, self.ys))  # the table still lists every row
        if free_indices is not None and len(free_indices) != self._frees:
            self._frees, changed = len(free_indices), True
            self.free_xs = free_indices.astype(np.float64) + 1
            self.free_ys = np.asarray(free_values, dtype=np.float64)
            self.frees.setData(*_thinned(self.free_xs, self.free_ys))
        if changed:
            span = np.concatenate([[self._threshold] if self._line else [], self.ys, self.free_ys])
            lo, hi = (float(np.min(span)), float(np.max(span))) if len(span) else (0.0, 1.0)
            pad = max(1.0, 0.15 * (hi - lo), 0.1 * abs(self._threshold) if self._line else 0.0)
            self.plot.setYRange(lo - pad, hi + pad, padding=0)
        x_max = nice_ceiling(max(10, n_answered) * 1.02)
        if x_max != self._x_max:
            self._x_max = x_max
            self.plot.setXRange(0, x_max, padding=0)


def _thinned(xs: np.ndarray, ys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """At most ``MAX_POINTS`` points, evenly sampled (a scatter of 10⁶ marks stalls the window)."""
    if len(xs) <= MAX_POINTS:
        return xs, ys
    keep = np.linspace(0, len(xs) - 1, MAX_POINTS).astype(np.int64)
    return xs[keep], ys[keep]


def nice_ceiling(x: float) -> float:
    """The smallest of 1, 2, 5 × 10^k that is ≥ ``x`` (for x > 0)."""
    scale = 10.0 ** math.floor(math.log10(x))
    return next(m * scale for m in (1, 2, 5, 10) if m * scale >= x)
