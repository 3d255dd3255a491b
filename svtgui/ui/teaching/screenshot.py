"""``svtgui --screenshot --page teaching-<name>``: a teaching page (or the whole window) in the state a
user sees after a minute with it."""

from __future__ import annotations

import time

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QWidget

from svtgui.ui.teaching.catalogue import PAGE_SIZE, pages
from svtgui.ui.teaching.gallery import GalleryPage
from svtgui.ui.teaching.neighbour import NeighbourPage
from svtgui.ui.teaching.walkthrough import WalkthroughPage
from svtgui.ui.teaching.window import TeachingWindow


def screenshot_widget(page: str) -> QWidget | None:
    """The widget to grab for ``--page teaching-<name>`` (``teaching`` alone: the whole window).

    The walk-through is advanced to its last question (``teaching-walkthrough-<n>``: to step n) and
    the gallery's audits are run to the end first, so the picture shows what a user sees after a
    minute with the page.
    """
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
