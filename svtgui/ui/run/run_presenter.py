"""Presents the :class:`~svtgui.app.runs.model.RunModel` on the Run page: widgets in, events out.

The presenter holds no run or budget logic: a click calls the model, and every widget is redrawn
from the model when the model says that part changed. No value is read back out of a widget
(the declared totals and the pace are written to the models as they are typed or picked).

Two things only a window can do live here: the timer that drains the run process's messages
(:meth:`RunModel.poll`, 30 Hz, running only while a run process exists) and the dialog that asks
which dataset new rows are, when they look like a known one — asked *before* the confirmation is
worded, so it never calls rows "new" that may share a budget.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, QSignalBlocker, QTimer

from svtgui.app.runs.model import (
    ADAPTIVE,
    BUDGET,
    CLEARED,
    OUTCOME,
    POLL_SECONDS,
    ROWS,
    RUNNABLE,
    STARTED,
    STATE,
    STATUS,
    RunModel,
)
from svtgui.app.runs.state import RunState
from svtgui.app.workspace import DATASET
from svtgui.ui.run import identity_dialog
from svtgui.ui.run.run_page import ICONS, RunPage


class RunPresenter(QObject):
    """Binds the Run page to the run model (and the page's totals to the workspace)."""

    def __init__(self, page: RunPage, model: RunModel, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.page, self.model = page, model
        self.timer = QTimer(self, interval=round(POLL_SECONDS * 1000))
        self.timer.timeout.connect(model.poll)
        p = page
        p.run_button.clicked.connect(self.request_run)
        p.confirm.spend.clicked.connect(self.confirm_run)
        p.confirm.cancel.clicked.connect(p.confirm.hide)
        p.pause_button.clicked.connect(model.toggle_pause)
        p.step_button.clicked.connect(model.step)
        p.stop_button.clicked.connect(model.stop)
        p.only_above.toggled.connect(p.model.set_only_above)
        p.pace.currentIndexChanged.connect(lambda _i: model.set_pace(p.pace_rate()))
        p.ask.submitted.connect(model.ask)
        p.totals.raise_.clicked.connect(self._begin_raise)
        p.totals.raise_box.apply.clicked.connect(self._apply_raise)
        p.totals.raise_box.cancel.clicked.connect(self._cancel_raise)
        p.totals.epsilon.textChanged.connect(lambda text: self._totals_typed(epsilon=text))
        p.totals.delta.textChanged.connect(lambda text: self._totals_typed(delta=text))
        box = p.totals.raise_box
        box.epsilon.textChanged.connect(lambda text: model.set_raise_entry("epsilon", text))
        box.delta.textChanged.connect(lambda text: model.set_raise_entry("delta", text))
        model.workspace.subscribe(self._workspace_changed)
        model.subscribe(self._changed)
        self._changed(frozenset((STATE, RUNNABLE, STATUS, ROWS, BUDGET, STARTED, ADAPTIVE, OUTCOME)))

    # -- the curator's actions ----------------------------------------------------------------------
    def request_run(self) -> None:
        """Run…: settle the rows' identity if they look like a known dataset, then confirm the spend."""
        model = self.model
        if model.state.live:
            return
        model.refresh_budget()  # the ledger as it is now (another process or a recipe may have spent)
        if model.problems:
            return
        known = model.identity_question()
        if known is not None:
            choice = identity_dialog.ask(self.page, model.workspace.dataset.name, known)
            if choice is None:
                return  # cancelled: nothing decided, nothing charged
            model.choose_identity(choice != identity_dialog.DIFFERENT)
        confirmation = model.request_run()
        if confirmation is None:
            return
        c = self.page.confirm
        c.text.setText(confirmation.text)
        c.spend.setText(confirmation.button)
        self.page.place_confirm()
        c.show()
        c.spend.setFocus()

    def confirm_run(self) -> bool:
        """Spend and run: the model charges (or refuses, saying why next to Run)."""
        self.page.confirm.hide()
        return self.model.confirm()

    def _totals_typed(self, epsilon: str | None = None, delta: str | None = None) -> None:
        """A declared total typed; the other stays as the workspace holds it."""
        if not self.model.budget.known:  # a known dataset's totals are the ledger's, shown read-only
            ws = self.model.workspace
            held_epsilon, held_delta = ws.totals
            ws.set_totals((held_epsilon if epsilon is None else epsilon).strip(),
                          (held_delta if delta is None else delta).strip())

    def _begin_raise(self) -> None:
        """Raise…: the explicit step, pre-filled with the current totals."""
        t = self.page.totals
        box = t.raise_box
        epsilon, delta = self.model.budget.totals_text()
        box.epsilon.setText(epsilon)
        box.delta.setText(delta)
        t.error.show_error(None)
        box.show()
        box.epsilon.setFocus()
        box.epsilon.selectAll()

    def _cancel_raise(self) -> None:
        self.page.totals.raise_box.hide()
        self.page.totals.error.show_error(None)

    def _apply_raise(self) -> None:
        t = self.page.totals
        refused = self.model.raise_total()
        t.error.show_error(refused)  # refused: nothing changed; the box stays open to correct it
        if refused is None:
            t.raise_box.hide()

    # -- the model's changes ---------------------------------------------------------------------------
    def _workspace_changed(self, what: frozenset[str]) -> None:
        if DATASET in what and self.model.workspace.dataset is not None:
            self.page.ask.set_schema(self.model.workspace.schema)
            self.page.confirm.hide()  # a confirmation worded for the previous dataset is void

    def _changed(self, what: frozenset[str]) -> None:
        p, m = self.page, self.model
        if CLEARED in what:
            p.model.reset()
            p.model.free_paid = bool(m.params) and m.histogram  # PMW rows read paid / free
            if not m.params:  # no run starting: nothing of the last one stays on the chart
                p.chart.forget_run()
            elif m.histogram:  # PMW: T bounds a free answer's error, it is not drawn
                p.chart.clear()
                p.chart.set_pmw(float(m.params["threshold"]))
            else:
                p.chart.clear()
                p.chart.set_threshold(float(m.params["threshold"]) if "threshold" in m.params else None)
        if STATE in what:
            self._show_state()
        if RUNNABLE in what:
            enabled, tip = m.runnable()
            p.run_button.setEnabled(enabled)
            p.run_button.setToolTip(tip)
        if RUNNABLE in what or OUTCOME in what:
            p.run_error.show_error(m.error_line())
        if BUDGET in what or RUNNABLE in what:
            self._show_budget()
        if STARTED in what:
            p.gauge.set_run(m.charged_line())
        if ADAPTIVE in what:
            p.ask.error.show_error(m.adaptive_error)
        if ROWS in what:
            self.refresh()
        if STATUS in what and m.status != p.status.text():
            p.status.setText(m.status)

    def _show_state(self) -> None:
        p, state = self.page, self.model.state
        paused = state == RunState.PAUSED
        p.pause_button.setEnabled(state.steppable)
        p.pause_button.setText("Resume" if paused else "Pause")
        p.pause_button.setIcon(p.style().standardIcon(ICONS["resume" if paused else "pause"]))
        p.step_button.setEnabled(state.steppable)
        p.stop_button.setEnabled(state.live)
        p.ask.action.setEnabled(state.live)
        if self.model.worker is not None:
            self.timer.start()
        else:
            self.timer.stop()
        self._show_progress()

    def _show_budget(self) -> None:
        t, budget = self.page.totals, self.model.budget
        t.set_new(not budget.known)
        epsilon, delta = budget.totals_text()
        for field, text in ((t.epsilon, epsilon), (t.delta, delta)):
            if field.text() != text:
                with QSignalBlocker(field):  # shown, not typed: the workspace already holds it
                    field.setText(text)
        t.state.setText(budget.state_line())
        if not t.raise_box.isVisible():
            t.error.show_error(self.model.totals_error())
        facts = budget.gauge()
        self.page.gauge.set_dataset(facts.share, facts.bar, facts.detail)

    def refresh(self) -> None:
        """Show the rows that arrived since the last (coalesced) update: table, chart, gauge, counts."""
        p, s = self.page, self.model.store
        p.model.refresh()
        if p.follow.isChecked() and p.model.rowCount():
            p.table.scrollToBottom()
        p.chart.update_from(*s.top_points(), s.n, *s.free_points())
        p.gauge.set_counts(*self.model.gauge_counts())
        p.counts.setText(f"{s.n:,} answered · ▲ ⊤ {s.n_tops:,} · ▽ ⊥ {s.n_bottoms:,}" if s.n else "")
        self._show_progress()

    def _show_progress(self) -> None:
        """A paced or long run shows how far it got and, when paced, about how long is left."""
        bar, progress = self.page.progress, self.model.progress()
        bar.setVisible(progress is not None)
        if progress is None:
            return
        answered, planned, left = progress
        bar.setRange(0, planned)
        bar.setValue(answered)
        bar.setFormat(f"{answered:,} of {planned:,}" + (f" — about {_duration(left)} left" if left else ""))

    def shutdown(self) -> None:
        """Window closing: the model ends the run; the timer stops."""
        self.timer.stop()
        self.model.shutdown()


def _duration(seconds: float) -> str:
    """"45 s", "3 min 20 s", "2 h 5 min": whole units, enough to plan a demonstration by."""
    s = round(seconds)
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60} s"
    return f"{s // 3600} h {s % 3600 // 60} min"
