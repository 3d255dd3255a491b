"""Tools ▸ Answer from a release file…: load a SparseProject release and answer count queries.

No dataset is needed and the ledger is never touched: answering is post-processing of the public
release. The query builder works on a schema rebuilt from the release's public universe
description (its declared levels and bin edges), so only queries the release can answer are offered.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from svtgui.app.numbers import exact
from svtgui.app.reports.content import NEIGHBOURS
from svtgui.app.runs.linear import linear_query
from svtgui.core.mechanisms.sparse_project import ProjectionRelease
from svtgui.core.wording import plain
from svtgui.data.schema import Column, ColumnKind, Schema
from svtgui.data.universe import MISSING, OTHER, Universe
from svtgui.ui.common.theme import named
from svtgui.ui.setup.linear_panel import RELEASE_FILTER
from svtgui.ui.setup.param_form import ErrorLabel
from svtgui.ui.setup.query_builder import QueryBuilder

COLUMNS = ("Query", "Estimate (fraction of n̂)", "≈ rows", "Cells (m)", "Note")


def schema_of(universe: Universe) -> Schema:
    """A schema with the universe's public levels and bounds (for the query builder)."""
    cols = []
    for a in universe.axes:
        if a.edges is not None:
            cols.append(Column(a.column, ColumnKind.NUMERIC, lower=a.edges[0], upper=a.edges[-1]))
        else:
            levels = [lv for lv in a.levels if lv not in (MISSING, OTHER)]
            cols.append(Column(a.column, ColumnKind.CATEGORICAL, categories=tuple(levels)))
    return Schema(tuple(cols))


def describe_release(release: ProjectionRelease, universe: Universe) -> str:
    h, acc = release.header, release.header.get("accuracy", {})
    axes = "; ".join(
        f"{a.column}: " + (f"bins at {', '.join(exact(e) for e in a.edges)}" if a.edges is not None
                           else ", ".join(a.levels)) for a in universe.axes)
    neighbours = NEIGHBOURS.get(str(h.get("neighbouring")), str(h.get("neighbouring")))
    return (f"{h.get('metadata', {}).get('dataset', 'release')}: |X| = {release.universe_size:,} cells, "
            f"projection size {release.projection_size:,}, n̂ = {release.n:,}; "
            f"ε = {_number(h.get('epsilon'))}, δ = {_number(h.get('delta'))} (neighbouring datasets: "
            f"{neighbours}); {h.get('noise')} noise"
            + ("" if h.get("secure", True) else " — SEEDED: reproducible, NOT secure") + ".\n"
            f"Theoretical α = {_number(acc.get('alpha'))} for {_number(h.get('queries'))} queries of at "
            f"most m = {_number(h.get('sparsity'))} cells (β = {_number(acc.get('beta'))}). Universe: {axes}")


def _number(value: Any) -> str:
    """A number from the release header in plain digits (a damaged header shows what it holds)."""
    return plain(value, 4) if isinstance(value, int | float) and not isinstance(value, bool) else str(value)


class ReleaseAnswerDialog(QDialog):
    """Load a release, build count queries, read the estimates. Non-modal; no data needed."""

    def __init__(self, parent: QWidget | None = None, path: str | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Answer from a SparseProject release")
        named(self, "Answer from a release file")
        self.resize(900, 620)
        self.path = named(QLineEdit(), "Release file", "A .npz release written by a SparseProject run")
        self.browse = named(QPushButton("Open…"), "Open a release file", "Choose a release file (.npz)")
        self.header = named(QLabel("No release loaded. Open a .npz release file."), "Release header")
        self.header.setWordWrap(True)
        self.error = ErrorLabel("Release")
        self.builder = QueryBuilder("Answer", "Estimate this count from the release (Ctrl+Return)")
        self.builder.action.setShortcut("Ctrl+Return")
        self.builder.setEnabled(False)
        self.table = named(QTableWidget(0, len(COLUMNS)), "Answers from the release")
        self.table.setHorizontalHeaderLabels(COLUMNS)
        hh = self.table.horizontalHeader()
        hh.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for col, width in ((1, 190), (2, 100), (3, 80), (4, 330)):
            self.table.setColumnWidth(col, width)
        self.table.verticalHeader().hide()
        note = QLabel("Answers are computed from the release file alone: no dataset, no budget, "
                      "no ledger entry.")
        note.setEnabled(False)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.close)
        row = QHBoxLayout()
        row.addWidget(QLabel("Release"))
        row.addWidget(self.path, 1)
        row.addWidget(self.browse)
        lay = QVBoxLayout(self)
        lay.addLayout(row)
        lay.addWidget(self.header)
        lay.addWidget(self.error)
        lay.addWidget(self.builder)
        lay.addWidget(self.table, 1)
        lay.addWidget(note)
        lay.addWidget(buttons)
        self.release: ProjectionRelease | None = None
        self.universe: Universe | None = None
        self.browse.clicked.connect(self.choose)
        self.path.returnPressed.connect(lambda: self.load(self.path.text()))
        self.builder.submitted.connect(self.answer)
        if path:
            self.load(path)

    def choose(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open a SparseProject release", "", RELEASE_FILTER)
        if path:
            self.load(path)

    def load(self, path: str | Path) -> bool:
        """Read the release (ValueError from the core names the file); nothing changes on failure."""
        try:
            release = ProjectionRelease.load(path)
            universe = Universe.from_json(release.header.get("metadata", {}).get("universe"))
        except ValueError as exc:
            self.error.show_error(f"{exc}")
            return False
        self.release, self.universe = release, universe
        self.path.setText(str(path))
        self.error.show_error(None)
        self.header.setText(describe_release(release, universe))
        self.builder.set_schema(schema_of(universe))
        self.builder.setEnabled(True)
        self.table.setRowCount(0)
        return True

    def answer(self, query: Any) -> None:
        """Estimate one count query from the release and append it to the table."""
        if self.release is None or self.universe is None:
            return
        try:
            lq = linear_query(self.universe, query, "query")
        except ValueError as exc:
            self.builder.error.show_error(str(exc))
            return
        self.builder.error.show_error(None)
        v = float(self.release.answer(lq))
        m = self.release.header.get("sparsity")
        note = f"touches {lq.sparsity} cells > m = {m}: outside the accuracy statement" \
            if m and lq.sparsity > m else ""
        r = self.table.rowCount()
        self.table.insertRow(r)
        for c, text in enumerate((query.describe(), f"{v:.5f}", f"{v * self.release.n:,.1f}",
                                  f"{lq.sparsity:,}", note)):
            self.table.setItem(r, c, QTableWidgetItem(text))
        self.table.scrollToBottom()
