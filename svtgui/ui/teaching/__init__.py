"""Teaching mode: SVT explained on toy data, for people who have never heard of differential privacy.

Everything here uses an invented toy dataset and says so on every page, which is why these pages
may show internals (noisy threshold, noisy and true answers) that a release never shows.

``pages()`` maps page names to factories (the GUI's ``--screenshot --page teaching-<name>``
uses them through :func:`screenshot_widget`); :class:`TeachingWindow` shows them all as tabs.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QWidget

PAGE_SIZE = (1100, 760)


def pages() -> dict[str, Callable[[], QWidget]]:
    """Page name → factory, in the order the window shows them."""
    from svtgui.ui.teaching.cheap import CheapPage
    from svtgui.ui.teaching.gallery import GalleryPage
    from svtgui.ui.teaching.glossary import GlossaryPage
    from svtgui.ui.teaching.neighbour import NeighbourPage
    from svtgui.ui.teaching.walkthrough import WalkthroughPage

    return {"walkthrough": WalkthroughPage, "cheap": CheapPage, "neighbour": NeighbourPage,
            "gallery": GalleryPage, "glossary": GlossaryPage}


def screenshot_widget(page: str) -> QWidget | None:
    """The widget to grab for ``--page teaching-<name>`` (``teaching`` alone: the whole window).

    The walk-through is advanced to its last question (``teaching-walkthrough-<n>``: to step n) and
    the gallery's audits are run to the end first, so the picture shows what a user sees after a
    minute with the page.
    """
    from svtgui.ui.teaching.walkthrough import WalkthroughPage
    from svtgui.ui.teaching.window import TeachingWindow

    name = page.removeprefix("teaching").lstrip("-") or None
    step = None
    if name is not None and name.startswith("walkthrough-") and name.split("-", 1)[1].isdigit():
        name, step = "walkthrough", int(name.split("-", 1)[1])
    if name is not None and name not in pages():
        return None
    if name is None:
        widget: QWidget = TeachingWindow()
    else:
        widget = pages()[name]()
        widget.resize(*PAGE_SIZE)
    prepare_for_screenshot(widget)
    if step is not None and isinstance(widget, WalkthroughPage):
        widget.show_step(step - 1)
    widget.show()
    return widget


def prepare_for_screenshot(widget: QWidget, timeout: float = 120.0) -> None:
    """Bring a page to a representative state (walk-through mid-run, gallery audits finished, the
    neighbour experiment on the lecture notes' variant: the auditor's witness of its leak)."""
    from svtgui.ui.teaching.gallery import GalleryPage
    from svtgui.ui.teaching.neighbour import NeighbourPage
    from svtgui.ui.teaching.walkthrough import WalkthroughPage

    if isinstance(widget, NeighbourPage):
        widget.choice.setCurrentIndex(widget.choice.findData("lecture_sparse_2011"))

    if isinstance(widget, WalkthroughPage):
        widget.show_step(len(widget.steps) - 2)
    if isinstance(widget, GalleryPage):
        widget.enqueue(list(widget.cards))
        deadline = time.monotonic() + timeout
        while widget.busy and time.monotonic() < deadline:
            QCoreApplication.processEvents()
            time.sleep(0.01)


def __getattr__(name: str):
    if name == "TeachingWindow":
        from svtgui.ui.teaching.window import TeachingWindow

        return TeachingWindow
    raise AttributeError(name)


__all__ = ["TeachingWindow", "pages", "screenshot_widget"]
