"""Loading a dataset off the GUI thread, with progress and Cancel.

``load_dataset`` runs in a worker thread (superqt's ``create_worker``); its progress callback is
forwarded to the GUI thread through a queued Qt signal. Cancel calls ``Progress.cancel()``,
which the loader honours at its next read.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, Signal
from superqt.utils import create_worker

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
        self._worker = None
        self.path: Path | None = None

    @property
    def busy(self) -> bool:
        return self._worker is not None

    def load(self, path: str | Path, options: LoadOptions | None = None) -> None:
        if self.busy:
            self.cancel()
        self.path = Path(path)
        progress = Progress(callback=self.progress.emit)
        self._progress = progress

        def work():
            return load_dataset(self.path, options=options or LoadOptions(), progress=progress)

        worker = create_worker(work, _start_thread=False, _ignore_errors=True)
        worker.returned.connect(lambda ds, p=progress: self._done(p, ds))
        worker.errored.connect(lambda exc, p=progress: self._error(p, exc))
        self._worker = worker
        worker.start()

    def cancel(self) -> None:
        if self._progress is not None:
            self._progress.cancel()

    def _current(self, progress: Progress) -> bool:
        """Only the latest load reports (a cancelled one may still finish in the background)."""
        if progress is not self._progress:
            return False
        self._worker = None
        self._progress = None
        return True

    def _done(self, progress: Progress, ds) -> None:
        if self._current(progress):
            self.loaded.emit(ds)

    def _error(self, progress: Progress, exc: BaseException) -> None:
        if not self._current(progress):
            return
        if isinstance(exc, LoadCancelled):
            self.cancelled.emit()
        elif isinstance(exc, DatasetError | OSError | ValueError):
            self.failed.emit(str(exc))
        else:
            self.failed.emit(f"{self.path}: could not be loaded ({type(exc).__name__}: {exc})")
