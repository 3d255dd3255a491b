"""Step 4: the query queue — build, generate, reorder, import and export queries.

The page is a view of the workspace's one queue (:class:`~svtgui.app.query_queue.QueryQueue`, an
evented list): every edit — add, remove, move (drag and drop, Alt+Up / Alt+Down), clear, undo — is
made on that list, which a Qt list model wraps; the summary line — the number of queries, Δ,
whether all are integer-valued and monotonic — and the first query that does not fit are read from
the workspace's queue facts, kept as the queue is edited (an append checks the new queries alone).
The summary is one steady line (:class:`~svtgui.ui.common.steady_line.SteadyLine`): an append
repaints it without laying out the page again; the notes under it (mixed Δ, what Undo brings back)
change rarely.
The builder follows the workspace's dataset (its columns), as the summary does.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from PySide6.QtCore import (
    QAbstractListModel,
    QByteArray,
    QMimeData,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
    Signal,
)
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFileDialog,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from svtgui.app.numbers import exact
from svtgui.app.outputs import OutputConflict
from svtgui.app.query_queue import INSERTED, QueryQueue, QueueChange
from svtgui.app.reports import write_atomically
from svtgui.app.workspace import DATASET, QUERIES, Workspace
from svtgui.core.wording import count
from svtgui.data.queries import queries_to_json, read_queries
from svtgui.ui.common.steady_line import SteadyLine
from svtgui.ui.common.theme import focus_visible, named
from svtgui.ui.setup.domains_box import DomainsBox
from svtgui.ui.setup.param_form import ErrorLabel
from svtgui.ui.setup.query_builder import QueryBuilder

Index = QModelIndex | QPersistentModelIndex
MIME = "application/x-svtgui-query-rows"
UNDO_DEPTH = 20  # Remove / Clear steps that Undo can take back


def split_files(path: Path, wide: list[tuple[Any, float]]) -> list[tuple[Path, list[Any]]]:
    """The wider queries, one file per sensitivity: ``path`` itself when they share one Δ, else
    ``STEM-delta-Δ.SUFFIXES`` beside it (``wider-delta-90.queries.json``)."""
    by_delta: dict[float, list[Any]] = {}
    for q, s in wide:
        by_delta.setdefault(s, []).append(q)
    if len(by_delta) == 1:
        return [(path, next(iter(by_delta.values())))]
    stem, dot, suffixes = path.name.partition(".")
    return [(path.with_name(f"{stem}-delta-{exact(s)}{dot}{suffixes}".replace(",", "")), qs)
            for s, qs in sorted(by_delta.items())]


FIGURE_SPACE = "\u2007"  # as wide as a digit in every font (a plain space is narrower)
PUNCTUATION_SPACE = "\u2008"  # as wide as the thousands comma
NUMBER_WIDTH = 7  # "999,999": the queue's numbers line up up to a million queries


def number_column(n: int) -> str:
    """``n`` grouped and right-aligned by spaces as wide as what they stand for: padded with plain
    spaces, 10 started further left than 9 in a proportional font."""
    text = f"{n:,}"
    pad = f"{10 ** (NUMBER_WIDTH - 1) - 1:,}"[: NUMBER_WIDTH - len(text)]  # the digits and commas it lacks
    return "".join(PUNCTUATION_SPACE if c == "," else FIGURE_SPACE for c in pad) + text


class QueueModel(QAbstractListModel):
    """The workspace's queue (one evented list) as a Qt list model: it announces each edit as the
    queue makes it — one inserted row for an append, never a copy of the list."""

    def __init__(self, queue: QueryQueue, parent=None) -> None:
        super().__init__(parent)
        self.queue = queue
        queue.subscribe(self._edited, before=self._editing)

    def _editing(self, change: QueueChange) -> None:
        if change.kind == INSERTED:
            self.beginInsertRows(QModelIndex(), change.start, change.start + change.count - 1)
        else:  # removed rows need not be contiguous; moves and resets redraw the visible rows only
            self.beginResetModel()

    def _edited(self, change: QueueChange) -> None:
        if change.kind == INSERTED:
            self.endInsertRows()
        else:
            self.endResetModel()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.queue)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            return f"{number_column(index.row() + 1)}.  {self.queue[index.row()].describe()}"
        return None

    def flags(self, index: Index) -> Qt.ItemFlag:
        base = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
        return (
            base | Qt.ItemFlag.ItemIsDragEnabled if index.isValid() else base | Qt.ItemFlag.ItemIsDropEnabled
        )

    def supportedDropActions(self) -> Qt.DropAction:
        return Qt.DropAction.MoveAction

    def mimeTypes(self) -> list[str]:
        return [MIME]

    def mimeData(self, indexes) -> QMimeData:
        m = QMimeData()
        m.setData(MIME, QByteArray(json.dumps(sorted({i.row() for i in indexes})).encode()))
        return m

    def dropMimeData(self, data: QMimeData, action, row: int, column: int, parent: Index) -> bool:
        if not data.hasFormat(MIME):
            return False
        rows = json.loads(bytes(data.data(MIME)).decode())
        target = row if row >= 0 else (parent.row() if parent.isValid() else len(self.queue))
        self.queue.move(rows, target)
        return False  # we moved them ourselves; the view must not remove the originals


class QueriesPage(QWidget):
    """Builder on the left, the queue with its tools on the right."""

    changed = Signal()
    generate_requested = Signal()
    import_requested = Signal()
    export_requested = Signal()

    def __init__(self, workspace: Workspace, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.workspace = workspace
        self.schema = None
        self.builder = QueryBuilder("Add to queue", "Add this query to the end of the queue (Ctrl+Return)")
        self.builder.action.setShortcut(QKeySequence("Ctrl+Return"))
        self.builder.submitted.connect(lambda q: self.add([q]))
        self.model = QueueModel(workspace.queries, self)
        # A one-column table, not a QListView: a list view lays out every row on each insert (an
        # append to 200,000 queries took a second), a table's fixed rows are placed arithmetically.
        self.list = focus_visible(named(
            QTableView(),
            "Query queue",
            "Queries in the order they will be asked. Drag to reorder, or Alt+Up / Alt+Down.",
        ))
        self.list.setModel(self.model)
        self.list.horizontalHeader().hide()
        self.list.horizontalHeader().setStretchLastSection(True)
        rows = self.list.verticalHeader()
        rows.hide()
        rows.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        rows.setDefaultSectionSize(self.fontMetrics().height() + 4)
        self.list.setShowGrid(False)
        self.list.setWordWrap(False)
        self.list.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.list.setDragDropMode(QAbstractItemView.DragDropMode.InternalMove)
        self.list.setDefaultDropAction(Qt.DropAction.MoveAction)
        # How many queries, Δ, …: changes on every edit, so it is one steady line (a word-wrapped label
        # re-laid out the window on each append); what changes rarely, and may need several lines
        # (mixed Δ, what Undo brings back), is in the notes under it.
        self.summary = SteadyLine("No queries yet.", "Queue summary")
        self.notes = named(QLabel(), "Queue notes")
        self.notes.setWordWrap(True)
        self.notes.hide()
        self.error = ErrorLabel("Queue")
        self.domains = DomainsBox(workspace)

        def button(text: str, tip: str, shortcut: str, slot, own_shortcut: bool = True) -> QPushButton:
            """A tool button; ``own_shortcut=False`` when a window action already owns the key."""
            b = named(QPushButton(text), text.replace("…", ""), f"{tip} ({shortcut})")
            if own_shortcut:
                b.setShortcut(QKeySequence(shortcut))
            b.clicked.connect(slot)
            return b

        self.generate = button(
            "Generate…",
            "Generate a list of queries: sweeps, random ranges, marginals, …",
            "Ctrl+G",
            self.generate_requested,
            False,
        )
        self.import_ = button(
            "Import…", "Import queries from a JSON file", "Ctrl+I", self.import_requested, False
        )
        self.export = button("Export…", "Export the queue as JSON", "Ctrl+E", self.export_requested, False)
        self.up = button("Move up", "Move the selected queries up", "Alt+Up", lambda: self._move(-1))
        self.down = button("Move down", "Move the selected queries down", "Alt+Down", lambda: self._move(+1))
        self.remove = button("Remove", "Remove the selected queries", "Delete", self._remove)
        self.clear = button("Clear", "Remove every query from the queue", "Ctrl+Shift+Delete", self._clear)
        self.undo_button = button("Undo", "Bring back the queries removed or cleared last", "Ctrl+Z",
                                  self.undo)
        self.undo_button.setEnabled(False)
        # queues as they were before each Remove / Clear, with the domains read from the data they hold
        self._removed: list[tuple[list[Any], tuple[str, ...]]] = []
        self.split = named(QPushButton("Split by sensitivity…"), "Split by sensitivity",
                           "Keep the queries of the smallest Δ here and save the wider ones to a file for "
                           "a run of their own (each run's noise follows its widest query)")
        self.split.clicked.connect(lambda: self.split_by_sensitivity())
        self.split.hide()
        tools = QHBoxLayout()
        for b in (self.generate, self.import_, self.export):
            tools.addWidget(b)
        tools.addStretch(1)
        order = QHBoxLayout()
        for b in (self.up, self.down, self.remove, self.clear, self.undo_button):
            order.addWidget(b)
        order.addStretch(1)

        build_box = QGroupBox("Build a query")
        bl = QVBoxLayout(build_box)
        bl.addWidget(self.builder)
        bl.addStretch(1)
        queue_box = QGroupBox("Queue")
        ql = QVBoxLayout(queue_box)
        ql.addLayout(tools)
        ql.addWidget(self.list, 1)
        ql.addLayout(order)
        ql.addWidget(self.summary)
        ql.addWidget(self.notes)
        ql.addWidget(self.split, alignment=Qt.AlignmentFlag.AlignLeft)
        ql.addWidget(self.error)
        ql.addWidget(self.domains)
        split = QSplitter()
        split.addWidget(build_box)
        split.addWidget(queue_box)
        split.setSizes([420, 580])
        lay = QVBoxLayout(self)
        lay.addWidget(split)
        workspace.subscribe(self._workspace_changed)

    @property
    def queries(self) -> QueryQueue:
        return self.workspace.queries

    def _follow_schema(self, schema) -> None:
        """Another dataset, or other declarations: the builder offers its columns."""
        if schema is not self.schema:
            self._forget_removed()  # another dataset: queries removed from the last one do not come back
        self.schema = schema
        self.builder.set_schema(schema)

    def add(self, queries: list[Any], from_data: tuple[str, ...] = ()) -> None:
        """Append queries; ``from_data``: the domains read off the data they were built from."""
        self.queries.append(queries)
        self.workspace.add_from_data(from_data)
        self.list.scrollToBottom()

    def set_queries(self, queries: list[Any]) -> None:
        self.workspace.set_queries(queries)

    def _selected(self) -> list[int]:
        return sorted({i.row() for i in self.list.selectionModel().selectedIndexes()})

    def _move(self, delta: int) -> None:
        rows = self._selected()
        if not rows:
            return
        target = rows[0] - 1 if delta < 0 else rows[-1] + 2
        target = max(0, min(len(self.queries), target))
        self.queries.move(rows, target)
        first = max(0, rows[0] + delta) if delta < 0 else min(len(self.queries) - len(rows), rows[0] + delta)
        sel = self.list.selectionModel()
        for r in range(first, first + len(rows)):
            sel.select(self.model.index(r), sel.SelectionFlag.Select)

    def _remove(self) -> None:
        rows = self._selected()
        if rows:
            self._keep_for_undo()
            self.queries.remove(rows)
            self._undo_note(f"Removed {count(len(rows), 'query')}.", len(rows))

    def _clear(self) -> None:
        n = len(self.queries)
        if n:
            self._keep_for_undo()
            self.queries.reset([])
            self._undo_note(f"Cleared {count(n, 'query')}.", n)

    def split_by_sensitivity(self, path: str | Path | None = None) -> bool:
        """Keep the smallest-Δ queries; save the others to ``path`` (default: ask), then remove them.

        Each wider Δ gets a file of its own (``wide-delta-90.queries.json`` beside ``path`` when there
        are several): a file of mixed Δ would pay the same price again in its own run. The save dialog
        says what is kept and why. Undoable like Remove (Ctrl+Z). Nothing changes if a file cannot be
        written.
        """
        schema = self.schema
        if schema is None:
            return False
        sens = [float(q.sensitivity(schema)) for q in self.queries]
        low = min(sens)
        keep = [q for q, s in zip(self.queries, sens, strict=True) if s == low]
        wider = [(q, s) for q, s in zip(self.queries, sens, strict=True) if s != low]
        wide = [q for q, _ in wider]
        if not wide:
            return False
        if path is None:
            title = (f"Save the {count(len(wide), 'wider query')} for runs of their own — a run's noise "
                     f"follows its widest query, so the {count(len(keep), 'query')} with Δ = {exact(low)} "
                     "stay here and pay only for their own Δ")
            chosen, _ = QFileDialog.getSaveFileName(self, title, "wider.queries.json", "Query lists (*.json)")
            if not chosen:
                return False
            path = chosen
        groups = split_files(Path(path), wider)
        try:
            for target, _ in groups:
                self.workspace.input_files().guard(target)
            for target, queries in groups:
                doc = queries_to_json(queries, self.workspace.queries_from_data)
                _write_whole(target, json.dumps(doc, indent=1, ensure_ascii=False))
        except OutputConflict as exc:
            self.error.show_error(f"{exc}; the queue is unchanged")
            return False
        except OSError as exc:
            self.error.show_error(f"{exc.filename or path}: {exc.strerror or exc}; the queue is unchanged")
            return False
        self._keep_for_undo()
        self.queries.reset(keep)
        files = ", ".join(target.name for target, _ in groups)
        self._undo_note(f"Kept {count(len(keep), 'query')} with Δ = {exact(low)}; saved "
                        f"{count(len(wide), 'query')} to {files}, one Δ a file, for runs of their own.",
                        len(wide))
        return True

    def undo(self) -> None:
        """Put the queue back as it was before the last Remove or Clear (with its provenance)."""
        if self._removed:
            queries, from_data = self._removed.pop()
            self.workspace.set_queries(queries, from_data)  # with the provenance it had
            self.undo_button.setEnabled(bool(self._removed))

    def _keep_for_undo(self) -> None:
        kept = (list(self.queries), self.workspace.queries_from_data)
        self._removed = [*self._removed[-(UNDO_DEPTH - 1):], kept]
        self.undo_button.setEnabled(True)

    def _undo_note(self, what: str, n: int) -> None:
        """Say what left the queue (``n`` queries) and that Undo brings it back."""
        back = "it" if n == 1 else "them"
        self._note(self.notes.text(), f"{what} Undo (Ctrl+Z) brings {back} back.")

    def _note(self, *lines: str) -> None:
        """The notes under the summary; laid out again only when they change (rarely: not per append)."""
        text = "\n".join(line for line in lines if line)
        if text != self.notes.text():
            self.notes.setText(text)
            self.notes.setVisible(bool(text))

    def _forget_removed(self) -> None:
        self._removed = []
        self.undo_button.setEnabled(False)

    def import_json(self, path: str | Path) -> bool:
        try:
            listed = read_queries(path)  # the guarded reader: a FIFO or a device is named, never read
            queries = listed.queries
            if self.schema is not None:
                for i, q in enumerate(queries):
                    try:
                        q.validate(self.schema)
                    except ValueError as exc:
                        raise ValueError(f"{path}: query {i + 1}: {exc}") from None
        except ValueError as exc:  # read_queries names the file in its message
            self.error.show_error(str(exc))
            return False
        self.error.show_error(None)
        self.workspace.set_queries(queries, listed.from_data)  # the file's provenance comes with it
        return True

    def export_json(self, path: str | Path) -> bool:
        try:
            self.workspace.input_files().guard(path)  # never over the data, the ledger or the session
            doc = queries_to_json(self.queries, self.workspace.queries_from_data)
            _write_whole(Path(path), json.dumps(doc, indent=1, ensure_ascii=False))
        except OutputConflict as exc:
            self.error.show_error(str(exc))
            return False
        except OSError as exc:
            self.error.show_error(f"{path}: {exc}")
            return False
        self.error.show_error(None)
        return True

    def _workspace_changed(self, what: frozenset[str]) -> None:
        if DATASET in what and self.workspace.schema is not None:
            self._follow_schema(self.workspace.schema)
        if QUERIES in what or DATASET in what:
            self._summarise()

    def _summarise(self) -> None:
        facts = self.workspace.facts
        self.summary.setText(facts.summary())
        mixed = facts.mixed and facts.problem is None
        self._note(f"⚠ Mixed sensitivities: Δ = {exact(facts.sensitivity)} (set by {facts.widest}) "
                   f"applies to every query, Δ = {exact(facts.narrowest)} ones included; split the queue "
                   "to run them apart." if mixed else "")
        self.split.setVisible(mixed)
        self.error.show_error(facts.problem.message if facts.problem is not None else None)
        self.changed.emit()


def _write_whole(path: Path, text: str) -> None:
    """Replace ``path`` whole or not at all: written in place, a full disk left half a list where the
    curator's previous one was."""
    write_atomically(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))
