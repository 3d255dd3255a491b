"""Help → User guide: the bundled guide, offline, opened at the section for the page in view (F1).

The guide is ``docs/user-guide.md`` with its screenshots (shipped in the wheel and the bundle, see
:func:`svtgui.assets.guide`); Qt renders the Markdown itself, so nothing is fetched from a network.
"""

from __future__ import annotations

from PySide6.QtCore import QUrl
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import QMainWindow, QTextBrowser, QWidget

from svtgui.assets import guide
from svtgui.ui.common.screen import fit_to_screen
from svtgui.ui.common.theme import named

# The guide's heading for each page of the window (the text of its "## …" line).
SECTIONS = {
    "start": "Window: start page",
    "dataset": "Panel: Dataset",
    "schema": "Panel: Schema",
    "mechanism": "Panel: Mechanism",
    "queries": "Panel: Queries",
    "run": "Panel: Run",
    "history": "Panel: History",
    "recipes": "Recipes",
}


class HelpWindow(QMainWindow):
    """The user guide in a browser; :meth:`show_section` scrolls to a heading."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("SVT Studio — User guide")
        self.browser = named(QTextBrowser(), "User guide", "The bundled user guide (works offline)")
        self.browser.setOpenExternalLinks(True)
        path = guide()
        self.browser.setSearchPaths([str(path.parent)])
        self.browser.setSource(QUrl.fromLocalFile(str(path)), QTextDocument.ResourceType.MarkdownResource)
        self.setCentralWidget(self.browser)
        fit_to_screen(self, 900, 760)

    def headings(self) -> list[str]:
        """Every heading of the guide as the browser shows it."""
        out, block = [], self.browser.document().begin()
        while block.isValid():
            if block.blockFormat().headingLevel() > 0:
                out.append(block.text())
            block = block.next()
        return out

    def show_section(self, page: str) -> bool:
        """Scroll so the section for ``page`` starts at the top; False if the guide has no such heading."""
        title = SECTIONS.get(page)
        block = self.browser.document().begin()
        while block.isValid():
            if block.blockFormat().headingLevel() > 0 and block.text() == title:
                top = self.browser.document().documentLayout().blockBoundingRect(block).top()
                self.browser.verticalScrollBar().setValue(int(top))
                return True
            block = block.next()
        self.browser.verticalScrollBar().setValue(0)
        return False
