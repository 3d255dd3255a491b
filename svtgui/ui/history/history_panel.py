"""View → History: every run of the current dataset, read back from the privacy ledger.

The ledger is the record of what was spent and released, across sessions and processes (the CLI
charges the same ledger), so this panel reads nothing from the window's own state: after a
session is reopened — or after a crash — its history is exactly what the ledger holds. The
ledger stores only released information, so the rows shown here are the released rows (⊥ rows
carry no value) and never a true answer or a noise value.

A run's rows are read on a worker thread (:mod:`svtgui.ui.common.background`, its own ledger
connection): a run of 200,000 responses takes a second or more to read, and the window stays
responsive meanwhile, with a busy bar next to the rows' title.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QBrush
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QDialog,
    QHBoxLayout,
    QHeaderView,
    QInputDialog,
    QLabel,
    QPushButton,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from svtgui.app import recipes
from svtgui.app.dataset_identity import relation_text
from svtgui.app.domains import recorded, warning
from svtgui.app.numbers import amount, exact
from svtgui.app.reports.content import (
    integrity_records,
    integrity_text,
    raise_records,
    raises_text,
    relation_changes,
    relation_changes_text,
    statistics,
)
from svtgui.app.reports.statistics import headline
from svtgui.app.tasks import TaskState
from svtgui.core import mechanisms
from svtgui.core.wording import count
from svtgui.ledger import RUNNING, Ledger, LedgerError, ResponseRecord, RunRecord
from svtgui.ui.common.background import Background, busy_bar
from svtgui.ui.common.theme import (
    ABOVE_COLOR,
    ABOVE_TEXT,
    BELOW_COLOR,
    BELOW_TEXT,
    WARNING_COLOR,
    focus_visible,
    named,
)
from svtgui.ui.history.relation_dialog import RelationDialog

Index = QModelIndex | QPersistentModelIndex
# Above this many responses a run lists only its ⊤ rows (loading millions of ⊥ rows would stall the
# window; the exported CSV has them all).
MAX_ROWS_SHOWN = 200_000
# History reads at most this many rows per run for its Statistics column (the first, and the tooltip's)
HEADLINE_ROWS = 20
STATUS_TEXT = {
    "running": "● running",
    "finished": "✓ finished",
    "halted": "■ halted at c",
    "stopped": "■ stopped",
    "interrupted": "⚠ interrupted",
}
STATUS_TIPS = {
    "running": "Still answering (in this window or another process); export when it has ended.",
    "finished": "Every planned query was answered.",
    "halted": "The cutoff c was reached: the run stopped itself.",
    "stopped": "Stopped by the curator.",
    "interrupted": "The process ended without closing the run (crash, kill, power loss) or an error "
    "ended it. Its budget stays spent; every response shown before is in the ledger.",
}


def mechanism_name(mechanism_id: str) -> str:
    """The name a curator knows (a recipe's too), never the ledger's internal id."""
    recipe = recipes.info(mechanism_id)
    if recipe is not None:
        return recipe.name
    try:
        return mechanisms.info(mechanism_id).name
    except ValueError:
        return mechanism_id


def _target(run: RunRecord) -> str:
    """What a recipe was run on (" · age"): two auto-clipped means differ by their column."""
    column = run.params.get("column") if recipes.info(run.mechanism_id) is not None else None
    return f" · {column}" if column else ""


def when(stamp: str | None) -> str:
    """Ledger time stamps (ISO, UTC) shortened to date and time for a table cell."""
    return stamp.replace("T", " ")[:19] if stamp else "—"


class RecordTable(QAbstractTableModel):
    """A read-only table over a list of ledger records; subclasses say what a cell shows."""

    COLUMNS: tuple[str, ...] = ()
    RIGHT: tuple[int, ...] = ()  # right-aligned (numeric) columns

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.items: list[Any] = []

    def set_items(self, items: list[Any]) -> None:
        self.beginResetModel()
        self.items = items
        self.endResetModel()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.items)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.COLUMNS)

    def cell(self, item: Any, col: int) -> str:
        raise NotImplementedError

    def decoration(self, item: Any, col: int, role: int) -> Any:
        """Colour and tooltip of a cell (None: the view's default)."""
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        item, col = self.items[index.row()], index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return self.cell(item, col)
        if role == Qt.ItemDataRole.TextAlignmentRole and col in self.RIGHT:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return self.decoration(item, col, role)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return self.COLUMNS[section]
        return None


class RunsModel(RecordTable):
    """One row per run of a dataset, oldest first (as the ledger numbers them)."""

    COLUMNS = (
        "Run",
        "Mechanism",
        "ε charged",
        "δ charged",
        "Status",
        "⊤ / answers",
        "Statistics",
        "Started (UTC)",
        "Ended (UTC)",
        "Noise",
    )
    RIGHT = (0, 2, 3, 5)
    STATUS = 4
    STATISTICS = 6
    NOISE = 9

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.counts: dict[int, tuple[int, int]] = {}
        self.statistics: dict[int, list[dict[str, Any]]] = {}
        self.from_data: dict[int, tuple[str, ...]] = {}  # run → domains read from the data it used

    @property
    def runs(self) -> list[RunRecord]:
        return self.items

    def set_runs(self, runs: list[RunRecord], counts: dict[int, tuple[int, int]],
                 statistics: dict[int, list[dict[str, Any]]] | None = None,
                 from_data: dict[int, tuple[str, ...]] | None = None) -> None:
        self.counts, self.statistics = counts, statistics or {}
        self.from_data = from_data or {}
        self.set_items(runs)

    def noise(self, run: RunRecord) -> str:
        """Noise and, for a run over domains read from the data, that it is NOT differentially private."""
        text = "secure" if run.secure else "seeded (NOT secure)"
        return f"{text} · NOT DP: domains read from the data" if self.from_data.get(run.id) else text

    def cell(self, run: RunRecord, col: int) -> str:
        n, tops = self.counts.get(run.id, (0, 0))
        return (
            str(run.id),
            mechanism_name(run.mechanism_id) + _target(run),
            amount(run.epsilon),
            amount(run.delta),
            STATUS_TEXT.get(run.status, run.status),
            f"{tops:,} ⊤ of {n:,}",
            headline(self.statistics.get(run.id, []), self._released_numbers(run)),
            when(run.started_at),
            when(run.ended_at),
            self.noise(run),
        )[col]

    def _released_numbers(self, run: RunRecord) -> int | None:
        """How many statistics the run has when only the first :data:`HEADLINE_ROWS` were read: one
        per ⊤ answer (PMW: per answer, and n̂), from the counts History reads anyway."""
        if len(self.statistics.get(run.id, [])) < HEADLINE_ROWS or recipes.info(run.mechanism_id):
            return None
        n, tops = self.counts.get(run.id, (0, 0))
        linear = mechanisms.info(run.mechanism_id).input == mechanisms.HISTOGRAM
        return n + 1 if linear else tops

    def decoration(self, run: RunRecord, col: int, role: int) -> Any:
        if col == self.NOISE and self.from_data.get(run.id):
            if role == Qt.ItemDataRole.ToolTipRole:
                return warning(self.from_data[run.id])
            return QBrush(WARNING_COLOR) if role == Qt.ItemDataRole.ForegroundRole else None
        if col == self.STATISTICS and role == Qt.ItemDataRole.ToolTipRole:  # every statistic, one a line
            return "\n".join(headline([st]) for st in self.statistics.get(run.id, [])[:20])
        if col != self.STATUS:
            return None
        if role == Qt.ItemDataRole.ToolTipRole:
            return STATUS_TIPS.get(run.status, "")
        if role == Qt.ItemDataRole.ForegroundRole and run.status == "interrupted":
            return QBrush(WARNING_COLOR)
        return None


class ReleasedModel(RecordTable):
    """A run's released rows as the ledger holds them: ⊤/⊥ with colour and symbol, ⊥ without value."""

    COLUMNS = ("#", "Query", "Answer", "Released value", "Recorded (UTC)")
    RIGHT = (0, 3)
    ANSWER = 2

    @property
    def rows(self) -> list[ResponseRecord]:
        return self.items

    def cell(self, r: ResponseRecord, col: int) -> str:
        if col == self.ANSWER:
            badge = ABOVE_TEXT if r.above else BELOW_TEXT
            return badge if r.answered_from_simulation is None else f"{badge} · {r.result}"
        value = "" if r.value is None else exact(r.value)  # ⊥ rows hold none; PMW's free ones do
        return (f"{r.index + 1:,}", r.description, "", value, when(r.time))[col]

    def decoration(self, r: ResponseRecord, col: int, role: int) -> Any:
        if col == self.ANSWER and role == Qt.ItemDataRole.ForegroundRole:
            return QBrush(ABOVE_COLOR if r.above else BELOW_COLOR)
        return None


def _table(model: QAbstractTableModel, name: str, tip: str, stretch: int) -> QTableView:
    view = focus_visible(named(QTableView(), name, tip))
    view.setModel(model)
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    view.setAlternatingRowColors(True)
    view.setWordWrap(False)
    rows = view.verticalHeader()
    rows.hide()
    rows.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
    rows.setDefaultSectionSize(view.fontMetrics().height() + 8)
    columns = view.horizontalHeader()
    columns.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    columns.setSectionResizeMode(stretch, QHeaderView.ResizeMode.Stretch)
    # Fitting a column to its contents asks the model about 1,000 rows by default: in Python that is
    # ~0.3 s on the GUI thread when a 200,000-row run is shown. 100 rows give the same widths here.
    columns.setResizeContentsPrecision(100)
    return view


class HistoryPanel(QDialog):
    """Non-modal window: budget of the dataset, its runs, and the released rows of the selected run."""

    export_requested = Signal(int)  # run id
    release_requested = Signal(list)  # the selected runs' ids: one release document over them
    script_requested = Signal(list)  # the selected runs' ids: the script that replays them

    def __init__(self, ledger: Callable[[], Ledger], parent: QWidget | None = None) -> None:
        """``ledger()`` returns the window's open ledger (opened lazily by the run model)."""
        super().__init__(parent)
        named(self, "History")
        self.setWindowTitle("History — SVT Studio")
        self.setWindowModality(Qt.WindowModality.NonModal)
        self.resize(1080, 680)
        self._ledger = ledger
        self.dataset_id: str | None = None  # the ledger's random public id (never a hash of the data)
        self.dataset_name = ""

        self.title = named(QLabel("No dataset"), "History dataset")
        font = self.title.font()
        font.setPointSizeF(font.pointSizeF() * 1.2)
        font.setBold(True)
        self.title.setFont(font)
        self.budget = named(QLabel(""), "History budget")
        self.budget.setWordWrap(True)
        self.budget.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.runs_model = RunsModel(self)
        self.runs_view = _table(
            self.runs_model,
            "Runs",
            "Every run charged against this dataset, from the privacy ledger (all processes, all sessions)",
            stretch=RunsModel.STATISTICS,
        )
        self.rows_model = ReleasedModel(self)
        self.rows_view = _table(
            self.rows_model,
            "Released rows",
            "What the selected run released, as the "
            "ledger recorded it. ⊥ rows carry no value; no true answer is ever stored.",
            stretch=1,  # query
        )
        self.rows_title = named(QLabel("Select a run to see what it released."), "Released rows title")
        self.only_above = named(
            QCheckBox("Only ⊤"), "Only ⊤ rows", "Show only the ⊤ rows of the selected run"
        )
        self.only_above.toggled.connect(self._show_rows)
        self.loading = busy_bar("Loading released rows", "Reading the run's rows from the ledger")
        self.rows_loader = Background("history", self)
        self._export_busy = ""
        self.export = named(QPushButton("Export release…"), "Export release of the selected run")
        self.export.clicked.connect(self._export_clicked)
        self.build_release = named(QPushButton("Build release…"), "Build release of the selected runs")
        self.build_release.clicked.connect(self._release_clicked)
        self.script = named(QPushButton("Reproducible script…"), "Reproducible script of the selected runs")
        self.script.clicked.connect(self._script_clicked)
        self.rename = named(QPushButton("Public name…"), "Public name of the dataset",
                            "The name release reports publish for this dataset (until one is chosen: its "
                            "random id, never the file's name)")
        self.rename.clicked.connect(self._rename_clicked)
        self.relation = named(QPushButton("Neighbouring relation…"), "Neighbouring relation of the dataset",
                              "Keep this dataset's budget under another neighbouring relation (logged, with "
                              "what it means for the runs already charged)")
        self.relation.clicked.connect(self._relation_clicked)
        self.reason = named(QLabel(""), "Export unavailable reason")
        self.reason.setWordWrap(True)
        self.refresh_button = named(QPushButton("Refresh"), "Refresh history", "Read the ledger again (F5)")
        self.refresh_button.setShortcut("F5")
        self.refresh_button.clicked.connect(self.refresh)
        close = named(QPushButton("Close"), "Close history", "Close this window (Esc)")
        close.clicked.connect(self.close)

        lower = QWidget()
        ll = QVBoxLayout(lower)
        ll.setContentsMargins(0, 0, 0, 0)
        head = QHBoxLayout()
        head.addWidget(self.rows_title, 1)
        head.addWidget(self.loading)
        head.addWidget(self.only_above)
        ll.addLayout(head)
        ll.addWidget(self.rows_view, 1)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.runs_view)
        split.addWidget(lower)
        split.setSizes([200, 440])
        buttons = QHBoxLayout()
        buttons.addWidget(self.reason, 1)
        buttons.addWidget(self.relation)
        buttons.addWidget(self.rename)
        buttons.addWidget(self.script)
        buttons.addWidget(self.build_release)
        buttons.addWidget(self.export)
        buttons.addWidget(self.refresh_button)
        buttons.addWidget(close)
        lay = QVBoxLayout(self)
        lay.addWidget(self.title)
        lay.addWidget(self.budget)
        lay.addWidget(split, 1)
        lay.addLayout(buttons)
        # several runs can be selected (Ctrl, Shift) for one release; the current one shows its rows
        self.runs_view.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.runs_view.selectionModel().currentRowChanged.connect(lambda *_: self._show_rows())
        self.runs_view.selectionModel().selectionChanged.connect(lambda *_: self._update_export())
        self._update_export()

    # -- content ------------------------------------------------------------------------------------
    def set_dataset(self, dataset_id: str | None, name: str = "") -> None:
        """Show the history of ledger dataset ``dataset_id`` (None: no dataset, or one new to the ledger)."""
        self.dataset_id, self.dataset_name = dataset_id, name
        self.refresh()

    def selected_run(self) -> RunRecord | None:
        row = self.runs_view.selectionModel().currentIndex().row()
        return self.runs_model.runs[row] if 0 <= row < len(self.runs_model.runs) else None

    def select_run(self, run_id: int) -> bool:
        for row, run in enumerate(self.runs_model.runs):
            if run.id == run_id:
                self.runs_view.selectRow(row)
                return True
        return False

    def refresh(self) -> None:
        """Read the dataset's runs and budget from the ledger again (keeps the selected run)."""
        keep = self.selected_run()
        self.rename.setEnabled(False)  # until the ledger says the dataset is there
        self.relation.setEnabled(False)
        if self.dataset_id is None:
            self.title.setText(f"History of “{self.dataset_name}”" if self.dataset_name else "No dataset")
            self.budget.setText("This dataset is not in the ledger yet: no run has been charged against it."
                                if self.dataset_name else "Open a dataset or a session to see its history.")
            self.runs_model.set_runs([], {})
            self._show_rows()
            return
        try:
            led = self._ledger()
            record = led.dataset(self.dataset_id)
            runs = led.runs(self.dataset_id)
            counts = {r.id: led.response_counts(r.id) for r in runs}
            # what each ended run released, with intervals (⊤ rows only: cheap even for long runs)
            table = {r.id: statistics(led, r.id, limit=HEADLINE_ROWS) for r in runs if r.status != RUNNING}
            from_data = {r.id: recorded(led.declarations(r.id)) for r in runs}
            b = led.budget(self.dataset_id) if record is not None else None
            accepted = integrity_records(led)
            raises = raise_records(led, self.dataset_id) if record is not None else []
            relations = relation_changes(led, self.dataset_id) if record is not None else []
        except (LedgerError, ValueError) as exc:
            self.budget.setText(f"The ledger cannot be read: {exc}")
            self.runs_model.set_runs([], {})
            self._show_rows()
            return
        self.title.setText(
            f"History of “{self.dataset_name or (record.name if record else '')}” "
            f"· ledger id {self.dataset_id}"
            + (f" · reports name it “{record.public_name}”"
               if record is not None and record.public_name != record.dataset_id else "")
            + (f" · {relation_text(record.neighbouring, record.public_n)} neighbours" if record else "")
        )
        self.rename.setEnabled(record is not None)
        self.relation.setEnabled(record is not None)
        if b is None:
            self.budget.setText("This dataset is not in the ledger yet: no run has been charged against it.")
        else:
            interrupted = sum(r.status == "interrupted" for r in runs)
            self.budget.setText(
                f"ε spent {amount(b.spent_epsilon)} of {amount(b.total_epsilon)} "
                f"(remaining ε = {amount(max(Fraction(0), b.remaining_epsilon))})"
                + (f"; δ spent {amount(b.spent_delta)} of {amount(b.total_delta)}" if b.total_delta else "")
                + f" · {count(len(runs), 'run')}"
                + (f", {interrupted} interrupted (their budget stays spent)" if interrupted else "")
                + ". Every run counts, whatever its status: budget is never refunded."
                + (f" {raises_text(raises)}" if raises else "")
                + (f" {relation_changes_text(relations)}" if relations else "")
                + (f" ⚠ {integrity_text(accepted)}" if accepted else "")
            )
        self.runs_model.set_runs(runs, counts, table, from_data)
        if runs:
            self.select_run(keep.id if keep is not None else runs[-1].id) or self.select_run(runs[-1].id)
        self._show_rows()

    @property
    def rows_loading(self) -> bool:
        return self.rows_loader.busy

    def _show_rows(self) -> None:
        """Start reading the selected run's rows (worker thread); :meth:`_rows_read` shows them."""
        run = self.selected_run()
        self.rows_model.set_items([])  # never the previous run's rows under the new run's title
        if run is None:
            self.rows_loader.cancel()
            self.loading.hide()
            self.rows_title.setText("Select a run to see what it released.")
            self._update_export()
            return
        n, tops = self.runs_model.counts.get(run.id, (0, 0))
        only = self.only_above.isChecked() or n > MAX_ROWS_SHOWN
        try:
            path = self._ledger().path
        except (LedgerError, ValueError) as exc:
            self._rows_failed(run, exc)
            return
        self.rows_title.setText(f"Run {run.id}: reading {tops if only else n:,} released rows from the "
                                "ledger …")
        self.loading.show()

        def read(_state: TaskState, run_id: int = run.id) -> list[ResponseRecord]:
            with Ledger.open(path) as led:
                return led.responses(run_id, only_above=only)

        self.rows_loader.start(read, lambda rows: self._rows_read(run, rows),
                               lambda exc: self._rows_failed(run, exc))
        self._update_export()

    def _rows_read(self, run: RunRecord, rows: list[ResponseRecord]) -> None:
        n, tops = self.runs_model.counts.get(run.id, (0, 0))
        too_many = n > MAX_ROWS_SHOWN and not self.only_above.isChecked()
        self.loading.hide()
        self.rows_title.setText(
            f"Run {run.id} · {mechanism_name(run.mechanism_id)} · "
            f"{STATUS_TEXT.get(run.status, run.status)} — released {count(n, 'row')}, {tops:,} ⊤"
            + (" (showing ⊤ only)" if self.only_above.isChecked() else "")
            + (" — showing the ⊤ rows only; export the CSV for all of them" if too_many else "")
        )
        self.rows_model.set_items(rows)

    def _rows_failed(self, run: RunRecord, exc: BaseException) -> None:
        self.loading.hide()
        self.rows_model.set_items([])
        self.rows_title.setText(f"Run {run.id}: the ledger cannot be read: {exc}")

    def set_export_busy(self, reason: str) -> None:
        """While the window writes a report, Export here waits (one export at a time)."""
        self._export_busy = reason
        self._update_export()

    def _update_export(self) -> None:
        run = self.selected_run()
        reason = (
            "No run selected: the dataset has no runs yet."
            if run is None
            else f"Run {run.id} is still running: export it when it has ended."
            if run.status == RUNNING
            else f"Export waits: {self._export_busy}."
            if self._export_busy
            else ""
        )
        self.export.setEnabled(not reason)
        self.reason.setText(reason)
        why_not = self._release_reason()
        self.build_release.setEnabled(not why_not)
        self.script.setEnabled(not why_not)
        self.script.setToolTip(why_not or "A Python script that replays the selected runs on a data file "
                               "with fresh secure noise (running it spends budget)")
        self.build_release.setToolTip(why_not or "One release document (HTML, PDF, JSON or CSV) over the "
                                      f"{count(len(self.selected_runs()), 'selected run')}: one statistics "
                                      "table, their total ε and δ, the declarations and the method of each")
        self.export.setToolTip(reason or "Write the selected run's release report (HTML, PDF, JSON or CSV)")

    def selected_runs(self) -> list[RunRecord]:
        """Every selected run, oldest first (what Build release… puts in one document)."""
        rows = sorted({i.row() for i in self.runs_view.selectionModel().selectedRows()})
        return [self.runs_model.runs[r] for r in rows if r < len(self.runs_model.runs)]

    def _release_reason(self) -> str:
        runs = self.selected_runs()
        running = [r for r in runs if r.status == RUNNING]
        return ("Select the runs to publish together (Ctrl+click or Shift+click)." if not runs
                else f"Run {running[0].id} is still running: a release is built from ended runs." if running
                else f"Build release waits: {self._export_busy}." if self._export_busy
                else "")

    def _release_clicked(self) -> None:
        if not self._release_reason():
            self.release_requested.emit([r.id for r in self.selected_runs()])

    def _script_clicked(self) -> None:
        if not self._release_reason():
            self.script_requested.emit([r.id for r in self.selected_runs()])

    def _rename_clicked(self) -> None:
        """Ask the curator for the public name reports use (logged in the ledger), then show it."""
        if self.dataset_id is None:
            return
        text, ok = QInputDialog.getText(self, "Public name", "The name release reports publish for this "
                                        "dataset (not the file's name, which can say what or whom it is "
                                        "about):")
        if not ok:
            return
        try:
            self._ledger().set_public_name(self.dataset_id, text)
        except (LedgerError, ValueError) as exc:
            self.reason.setText(str(exc))
            return
        self.refresh()

    def _relation_clicked(self) -> None:
        """The window's ``ledger set-relation``: choose, read the consequence, confirm; logged."""
        if self.dataset_id is None:
            return
        try:
            led = self._ledger()
            record = led.dataset(self.dataset_id)
            runs = len(led.runs(self.dataset_id))
        except (LedgerError, ValueError) as exc:
            self.reason.setText(str(exc))
            return
        if record is None:
            return
        dialog = RelationDialog(record, runs, self)
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return
        c = dialog.choice()
        try:
            led.set_relation(self.dataset_id, c.neighbouring, c.public_n, reason=c.reason)
        except (LedgerError, ValueError) as exc:
            self.reason.setText(str(exc))
            return
        self.refresh()

    def _export_clicked(self) -> None:
        run = self.selected_run()
        if run is not None and run.status != RUNNING:
            self.export_requested.emit(run.id)
