"""The budget gauge's bars stay readable whatever their fill: light text on the fill, dark text beside it."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QColor, QImage

from svtgui.ui.app import create_app
from svtgui.ui.run.budget_gauge import BudgetGauge


def _render(bar) -> QImage:
    image = QImage(bar.size(), QImage.Format.Format_RGB32)
    bar.render(image)
    return image


def _lightness(image: QImage, x0: int, x1: int) -> list[int]:
    """Lightness of every pixel in columns [x0, x1) inside the bar's frame."""
    return [QColor(image.pixel(x, y)).lightness()
            for x in range(max(x0, 2), min(x1, image.width() - 2)) for y in range(2, image.height() - 2)]


@pytest.fixture
def gauge(qtbot):
    create_app()
    g = BudgetGauge()
    qtbot.addWidget(g)
    g.resize(420, 300)
    g.show()
    return g


def test_a_full_cutoff_bar_shows_light_text_on_its_dark_fill(gauge):
    gauge.set_counts(5, 9, 5)
    image = _render(gauge.cutoff_bar)
    inside = _lightness(image, 0, image.width())
    fill = QColor(gauge.cutoff_bar.fill).lightness()
    # the fill dominates, and the text on it is light (it was black on dark blue before)
    assert sorted(inside)[len(inside) // 2] == pytest.approx(fill, abs=10)
    assert max(inside) > 200


def test_an_empty_bar_shows_dark_text_on_its_light_base(gauge):
    gauge.set_counts(0, 3, 5)
    image = _render(gauge.cutoff_bar)
    inside = _lightness(image, 0, image.width())
    assert min(inside) < 100 and sorted(inside)[len(inside) // 2] > 200


def test_across_the_fill_edge_both_halves_of_the_text_are_readable(gauge):
    gauge.set_dataset(0.5, "ε spent 1 of 2")  # half full: the centred text straddles the edge
    bar = gauge.dataset_bar
    image = _render(bar)
    edge = round(bar.width() * bar.filled_fraction())
    filled, empty = _lightness(image, edge - 40, edge - 2), _lightness(image, edge + 2, edge + 40)
    assert max(filled) > 200  # light glyph pixels on the fill
    assert min(empty) < 100  # dark glyph pixels on the base


def test_both_bars_centre_their_text_alike(gauge):
    assert type(gauge.cutoff_bar) is type(gauge.dataset_bar)
    assert gauge.cutoff_bar.minimumHeight() == gauge.dataset_bar.minimumHeight()


def test_the_spend_confirmation_never_covers_the_gauge(qtbot, window, act):
    from PySide6.QtCore import QRect, Qt

    act.load(qtbot, window)
    window.resize(1366, 768)
    window.show_page("run")
    page = window.run_page
    qtbot.mouseClick(page.run_button, Qt.MouseButton.LeftButton)
    assert page.confirm.isVisible()
    gauge = QRect(page.gauge.mapTo(page, page.gauge.rect().topLeft()), page.gauge.size())
    assert not page.confirm.geometry().intersects(gauge)
    assert page.confirm.geometry().intersects(QRect(page.chart.mapTo(page, page.chart.rect().topLeft()),
                                                    page.chart.size()))
    page.confirm.cancel.click()


def test_one_free_answer_is_one_answer(gauge):
    gauge.set_counts(0, 1, 5)
    assert "1</span> answer so far" in gauge.free_label.text()
    gauge.set_counts(0, 2, 5)
    assert "2</span> answers so far" in gauge.free_label.text()
