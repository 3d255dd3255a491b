"""Loading a dataset off the GUI thread, with progress and Cancel (a task of :mod:`svtgui.app.tasks`).

``load_dataset`` runs as a task; its state is the loader's progress object (the data layer sees it
as a :class:`svtgui.core.progress.ProgressState`), so Cancel is the task's cancel, which the loader
honours at its next read. A :class:`Background` hands progress and the outcome to the GUI thread.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, Signal

from svtgui.app.dataset_identity import fingerprint_of
from svtgui.app.tasks import TaskCancelled, TaskState
from svtgui.data import Dataset, LoadCancelled, LoadOptions
from svtgui.data.engines import open_dataset
from svtgui.data.errors import load_failure_text
from svtgui.ledger import Ledger, LedgerError
from svtgui.ui.common.background import Background


def load_task(state: TaskState, path: Path, options: LoadOptions, engine: dict | None = None) -> Dataset:
    """The load as a task function: a cancelled load ends ``cancelled``, not ``failed``.

    ``engine`` holds :func:`svtgui.data.engines.open_dataset`'s engine options (none: automatic).
    A dataset kept by DuckDB or Spark also reads its row count and preview here, off the GUI thread;
    every dataset's fingerprint is computed (or read from the ledger's per-file cache) here too.
    """
    try:
        ds = open_dataset(path, options=options, progress=state, **(engine or {}))
        if ds.engine != "memory":
            ds.n_rows, ds.preview()  # noqa: B018 - cached on the dataset for the Dataset page
        _fingerprint(ds, state)
        return ds
    except LoadCancelled as exc:
        raise TaskCancelled(str(exc)) from exc


def _fingerprint(ds: Dataset, state: TaskState) -> None:
    """Compute the rows' private fingerprint here, with progress and Cancel, so the window's budget
    look-up (which keys by it) finds it cached instead of reading 10^8 rows on the GUI thread."""
    try:
        with Ledger.open() as ledger:
            fingerprint_of(ledger, ds, state)  # from the ledger's per-file cache when the file is unchanged
    except (LedgerError, OSError):
        return  # the window reports an unusable ledger itself


class DatasetLoader(QObject):
    """One load at a time; results come back as signals on the GUI thread."""

    progress = Signal(float)
    loaded = Signal(object)  # Dataset
    failed = Signal(str)
    cancelled = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._job = Background("load", self, interval_ms=50, yield_to_gui=False)
        self.path: Path | None = None

    @property
    def busy(self) -> bool:
        return self._job.busy

    def load(self, path: str | Path, options: LoadOptions | None = None, engine: dict | None = None) -> None:
        """Start loading ``path`` (a load still running is cancelled and its outcome dropped);
        ``engine``: the engine options of :func:`svtgui.data.engines.open_dataset` (default automatic)."""
        self.path = Path(path)
        self._job.start(load_task, self.loaded.emit, self._failed, self.path, options or LoadOptions(),
                        engine,
                        progress=lambda fraction, _text: self.progress.emit(fraction or 0.0),
                        cancelled=self.cancelled.emit)

    def cancel(self) -> None:
        """Ask the running load to stop; ``cancelled`` follows once it has."""
        if self._job.task is not None:
            self._job.task.cancel()

    def _failed(self, exc: BaseException) -> None:
        self.failed.emit(load_failure_text(exc, self.path))
