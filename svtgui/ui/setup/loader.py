"""Loading a dataset off the GUI thread, with progress and Cancel.

``load_dataset`` runs on a plain Python thread. Progress and the result travel back through a
queue that a 50 ms QTimer drains on the GUI thread — no Qt signal is emitted from the loading
thread (PySide6 6.12 mis-counts references on ``emit``; see :mod:`svtgui.ui.run.run_controller`).
Cancel calls ``Progress.cancel()``, which the loader honours at its next read.
"""

from __future__ import annotations

import queue
import threading
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

from svtgui.data import DatasetError, LoadCancelled, LoadOptions, Progress, load_dataset


class DatasetLoader(QObject):
    """One load at a time; results come back as signals on the GUI thread."""

    progress = Signal(float)
    loaded = Signal(object)  # Dataset
    failed = Signal(str)
    cancelled = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._progress: Progress | None = None
        self._events: queue.SimpleQueue = queue.SimpleQueue()
        self._timer = QTimer(self, interval=50)
        self._timer.timeout.connect(self._poll)
        self.path: Path | None = None

    @property
    def busy(self) -> bool:
        return self._progress is not None

    def load(self, path: str | Path, options: LoadOptions | None = None) -> None:
        if self.busy:
            self.cancel()
        self.path = Path(path)
        events = self._events
        progress = Progress(callback=lambda f: events.put(("progress", progress, f)))
        self._progress = progress

        def work(p: Path = self.path) -> None:
            try:
                events.put(
                    ("loaded", progress, load_dataset(p, options=options or LoadOptions(), progress=progress))
                )
            except BaseException as exc:  # noqa: BLE001 - every failure is reported to the window
                events.put(("error", progress, exc))

        threading.Thread(target=work, name="svtgui-load", daemon=True).start()
        self._timer.start()

    def cancel(self) -> None:
        if self._progress is not None:
            self._progress.cancel()

    def _poll(self) -> None:
        while True:
            try:
                kind, progress, payload = self._events.get_nowait()
            except queue.Empty:
                return
            if progress is not self._progress:
                continue  # a superseded (cancelled) load finishing in the background
            if kind == "progress":
                self.progress.emit(payload)
                continue
            self._progress = None
            self._timer.stop()
            self._finish(kind, payload)

    def _finish(self, kind: str, payload: Any) -> None:
        if kind == "loaded":
            self.loaded.emit(payload)
        elif isinstance(payload, LoadCancelled):
            self.cancelled.emit()
        elif isinstance(payload, DatasetError | OSError | ValueError):
            self.failed.emit(str(payload))
        else:
            self.failed.emit(f"{self.path}: could not be loaded ({type(payload).__name__}: {payload})")
