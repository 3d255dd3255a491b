"""Help → User guide: the bundled guide, offline, opened at the section for the page in view (F1).

The guide is ``docs/user-guide.md`` with its screenshots (shipped in the wheel and the bundle, see
:func:`svtgui.assets.guide`); Qt renders the Markdown itself, so nothing is fetched from a network.
Beside it: a table of contents (every heading; a click goes there), a search box (Enter finds the
next match, Shift+Enter the previous), Back (Alt+Left) to where the reader was before a jump, and
Escape closes the window. Screenshots are shown at most two thirds of the text's width: they
illustrate the text, they do not replace it.
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt, QUrl
from PySide6.QtGui import (
    QImageReader,
    QKeyEvent,
    QKeySequence,
    QResizeEvent,
    QShortcut,
    QTextBlock,
    QTextCursor,
    QTextDocument,
    QTextImageFormat,
)
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMainWindow,
    QPushButton,
    QSplitter,
    QTextBrowser,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from svtgui.assets import guide
from svtgui.ui.common.screen import fit_to_screen
from svtgui.ui.common.theme import focus_visible, named

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
PICTURE_SHARE = 2 / 3  # of the text's width: a screenshot never outgrows the text it illustrates


class HelpWindow(QMainWindow):
    """The user guide in a browser; :meth:`show_section` scrolls to a heading."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("SVT Studio — User guide")
        self.browser = focus_visible(named(QTextBrowser(), "User guide",
                                           "The bundled user guide (works offline)"))
        self.browser.setOpenExternalLinks(True)
        path = guide()
        self.browser.setSearchPaths([str(path.parent)])
        self.browser.setSource(QUrl.fromLocalFile(str(path)), QTextDocument.ResourceType.MarkdownResource)
        self._natural: dict[str, QSize] = {}  # each screenshot's own size, read once
        self._fitted_to = 0
        self._places: list[int] = []  # where the reader was before each jump (Back returns there)

        self.search = named(QLineEdit(), "Search the guide", "Find a word in the guide: Enter finds the next "
                            "match, Shift+Enter the previous")
        self.search.setPlaceholderText("Search the guide…")
        self.search.setClearButtonEnabled(True)
        self.search.returnPressed.connect(lambda: self.find(self.search.text()))
        QShortcut(QKeySequence("Shift+Return"), self.search, lambda: self.find(self.search.text(), back=True))
        self.found = named(QLabel(""), "Search result")
        self.back = named(QPushButton("← Back"), "Back",
                          "Back to where you were before the last jump (Alt+Left)")
        self.back.setShortcut(QKeySequence(QKeySequence.StandardKey.Back))
        self.back.clicked.connect(self.go_back)
        self.contents = focus_visible(named(QTreeWidget(), "Contents",
                                            "The guide's sections: click one to go there"))
        self.contents.setHeaderHidden(True)
        self.contents.itemActivated.connect(self._contents_clicked)
        self.contents.itemClicked.connect(self._contents_clicked)
        self._fill_contents()
        QShortcut(QKeySequence(QKeySequence.StandardKey.Find), self, self.search.setFocus)

        side = QWidget()
        column = QVBoxLayout(side)
        column.setContentsMargins(0, 0, 0, 0)
        top = QHBoxLayout()
        top.addWidget(self.back)
        top.addWidget(self.search, 1)
        column.addLayout(top)
        column.addWidget(self.found)
        column.addWidget(self.contents, 1)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(side)
        split.addWidget(self.browser)
        split.setStretchFactor(1, 1)
        split.setSizes([280, 820])
        self.setCentralWidget(split)
        self._update_back()
        fit_to_screen(self, 1100, 760)

    # -- navigation -----------------------------------------------------------------------------------
    def _fill_contents(self) -> None:
        """One item per heading, nested by level (## sections, ### subsections)."""
        parents: dict[int, QTreeWidgetItem] = {}
        for block in self._heading_blocks():
            level = block.blockFormat().headingLevel()
            parent = next((parents[lv] for lv in range(level - 1, 0, -1) if lv in parents), None)
            item = QTreeWidgetItem([block.text()])
            item.setData(0, Qt.ItemDataRole.UserRole, block.blockNumber())
            if parent is not None:
                parent.addChild(item)
            else:
                self.contents.addTopLevelItem(item)
            parents = {lv: it for lv, it in parents.items() if lv < level} | {level: item}
        self.contents.expandToDepth(0)

    def _heading_blocks(self) -> list[QTextBlock]:
        out, block = [], self.browser.document().begin()
        while block.isValid():
            if block.blockFormat().headingLevel() > 0:
                out.append(block)
            block = block.next()
        return out

    def _contents_clicked(self, item: QTreeWidgetItem) -> None:
        block = self.browser.document().findBlockByNumber(int(item.data(0, Qt.ItemDataRole.UserRole)))
        self._jump_to_block(block)

    def _jump_to_block(self, block: QTextBlock) -> None:
        """Put ``block`` at the top of the view, remembering where the reader was (Back)."""
        self.fit_images()  # a block's place depends on the pictures' heights above it
        self._remember()
        top = self.browser.document().documentLayout().blockBoundingRect(block).top()
        self.browser.verticalScrollBar().setValue(int(top))

    def _remember(self) -> None:
        self._places.append(self.browser.verticalScrollBar().value())
        self._update_back()

    def go_back(self) -> None:
        """Return to where the reader was before the last jump (section, search match or link)."""
        if self._places:
            self.browser.verticalScrollBar().setValue(self._places.pop())
        elif self.browser.isBackwardAvailable():
            self.browser.backward()
        self._update_back()

    def _update_back(self) -> None:
        self.back.setEnabled(bool(self._places) or self.browser.isBackwardAvailable())

    def find(self, text: str, *, back: bool = False) -> bool:
        """Select the next (or previous) match of ``text`` and scroll to it; wraps around once."""
        if not text.strip():
            self.found.setText("")
            return False
        flags = QTextDocument.FindFlag.FindBackward if back else QTextDocument.FindFlag(0)
        self._remember()
        if not self.browser.find(text, flags):
            cursor = self.browser.textCursor()  # wrap: start again from the other end
            cursor.movePosition(QTextCursor.MoveOperation.End if back else QTextCursor.MoveOperation.Start)
            self.browser.setTextCursor(cursor)
            if not self.browser.find(text, flags):
                self._places.pop()
                self._update_back()
                self.found.setText(f"“{text}” is not in the guide.")
                return False
        self.found.setText(f"Found “{text}”: Enter for the next match.")
        return True

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 - Qt override
        """Escape closes the guide, from wherever the focus is (the browser and the contents pass it on)."""
        if event.key() == Qt.Key.Key_Escape:
            self.close()
            return
        super().keyPressEvent(event)

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 - Qt override
        super().resizeEvent(event)
        self.fit_images()

    def fit_images(self) -> None:
        """Show each screenshot at most :data:`PICTURE_SHARE` of the text's width: at their own 1,280
        pixels they ran off the window and drowned the text. Never enlarged; aspect kept."""
        doc = self.browser.document()
        text_width = max(200, self.browser.viewport().width() - 2 * int(doc.documentMargin()) - 8)
        room = int(text_width * PICTURE_SHARE)
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
        return [block.text() for block in self._heading_blocks()]

    def show_section(self, page: str) -> bool:
        """Scroll so the section for ``page`` starts at the top; False if the guide has no such heading."""
        title = SECTIONS.get(page)
        for block in self._heading_blocks():
            if block.text() == title:
                self._jump_to_block(block)
                return True
        self.browser.verticalScrollBar().setValue(0)
        return False


def _indent(block, indent_width: float) -> int:
    """How far right of the page's margin ``block`` starts (its own margin, indent, list nesting)."""
    fmt = block.blockFormat()
    left = fmt.leftMargin() + fmt.indent() * indent_width
    if block.textList() is not None:
        left += block.textList().format().indent() * indent_width
    return int(left)
