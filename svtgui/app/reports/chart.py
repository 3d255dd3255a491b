"""The report's chart as SVG text, drawn by hand: query index vs. released values, T, ⊤ marks. No Qt.

Why by hand: the chart is a scatter of at most a few thousand triangles, two axes and a dashed
line; a plotting library (pyqtgraph needs a QApplication, matplotlib is a large dependency) would
make ``svtgui-cli run --report r.html`` depend on a GUI toolkit for twenty lines of geometry.

Only released information is drawn, from the report's data (which holds nothing secret, see
:mod:`.content`): ⊤ rows at their released value (or on the threshold line when ⊤ releases no
number), the public threshold T, and ⊥ as a count in the title — ⊥ rows have no released value.
Every text comes through :func:`html.escape`; the SVG holds no script and links to nothing.
Marks closer than a pixel are drawn once, so the file stays small for runs of 100,000 ⊤ answers.
"""

from __future__ import annotations

import math
from html import escape

from svtgui.app.reports.document import Document
from svtgui.core.wording import plain

WIDTH, HEIGHT = 900, 360
LEFT, RIGHT, TOP, BOTTOM = 78, 24, 40, 52  # margins: tick labels left, axis title below
DIGIT_WIDTH = 7.7  # px of the widest digit at font-size 12 (DejaVu Sans 7.6): tick labels' room
Y_TITLE_ROOM = 30  # px left of the tick labels for the rotated y-axis title
TOP_COLOUR = "#0072b2"  # Okabe–Ito blue: colour-blind safe; ⊤ also has its own symbol
THRESHOLD_COLOUR = "#d55e00"  # Okabe–Ito vermillion, dashed
GRID_COLOUR = "#e3e3e3"
MARK = 5.5  # half the width of a ⊤ triangle, in pixels
TICKS = 6  # about this many ticks per axis


def nice_ticks(low: float, high: float, count: int = TICKS) -> list[float]:
    """Round tick values (1, 2 or 5 times a power of ten) covering [low, high]."""
    if not high > low:
        low, high = low - 1.0, high + 1.0
    raw = (high - low) / max(count - 1, 1)
    power = 10.0 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    first = math.floor(low / step) * step
    ticks = []
    k = 0
    while (t := first + k * step) <= high + step * 1e-9:
        ticks.append(0.0 if abs(t) < step * 1e-9 else t)
        k += 1
    if ticks[-1] < high:
        ticks.append(ticks[-1] + step)
    return ticks


def _label(v: float) -> str:
    """A tick as the window writes it: grouped, never an exponent ("4,200.5", not "4200.5")."""
    return plain(v, 6)


class _Scale:
    """Data → pixel along one axis (``flip`` for y: larger values higher up)."""

    def __init__(self, ticks: list[float], start: float, end: float, flip: bool = False) -> None:
        self.lo, self.hi = ticks[0], ticks[-1]
        self.start, self.end, self.flip = start, end, flip

    def __call__(self, v: float) -> float:
        f = (v - self.lo) / (self.hi - self.lo)
        if self.flip:
            f = 1.0 - f
        return self.start + f * (self.end - self.start)


def chart_svg(data: Document) -> str:
    """The released stream of a report's ``data`` (:func:`.content.report_data`) as one ``<svg>``."""
    rows = data["rows"]
    params = data["parameters"]
    # PMW's threshold (in rows) bounds the error of a synthetic answer; it is not on the answers' scale
    threshold = None if params.get("threshold_unit") == "rows" else params.get("threshold")
    threshold = None if threshold is None else float(threshold)
    tops = [r for r in rows if r["above"]]
    base = threshold if threshold is not None else 0.0  # where a ⊤ without a number is marked
    # Queries are numbered from 1, as in the window and the report's table (the ledger counts from 0).
    points = [(float(r["index"]) + 1, float(r["value"]) if r["value"] is not None else base) for r in tops]
    last = max((float(r["index"]) + 1 for r in rows), default=0.0)
    xs = nice_ticks(0.0, max(last, 1.0))
    ys_seen = [y for _, y in points] + ([threshold] if threshold is not None else [])
    ys = nice_ticks(min(ys_seen, default=0.0), max(ys_seen, default=1.0))
    left = max(LEFT, Y_TITLE_ROOM + 6 + round(DIGIT_WIDTH * max(len(_label(v)) for v in ys)))
    x = _Scale(xs, left, WIDTH - RIGHT)
    y = _Scale(ys, TOP, HEIGHT - BOTTOM, flip=True)
    title = f"{len(tops)} ⊤ of {len(rows)} answered; ⊥ answers release nothing and are not drawn"
    has_values = any(r["value"] is not None for r in tops)
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}" font-family="DejaVu Sans, Arial, sans-serif" font-size="12" '
        'role="img" aria-label="released answers by query number, with the public threshold">',
        f'<rect width="{WIDTH}" height="{HEIGHT}" fill="white"/>',
        f'<text x="{WIDTH / 2:.1f}" y="22" text-anchor="middle" font-size="14">{escape(title)}</text>',
    ]
    out += _axes(xs, ys, x, y, "released value" if has_values else "", left)
    if threshold is not None:
        ty = y(threshold)
        out.append(f'<line x1="{left}" y1="{ty:.1f}" x2="{WIDTH - RIGHT}" y2="{ty:.1f}" '
                   f'stroke="{THRESHOLD_COLOUR}" stroke-width="2" stroke-dasharray="8 5"/>')
        label = escape(f"public threshold T = {plain(threshold, 12)}")
        # A white halo drawn first, then the words: renderers without paint-order (Qt's, which sets
        # the PDF) drew the halo over the words and the label vanished.
        out.append(f'<text x="{left + 8}" y="{ty - 6:.1f}" fill="white" stroke="white" '
                   f'stroke-width="3">{label}</text>')
        out.append(f'<text x="{left + 8}" y="{ty - 6:.1f}" fill="{THRESHOLD_COLOUR}">{label}</text>')
    if points:
        out.append(f'<path fill="{TOP_COLOUR}" stroke="black" stroke-width="0.8" '
                   f'd="{_triangles(points, x, y)}"><title>⊤</title></path>')
    out.append("</svg>")
    return "\n".join(out)


def _axes(xs: list[float], ys: list[float], x: _Scale, y: _Scale, y_title: str, left: float) -> list[str]:
    """Grid lines, tick labels, the frame and the axis titles (``left``: where the plot starts, far
    enough right that the widest tick label clears the rotated y title)."""
    bottom, right = HEIGHT - BOTTOM, WIDTH - RIGHT
    out = [f'<g stroke="{GRID_COLOUR}" stroke-width="1">']
    out += [f'<line x1="{x(v):.1f}" y1="{TOP}" x2="{x(v):.1f}" y2="{bottom}"/>' for v in xs]
    out += [f'<line x1="{left}" y1="{y(v):.1f}" x2="{right}" y2="{y(v):.1f}"/>' for v in ys]
    out.append("</g>")
    out.append(f'<rect x="{left}" y="{TOP}" width="{right - left}" height="{bottom - TOP}" fill="none" '
               'stroke="#444"/>')
    out += [f'<text x="{x(v):.1f}" y="{bottom + 16}" text-anchor="middle">{_label(v)}</text>' for v in xs]
    out += [f'<text x="{left - 6}" y="{y(v) + 4:.1f}" text-anchor="end">{_label(v)}</text>' for v in ys]
    out.append(f'<text x="{(left + right) / 2:.1f}" y="{HEIGHT - 12}" text-anchor="middle">'
               "query number</text>")
    if y_title:
        out.append(f'<text transform="translate(16 {(TOP + bottom) / 2:.1f}) rotate(-90)" '
                   f'text-anchor="middle">{escape(y_title)}</text>')
    return out


def _triangles(points: list[tuple[float, float]], x: _Scale, y: _Scale) -> str:
    """One path of upward triangles centred on the points (one per pixel: overlapping marks drawn once)."""
    seen: set[tuple[int, int]] = set()
    parts = []
    for px, py in ((x(a), y(b)) for a, b in points):
        key = (round(px), round(py))
        if key in seen:
            continue
        seen.add(key)
        parts.append(f"M{px:.1f} {py - MARK:.1f}l{MARK:g} {2 * MARK:g}h{-2 * MARK:g}z")
    return "".join(parts)
