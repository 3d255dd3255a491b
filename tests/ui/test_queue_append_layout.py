"""An append to the queue repaints the queue and its summary line, and lays out nothing (issue 23 §4).

A word-wrapped summary label asked for the layout of the page, and of the window around it, on
every append: most of the ~8 ms an append to 200,000 queries held the GUI thread
(``bench/queue_edit.py``). Counted here as layout requests, not timed."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QApplication

from svtgui.data.queries import RangeCount


class LayoutRequests(QObject):
    """Counts the layout requests any widget of the application receives."""

    def __init__(self) -> None:
        super().__init__()
        self.count = 0

    def eventFilter(self, _obj: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        if event.type() == QEvent.Type.LayoutRequest:
            self.count += 1
        return False


def test_appending_a_query_lays_out_nothing_and_the_summary_says_it(qtbot, window, act):
    act.load(qtbot, window)
    window.show_page("queries")
    page = window.queries
    before = len(page.queries)

    def append(k: int) -> None:
        page.add([RangeCount("age", 17 + k % 60, 80)])
        QApplication.processEvents()

    requests = LayoutRequests()
    QApplication.instance().installEventFilter(requests)

    def settled() -> bool:
        """Showing the page lays it out over a few turns of the event loop: until one lays out nothing."""
        requests.count = 0
        QApplication.processEvents()
        return requests.count == 0

    try:
        qtbot.waitUntil(settled)
        for k in range(5):
            append(k)
    finally:
        QApplication.instance().removeEventFilter(requests)
    assert requests.count == 0
    assert page.summary.text().startswith(f"{before + 5:,} queries")
    assert page.summary.toolTip() == page.summary.text()  # shown whole where the line is too narrow
