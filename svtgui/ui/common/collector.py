"""The cyclic garbage collector, run on the GUI thread only.

Why: CPython collects reference cycles in whichever thread is allocating when a generation fills
up. When that is a worker (a dataset load, a fingerprint), the collection can free Qt objects the
GUI thread made and no longer uses (a closed window's actions, kept alive by a cycle). Qt then
destroys them on the worker while the GUI thread destroys their parent: each waits for a lock the
other holds. Seen as a hang, and once as a crash, in ``tests/ui/test_session_gui.py``, where a
window closes while the next one's load runs; a curator closing a dialog during a load could meet
it too. So once the window exists, automatic collection is off and a timer on the GUI thread
collects instead, whenever a generation is as full as CPython's own thresholds allow.
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QCoreApplication, QObject, QTimer

INTERVAL_MS = 250
"""How often the GUI thread looks at the collector's counts (a look costs about a microsecond)."""


class GuiThreadCollector(QObject):
    """Turns automatic collection off and collects on the GUI thread's timer instead."""

    def __init__(self, parent: QObject) -> None:
        super().__init__(parent)
        gc.disable()
        self._timer = QTimer(self)
        self._timer.setInterval(INTERVAL_MS)
        self._timer.timeout.connect(self.collect_if_due)
        self._timer.start()

    @staticmethod
    def collect_if_due() -> int | None:
        """Collect the oldest generation whose count passed its threshold, as CPython would have;
        the generation collected, or None when none is due."""
        counts, thresholds = gc.get_count(), gc.get_threshold()
        if counts[0] <= thresholds[0]:
            return None
        generation = 2 if counts[2] > thresholds[2] else 1 if counts[1] > thresholds[1] else 0
        gc.collect(generation)
        return generation


def install() -> GuiThreadCollector | None:
    """Collect on the GUI thread from now on (once per application; None without one)."""
    app = QCoreApplication.instance()
    if app is None:
        return None
    found = app.findChild(GuiThreadCollector)
    return found if found is not None else GuiThreadCollector(app)
