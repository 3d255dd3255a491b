"""The main window: start page, then five steps as tabs — Dataset, Schema, Mechanism, Queries, Run.

The window wires the panels together and owns the actions (menus, toolbar, shortcuts). Work is
done elsewhere: loading in :class:`DatasetLoader`, runs in the Qt-free :class:`RunModel` (shown on the
Run page by its :class:`RunPresenter`), the set-up in the :class:`Workspace`.
"""

from __future__ import annotations

import importlib
import logging
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QCloseEvent, QDragEnterEvent, QDropEvent, QKeySequence
from PySide6.QtWidgets import (
    QFileDialog,
    QLabel,
    QMainWindow,
    QMessageBox,
    QStackedWidget,
    QTabWidget,
    QWidget,
)

from svtgui import __version__
from svtgui.app import ledger_choice
from svtgui.app.dataset_identity import recall_declared, remember_declared
from svtgui.app.outputs import Inputs
from svtgui.app.runs.model import RUNNABLE, STATE, STATUS, RunModel
from svtgui.app.runs.state import RunState
from svtgui.app.work_in_progress import WorkInProgress
from svtgui.app.workspace import Workspace
from svtgui.assets import asset
from svtgui.core.wording import count
from svtgui.data.engines import scratch
from svtgui.ledger import LedgerError
from svtgui.ui.common import collector
from svtgui.ui.common.screen import fit_to_screen
from svtgui.ui.common.settings import Settings
from svtgui.ui.common.theme import named
from svtgui.ui.run.run_page import ICONS, RunPage
from svtgui.ui.run.run_presenter import RunPresenter
from svtgui.ui.session_actions import SessionActions
from svtgui.ui.setup.dataset_panel import DatasetPanel
from svtgui.ui.setup.generator_dialog import GeneratorDialog
from svtgui.ui.setup.linear_panel import LinearRunNote
from svtgui.ui.setup.loader import DatasetLoader
from svtgui.ui.setup.mechanism_panel import MechanismPanel
from svtgui.ui.setup.query_queue import QueriesPage
from svtgui.ui.setup.recipes_dialog import RecipesDialog
from svtgui.ui.setup.schema_editor import SchemaEditor
from svtgui.ui.setup.spark_open import EngineActions
from svtgui.ui.setup.start_page import SAMPLES, StartPage
from svtgui.ui.tools.help_window import HelpWindow
from svtgui.ui.tools.linear_answer import ReleaseAnswerDialog
from svtgui.ui.tools.preferences import PreferencesDialog

log = logging.getLogger("svtgui.ui")
PAGES = ("dataset", "schema", "mechanism", "queries", "run")
TAB_TITLES = ("1 · Dataset", "2 · Schema", "3 · Mechanism", "4 · Queries", "5 · Run")
DATA_FILTER = "Datasets (*.csv *.tsv *.txt *.parquet *.xlsx *.xls *.jsonl *.ndjson *.dat);;All files (*)"
# Public, dataset-independent starting points for the bundled samples (the curator changes them).
SAMPLE_PARAMS = {
    "census": {"threshold": 21000.0, "cutoff": 5, "epsilon": 1.0},
    "baskets": {"threshold": 500.0, "cutoff": 10, "epsilon": 1.0},
}


def sample_path(name: str) -> Path:
    """The bundled sample ``name`` (census → samples/census.csv, baskets → samples/baskets.dat)."""
    for suffix in (".csv", ".dat"):
        try:
            return asset(f"samples/{name}{suffix}")
        except FileNotFoundError:
            continue
    raise FileNotFoundError(f"no bundled sample {name!r}; samples: {', '.join(SAMPLES)}")


class MainWindow(QMainWindow):
    """SVT Studio's curator window."""

    def __init__(self, settings: Settings | None = None) -> None:
        super().__init__()
        collector.install()  # cycles of Qt objects are freed on this thread, never on a worker's
        scratch.remove_stale()  # private copies of rows left by a killed process: gone at start-up
        self.settings = settings or Settings()
        # Preferences → Ledger, unless $SVTGUI_LEDGER was given for this session
        ledger_choice.apply_saved(self.settings.ledger_location)
        self.setWindowTitle("SVT Studio")
        named(self, "SVT Studio main window")
        self.setAcceptDrops(True)
        # The set-up (dataset, queries, mechanism, parameters, totals): the panels bind to it.
        self.workspace = Workspace()
        self.work = WorkInProgress()  # each dataset's queue and parameters, kept between openings
        self._pending_queries: Any = None  # a sample's QueryList, queued once its rows are open
        self._pending_entries: dict[str, Any] = {}  # a sample's starting parameters, set after its load
        self._remember = False
        self._teaching: QWidget | None = None

        self.start = StartPage()
        self.dataset_panel = DatasetPanel()
        self.schema_editor = SchemaEditor()
        self.mechanism = MechanismPanel(self.settings, self.workspace)
        self.queries = QueriesPage(self.workspace)
        # The run of the open dataset (ledger, budget, state, released rows): the Run page presents it.
        self.run_model = RunModel(self.workspace)
        self.store = self.run_model.store
        self.run_page = RunPage(self.store, self.run_model.describe)
        self.run_presenter = RunPresenter(self.run_page, self.run_model, self)
        self.run_page.set_pace_rate(self.settings.pace)  # remembered across sessions
        self.run_page.pace.currentIndexChanged.connect(self._remember_pace)
        self.linear_note = LinearRunNote()  # PMW's n̂ / SparseProject's release file, after a run
        self.run_page.layout().insertWidget(2, self.linear_note)
        self.tabs = named(QTabWidget(), "Workflow steps")
        for w, title in zip(
            (self.dataset_panel, self.schema_editor, self.mechanism, self.queries, self.run_page),
            TAB_TITLES,
            strict=True,
        ):
            self.tabs.addTab(w, title)
        self.stack = QStackedWidget()
        self.stack.addWidget(self.start)
        self.stack.addWidget(self.tabs)
        self.setCentralWidget(self.stack)
        self.status_label = named(QLabel("No dataset."), "Status")
        self.statusBar().addWidget(self.status_label, 1)

        self.loader = DatasetLoader(self)
        self.loader.progress.connect(self.dataset_panel.set_progress)
        self.loader.loaded.connect(self._loaded)
        self.loader.failed.connect(self._load_failed)
        self.loader.cancelled.connect(self._load_cancelled)
        self.dataset_panel.cancel_requested.connect(self.loader.cancel)
        self.schema_editor.schema_changed.connect(self._schema_changed)
        self.queries.generate_requested.connect(self.generate_queries)
        self.queries.import_requested.connect(self.import_queries)
        self.queries.export_requested.connect(self.export_queries)
        self.start.open_file.connect(self.open_file)
        self.start.open_sample.connect(self.open_sample)
        self.start.open_recent.connect(self.open_path)
        self.start.open_teaching.connect(self.open_teaching)

        self.sessions = SessionActions(self)  # Open/Save session, Export release, History
        self.workspace.input_files = self.input_files  # no output of the window replaces one of them
        self._make_actions()
        self.refresh_recent()
        self._help: HelpWindow | None = None
        fit_to_screen(self, 1280, 820)
        if self.settings.geometry is not None:
            self.restoreGeometry(self.settings.geometry)
        if self.settings.window_state is not None:
            self.restoreState(self.settings.window_state)

    # -- actions --------------------------------------------------------------------------------------
    def add_action(
        self,
        text: str,
        shortcut: str | QKeySequence.StandardKey,
        tip: str,
        slot,
        menu=None,
        toolbar=None,
        checkable: bool = False,
    ) -> QAction:
        a = QAction(text, self)
        a.setShortcut(QKeySequence(shortcut))
        keys = QKeySequence(shortcut).toString(QKeySequence.SequenceFormat.NativeText)
        a.setToolTip(f"{tip} ({keys})")
        a.setStatusTip(tip)
        a.setCheckable(checkable)
        a.triggered.connect(slot)
        self.addAction(a)
        if menu is not None:
            menu.addAction(a)
        if toolbar is not None:
            toolbar.addAction(a)
            toolbar.widgetForAction(a).setAccessibleName(text.replace("&", "").rstrip("…"))
        return a

    def _make_actions(self) -> None:
        mb = self.menuBar()
        tb = self.addToolBar("Main")
        tb.setObjectName("main_toolbar")
        tb.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)  # only run controls have icons
        f = mb.addMenu("&File")
        self.act_open = self.add_action("&Open dataset…", "Ctrl+O", "Open a dataset file", self.open_file,
                                        f, tb)
        self.samples_menu = f.addMenu("Open &sample")
        for i, (key, (name, _)) in enumerate(SAMPLES.items(), start=1):
            self.add_action(
                name,
                f"Ctrl+Shift+{i}",
                f"Open the bundled sample {name}",
                lambda _=False, k=key: self.open_sample(k),
                self.samples_menu,
            )
        self.recent_menu = f.addMenu("Open &recent")
        self.engines = EngineActions(self, f)  # File → Open on Spark…, the Dataset page's engine switch
        f.addSeparator()
        self.act_import = self.add_action(
            "&Import queries…", "Ctrl+I", "Import queries from JSON", self.import_queries, f
        )
        self.act_export = self.add_action(
            "&Export queries…", "Ctrl+E", "Export the queue as JSON", self.export_queries, f
        )
        self.sessions.add_file_actions(f)
        f.addSeparator()
        self.act_start = self.add_action(
            "Start &page",
            "Ctrl+Home",
            "Back to the start page",
            lambda: self.stack.setCurrentWidget(self.start),
            f,
        )
        self.act_quit = self.add_action("&Quit", "Ctrl+Q", "Quit SVT Studio", self.close, f)
        q = mb.addMenu("&Queries")
        self.act_generate = self.add_action(
            "&Generate queries…", "Ctrl+G", "Generate a list of queries", self.generate_queries, q, tb
        )
        self.act_recipes = self.add_action(
            "&Recipes…", "Ctrl+Shift+R", "The seeds' recipes: auto-clipped mean, range screening, frequent "
            "items (each says what it will spend before it spends)", self.open_recipes, q
        )
        r = mb.addMenu("&Run")
        tb.addSeparator()
        c = self.run_model
        self.act_run = self.add_action(
            "&Run…", "F5", "Check the spend, then start answering", self._run_clicked, r, tb
        )
        self.act_pause = self.add_action(
            "&Pause / resume", "F6", "Pause or resume the stream", c.toggle_pause, r, tb
        )
        self.act_step = self.add_action("&Step", "F10", "Answer exactly one more query", c.step, r, tb)
        self.act_stop = self.add_action(
            "S&top", "Shift+F5", "End the run now; the budget stays spent", c.stop, r, tb
        )
        for action, icon in ((self.act_run, "run"), (self.act_pause, "pause"), (self.act_step, "step"),
                             (self.act_stop, "stop")):
            action.setIcon(self.style().standardIcon(ICONS[icon]))
        v = mb.addMenu("&View")
        for i, (page, title) in enumerate(zip(PAGES, TAB_TITLES, strict=True), start=1):
            self.add_action(
                title, f"Ctrl+{i}", f"Show the {page} step", lambda _=False, p=page: self.show_page(p), v
            )
        v.addSeparator()
        self.act_only_above = self.add_action(
            "Only ⊤ answers", "Ctrl+Shift+T", "Show only the ⊤ answers", self.run_page.only_above.toggle, v
        )
        self.sessions.add_view_actions(v)
        t = mb.addMenu("T&ools")
        self.act_answer_release = self.add_action(
            "&Answer from a release file…",
            "Ctrl+Shift+A",
            "Answer count queries from a SparseProject release file (no dataset needed)",
            lambda: self.answer_from_release(),
            t,
        )
        self.act_preferences = self.add_action(
            "&Preferences…", "Ctrl+,", "Where the ledger is: this computer, or a team's server",
            lambda: self.show_preferences(), t,
        )
        h = mb.addMenu("&Help")
        tb.addSeparator()
        self.act_teaching = self.add_action(
            "&Teaching mode…", "Ctrl+T", "Watch SVT work step by step on toy data", self.open_teaching, h, tb
        )
        self.act_guide = self.add_action(
            "&User guide", "F1", "The user guide, offline, at the section for the page in view",
            self.show_help, h,
        )
        self.act_about = self.add_action(
            "&About SVT Studio",
            "Ctrl+F1",
            "Version, licence and citations",
            self.show_about,
            h,
        )
        c.subscribe(self._run_changed)
        self._run_changed(frozenset((STATE, RUNNABLE)))

    def _run_changed(self, what: frozenset[str]) -> None:
        """The window's run actions, the set-up pages and the status bar follow the run model."""
        m = self.run_model
        if RUNNABLE in what:  # Run… (menu, toolbar, F5): enabled exactly when the page's button is
            enabled, tip = m.runnable()
            self.act_run.setEnabled(enabled)
            self.act_run.setToolTip(tip)
            self.act_run.setStatusTip(tip)
        if STATE in what:
            self._run_state(m.state)
        if STATUS in what and (m.state != RunState.IDLE or m.refused):
            self.status_label.setText(m.status)  # running, paused, how it ended, or why it did not start

    def _run_clicked(self) -> None:
        self.show_page("run")
        self.run_presenter.request_run()

    def _run_state(self, state: RunState) -> None:
        live = state.live
        self.act_pause.setEnabled(state.steppable)
        self.act_step.setEnabled(state.steppable)
        self.act_stop.setEnabled(live)
        self.act_open.setEnabled(not live)
        self.samples_menu.setEnabled(not live)
        self.recent_menu.setEnabled(not live)
        for w in (self.schema_editor, self.mechanism, self.queries, self.start):
            w.setEnabled(not live)
        self._linear_run_state(state)

    def _linear_run_state(self, state: RunState) -> None:
        """After a PMW or SparseProject run, say what else it released (PMW's n̂, the release file)."""
        m = self.run_model
        if state == RunState.RUNNING or m.run is None:
            self.linear_note.hide()
        elif state in (RunState.DRAINED, RunState.ENDED):
            self.linear_note.show_run(m.run.record.mechanism_id, m.run_facts())

    # -- pages ----------------------------------------------------------------------------------------
    def show_page(self, name: str) -> None:
        """Show ``start`` or one of PAGES (``main`` is the dataset step)."""
        if name == "start":
            self.stack.setCurrentWidget(self.start)
            return
        name = "dataset" if name == "main" else name
        if name not in PAGES:
            raise ValueError(f"unknown page {name!r}; pages: start, main, {', '.join(PAGES)}")
        self.stack.setCurrentWidget(self.tabs)
        self.tabs.setCurrentIndex(PAGES.index(name))

    # -- opening data ---------------------------------------------------------------------------------
    def open_file(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open dataset", self.settings.last_folder, DATA_FILTER)
        if path:
            self.open_path(path)

    def open_sample(self, name: str) -> None:
        try:
            path = sample_path(name)
        except FileNotFoundError as exc:
            self.dataset_panel.show_error(str(exc))
            return
        queries = path.with_name(f"{name}.queries.json")
        self._pending_queries = None
        if queries.exists():
            from svtgui.data.queries import read_queries

            self._pending_queries = read_queries(queries)
        self._pending_entries = SAMPLE_PARAMS.get(name, {})  # set once its rows are open (T is per dataset)
        self._load(path, remember=False)

    def open_path(self, path: str | Path) -> None:
        if Path(path).suffix == ".svtsession":  # recent list and drag-and-drop hold sessions too
            self.sessions.open_session(path)
            return
        self._pending_queries, self._pending_entries = None, {}
        self._load(Path(path), remember=True)

    def _load(self, path: Path | str, remember: bool, engine: dict | None = None) -> None:
        if self.run_model.state.live:
            self.dataset_panel.show_error("A run is in progress: stop it before opening another dataset.")
            return
        self._remember = remember
        self.show_page("dataset")
        self.dataset_panel.show_loading(str(path))
        self.status_label.setText(f"Loading {path} …")
        self.loader.load(path, engine=engine)

    @property
    def ds(self) -> Any:
        """The open dataset (the workspace's)."""
        return self.workspace.dataset

    def _loaded(self, ds) -> None:
        listed, self._pending_queries = self._pending_queries, None
        entries, self._pending_entries = self._pending_entries, {}
        if not self.adopt_dataset(ds, listed.queries if listed else None, remember=self._remember,
                                  from_data=listed.from_data if listed else (), resume=True):
            self.workspace.set_entries(entries)  # a sample's starting values, unless work was resumed

    def adopt_dataset(self, ds: Any, queries: list[Any] | None = None, remember: bool = False,
                      from_data: tuple[str, ...] = (), resume: bool = False) -> bool:
        """Show a loaded dataset everywhere (with its queue, and the domains read from the data it was
        built from) — an ordinary open and a restored session.

        The set-up of the dataset being left is kept first; with ``resume``, the set-up last left on
        these rows (queue, mechanism, parameters) comes back instead of ``queries``. True when it did.
        """
        self._keep_work()
        recalled = self._recall_declared(ds)
        if recalled is not None:
            ds = ds.with_schema(recalled)
        self.dataset_panel.show_dataset(ds)
        self.schema_editor.set_schema(ds.schema, ds.n_rows, dataset=ds)
        self.workspace.set_dataset(ds, queries or [], from_data)  # the panels follow its dataset event
        resumed = resume and self._resume_work()
        if remember and ds.path is not None:
            self.settings.add_recent_file(ds.path)
            self.refresh_recent()
        self.setWindowTitle(f"{ds.name} — SVT Studio")
        self.status_label.setText(
            f"{ds.name}: {count(ds.n_rows, 'row')}. Next: check the schema (Ctrl+2), "
            "choose a mechanism (Ctrl+3) and queries (Ctrl+4), then Run (F5)."
            + (" Declared bounds and levels restored as you last declared them for these rows."
               if recalled is not None else "")
            + (" Your queue, mechanism and parameters for these rows are back as you left them."
               if resumed else "")
        )
        self._run_state(self.run_model.state)
        return resumed

    def _keep_work(self) -> str | None:
        """Keep the open dataset's set-up for the next time its rows are opened; why not, or None."""
        try:
            return self.work.keep(self.workspace, self.run_model.ledger)
        except LedgerError as exc:
            return f"the queue and parameters could not be kept: {exc}"

    def _resume_work(self) -> bool:
        try:
            return self.work.restore(self.workspace, self.run_model.ledger)
        except LedgerError:
            return False

    def _recall_declared(self, ds: Any) -> Any | None:
        """The schema last declared for these rows (ledger), if the file brought none of its own."""
        try:
            return recall_declared(self.run_model.ledger, ds)
        except (LedgerError, OSError, ValueError) as exc:  # the window opens the data anyway
            log.warning("declared schema not recalled: %s", exc)
            return None

    def _load_failed(self, message: str) -> None:
        self.dataset_panel.show_error(message)
        self.status_label.setText("The file could not be opened; see the message on the Dataset page.")
        if self.loader.path is not None:
            self.settings.remove_recent_file(self.loader.path)
            self.refresh_recent()

    def _load_cancelled(self) -> None:
        self.dataset_panel.hide_progress()
        self.status_label.setText("Loading cancelled." + (f" Still open: {self.ds.name}." if self.ds else ""))

    def refresh_recent(self) -> None:
        files = self.settings.recent_files
        self.start.set_recent(files)
        self.recent_menu.clear()
        for i, f in enumerate(files):
            a = self.recent_menu.addAction(f"&{i + 1}  {Path(f).name}")
            a.setToolTip(f)
            a.triggered.connect(lambda _=False, p=f: self.open_path(p))
        self.recent_menu.setEnabled(bool(files))

    # -- schema and queries ---------------------------------------------------------------------------
    def _schema_changed(self, schema) -> None:
        if self.ds is None:
            return
        self.workspace.set_schema(schema)  # the queue, the mechanism page and the run follow
        try:  # remembered for these rows: opening them again brings the declarations back
            remember_declared(self.run_model.ledger, self.ds, schema)
        except (LedgerError, OSError, ValueError) as exc:
            log.warning("declared schema not remembered: %s", exc)

    def generate_queries(self) -> GeneratorDialog | None:
        if self.ds is None:
            self.status_label.setText("Open a dataset first: generators need its columns.")
            return None
        self.show_page("queries")
        dlg = GeneratorDialog(self.ds, self)
        dlg.accepted.connect(lambda: self.queries.add(dlg.result, dlg.from_data))
        dlg.open()
        return dlg

    def open_recipes(self) -> RecipesDialog | None:
        """Queries ▸ Recipes…: non-modal; the dialog charges the ledger through its own connection."""
        if self.ds is None:
            self.status_label.setText("Open a dataset first: recipes run on its rows.")
            return None
        budget = self.run_model.budget

        def remaining():
            left = budget.remaining() if budget.known else None
            return None if left is None else left[0]

        dlg = RecipesDialog(self.ds, budget.ledger.path, budget.dataset_id, remaining, self)
        dlg.ran.connect(lambda _run_id: self._recipe_ran())
        dlg.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dlg.show()
        return dlg

    def _remember_pace(self) -> None:
        self.settings.pace = self.run_model.pace

    def _recipe_ran(self) -> None:
        """A recipe spent budget: the run model re-reads it (gauge, plan), an open History follows."""
        self.run_model.refresh_budget()
        history = self.sessions.history
        if history is not None and history.isVisible():
            history.refresh()

    def import_queries(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, "Import queries", "", "Query lists (*.json);;All files (*)"
        )
        if path:
            self.show_page("queries")
            self.queries.import_json(path)

    def input_files(self, session: bool = True, ledger: bool = True) -> Inputs:
        """The files the window's set-up reads — the dataset and its schema sidecar, (with ``ledger``)
        the ledger and, with ``session``, the open session file — which no save dialog may write over
        (:mod:`svtgui.app.outputs`). Saving a session over itself is what Save does: ``session=False``;
        choosing the ledger in Preferences checks the others: ``ledger=False``."""
        return (Inputs().add_dataset(getattr(self.ds, "path", None))
                .add_ledger(self.run_model.budget.ledger_path if ledger else None)
                .add(self.sessions.session_path if session else None, "the open session file"))

    def export_queries(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Export queries", "queries.json", "Query lists (*.json)")
        if path:
            self.queries.export_json(path)

    # -- other windows --------------------------------------------------------------------------------
    def open_teaching(self) -> QWidget | None:
        """The teaching mode (toy data, internals shown) in its own window, if it is installed."""
        try:
            teaching = importlib.import_module("svtgui.ui.teaching.window")
        except ImportError:
            self.status_label.setText("The teaching mode is not available in this build.")
            return None
        if self._teaching is None:
            self._teaching = teaching.TeachingWindow()
        self._teaching.show()
        self._teaching.raise_()
        return self._teaching

    def show_preferences(self) -> PreferencesDialog:
        """Tools ▸ Preferences…: the ledger's place; OK reopens the window's ledger there."""
        current = str(self.run_model.budget.ledger_path)
        dlg = PreferencesDialog(self.settings, current, self._ledger_moved, self,
                                reads=self.input_files(ledger=False))  # none of them may become the ledger
        dlg.show()
        return dlg

    def _ledger_moved(self, location: str) -> None:
        self.run_model.budget.close()
        self.run_model.refresh_budget()
        self.status_label.setText(f"Ledger: {self.run_model.budget.ledger_path}.")

    def answer_from_release(self, path: str | None = None) -> ReleaseAnswerDialog:
        """Tools ▸ Answer from a release file: non-modal, needs no dataset, never touches the ledger."""
        dlg = ReleaseAnswerDialog(self, path)
        dlg.show()
        return dlg

    def current_page(self) -> str:
        """The page in view: ``start`` or one of PAGES."""
        if self.stack.currentWidget() is self.start:
            return "start"
        return PAGES[self.tabs.currentIndex()]

    def show_help(self) -> HelpWindow | None:
        """Help ▸ User guide (F1): the bundled guide at the section for the page in view."""
        if self._help is None:
            try:
                self._help = HelpWindow(self)
            except FileNotFoundError as exc:
                self.status_label.setText(f"The user guide is missing from this installation ({exc}).")
                return None
        self._help.show()  # laid out first: the scroll range exists only once the window is shown
        self._help.raise_()
        self._help.show_section(self.current_page())
        return self._help

    def show_about(self) -> None:
        try:
            from svtgui.ui.tools.about import AboutDialog
        except ImportError:
            self.status_label.setText(f"SVT Studio {__version__}")
            return
        dlg = AboutDialog(self)
        dlg.open()

    # -- drag and drop --------------------------------------------------------------------------------
    def dragEnterEvent(self, event: QDragEnterEvent) -> None:  # noqa: N802 - Qt override
        urls = event.mimeData().urls()
        if len(urls) == 1 and urls[0].isLocalFile() and not self.run_model.state.steppable:
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:  # noqa: N802 - Qt override
        path = Path(event.mimeData().urls()[0].toLocalFile())
        event.acceptProposedAction()
        if path.name.endswith(".queries.json") and self.ds is not None:
            self.show_page("queries")
            self.queries.import_json(path)
        else:
            self.open_path(path)

    # -- closing --------------------------------------------------------------------------------------
    def _quit_anyway(self, why: str) -> bool:
        """Asked when quitting would lose the queue (it could not be kept): quit anyway, or stay."""
        answer = QMessageBox.question(
            self, "Quit and lose the queue?", f"{why[0].upper()}{why[1:]}.\n\nQuit anyway? Export the "
            "queries (Ctrl+E) or save the session (Ctrl+S) first to keep them.",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No, QMessageBox.StandardButton.No)
        return answer == QMessageBox.StandardButton.Yes

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 - Qt override
        lost = self._keep_work() if self.workspace.queries else None
        if lost is not None and not self._quit_anyway(lost):
            event.ignore()
            return
        self.run_presenter.shutdown()
        self.loader.cancel()
        self.settings.geometry = self.saveGeometry()
        self.settings.window_state = self.saveState()
        self.settings.set_last_params(self.workspace.mechanism_id, self.workspace.remembered())
        self.settings.sync()
        if self._teaching is not None:
            self._teaching.close()
        super().closeEvent(event)
