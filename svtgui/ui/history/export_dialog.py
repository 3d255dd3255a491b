"""File → Export release…: pick a file (its type chooses the format), write the report, say so.

The report is written off the GUI thread (:func:`export_job`, run by :mod:`svtgui.ui.common.background`,
in a child process): a run of hundreds of thousands of rows takes seconds to read and typeset, and
the window must stay responsive meanwhile.

Reports are written by :func:`svtgui.app.reports.export` from the ledger alone, which holds only
what was released, so nothing here can put a true answer or a noise value into a file. The outcome
is told in a non-modal :class:`Notice` (the curator keeps working while it is open) that names the
file and offers to open its folder.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QFileDialog, QGridLayout, QMessageBox, QSizePolicy, QSpacerItem, QWidget

from svtgui.app.reports import FORMATS
from svtgui.app.reports.process import export_in_child
from svtgui.app.reports.release import runs_label
from svtgui.app.tasks import TaskState
from svtgui.ledger import RUNNING, Ledger, LedgerError, RunRecord
from svtgui.ui.common.theme import named

# One filter per format; the selected filter supplies the suffix when the typed name has none.
REPORT_FILTERS = {
    ".html": "HTML report (*.html)",
    ".pdf": "PDF report (*.pdf)",
    ".json": "JSON, machine-readable (*.json)",
    ".csv": "CSV, released rows (*.csv)",
}
assert tuple(REPORT_FILTERS) == FORMATS, "one file-dialog filter per report format"


class Notice(QMessageBox):
    """A non-modal message box: success (with Open folder) or failure (with the reason)."""

    def __init__(
        self,
        parent: QWidget | None,
        title: str,
        text: str,
        *,
        ok: bool,
        folder: Path | None = None,
        detail: str = "",
    ) -> None:
        super().__init__(parent)
        named(self, title)
        self.setWindowTitle(title)
        self.setIcon(QMessageBox.Icon.Information if ok else QMessageBox.Icon.Warning)
        self.setText(text)
        if detail:
            self.setInformativeText(detail)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.setWindowModality(Qt.WindowModality.NonModal)
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.ok = ok
        self.folder = folder
        self.open_folder = None
        if folder is not None:
            self.open_folder = self.addButton("Open folder", QMessageBox.ButtonRole.ActionRole)
            self.open_folder.setToolTip(f"Show {folder} in the file manager")
            # Like every button of a message box it also closes the box (which then deletes itself).
            self.open_folder.clicked.connect(self._reveal)
        self.addButton(QMessageBox.StandardButton.Close)
        # QMessageBox sizes itself to its text and would wrap a long path mid-name; a spacer row
        # across the grid gives it a readable width.
        grid = self.layout()
        if isinstance(grid, QGridLayout):
            wide = QSpacerItem(560, 0, QSizePolicy.Policy.Minimum, QSizePolicy.Policy.Expanding)
            grid.addItem(wide, grid.rowCount(), 0, 1, grid.columnCount())

    def _reveal(self) -> None:
        if self.folder is not None:
            QDesktopServices.openUrl(QUrl.fromLocalFile(str(self.folder)))

    def show_now(self) -> Notice:
        """Show without blocking (``exec`` would make it modal)."""
        self.show()
        self.raise_()
        return self


def exportable_runs(ledger: Ledger, dataset_id: str) -> list[RunRecord]:
    """Runs of one dataset a report can be made from (every status but running), newest first."""
    return [r for r in reversed(ledger.runs(dataset_id)) if r.status != RUNNING]


def default_name(public_name: str, run_id: int | tuple[int, ...], suffix: str = ".html") -> str:
    """A file name from the dataset's public name: ``ds-1a2b…-run-3-release.html``, or for a release
    over several runs ``clinic-survey-runs-3-4-7-release.html``."""
    stem = re.sub(r"[^\w.-]+", "-", public_name).strip("-.") or "dataset"
    if isinstance(run_id, tuple):
        return f"{stem}-runs-{'-'.join(map(str, run_id))}-release{suffix}"
    return f"{stem}-run-{run_id}-release{suffix}"


def ask_report_path(parent: QWidget, suggestion: Path) -> Path | None:
    """The save dialog; the chosen filter adds its suffix when the typed name has none of ours."""
    filters = ";;".join(REPORT_FILTERS.values())
    chosen, selected = QFileDialog.getSaveFileName(
        parent, "Export release", str(suggestion), filters, REPORT_FILTERS.get(suggestion.suffix, "")
    )
    if not chosen:
        return None
    path = Path(chosen)
    if path.suffix.lower() not in FORMATS:
        suffix = next((s for s, f in REPORT_FILTERS.items() if f == selected), ".html")
        path = path.with_name(path.name + suffix)
    return path


def reason_text(exc: BaseException) -> str:
    """An exception as one line for the curator (OSError: 'Permission denied: /path')."""
    if isinstance(exc, OSError) and exc.strerror:
        return f"{exc.strerror}: {exc.filename}" if exc.filename else exc.strerror
    return str(exc)


def export_job(ledger_path: Path, run_id: int | tuple[int, ...], path: Path) -> Callable[[TaskState], Path]:
    """The export of ``run_id`` as a task for :class:`~svtgui.ui.common.background.Background`: its
    thread waits while a child process reads the ledger and writes the file
    (:func:`svtgui.app.reports.process.export_in_child`)."""
    return functools.partial(export_in_child, ledger_path=ledger_path, run_id=run_id, path=path)


def report_notice(parent: QWidget, run_id: int | tuple[int, ...], outcome: Path | BaseException,
                  not_private: str = "") -> Notice:
    """The (shown) notice saying how the export of ``run_id`` (a tuple: a release over several runs)
    went: the written file, or why not; ``not_private`` reminds, after an export, that the release it
    holds is NOT differentially private."""
    if isinstance(outcome, BaseException):
        expected = isinstance(outcome, OSError | ValueError | LedgerError)
        reason = reason_text(outcome) if expected else f"{type(outcome).__name__}: {outcome}"
        return Notice(
            parent,
            "Export failed",
            f"The release of {runs_label(run_id)} was not exported.",
            ok=False,
            detail=f"{reason}\n\nNothing was written; the ledger is unchanged.",
        ).show_now()
    written = outcome
    kind = written.suffix.lstrip(".").upper()
    return Notice(
        parent,
        "Release exported",
        f"The {kind} release report of {runs_label(run_id)} was written to:\n{written}",
        ok=True,
        folder=written.parent,
        detail="It holds only what was released (⊤/⊥, released values) and the public parameters — "
        "no true answer, no noise, no noisy threshold." + (f"\n\n{not_private}" if not_private else ""),
    ).show_now()
