"""The About dialog: version, licence, every mechanism's citation, bug-report details."""

from __future__ import annotations

import re
from pathlib import Path

from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QLabel, QPushButton, QTabWidget, QTextBrowser

from svtgui import __version__
from svtgui.core import mechanisms
from svtgui.ui.common.app_icon import ICON_SIZES, app_icon
from svtgui.ui.tools.about import AboutDialog

REPO = Path(__file__).resolve().parents[2]


def _tab_text(dialog: AboutDialog, title: str) -> str:
    tabs = dialog.findChild(QTabWidget)
    index = next(i for i in range(tabs.count()) if tabs.tabText(i) == title)
    browser = tabs.widget(index)
    assert isinstance(browser, QTextBrowser)
    return browser.toPlainText()


def test_shows_the_package_version(qtbot):
    dialog = AboutDialog()
    qtbot.addWidget(dialog)
    labels = " ".join(label.text() for label in dialog.findChildren(QLabel))
    assert re.search(rf"Version {re.escape(__version__)}\b", labels)


def test_lists_every_catalogue_mechanism_with_its_citation(qtbot):
    dialog = AboutDialog()
    qtbot.addWidget(dialog)
    text = _tab_text(dialog, "Mechanisms")
    entries = mechanisms.catalog()
    assert len(entries) >= 2
    for entry in entries:
        assert entry.citation in text, entry.id
        assert entry.name in text, entry.id


def test_flags_non_private_mechanisms_in_words(qtbot):
    dialog = AboutDialog()
    qtbot.addWidget(dialog)
    text = _tab_text(dialog, "Mechanisms")
    for entry in mechanisms.catalog():
        line = next(line for line in text.splitlines() if f"({entry.id})" in line)
        flagged = "NOT private" in line
        assert flagged == (entry.status != mechanisms.PRIVATE), entry.id


def test_licence_tab_shows_the_repository_licence(qtbot):
    dialog = AboutDialog()
    qtbot.addWidget(dialog)
    shipped = (REPO / "LICENSE").read_text(encoding="utf-8")
    assert shipped.startswith("MIT License")
    assert _tab_text(dialog, "Licence").strip() == shipped.strip()
    assert "MIT licence" in _tab_text(dialog, "About")


def test_copy_details_puts_version_on_clipboard(qtbot):
    dialog = AboutDialog()
    qtbot.addWidget(dialog)
    QGuiApplication.clipboard().clear()
    button = next(b for b in dialog.findChildren(QPushButton) if b.text() == "Copy details")
    button.click()
    copied = QGuiApplication.clipboard().text()
    assert f"SVT Studio {__version__}" in copied
    assert "Qt " in copied and "Python " in copied


def test_app_icon_has_every_rendered_size(qtbot):
    sizes = {(s.width(), s.height()) for s in app_icon().availableSizes()}
    assert sizes == {(n, n) for n in ICON_SIZES}


def test_the_bug_report_advice_speaks_to_the_curator(qtbot):
    dialog = AboutDialog()
    qtbot.addWidget(dialog)
    text = " ".join(b.toPlainText() for b in dialog.findChildren(QTextBrowser))
    assert "send your curator" not in text and "send the SVT Studio developers" in text
    assert "Never attach private data" in text
