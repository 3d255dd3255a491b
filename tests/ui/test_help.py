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


def _image_widths(browser) -> list[float]:
    """The width at which the help browser lays out each picture of the guide."""
    widths, block = [], browser.document().begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fmt = it.fragment().charFormat()
            if fmt.isImageFormat():
                widths.append(fmt.toImageFormat().width())
            it += 1
        block = block.next()
    return widths


def test_the_guides_pictures_fit_the_help_window(qtbot, window):
    help_window = window.show_help()
    qtbot.waitExposed(help_window)
    browser = help_window.browser
    widths = _image_widths(browser)
    assert len(widths) >= 10 and all(0 < w <= browser.viewport().width() for w in widths)  # 1,280-px shots
    assert browser.horizontalScrollBar().maximum() == 0  # nothing to scroll sideways for


def test_contents_search_back_and_escape(qtbot, window, monkeypatch):
    """The guide's table of contents goes to a section; search finds a word (and says when it is not
    there); Back returns to where the reader was; Escape closes the window (issue 24 §4)."""
    help_window = window.show_help()
    qtbot.waitExposed(help_window)
    bar = help_window.browser.verticalScrollBar()
    titles = []

    def walk(item):
        titles.append(item.text(0))
        for i in range(item.childCount()):
            walk(item.child(i))

    for i in range(help_window.contents.topLevelItemCount()):
        walk(help_window.contents.topLevelItem(i))
    assert titles == help_window.headings() and "Recipes" in titles
    start = bar.value()
    recipes = next(it for it in help_window.contents.findItems("Recipes", Qt.MatchFlag.MatchExactly |
                                                                Qt.MatchFlag.MatchRecursive))
    help_window.contents.itemClicked.emit(recipes, 0)
    at_recipes = bar.value()
    assert at_recipes > start
    cursor = help_window.browser.cursorForPosition(help_window.browser.viewport().rect().topLeft())
    assert cursor.block().text() == "Recipes"
    assert help_window.back.isEnabled()
    qtbot.mouseClick(help_window.back, Qt.MouseButton.LeftButton)
    assert bar.value() == start

    help_window.search.setText("noisy threshold")
    qtbot.keyClick(help_window.search, Qt.Key.Key_Return)
    assert help_window.browser.textCursor().selectedText().lower() == "noisy threshold"
    assert "Found" in help_window.found.text()
    help_window.search.setText("zebra-unicorn")
    qtbot.keyClick(help_window.search, Qt.Key.Key_Return)
    assert "is not in the guide" in help_window.found.text()

    qtbot.keyClick(help_window.browser, Qt.Key.Key_Escape)
    assert not help_window.isVisible()


def test_screenshots_are_smaller_than_the_text(qtbot, window):
    from svtgui.ui.tools.help_window import PICTURE_SHARE

    help_window = window.show_help()
    qtbot.waitExposed(help_window)
    browser = help_window.browser
    widths = _image_widths(browser)
    assert widths and max(widths) <= browser.viewport().width() * PICTURE_SHARE
