"""Steps 5–7 on one page: Run / Pause / Step / Stop, the live table and chart, the budget gauge,
and the adaptive line for composing the next query after seeing the answers so far.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from svtgui.ui.budget_gauge import BudgetGauge
from svtgui.ui.live_chart import LiveChart
from svtgui.ui.param_form import ErrorLabel
from svtgui.ui.query_builder import QueryBuilder
from svtgui.ui.results_model import COL_ANSWER, COL_INDEX, COL_QUERY, COL_TIME, COL_VALUE, ResultsModel
from svtgui.ui.results_store import ResultStore
from svtgui.ui.theme import named


class ConfirmBar(QGroupBox):
    """The inline (non-modal) confirmation naming the budget about to be spent."""

    def __init__(self) -> None:
        super().__init__("Confirm the spend")
        named(self, "Run confirmation")
        self.text = named(QLabel(), "Confirmation text")
        self.text.setWordWrap(True)
        self.spend = named(
            QPushButton("Spend and run"),
            "Spend and run",
            "Charge the budget named here and start answering (Ctrl+Return)",
        )
        self.spend.setShortcut("Ctrl+Return")
        self.spend.setDefault(True)
        self.cancel = named(QPushButton("Cancel"), "Cancel run", "Do not run; nothing is charged (Esc)")
        self.cancel.setShortcut("Esc")
        lay = QHBoxLayout(self)
        lay.addWidget(self.text, 1)
        lay.addWidget(self.spend)
        lay.addWidget(self.cancel)
        self.hide()


class BudgetTotals(QWidget):
    """The dataset's total budget: typed once when the dataset is new, then only raised explicitly."""

    def __init__(self) -> None:
        super().__init__()
        self.epsilon = named(
            QLineEdit("10"),
            "Dataset total epsilon",
            "Total ε this dataset may ever spend, across all runs. Recorded in the ledger "
            "at the first run; afterwards it can only be raised, explicitly.",
        )
        self.delta = named(QLineEdit("0"), "Dataset total delta", "Total δ this dataset may ever spend.")
        for w in (self.epsilon, self.delta):
            w.setMaximumWidth(90)
        self.raise_ = named(
            QPushButton("Raise…"),
            "Raise total budget",
            "Raise this dataset's total budget (an explicit, logged action)",
        )
        self.state = named(QLabel(""), "Dataset budget state")
        self.state.setWordWrap(True)
        self.error = ErrorLabel("Dataset budget")
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(QLabel("Dataset total ε"))
        row.addWidget(self.epsilon)
        row.addWidget(QLabel("δ"))
        row.addWidget(self.delta)
        row.addWidget(self.raise_)
        row.addStretch(1)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addLayout(row)
        lay.addWidget(self.state)
        lay.addWidget(self.error)


class RunPage(QWidget):
    """Widgets only; :class:`svtgui.ui.run_controller.RunController` drives them."""

    def __init__(self, store: ResultStore, describe, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.run_button = named(QPushButton("▶ Run…"), "Run", "Check the spend, then start answering (F5)")
        self.pause_button = named(QPushButton("Pause"), "Pause", "Pause or resume the stream (F6)")
        self.step_button = named(QPushButton("Step"), "Step", "Answer exactly one more query (F10)")
        self.stop_button = named(
            QPushButton("Stop"), "Stop", "End the run now; the budget stays spent (Shift+F5)"
        )
        self.status = named(QLabel("Ready."), "Run status")
        self.status.setWordWrap(True)
        self.run_error = ErrorLabel("Run")
        self.confirm = ConfirmBar()
        bar = QHBoxLayout()
        for b in (self.run_button, self.pause_button, self.step_button, self.stop_button):
            bar.addWidget(b)
        bar.addWidget(self.status, 1)

        self.gauge = BudgetGauge()
        self.totals = BudgetTotals()
        self.gauge.layout().addWidget(self.totals)
        self.chart = LiveChart()

        self.model = ResultsModel(store, describe, self)
        self.table = named(
            QTableView(),
            "Released answers",
            "Every released answer, already recorded in the ledger. ⊥ rows never show a value.",
        )
        self.table.setModel(self.model)
        self.table.setWordWrap(False)
        vh = self.table.verticalHeader()
        vh.hide()
        vh.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        vh.setDefaultSectionSize(self.fontMetrics().height() + 6)
        hh = self.table.horizontalHeader()
        hh.setSectionResizeMode(COL_QUERY, QHeaderView.ResizeMode.Stretch)
        for c, w in ((COL_INDEX, 70), (COL_ANSWER, 100), (COL_VALUE, 110), (COL_TIME, 100)):
            hh.setSectionResizeMode(c, QHeaderView.ResizeMode.Interactive)
            hh.resizeSection(c, w)
        self.only_above = named(
            QCheckBox("Only ⊤"), "Only above-threshold answers", "Show only the ⊤ answers (Ctrl+Shift+T)"
        )
        self.follow = named(QCheckBox("Follow"), "Follow newest answers", "Keep the newest answer in view")
        self.follow.setChecked(True)
        self.counts = named(QLabel(""), "Answer counts")
        filt = QHBoxLayout()
        filt.addWidget(self.only_above)
        filt.addWidget(self.follow)
        filt.addStretch(1)
        filt.addWidget(self.counts)

        self.ask = QueryBuilder(
            "Ask now", "Answer this query next, in the running session (Ctrl+Shift+Return)"
        )
        self.ask.action.setShortcut("Ctrl+Shift+Return")
        named(self.ask, "Adaptive query")
        ask_box = QGroupBox("Next query — compose it after seeing the answers (adaptive)")
        al = QVBoxLayout(ask_box)
        al.addWidget(self.ask)
        self.ask_box = ask_box

        table_box = QWidget()
        tl = QVBoxLayout(table_box)
        tl.setContentsMargins(0, 0, 0, 0)
        tl.addLayout(filt)
        tl.addWidget(self.table, 1)
        right = QSplitter(Qt.Orientation.Vertical)
        right.addWidget(self.chart)
        right.addWidget(table_box)
        right.setSizes([260, 340])
        left = QWidget()
        ll = QVBoxLayout(left)
        ll.setContentsMargins(0, 0, 0, 0)
        ll.addWidget(self.gauge)
        ll.addWidget(ask_box)
        ll.addStretch(1)
        split = QSplitter()
        split.addWidget(left)
        split.addWidget(right)
        split.setSizes([380, 720])
        lay = QVBoxLayout(self)
        lay.addLayout(bar)
        lay.addWidget(self.run_error)
        lay.addWidget(self.confirm)
        lay.addWidget(split, 1)
