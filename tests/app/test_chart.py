"""The report chart: SVG drawn without Qt, showing exactly the released ⊤ values and the public T."""

from __future__ import annotations

import re
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from svtgui.app.reports.chart import BOTTOM, HEIGHT, LEFT, MARK, RIGHT, TOP, WIDTH, chart_svg, nice_ticks

SVG = "{http://www.w3.org/2000/svg}"


def _data(rows, **params):
    return {"rows": rows, "parameters": params}


def _row(index, above, value=None):
    return {"index": index, "above": above, "value": value}


def _ticks(root, anchor):
    return [float(t.text.replace(",", "")) for t in root.iter(f"{SVG}text") if t.get("text-anchor") == anchor]


def _marks(root) -> list[tuple[float, float]]:
    """Centres of the drawn triangles (the path is 'M x y-MARK l ... z' per mark)."""
    path = next(root.iter(f"{SVG}path"), None)
    if path is None:
        return []
    return [(float(x), float(y) + MARK) for x, y in re.findall(r"M([-\d.]+) ([-\d.]+)l", path.get("d"))]


def _axis(ticks, start, end, flip=False):
    """Pixel → value, from the drawn tick labels (independent of the module's own scale class)."""
    lo, hi = ticks[0], ticks[-1]

    def value(px):
        f = (px - start) / (end - start)
        return lo + (1 - f if flip else f) * (hi - lo)
    return value


@pytest.mark.parametrize(("low", "high"),
                         [(0, 1), (0, 37), (17.5, 90), (-3, 2_000_000), (5, 5), (0.001, 0.0042)])
def test_nice_ticks_cover_the_range_with_round_steps(low, high):
    ticks = nice_ticks(low, high)
    assert ticks[0] <= low and ticks[-1] >= high and 3 <= len(ticks) <= 12
    steps = {round(b - a, 12) for a, b in zip(ticks, ticks[1:], strict=False)}
    assert len(steps) == 1
    mantissa = f"{steps.pop():.0e}"[0]
    assert mantissa in "125"


def test_marks_sit_at_the_released_values_and_t_is_a_dashed_line():
    rows = [_row(0, False), _row(3, True, 120.0), _row(7, False), _row(12, True, 95.5), _row(40, True, 310.0)]
    root = ET.fromstring(chart_svg(_data(rows, threshold=100.0)))
    assert root.get("width") == str(WIDTH) and not list(root.iter(f"{SVG}script"))
    xs = _axis(_ticks_x(root), LEFT, WIDTH - RIGHT)
    ys = _axis(_ticks(root, "end"), TOP, HEIGHT - BOTTOM, flip=True)
    got = sorted((round(xs(x)), ys(y)) for x, y in _marks(root))
    want = [(4, 120.0), (13, 95.5), (41, 310.0)]  # query numbers, from 1 as in the window and the table
    tolerance = 0.11 * (_ticks(root, "end")[-1] - _ticks(root, "end")[0]) / (HEIGHT - BOTTOM - TOP)  # 0.1 px
    assert [i for i, _ in got] == [i for i, _ in want]
    assert all(abs(g - w) <= tolerance for (_, g), (_, w) in zip(got, want, strict=True))
    dashed = [e for e in root.iter(f"{SVG}line") if e.get("stroke-dasharray")]
    assert len(dashed) == 1
    assert abs(ys(float(dashed[0].get("y1"))) - 100.0) <= tolerance
    texts = " ".join(t.text for t in root.iter(f"{SVG}text"))
    assert "3 ⊤ of 5 answered" in texts and "public threshold T = 100" in texts and "query number" in texts


def _ticks_x(root):
    bottom = HEIGHT - BOTTOM
    return [float(t.text.replace(",", "")) for t in root.iter(f"{SVG}text")
            if t.get("text-anchor") == "middle" and t.get("y") == str(bottom + 16)]


def test_top_without_a_number_is_marked_on_t_and_pmw_has_no_t_line():
    root = ET.fromstring(chart_svg(_data([_row(0, False), _row(1, True)], threshold=50.0)))
    ys = _axis(_ticks(root, "end"), TOP, HEIGHT - BOTTOM, flip=True)
    (_, y), = _marks(root)
    assert abs(ys(y) - 50.0) < 0.1
    pmw = ET.fromstring(chart_svg(_data([_row(0, True, 12.0)], threshold=3, threshold_unit="rows")))
    assert not [e for e in pmw.iter(f"{SVG}line") if e.get("stroke-dasharray")]
    assert "threshold" not in " ".join(t.text for t in pmw.iter(f"{SVG}text"))


def test_an_empty_run_and_overlapping_marks():
    empty = ET.fromstring(chart_svg(_data([], threshold=1.0)))
    assert _marks(empty) == [] and "0 ⊤ of 0 answered" in " ".join(t.text for t in empty.iter(f"{SVG}text"))
    many = [_row(i, True, 10.0) for i in range(100_000)]  # 100,000 marks on ~800 pixels
    marks = _marks(ET.fromstring(chart_svg(_data(many, threshold=5.0))))
    assert 700 <= len(marks) <= WIDTH


def test_the_chart_module_imports_no_qt():
    code = ("import sys; import svtgui.app.reports.chart, svtgui.app.reports.html\n"
            "qt = ('PySide6', 'pyqtgraph', 'shiboken6')\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in qt))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_wide_tick_labels_clear_the_y_title_and_the_t_label_survives_qts_renderer(qapp):
    """Values near 30,000,000: the tick labels used to run under the rotated "released value"; the T
    label's white halo, drawn over its words by renderers without paint-order (Qt's, which sets the
    PDF), hid it."""
    from PySide6.QtGui import QFont, QFontMetricsF

    rows = [_row(i, True, 30_000_000.5 + 1000.25 * i) for i in range(10)]
    root = ET.fromstring(chart_svg(_data(rows, threshold=30_000_000)))
    font = QFont("DejaVu Sans")
    font.setPixelSize(12)
    metrics = QFontMetricsF(font)
    title = next(t for t in root.iter(f"{SVG}text") if t.text == "released value")
    baseline = float(re.search(r"translate\(([\d.]+)", title.get("transform")).group(1))
    title_right = baseline + metrics.descent()  # rotated -90°: its baseline is a vertical line
    for tick in (t for t in root.iter(f"{SVG}text") if t.get("text-anchor") == "end"):
        assert float(tick.get("x")) - metrics.horizontalAdvance(tick.text) > title_right + 2, tick.text
    labels = [t for t in root.iter(f"{SVG}text") if (t.text or "").startswith("public threshold")]
    assert labels[-1].get("stroke") is None and labels[-1].get("fill") != "white"  # the words on top
    assert labels[-1].text == "public threshold T = 30,000,000"
