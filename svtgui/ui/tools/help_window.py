"""Help → User guide: the bundled guide, offline, opened at the section for the page in view (F1).

The guide is ``docs/user-guide.md`` with its screenshots (shipped in the wheel and the bundle, see
:func:`svtgui.assets.guide`); Qt renders the Markdown itself, so nothing is fetched from a network.
"""

from __future__ import annotations

from PySide6.QtCore import QSize, QUrl
from PySide6.QtGui import QImageReader, QResizeEvent, QTextCursor, QTextDocument, QTextImageFormat
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
        self._natural: dict[str, QSize] = {}  # each screenshot's own size, read once
        self._fitted_to = 0
        fit_to_screen(self, 900, 760)

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 - Qt override
        super().resizeEvent(event)
        self.fit_images()

    def fit_images(self) -> None:
        """Show each screenshot at most as wide as the page: at their own 1,280 pixels they ran off a
        900-pixel window, read only by scrolling sideways. Never enlarged; aspect kept."""
        doc = self.browser.document()
        room = max(200, self.browser.viewport().width() - 2 * int(doc.documentMargin()) - 8)
        if room == self._fitted_to:
            return
        self._fitted_to = room
        images, block = [], doc.begin()
        while block.isValid():
            indent = _indent(block, doc.indentWidth())  # a picture in a list item starts further right
            it = block.begin()
            while not it.atEnd():
                fragment, fmt = it.fragment(), it.fragment().charFormat()
                if fmt.isImageFormat():
                    images.append((fragment.position(), fragment.length(), fmt.toImageFormat(), indent))
                it += 1
            block = block.next()
        for position, length, image, indent in images:
            natural = self._natural_size(image)
            if not natural.isValid():
                continue
            width = max(100, min(natural.width(), room - indent))
            image.setWidth(width)
            image.setHeight(natural.height() * width / natural.width())
            cursor = QTextCursor(doc)
            cursor.setPosition(position)
            cursor.setPosition(position + length, QTextCursor.MoveMode.KeepAnchor)
            cursor.setCharFormat(image)

    def _natural_size(self, image: QTextImageFormat) -> QSize:
        name = image.name()
        if name not in self._natural:
            self._natural[name] = QImageReader(str(guide().parent / name)).size()
        return self._natural[name]

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
        self.fit_images()  # the heading's place depends on the pictures' heights above it
        block = self.browser.document().begin()
        while block.isValid():
            if block.blockFormat().headingLevel() > 0 and block.text() == title:
                top = self.browser.document().documentLayout().blockBoundingRect(block).top()
                self.browser.verticalScrollBar().setValue(int(top))
                return True
            block = block.next()
        self.browser.verticalScrollBar().setValue(0)
        return False


def _indent(block, indent_width: float) -> int:
    """How far right of the page's margin ``block`` starts (its own margin, indent, list nesting)."""
    fmt = block.blockFormat()
    left = fmt.leftMargin() + fmt.indent() * indent_width
    if block.textList() is not None:
        left += block.textList().format().indent() * indent_width
    return int(left)
