"""Steps 5–7 on one page: Run / Pause / Step / Stop, the live table and chart, the budget gauge,
and the adaptive line for composing the next query after seeing the answers so far.
"""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QSplitter,
    QStyle,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from svtgui.app.runs.results import ResultStore
from svtgui.ui.common.theme import named
from svtgui.ui.run.budget_gauge import BudgetGauge
from svtgui.ui.run.live_chart import LiveChart
from svtgui.ui.run.results_model import COL_ANSWER, COL_INDEX, COL_QUERY, COL_TIME, COL_VALUE, ResultsModel
from svtgui.ui.setup.param_form import ErrorLabel
from svtgui.ui.setup.query_builder import QueryBuilder

SP = QStyle.StandardPixmap
ICONS = {"run": SP.SP_MediaPlay, "pause": SP.SP_MediaPause, "resume": SP.SP_MediaPlay,
         "step": SP.SP_MediaSkipForward, "stop": SP.SP_MediaStop}


class ConfirmBar(QGroupBox):
    """The inline (non-modal) confirmation naming the budget about to be spent.

    It floats over the top of the page instead of taking a row of its layout: showing or hiding
    it then moves nothing, so "Spend and run" does not relayout and re-render the chart and the
    table at the very moment the run starts (measured: ~15 ms of the click's ~45 ms). It floats
    over the chart, never over the budget gauge: the curator reads what is left while confirming.
    """

    def __init__(self) -> None:
        super().__init__("Confirm the spend")
        named(self, "Run confirmation")
        self.setAutoFillBackground(True)
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
    """The dataset's total budget across all runs.

    Nothing is assumed for a new dataset: the curator declares its total (ε, δ) here (the fields
    start empty and Run says why it is disabled until then); the first run records it in the
    ledger. Afterwards the total is read-only and only raised through an explicit confirmation
    that says the raise is logged.
    """

    def __init__(self) -> None:
        super().__init__()
        self.epsilon = named(
            QLineEdit(""),
            "Dataset total epsilon",
            "Total ε this dataset may ever spend, across all runs. Recorded in the ledger "
            "at the first run; afterwards it can only be raised, explicitly.",
        )
        self.epsilon.setPlaceholderText("required")
        self.delta = named(QLineEdit("0"), "Dataset total delta", "Total δ this dataset may ever spend.")
        for w in (self.epsilon, self.delta):
            w.setMaximumWidth(90)
        self.declare = named(
            QLabel(
                "<b>New dataset: declare its total privacy budget.</b> How much ε (and δ) may all "
                "runs on this dataset spend together, ever? Nothing is assumed. The ledger records "
                "the total with the first run; afterwards it can only be raised (logged), never reset."
            ),
            "Declare the dataset budget",
        )
        self.declare.setWordWrap(True)
        self.declare.setStyleSheet(
            "QLabel { border: 1px solid palette(highlight); border-radius: 4px; padding: 6px; }"
        )
        self.raise_ = named(
            QPushButton("Raise…"),
            "Raise total budget",
            "Raise this dataset's total budget (an explicit, logged action)",
        )
        self.state = named(QLabel(""), "Dataset budget state")
        self.state.setWordWrap(True)
        self.error = ErrorLabel("Dataset budget")
        self.raise_box = RaiseConfirm()
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
        lay.addWidget(self.declare)
        lay.addLayout(row)
        lay.addWidget(self.state)
        lay.addWidget(self.raise_box)
        lay.addWidget(self.error)

    @property
    def is_new(self) -> bool:
        return self.declare.isVisibleTo(self)

    def set_new(self, new: bool) -> None:
        """New dataset: editable, empty ε to declare. Recorded: read-only totals, Raise… offered."""
        self.declare.setVisible(new)
        self.raise_.setVisible(not new)
        for w in (self.epsilon, self.delta):
            w.setReadOnly(not new)
        if new:
            self.raise_box.hide()


class RaiseConfirm(QGroupBox):
    """The explicit raise step: new totals, what logging means, then Raise and log / Cancel."""

    def __init__(self) -> None:
        super().__init__("Raise the total budget")
        named(self, "Raise confirmation")
        self.epsilon = named(QLineEdit(), "New total epsilon", "The new total ε (at least the current one)")
        self.delta = named(QLineEdit(), "New total delta", "The new total δ (at least the current one)")
        for w in (self.epsilon, self.delta):
            w.setMaximumWidth(90)
        self.text = named(
            QLabel(
                "The raise is logged in the ledger (date, old and new totals) and "
                "cannot be undone: a total is never lowered or reset."
            ),
            "Raise explanation",
        )
        self.text.setWordWrap(True)
        self.apply = named(
            QPushButton("Raise and log"), "Raise and log", "Record the new total in the ledger"
        )
        self.cancel = named(QPushButton("Cancel"), "Cancel raise", "Keep the current total")
        row = QHBoxLayout()
        row.addWidget(QLabel("New total ε"))
        row.addWidget(self.epsilon)
        row.addWidget(QLabel("δ"))
        row.addWidget(self.delta)
        row.addStretch(1)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.apply)
        buttons.addWidget(self.cancel)
        lay = QVBoxLayout(self)
        lay.addLayout(row)
        lay.addWidget(self.text)
        lay.addLayout(buttons)
        self.hide()


# Demonstration paces, queries per second (None: as fast as possible; a 10,001-query run takes 0.1 s).
PACES: tuple[tuple[str, float | None], ...] = (
    ("As fast as possible", None), ("100 queries per second", 100.0), ("20 queries per second", 20.0),
    ("5 queries per second", 5.0), ("2 queries per second", 2.0))


class RunPage(QWidget):
    """Widgets only; :class:`svtgui.ui.run.run_presenter.RunPresenter` shows the run model on them."""

    def pace_rate(self) -> float | None:
        """The chosen pace in queries per second (None: as fast as possible)."""
        return self.pace.currentData()

    def set_pace_rate(self, rate: float | None) -> None:
        """Select the listed pace nearest ``rate`` (a remembered pace that is no longer listed)."""
        rates = [r for _, r in PACES]
        if rate is None or rate not in rates:
            rate = None if rate is None else min((r for r in rates if r), key=lambda r: abs(r - rate))
        self.pace.setCurrentIndex(rates.index(rate))

    def __init__(self, store: ResultStore, describe, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.run_button = named(QPushButton("Run…"), "Run", "Check the spend, then start answering (F5)")
        self.pause_button = named(QPushButton("Pause"), "Pause", "Pause or resume the stream (F6)")
        self.step_button = named(QPushButton("Step"), "Step", "Answer exactly one more query (F10)")
        self.stop_button = named(
            QPushButton("Stop"), "Stop", "End the run now; the budget stays spent (Shift+F5)"
        )
        # Standard media icons from the style: every platform theme has them (font glyphs like
        # ⏸ ⏹ are missing from common UI fonts and showed as empty boxes).
        for button, icon in (
            (self.run_button, ICONS["run"]),
            (self.pause_button, ICONS["pause"]),
            (self.step_button, ICONS["step"]),
            (self.stop_button, ICONS["stop"]),
        ):
            button.setIcon(self.style().standardIcon(icon))
        self.pace = named(QComboBox(), "Pace", "How fast queries are answered. A slow pace lets an audience "
                          "watch the ⊥/⊤ stream; Pause and Step work at any pace; remembered")
        for label, rate in PACES:
            self.pace.addItem(label, rate)
        self.pace.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.status = named(QLabel("Ready."), "Run status")
        self.status.setWordWrap(True)
        self.progress = named(QProgressBar(), "Run progress",
                              "Planned queries answered so far; at a chosen pace, about how long is left")
        self.progress.setMaximumWidth(260)
        self.progress.hide()
        self.run_error = ErrorLabel("Run")
        self.confirm = ConfirmBar()
        bar = QHBoxLayout()
        for b in (self.run_button, self.pause_button, self.step_button, self.stop_button):
            bar.addWidget(b)
        bar.addWidget(QLabel("Pace"))
        bar.addWidget(self.pace)
        bar.addWidget(self.progress)
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
        split.splitterMoved.connect(lambda *_: self.place_confirm())
        self.right_pane = right
        lay = QVBoxLayout(self)
        lay.addLayout(bar)
        lay.addWidget(self.run_error)
        lay.addWidget(split, 1)
        self.confirm.setParent(self)
        self.confirm.hide()

    def place_confirm(self) -> None:
        """Lay the floating confirmation over the top of the chart pane (never over the gauge)."""
        origin = self.right_pane.mapTo(self, QPoint(0, 0))
        width = self.right_pane.width()
        height = self.confirm.heightForWidth(width)
        height = height if height > 0 else self.confirm.sizeHint().height()
        self.confirm.setGeometry(origin.x(), origin.y(), width, height)
        self.confirm.raise_()

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().resizeEvent(event)
        self.place_confirm()
