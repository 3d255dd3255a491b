"""Compare mechanisms… (Mechanism page): Sparse, NumericSparse, Standard SVT and EM side by side.

A view of :mod:`svtgui.app.comparison` for the current queue and parameters: public parameters and
a hypothetical true answer x the curator types — never the data — so a mechanism can be chosen
before anything is spent. "Use this one" switches the workspace to the selected row's mechanism.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
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

from svtgui.app import comparison
from svtgui.app.numbers import field_text
from svtgui.app.workspace import Workspace, parse_number
from svtgui.core.wording import count, plain
from svtgui.ui.common.theme import named

HEADERS = ("Mechanism", "Releases", "α", "α promises", "P[⊤] at x", "⊤ before the cutoff", "Note")


class ComparisonDialog(QDialog):
    """The comparison table for the workspace's queue and parameters, at the preview's β."""

    def __init__(self, workspace: Workspace, beta: float, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Compare mechanisms")
        named(self, "Compare mechanisms")
        self.workspace, self.beta = workspace, beta
        self.base = comparison.base_from(workspace)
        self.header = named(QLabel(), "Comparison parameters")
        self.header.setWordWrap(True)
        self.x = named(QLineEdit(), "Hypothetical true answer x",
                       "What if a query's true answer were x? Your data is not read: x is a number you "
                       "choose, like T.")
        t = self.base.get("threshold")
        self.x.setText("" if t is None else field_text(t))
        self.x.setPlaceholderText("a true answer to try, e.g. T")
        self.x_error = named(QLabel(), "Hypothetical answer error")
        self.table = named(QTableWidget(0, len(HEADERS)), "Mechanism comparison")
        self.table.setHorizontalHeaderLabels(HEADERS)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setWordWrap(True)
        self.table.verticalHeader().setVisible(False)
        head = self.table.horizontalHeader()
        head.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        for stretch in (1, 3):  # the two columns of words share the room
            head.setSectionResizeMode(stretch, QHeaderView.ResizeMode.Stretch)
        # Wrapped words need their row heights again whenever the columns change width (the dialog
        # shown, resized): measured only at the first fill, in a narrow table, rows stayed tall.
        head.sectionResized.connect(lambda *_: self.table.resizeRowsToContents())
        note = QLabel("P[⊤] is exact for a query compared on its own. “⊤ before the cutoff” is what a run "
                      "would give, on average at most, if every queued query had the true answer x. "
                      "Nothing here reads your data or spends budget.")
        note.setWordWrap(True)
        note.setEnabled(False)
        self.use = named(QPushButton("Use this one"), "Use the selected mechanism")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.addButton(self.use, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.rejected.connect(self.reject)
        row = QHBoxLayout()
        row.addWidget(QLabel("Hypothetical true answer x"))
        row.addWidget(self.x)
        row.addWidget(self.x_error, 1)
        lay = QVBoxLayout(self)
        lay.addWidget(self.header)
        lay.addLayout(row)
        lay.addWidget(self.table, 1)
        lay.addWidget(note)
        lay.addWidget(buttons)
        self.x.textChanged.connect(self.refresh)
        self.use.clicked.connect(self._use)
        self.resize(1000, 360)
        self.refresh()

    def _hypothetical(self) -> float | None:
        text = self.x.text()
        if not text.strip():
            self.x_error.setText("")
            return None
        try:
            value = parse_number(text, "x")
        except ValueError as exc:
            self.x_error.setText(f"⚠ {exc}")
            return None
        self.x_error.setText("")
        return value

    def refresh(self) -> None:
        b, k = self.base, len(self.workspace.queries)
        known = ", ".join(f"{name} = {plain(b[key])}" for key, name in
                          (("epsilon", "ε"), ("cutoff", "c"), ("threshold", "T"), ("sensitivity", "Δ"))
                          if b.get(key) is not None)
        queued = f"the {count(k, 'queued query')}" if k else "a single query (no queries queued yet)"
        self.header.setText(f"For {queued}, {known}, β = {plain(self.beta)}: public parameters only.")
        rows = comparison.compare(b, k, self.beta, self._hypothetical())
        self.rows = rows
        self.table.setRowCount(len(rows))
        for i, r in enumerate(rows):
            for j, text in enumerate((r.name, r.releases, r.alpha, r.meaning, r.top_at_x, r.tops, r.note)):
                item = QTableWidgetItem(text)
                item.setToolTip(text)
                if j in (2, 4, 5):
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.table.setItem(i, j, item)
            if r.mechanism_id == self.workspace.mechanism_id:
                self.table.selectRow(i)
        self.table.resizeRowsToContents()

    def _use(self) -> None:
        selected = self.table.selectionModel().selectedRows()
        if selected:
            self.workspace.set_mechanism(self.rows[selected[0].row()].mechanism_id)
            self.accept()
