"""The teaching mode, driven through its widgets with pytest-qt (toy data only)."""

from __future__ import annotations

import math

import pytest
from PySide6.QtCore import Qt

from svtgui.ui.teaching import toy
from svtgui.ui.teaching.catalogue import pages
from svtgui.ui.teaching.cheap import CheapPage, costs
from svtgui.ui.teaching.common import TOY_NOTICE
from svtgui.ui.teaching.gallery import BROKEN, GalleryPage, p_text, plain_number
from svtgui.ui.teaching.glossary import GLOSSARY, GlossaryPage
from svtgui.ui.teaching.neighbour import NeighbourPage
from svtgui.ui.teaching.screenshot import screenshot_widget
from svtgui.ui.teaching.walkthrough import WalkthroughPage

# fixed small sample sizes: the gallery tests are reproducible and take about a second per audit
FAST_AUDIT = dict(seed=3, search_runs=5000, final_runs=40_000)


def _labels(widget) -> list[str]:
    from PySide6.QtWidgets import QLabel

    return [lbl.text() for lbl in widget.findChildren(QLabel)]


@pytest.mark.parametrize("name", list(pages()))
def test_every_page_says_it_uses_toy_data(qtbot, name):
    page = pages()[name]()
    qtbot.addWidget(page)
    if name != "glossary":  # the glossary explains words; it shows no data at all
        assert TOY_NOTICE in _labels(page)


def test_toy_dataset_answers_and_neighbour():
    assert toy.answers() == [1, 2, 3, 4, 6, 9, 11]
    # Ines drinks 4 cups: removing her lowers exactly the counts for k <= 4, each by one (sensitivity 1)
    assert toy.answers(toy.without("Ines")) == [1, 2, 3, 3, 5, 8, 10]
    with pytest.raises(ValueError, match="no person called 'Zed'"):
        toy.without("Zed")


def test_walkthrough_steps_reveal_the_run_one_question_at_a_time(qtbot):
    page = WalkthroughPage(seed=153)
    qtbot.addWidget(page)
    trace = page.run.trace
    assert page.position == 0 and not page.noisy_t.isVisible() and not page.back_button.isEnabled()
    qtbot.mouseClick(page.step_button, Qt.MouseButton.LeftButton)
    assert "random nudge" in page.caption.text()
    for i, s in enumerate(trace):
        qtbot.mouseClick(page.step_button, Qt.MouseButton.LeftButton)
        caption = page.caption.text()
        assert f"Question {i + 1}" in caption and f"{s.answer:g} becomes {s.noisy_answer:g}" in caption
        assert ("⊤ (above)" in caption) == s.above
        assert page.tops.value() == sum(t.above for t in trace[: i + 1])
        xs, _ = page.true_dots.getData()
        assert len(xs) == i + 1
    qtbot.mouseClick(page.step_button, Qt.MouseButton.LeftButton)
    assert "stops here" in page.caption.text() and not page.step_button.isEnabled()
    assert page.tops.value() == toy.CUTOFF
    qtbot.mouseClick(page.back_button, Qt.MouseButton.LeftButton)
    assert page.position == len(page.steps) - 2


def test_walkthrough_highlights_the_people_a_question_counts(qtbot):
    page = WalkthroughPage(seed=153)
    qtbot.addWidget(page)
    page.show_step(2)  # question 1: at least 7 cups -> only Lena
    counted = [r for r in range(page.table.rowCount())
               if page.table.item(r, 0).background().color().alpha() > 0]
    assert [page.table.item(r, 0).text() for r in counted] == ["Lena"]


def test_walkthrough_plays_and_pauses(qtbot):
    page = WalkthroughPage(seed=153)
    qtbot.addWidget(page)
    page.speed.setValue(len(page.steps))  # clamps to the fastest speed
    page.play_button.click()
    assert page.play_button.text() == "⏸ Pause"
    qtbot.waitUntil(lambda: page.position >= 2, timeout=5000)
    page.play_button.click()
    stopped = page.position
    # Paused means the timer that advances the steps is stopped: nothing can move (no need to watch)
    assert not page.timer.isActive() and page.play_button.text() == "▶ Play"
    assert page.position == stopped


def test_walkthrough_new_run_draws_new_noise(qtbot):
    page = WalkthroughPage(seed=153)
    qtbot.addWidget(page)
    before = [(s.noisy_answer, s.noisy_threshold) for s in page.run.trace]
    page.restart_button.click()
    assert page.seed == 154 and page.position == 0
    assert [(s.noisy_answer, s.noisy_threshold) for s in page.run.trace] != before


def test_cheap_page_costs_grow_linearly_for_naive_only(qtbot):
    import numpy as np

    naive, svt = costs(np.arange(1, 11), 0.5, 0.5)
    assert naive.tolist() == [0.5 * k for k in range(1, 11)] and set(svt.tolist()) == {0.5}
    page = CheapPage()
    qtbot.addWidget(page)
    page.eps.setValue(0.3)
    xs, ys = page.naive.getData()
    assert ys[-1] == pytest.approx(0.3 * xs[-1])
    assert "costs ε = 30" in page.summary.text()
    # the accuracy price, from the bounds: a naive count within ±ln(20)/ε, SVT's α (D&R Thm 3.24)
    import math

    from svtgui.core import bounds

    assert f"±{math.log(20) / 0.3:.1f}" in page.summary.text()
    assert f"±{bounds.above_threshold(0.3, 100, 0.05):.0f}" in page.summary.text()


def test_neighbour_experiment_private_vs_broken(qtbot):
    page = NeighbourPage()
    qtbot.addWidget(page)
    c = page.comparison
    assert c is not None and c.freq1.sum() == pytest.approx(1) and c.freq2.sum() == pytest.approx(1)
    # Standard SVT is private: the measured lower bound cannot exceed the promise (false alarm <= 1%)
    assert c.epsilon_lcb <= toy.EPSILON and "within the promised" in page.verdict.text()
    page.choice.setCurrentIndex(page.choice.findData("lyu_alg5_stoddard"))
    assert page.comparison.epsilon_lcb > toy.EPSILON and "Promise broken" in page.verdict.text()


def test_gallery_audits_each_variant_in_a_worker_and_shows_the_evidence(qtbot):
    page = GalleryPage(**FAST_AUDIT)
    qtbot.addWidget(page)
    assert set(page.cards) == set(BROKEN)
    page.run_all_button.click()
    assert page.busy
    qtbot.waitUntil(lambda: not page.busy, timeout=120_000)
    for mid, card in page.cards.items():
        assert card.result is not None and card.result.violation, mid
        assert "LEAKS" in card.status.text() and "The mistake" in _labels(card)[1]
        assert card.button.isEnabled()


def test_gallery_single_card_and_stop(qtbot):
    page = GalleryPage(**FAST_AUDIT)
    qtbot.addWidget(page)
    card = page.cards["lyu_alg5_stoddard"]
    card.button.click()
    assert not card.button.isEnabled()
    page.stop()
    assert not page.queue


def test_gallery_text_helpers():
    assert p_text(0.0) == "below 1 in 10<sup>300</sup>"
    assert p_text(3e-9) == "below 1 in 10<sup>8</sup>"
    assert p_text(0.5) == "0.5"
    assert plain_number(176_000.4) == "176,000" and plain_number(4.4817) == "4.48"


def test_glossary_has_every_required_term_and_tooltips_use_it(qtbot):
    for word in ("ε", "δ", "sensitivity", "threshold", "cutoff", "⊥", "⊤", "neighbouring"):
        assert any(word in key for key in GLOSSARY), word
    page = GlossaryPage()
    qtbot.addWidget(page)
    assert set(page.entries) == set(GLOSSARY)
    walk = WalkthroughPage()
    qtbot.addWidget(walk)
    assert "cutoff (c)" in walk.tops.toolTip()


def test_teaching_window_has_all_pages_as_tabs(qtbot):
    from svtgui.ui.teaching.window import TeachingWindow

    win = TeachingWindow()
    qtbot.addWidget(win)
    assert win.tabs.count() == len(pages())
    win.show_page("gallery")
    assert win.tabs.currentWidget() is win.pages["gallery"]
    win.close()


def test_screenshot_widget_knows_the_pages(qtbot):
    assert screenshot_widget("teaching-nonsense") is None
    w = screenshot_widget("teaching-cheap")
    qtbot.addWidget(w)
    assert isinstance(w, CheapPage)
    assert not math.isnan(w.eps.value())


def test_walkthrough_keyboard_and_flip_caption(qtbot):
    page = WalkthroughPage(seed=153)
    qtbot.addWidget(page)
    page.show()
    qtbot.keyClick(page, Qt.Key.Key_Right)
    assert page.position == 1
    qtbot.keyClick(page, Qt.Key.Key_Left)
    assert page.position == 0
    # in this run question 6 (true answer 9 >= T = 5) comes out ⊥: the caption must say so
    flipped = [i for i, s in enumerate(page.run.trace) if s.above != (s.answer >= toy.THRESHOLD)]
    assert flipped
    page.show_step(flipped[0] + 2)
    assert "flipped the outcome" in page.caption.text()


def test_screenshot_widget_can_show_a_walkthrough_step(qtbot):
    w = screenshot_widget("teaching-walkthrough-3")
    qtbot.addWidget(w)
    assert isinstance(w, WalkthroughPage) and w.position == 2


def test_main_window_opens_the_teaching_window(qtbot, window):
    from svtgui.ui.teaching.window import TeachingWindow

    teaching = window.open_teaching()
    qtbot.addWidget(teaching)
    assert isinstance(teaching, TeachingWindow) and teaching.isVisible()
    teaching.close()


def _no_programmer_notation(text: str) -> None:
    """Plain numbers and words: no Python lists, no exponent notation, no set-builder events."""
    import re

    assert "[" not in text and "∈ {" not in text and not re.search(r"\de[+-]\d", text), text
    assert "ε_lcb" not in text, text


def test_neighbour_experiment_shows_the_auditors_witness_for_a_broken_variant(qtbot):
    page = NeighbourPage()
    qtbot.addWidget(page)
    page.choice.setCurrentIndex(page.choice.findData("lecture_sparse_2011"))
    c = page.comparison
    assert c.witness and "the auditor searched for two lists of answers" in page.answers.text()
    assert c.epsilon_lcb > toy.EPSILON and "Promise broken" in page.verdict.text()
    for text in (page.answers.text(), page.verdict.text()):
        _no_programmer_notation(text)


def test_neighbour_experiment_never_says_a_private_output_reveals_little(qtbot):
    page = NeighbourPage()
    qtbot.addWidget(page)
    page.choice.setCurrentIndex(page.choice.findData("above_threshold"))
    text = page.verdict.text()
    assert "this experiment did not detect a leak" in text.lower() and "reveals little" not in text
    assert not page.comparison.witness and "Ines" in page.answers.text()
    _no_programmer_notation(page.answers.text() + text)


def test_gallery_credits_each_variant_to_its_own_source(qtbot):
    page = GalleryPage(**FAST_AUDIT)
    qtbot.addWidget(page)
    texts = {mid: " ".join(_labels(card)) for mid, card in page.cards.items()}
    assert "Roth" in texts["lecture_sparse_2011"] and "Lyu" in texts["lecture_sparse_2011"]
    assert "Lee" in texts["lyu_alg4_lee_clifton"] and "Stoddard" in texts["lyu_alg5_stoddard"]
    assert "Chen" in texts["lyu_alg6_chen"]


def test_gallery_cancel_stops_a_long_audit_and_tests_the_runs_so_far(qtbot):
    planned = 20_000_000  # far more final runs than the test waits for
    page = GalleryPage(seed=3, search_runs=5000, final_runs=planned)
    qtbot.addWidget(page)
    card = page.cards["lyu_alg6_chen"]
    card.button.click()
    assert card.cancel.isEnabled()
    qtbot.waitUntil(lambda: card.bar.value() > 0, timeout=60_000)
    card.cancel.click()
    qtbot.waitUntil(lambda: not page.busy, timeout=60_000)
    assert card.result is not None and card.result.runs + card.result.runs_d2 < 2 * planned
    assert not card.cancel.isEnabled() and card.button.isEnabled()
    _no_programmer_notation(card.status.text().replace("10<sup>", ""))


def test_gallery_cancel_unqueues_a_waiting_variant(qtbot):
    page = GalleryPage(**FAST_AUDIT)
    qtbot.addWidget(page)
    page.enqueue(["lyu_alg5_stoddard", "lyu_alg6_chen"])
    waiting = page.cards["lyu_alg6_chen"]
    waiting.cancel.click()
    assert "lyu_alg6_chen" not in page.queue and "Cancelled" in waiting.status.text()
    page.stop()
