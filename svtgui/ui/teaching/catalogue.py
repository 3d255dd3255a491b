"""The teaching pages, in the order the teaching window shows them, and the size a page is shown at."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QWidget

from svtgui.ui.teaching.cheap import CheapPage
from svtgui.ui.teaching.gallery import GalleryPage
from svtgui.ui.teaching.glossary import GlossaryPage
from svtgui.ui.teaching.neighbour import NeighbourPage
from svtgui.ui.teaching.walkthrough import WalkthroughPage

PAGE_SIZE = (1100, 760)


def pages() -> dict[str, Callable[[], QWidget]]:
    """Page name → factory, in the order the window shows them."""
    return {"walkthrough": WalkthroughPage, "cheap": CheapPage, "neighbour": NeighbourPage,
            "gallery": GalleryPage, "glossary": GlossaryPage}
