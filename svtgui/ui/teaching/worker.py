"""Runs the auditor off the GUI thread (the teaching pages must never freeze)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QThread, Signal

from svtgui.core.audit import audit


class AuditThread(QThread):
    """One :func:`svtgui.core.audit.audit` call in a worker thread.

    Signals are delivered to the GUI thread (queued connections); widgets are touched only there.
    ``cancel()`` asks the audit to stop searching early.
    """

    progress = Signal(str, float)
    done = Signal(object)  # AuditResult
    failed = Signal(str)

    def __init__(self, mechanism_id: str, epsilon: float, parent=None, **kwargs: Any) -> None:
        super().__init__(parent)
        self.mechanism_id = mechanism_id
        self.epsilon = epsilon
        self.kwargs = kwargs
        self._cancelled = False

    def cancel(self) -> None:
        self._cancelled = True

    def run(self) -> None:  # noqa: D401 - QThread entry point
        try:
            result = audit(self.mechanism_id, self.epsilon, progress=lambda m, f: self.progress.emit(m, f),
                           should_stop=lambda: self._cancelled, **self.kwargs)
        except Exception as exc:  # report any failure in the card instead of losing it in a thread
            self.failed.emit(f"{type(exc).__name__}: {exc}")
            return
        self.done.emit(result)
