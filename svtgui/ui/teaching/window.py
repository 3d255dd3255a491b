"""The teaching-mode window: one tab per page."""

from __future__ import annotations

from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import QMainWindow, QTabWidget, QWidget

from svtgui.ui.common.screen import fit_to_screen
from svtgui.ui.common.theme import named
from svtgui.ui.teaching.catalogue import pages


class TeachingWindow(QMainWindow):
    """All teaching pages as tabs (walk-through first). Opened from the start page."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("SVT Studio — Teaching mode (toy data)")
        self.tabs = named(QTabWidget(), "Teaching pages")
        self.pages: dict[str, QWidget] = {}
        for name, factory in pages().items():
            page = factory()
            self.pages[name] = page
            self.tabs.addTab(page, getattr(page, "title", name))
        self.setCentralWidget(self.tabs)
        fit_to_screen(self, 1100, 760)

    def show_page(self, name: str) -> None:
        self.tabs.setCurrentWidget(self.pages[name])

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 - Qt override
        gallery = self.pages.get("gallery")
        if gallery is not None:
            gallery.stop()
        super().closeEvent(event)
