"""File → Open/Save session, File → Export release and View → History, wired into the main window.

Kept apart from :mod:`svtgui.ui.main_window` so the window stays a switchboard: this object owns
the actions, the session's own dataset loader and the History window, and works through the
models — the workspace (what a session file saves and restores) and the run model (the ledger,
the dataset's id, the current run) — and the window's public interface for what only a window
does: panels, ``add_action``, ``adopt_dataset`` (the same hand-over an ordinary open takes) and
``refresh_recent``. It does not import the window.

Restoring a session follows the privacy rules of the rest of the app: the dataset is loaded off
the GUI thread, the ledger must know its rows as the saved dataset id (a changed file is refused
with a warning, and nothing in the window changes), and the history shown afterwards is read from the
ledger — a session file holds no budget figures, so editing one cannot change what was spent.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QThread
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QFileDialog, QMainWindow, QMenu, QPushButton
from shiboken6 import Shiboken

from svtgui.app.domains import recorded_in, reminder
from svtgui.app.outputs import OutputConflict
from svtgui.app.project_file import SUFFIX, Session, SessionError, load, save
from svtgui.app.replay import export_script
from svtgui.app.reports.release import runs_label
from svtgui.app.runs.model import STATE, RunModel
from svtgui.app.runs.state import RunState
from svtgui.core.wording import count
from svtgui.ledger import RUNNING, LedgerError
from svtgui.ui.common.background import Background, busy_bar
from svtgui.ui.common.theme import named
from svtgui.ui.history.export_dialog import (
    Notice,
    ask_report_path,
    default_name,
    export_job,
    exportable_runs,
    reason_text,
    report_notice,
)
from svtgui.ui.history.history_panel import HistoryPanel
from svtgui.ui.setup.loader import DatasetLoader

SESSION_FILTER = f"SVT Studio sessions (*{SUFFIX});;All files (*)"


def window_title(session: str | None, dataset: str) -> str:
    """"adult — SVT Studio"; a session named unlike its dataset leads: "ages-2026 — adult — SVT Studio"."""
    if session and session != dataset:
        return f"{session} — {dataset} — SVT Studio"
    return f"{dataset} — SVT Studio"


class SessionActions(QObject):
    """The session, release and history actions of one :class:`MainWindow`."""

    def __init__(self, win: QMainWindow) -> None:
        """``win`` is the main window (any window with the public interface named above)."""
        super().__init__(win)
        self.win = win
        self.runs: RunModel = win.run_model
        self.session_path: Path | None = None  # the session last saved or opened (Save writes here)
        self.notice: Notice | None = None  # the last message shown (tests read it)
        self.history: HistoryPanel | None = None
        self._opening: tuple[Session, Path] | None = None
        self.exporter = Background("export", self)  # reports are written off the GUI thread
        # (run id, or the run ids of a release over several, and the file) while an export is written
        self.exporting: tuple[int | tuple[int, ...], Path] | None = None
        self.busy = busy_bar("Export in progress", "A release report is being written")
        win.statusBar().addPermanentWidget(self.busy)
        self.cancel_export = named(QPushButton("Cancel export"), "Cancel export",
                                   "Stop writing the report; nothing is written (the file appears only "
                                   "when complete)")
        self.cancel_export.clicked.connect(self._cancel_export)
        self.cancel_export.hide()
        win.statusBar().addPermanentWidget(self.cancel_export)
        self.loader = DatasetLoader(self)  # the session's own, so a refused file never reaches the window
        self.loader.progress.connect(win.dataset_panel.set_progress)
        self.loader.loaded.connect(self._session_loaded)
        self.loader.failed.connect(self._session_failed)
        self.loader.cancelled.connect(self._session_cancelled)
        win.dataset_panel.cancel_requested.connect(self.loader.cancel)
        self.runs.subscribe(self._run_changed)
        win.loader.loaded.connect(self._dataset_opened)

    # -- actions ----------------------------------------------------------------------------------
    def add_file_actions(self, menu: QMenu) -> None:
        w = self.win
        menu.addSeparator()
        self.act_open_session = w.add_action(
            "Open se&ssion…",
            "Ctrl+Shift+O",
            "Reopen a saved session: dataset, schema, mechanism, queries",
            lambda: self.open_session(),
            menu,
        )
        self.act_save_session = w.add_action(
            "Sa&ve session",
            "Ctrl+S",
            "Save the set-up (no data, no secrets) to its session file",
            lambda: self.save_session(),
            menu,
        )
        self.act_save_session_as = w.add_action(
            "Save session &as…",
            "Ctrl+Shift+S",
            "Save the set-up to a new session file",
            lambda: self.save_session(ask=True),
            menu,
        )
        menu.addSeparator()
        self.act_export_release = w.add_action(
            "Export re&lease…",
            "Ctrl+Shift+E",
            "Write the release report of the current run (HTML, PDF, JSON or CSV)",
            lambda: self.export_release(),
            menu,
        )
        self.act_export_script = w.add_action(
            "Export reproducible &script…",
            "Ctrl+Alt+E",
            "Write a Python script that replays the current run on a data file with fresh secure noise "
            "(running it spends budget)",
            lambda: self.export_script(),
            menu,
        )
        self.update_actions()

    def add_view_actions(self, menu: QMenu) -> None:
        menu.addSeparator()
        self.act_history = self.win.add_action(
            "&History…",
            "Ctrl+H",
            "Every run of this dataset from the privacy ledger, with its released rows",
            self.show_history,
            menu,
        )

    def update_actions(self, *_: Any) -> None:
        """Enable what can be done now; a disabled action says why in its tooltip and status tip."""
        if not hasattr(self, "act_export_release"):
            return
        live = self.runs.state.live
        no_data = "open a dataset first" if self.win.ds is None else ""
        for act, reason in (
            (self.act_save_session, no_data),
            (self.act_save_session_as, no_data),
            (self.act_open_session, "a run is in progress" if live else ""),
            (self.act_export_release, self.export_unavailable() or self._export_busy()),
            (self.act_export_script, self.export_unavailable()),
        ):
            act.setEnabled(not reason)
            tip = act.statusTip().split(" — unavailable:")[0]
            act.setStatusTip(f"{tip} — unavailable: {reason}" if reason else tip)
            keys = act.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
            act.setToolTip(f"{act.statusTip()} ({keys})")

    def _dataset_opened(self, _ds: Any) -> None:
        self.update_actions()
        if self.history is not None:
            self.history.set_dataset(self._dataset_id(), self.win.ds.name)

    def _dataset_id(self) -> str | None:
        """The open dataset's public ledger id (None: no dataset, or rows new to the ledger)."""
        return self.runs.budget.dataset_id

    # -- export -------------------------------------------------------------------------------------
    def export_candidate(self) -> int | None:
        """The run File → Export release writes: the current run once ended, else the newest ended one."""
        c, ds = self.runs, self.win.ds
        if ds is None:
            return None
        dataset_id = self._dataset_id()
        if c.run is not None and not c.state.live and c.run.record.dataset_id == dataset_id:
            return c.run.id
        runs = exportable_runs(c.ledger, dataset_id) if dataset_id else []
        return runs[0].id if runs else None

    def export_unavailable(self) -> str:
        """Why there is nothing to export ('' when there is)."""
        if self.win.ds is None:
            return "open a dataset first"
        try:
            if self.export_candidate() is None:
                return "no finished, halted, stopped or interrupted run of this dataset yet: run one (F5)"
        except LedgerError as exc:
            return f"the ledger cannot be read: {exc}"
        return ""

    def _export_busy(self) -> str:
        return f"the release of {runs_label(self.exporting[0])} is being exported" if self.exporting else ""

    def _suggested_name(self, run_id: int | tuple[int, ...], suffix: str) -> str:
        """The save dialog's suggested file name, from the dataset's public name (the curator's choice,
        else its random id): a report is published under its file name, and the data file's name can
        say what or whom the data is about."""
        ledger = self.runs.ledger
        record = ledger.dataset(ledger.run(run_id[0] if isinstance(run_id, tuple) else run_id).dataset_id)
        return default_name(record.public_name if record else "dataset", run_id, suffix)

    def export_release(self, path: str | Path | None = None,
                       run_id: int | tuple[int, ...] | None = None) -> Notice | None:
        """Export ``run_id`` (default :meth:`export_candidate`; a tuple: one release over those runs, as
        History's Build release… asks) to ``path`` (default: ask).

        The report is written on a worker thread; the notice saying how it went replaces
        :attr:`notice` when it is done (``None`` is returned meanwhile). A refusal up front
        returns its notice at once.
        """
        win = self.win
        reason = self._export_busy() or ("" if run_id is not None else self.export_unavailable())
        if reason:
            self._fail("Nothing to export", f"Export release is unavailable: {reason}.", detail="")
            return self.notice
        run_id = run_id if run_id is not None else self.export_candidate()
        ledger = self.runs.ledger
        running = [r for r in (run_id if isinstance(run_id, tuple) else (run_id,))
                   if ledger.run(r).status == RUNNING]
        if running:
            self._fail(
                "Nothing to export", f"Run {running[0]} is still running: export it when it has ended.", ""
            )
            return self.notice
        if path is None:
            name = self._suggested_name(run_id, ".html")
            start = self.session_path.parent if self.session_path else Path.home()
            chosen = ask_report_path(
                self.history if self.history and self.history.isVisible() else win, start / name
            )
            if chosen is None:
                return None
            path = chosen
        try:
            win.input_files().guard(path)  # a report over the data, the ledger or the session destroys it
        except OutputConflict as exc:
            self._fail("Not exported", str(exc), detail="Nothing was written.")
            return self.notice
        self._start_export(run_id, Path(path))
        return None

    def _start_export(self, run_id: int | tuple[int, ...], path: Path) -> None:
        self.exporting = (run_id, path)
        self.busy.show()
        self.cancel_export.show()
        self.win.status_label.setText(f"Exporting the release of {runs_label(run_id)} to {path} … "
                                      "(the window stays usable meanwhile)")
        self.update_actions()
        if self.history is not None:
            self.history.set_export_busy(self._export_busy())

        def done(outcome: Path | BaseException) -> None:  # the written file, or why not
            self._exported(run_id, path, outcome)

        self.exporter.start(export_job(self.runs.ledger.path, run_id, path), done, done,
                            cancelled=lambda: self._export_cancelled(run_id, path))

    def _cancel_export(self) -> None:
        if self.exporter.task is not None:
            self.exporter.task.cancel()  # the report process is ended; its half-written temp file goes

    def _export_cancelled(self, run_id: int | tuple[int, ...], path: Path) -> None:
        self._export_ended()
        self.win.status_label.setText(f"Export of {runs_label(run_id)} cancelled: {path} was not written.")

    def _export_ended(self) -> None:
        self.exporting = None
        self.busy.hide()
        self.cancel_export.hide()
        self.update_actions()
        if self.history is not None:
            self.history.set_export_busy("")

    def _exported(self, run_id: int | tuple[int, ...], path: Path, outcome: Path | BaseException) -> None:
        self._export_ended()
        self.runs.refresh_budget()  # the gauge and the plan follow the ledger after every export
        parent = self.history if self.history is not None and self.history.isVisible() else self.win
        try:  # at export: a release over domains read from the data is NOT differentially private
            not_private = reminder(recorded_in(self.runs.ledger, run_id))
        except (LedgerError, ValueError):
            not_private = ""
        self._tell(report_notice(parent, run_id, outcome, not_private))
        self.win.status_label.setText(
            f"Release of {runs_label(run_id)} exported to {path}." if self.notice.ok
            else f"Export failed: the release of {runs_label(run_id)} was not exported.")

    def export_script(self, path: str | Path | None = None, run_ids: list[int] | None = None) -> Notice:
        """Write the replay script of ``run_ids`` (default: the run File → Export release writes) to
        ``path`` (default: ask). Quick (the plans are read from the ledger), so on the GUI thread."""
        reason = "" if run_ids else self.export_unavailable()
        if reason:
            self._fail("Nothing to export", f"Export reproducible script is unavailable: {reason}.", "")
            return self.notice
        runs = run_ids or [self.export_candidate()]
        parent = self.history if self.history is not None and self.history.isVisible() else self.win
        if path is None:
            name = self._suggested_name(runs[0] if len(runs) == 1 else tuple(runs), ".py")
            start = self.session_path.parent if self.session_path else Path.home()
            chosen, _ = QFileDialog.getSaveFileName(parent, "Export reproducible script", str(start / name),
                                                    "Python script (*.py)")
            if not chosen:
                return self.notice
            path = chosen if chosen.lower().endswith(".py") else chosen + ".py"
        try:
            self.win.input_files().guard(path)
            written = export_script(self.runs.ledger, runs, path)
        except (OSError, ValueError, LedgerError) as exc:
            self._fail("Not exported", reason_text(exc), detail="Nothing was written.")
            return self.notice
        which = runs_label(tuple(runs))
        self._tell(Notice(parent, "Script exported", f"The script that replays {which} was written to:\n"
                          f"{written}", ok=True, folder=written.parent,
                          detail="Running it SPENDS PRIVACY BUDGET: it charges the ledger it is pointed "
                                 "at, with fresh secure noise. It holds no released value, seed or time.")
                   .show_now())
        self.win.status_label.setText(f"Reproducible script of {which} written to {written}.")
        return self.notice

    # -- history ------------------------------------------------------------------------------------
    def show_history(self) -> HistoryPanel:
        if self.history is None:
            self.history = HistoryPanel(lambda: self.runs.ledger, self.win)
            self.history.export_requested.connect(lambda run_id: self.export_release(run_id=run_id))
            self.history.release_requested.connect(lambda runs: self.export_release(run_id=tuple(runs)))
            self.history.script_requested.connect(lambda runs: self.export_script(run_ids=list(runs)))
        self.runs.refresh_budget()  # the ledger as it is now: other processes may have charged meanwhile
        ds = self.win.ds
        self.history.set_dataset(self._dataset_id(), ds.name if ds else "")
        self.history.show()
        self.history.raise_()
        self.history.activateWindow()
        return self.history

    def _run_changed(self, what: frozenset[str]) -> None:
        if STATE in what:
            self.update_actions()
            self._refresh_history(self.runs.state)

    def _refresh_history(self, state: RunState) -> None:
        if self.history is not None and self.history.isVisible() and state != RunState.PAUSED:
            if self.win.ds is not None:  # a first run registers the dataset: it has an id from now on
                self.history.set_dataset(self._dataset_id(), self.win.ds.name)
            else:
                self.history.refresh()

    # -- saving ---------------------------------------------------------------------------------------
    def save_session(self, path: str | Path | None = None, ask: bool = False) -> Path | None:
        """Save the set-up to ``path`` (default: the current session file, else ask)."""
        win = self.win
        if win.ds is None or not win.ds.path:
            self._fail("Session not saved", "Open a dataset from a file first: a session refers to the file.")
            return None
        if path is None and (ask or self.session_path is None):
            start = self.session_path or Path(win.ds.path).with_suffix(SUFFIX)
            chosen, _ = QFileDialog.getSaveFileName(win, "Save session", str(start), SESSION_FILTER)
            if not chosen:
                return None
            path = chosen
        try:
            # the universe and release file are saved even while another parameter is invalid
            session, unsaved = Session.from_workspace(win.workspace)
            saved = save(session, path or self.session_path, win.input_files(session=False))
        except (SessionError, OSError) as exc:
            self._fail("Session not saved", f"The session could not be saved: {reason_text(exc)}")
            return None
        self.session_path = saved
        self._remember(saved)
        win.status_label.setText(
            f"Session saved to {saved}."
            + (f" Not saved (invalid now): {', '.join(unsaved)}." if unsaved else "")
        )
        return saved

    # -- opening --------------------------------------------------------------------------------------
    def open_session(self, path: str | Path | None = None) -> bool:
        """Start reopening a session; False (with a warning, nothing changed) when refused up front."""
        win = self.win
        if path is None:
            chosen, _ = QFileDialog.getOpenFileName(win, "Open session", "", SESSION_FILTER)
            if not chosen:
                return False
            path = chosen
        path = Path(path)
        if self.runs.state.live:
            return self._fail("Session not opened", "A run is in progress: stop it before opening a session.")
        try:
            session = load(path)
            data = session.dataset_location(path)  # refused when the session names no data file
        except SessionError as exc:
            return self._fail("Session not opened", str(exc))
        if session.mechanism_id not in win.mechanism.picker.items:
            return self._fail(
                "Session not opened",
                f"{path}: mechanism {session.mechanism_id!r} is not offered "
                "in this window (replay it with svtgui-cli run --session).",
            )
        if not data.exists():
            return self._fail(
                "Session not opened",
                f"{path}: its dataset {session.dataset_path} does not exist, "
                f"and there is no {data.name} next to the session file.",
            )
        self._opening = (session, path)
        win.show_page("dataset")
        win.dataset_panel.show_loading(str(data))
        win.status_label.setText(f"Opening session {path.name}: loading {data} …")
        self.loader.load(data)
        return True

    def _session_loaded(self, ds: Any) -> None:
        session, path = self._opening
        self._opening = None
        try:
            ds = session.adopt(ds, self.runs.ledger)  # the rows are checked through the ledger
            queries = session.query_objects()
        except (SessionError, LedgerError) as exc:
            self.win.dataset_panel.hide_progress()
            self._fail("Session not restored", str(exc))
            return
        win = self.win
        # the window's own hand-over: panels, schema editor, queue (with its provenance)
        win.adopt_dataset(ds, queries, from_data=session.domains_from_data)
        session.apply_to(win.workspace)  # the mechanism and its parameters; the form follows
        win.mechanism.flush()
        self.session_path = path
        self._remember(path)
        runs = len(self.runs.ledger.runs(ds.dataset_id)) if ds.dataset_id else 0
        win.setWindowTitle(window_title(path.stem, ds.name))
        win.status_label.setText(
            f"Session {path.name} restored: {ds.name}, {win.mechanism.info.name}, "
            f"{count(len(queries), 'query')}. "
            f"History: {count(runs, 'run')} in the ledger (View → History, Ctrl+H)."
        )
        self._dataset_opened(ds)  # actions and an open History window follow the restored dataset

    def _session_failed(self, message: str) -> None:
        self._opening = None
        self.win.dataset_panel.hide_progress()
        self._fail("Session not restored", message)

    def _session_cancelled(self) -> None:
        self._opening = None
        self.win.dataset_panel.hide_progress()
        self.win.status_label.setText("Opening the session was cancelled; nothing changed.")

    # -- helpers --------------------------------------------------------------------------------------
    def _remember(self, path: Path) -> None:
        self.win.settings.add_recent_file(path)
        self.win.refresh_recent()

    def _fail(self, title: str, message: str, detail: str = "Nothing in the window was changed.") -> bool:
        """A non-modal warning plus a status line; the window's state is left as it was."""
        self._tell(Notice(self.win, title, message, ok=False, detail=detail).show_now())
        self.win.status_label.setText(f"{title}: {message}")
        return False

    def _tell(self, notice: Notice) -> None:
        """Keep one message on screen: a new one replaces the previous (if the user left it open)."""
        old, self.notice = self.notice, notice
        if old is not None and old is not notice and Shiboken.isValid(old):
            old.close()

    def screenshot_widget(self, page: str, out_dir: Path) -> Any:
        """``svtgui --screenshot --page history|export|release|release-document`` after a run: the
        History window; the notice of a real PDF export of the run into ``out_dir``; History with the run
        and an auto-clipped mean selected for one release; that release as its document is typeset."""
        if page in ("release", "release-document"):
            from svtgui.app import recipes

            dataset_id = self._dataset_id()
            column = next((c.name for c in self.win.ds.schema.columns if c.name == "age"), None)
            if dataset_id is None or column is None:
                raise RuntimeError("the release pictures need a run on the census sample first")
            recipes.auto_mean(self.win.ds, column, 1.0).run(self.runs.ledger)
            self.runs.refresh_budget()
        if page == "release-document":
            from PySide6.QtWidgets import QTextBrowser

            from svtgui.app.reports.release import release_data, release_html

            ledger = self.runs.ledger
            ids = [r.id for r in ledger.runs(self._dataset_id())]
            view = QTextBrowser()
            view.setWindowTitle("Release document")
            view.setHtml(release_html(release_data(ledger, ids)))
            return view
        if page in ("history", "release"):
            panel = self.show_history()
            if page == "release":
                panel.runs_view.selectAll()
            _finish(panel.rows_loader)  # a screenshot shows the rows, not the busy bar
            return panel
        run_id = self.export_candidate()
        self.export_release(out_dir / default_name(self.win.ds.name, run_id or 0, ".pdf"))
        _finish(self.exporter)  # ... and the finished notice
        return self.notice


def _finish(job: Background) -> None:
    """Wait for a background job and hand over its outcome (screenshots only: blocks the GUI thread)."""
    while job.busy:
        job.poll()
        QThread.msleep(10)
