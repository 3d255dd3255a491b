"""Help → User guide: the bundled guide, offline, at the section for the page in view (F1)."""

from __future__ import annotations

from PySide6.QtCore import Qt

from svtgui.assets import guide
from svtgui.ui.tools.help_window import SECTIONS


def test_every_page_has_a_section_in_the_guide(qtbot, window):
    help_window = window.show_help()
    assert help_window is not None and help_window.isVisible()
    headings = help_window.headings()
    for page, title in SECTIONS.items():
        assert title in headings, f"the guide has no heading {title!r} for the {page} page"


def test_f1_opens_the_guide_at_the_current_page(qtbot, window, act):
    act.load(qtbot, window)
    window.show_page("run")
    assert window.act_guide.shortcut().toString() == "F1"
    assert window.act_about.shortcut().toString() == "Ctrl+F1"
    window.act_guide.trigger()
    browser = window._help.browser
    at_run = browser.verticalScrollBar().value()
    window.show_page("dataset")
    qtbot.keyClick(window, Qt.Key.Key_F1)
    at_dataset = browser.verticalScrollBar().value()
    assert at_run > at_dataset > 0  # "Panel: Run" comes after "Panel: Dataset" in the guide
    # the heading is at the top of the view: the first visible text is the section's title
    cursor = browser.cursorForPosition(browser.viewport().rect().topLeft())
    assert cursor.block().text() == SECTIONS["dataset"]


def test_the_guide_ships_with_its_screenshots():
    text = guide().read_text(encoding="utf-8")
    images = [line.split("](", 1)[1].split(")", 1)[0] for line in text.splitlines() if "![" in line]
    assert images, "the guide shows no screenshot"
    for image in images:
        assert (guide().parent / image).is_file(), image


def test_the_guides_pictures_fit_the_help_window(qtbot, window):
    help_window = window.show_help()
    qtbot.waitExposed(help_window)
    browser = help_window.browser
    widths, block = [], browser.document().begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fmt = it.fragment().charFormat()
            if fmt.isImageFormat():
                widths.append(fmt.toImageFormat().width())
            it += 1
        block = block.next()
    assert len(widths) >= 10 and all(0 < w <= browser.viewport().width() for w in widths)  # 1,280-px shots
    assert browser.horizontalScrollBar().maximum() == 0  # nothing to scroll sideways for
