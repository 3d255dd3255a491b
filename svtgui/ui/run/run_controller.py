"""Drives a run from the window: validate, confirm the spend, start, stream, pause/step/stop.

Order of events (the privacy contract, visible to the curator):
1. The workspace's plan (:mod:`svtgui.app.plan`, built once per change; nothing charged) says
   whether the run may start; its problems disable Run and are shown next to the field at fault.
2. Run shows an inline confirmation naming the budget to be spent and what remains.
3. Spend-and-run registers the dataset with its total budget if it is new, then a run process
   (``start_run``) charges the whole guarantee (committed) — or refuses an overspend, charging
   nothing.
4. A :class:`RunWorker` streams in that process; committed batches land in a :class:`ResultStore`;
   a 30 Hz timer refreshes table, chart and gauge (coalesced, never per query).

Why the worker never emits Qt signals: with PySide6 6.12.0 on Python 3.11 every Python-side
``Signal.emit()`` drops one reference to ``True`` (measured: 10 emits, refcount(True) − 10), so a
long stream that emitted per batch eventually aborted the interpreter ("deallocating True or
False"). The run process's messages are therefore read by the timer, which also coalesces them.
"""

from __future__ import annotations

import contextlib
import gc
import logging
import time
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

from svtgui.app.dataset_identity import identify
from svtgui.app.runs.worker import ReleasedBatch, RunJob, RunWorker, discard_prepared, prepare
from svtgui.app.workspace import DATASET, Workspace, label
from svtgui.core import mechanisms
from svtgui.core.mechanisms import HISTOGRAM, RELEASE
from svtgui.core.wording import count
from svtgui.ledger import Ledger, LedgerError
from svtgui.ledger.store import default_path
from svtgui.ui.common.numbers import amount, exact
from svtgui.ui.run.identity_dialog import register_or_bind
from svtgui.ui.run.results_store import ResultStore
from svtgui.ui.run.run_page import ICONS, RunPage

log = logging.getLogger("svtgui.ui.run")
REFRESH_MS = 33  # the run process's messages are read (and batches acknowledged) at 30 Hz
VIEW_SECONDS = 0.1  # table, chart, gauge and status follow at 10 Hz: a table repaint costs ~8 ms
RUN_TIP = "Check the spend, then start answering (F5)"
IDLE, RUNNING, PAUSED, DRAINED, ENDED = "idle", "running", "paused", "drained", "ended"
ENDINGS = {
    "halted": "Halted: the cutoff c was reached",
    "finished": "Finished: every planned query was answered",
    "stopped": "Stopped by you",
    "interrupted": "Interrupted",
}


class RunController(QObject):
    """Owns the ledger connection, the worker and the result store of the current run."""

    state_changed = Signal(str)
    status_changed = Signal(str)  # the run's one-line status, for the window's status bar
    # (enabled, tooltip) of the Run button whenever either changes: the window's Run action follows
    runnable_changed = Signal(bool, str)

    def __init__(self, page: RunPage, store: ResultStore, workspace: Workspace, mechanism_panel,
                 parent=None) -> None:
        """``mechanism_panel`` words a SparseProject release in the confirmation (its universe)."""
        super().__init__(parent)
        self.page, self.store, self.workspace, self.mech = page, store, workspace, mechanism_panel
        self._ledger: Ledger | None = None
        # Why the ledger cannot be used (damaged, locked, tampered with), in the CLI's one line;
        # Run stays disabled with it until the ledger opens again.
        self.ledger_problem: str | None = None
        self.worker: RunWorker | None = None
        self.run = None
        self.run_queries: list[Any] = []
        self.adaptive: list[Any] = []
        self.state = IDLE
        self.seed: int | None = None  # tests and replays only: reproducible, NOT secure noise
        self._shown_at = 0.0
        # Running time of the run: pauses and waits for an adaptive query are left out (a run paused
        # for a minute took seconds, not a minute); _working_since is when the current stretch began.
        self.elapsed = 0.0
        self._working_since: float | None = None
        self._idled = False  # paused or waited for an adaptive query at least once
        self.clock = time.perf_counter  # of the running time (tests make a pause last an hour at once)
        self.problems: dict[str, str] = {}
        self.planned_cutoff: int | None = None  # the cutoff of the run being started, until it reports
        self.outcome: str | None = None  # a refused or failed run's message, kept until the next run
        self.timer = QTimer(self, interval=REFRESH_MS)
        self.timer.timeout.connect(self.poll)
        p = page
        p.run_button.clicked.connect(self.request_run)
        p.confirm.spend.clicked.connect(self.confirm_run)
        p.confirm.cancel.clicked.connect(p.confirm.hide)
        p.pause_button.clicked.connect(self.toggle_pause)
        p.step_button.clicked.connect(self.step)
        p.stop_button.clicked.connect(self.stop)
        p.only_above.toggled.connect(self._filter)
        p.pace.currentIndexChanged.connect(self._pace_changed)
        p.ask.submitted.connect(self.ask)
        p.totals.raise_.clicked.connect(self._begin_raise)
        p.totals.raise_box.apply.clicked.connect(self._apply_raise)
        p.totals.raise_box.cancel.clicked.connect(self._cancel_raise)
        for w in (p.totals.epsilon, p.totals.delta):
            w.textChanged.connect(self._totals_typed)
        workspace.subscribe(self._workspace_changed)
        self._set_state(IDLE)
        self.validate()

    @property
    def ds(self) -> Any:
        return self.workspace.dataset

    def _totals_typed(self) -> None:
        t = self.page.totals
        self.workspace.set_totals(t.epsilon.text().strip(), t.delta.text().strip())

    def _workspace_changed(self, what: frozenset[str]) -> None:
        if DATASET in what and self.ds is not None:
            self.page.ask.set_schema(self.ds.schema)
            self.refresh_budget()  # tells the workspace the ledger's budget: validated on that event
        else:
            self.validate()

    # -- ledger and dataset -------------------------------------------------------------------------
    @property
    def ledger_path(self) -> Path:
        """The ledger's file, without opening it (the default one until it is opened)."""
        return self._ledger.path if self._ledger is not None else default_path()

    @property
    def ledger(self) -> Ledger:
        if self._ledger is None:
            self._ledger = Ledger.open()
        return self._ledger

    def dataset_record(self):
        if self.ds is None:
            return None
        try:
            record = identify(self.ledger, self.ds).record  # by the rows' private fingerprint
        except LedgerError as exc:
            self.ledger_problem = str(exc)
            self.page.totals.error.show_error(self.ledger_problem)
            return None
        self.ledger_problem = None
        return record

    def refresh_budget(self) -> None:
        t = self.page.totals
        rec = self.dataset_record()
        t.set_new(rec is None)
        if rec is None:
            t.state.setText("")
            self.page.gauge.set_dataset(None, None, "The ledger cannot be used: see below."
                                        if self.ledger_problem else "Not yet in the ledger: nothing spent.")
            self.workspace.set_budget(None)
            return
        b = self.ledger.budget(self.ds.dataset_id)
        self.workspace.set_budget(b)
        t.epsilon.setText(amount(b.total_epsilon, grouped=False))
        t.delta.setText(amount(b.total_delta, grouped=False))
        runs = len(b.charges)
        t.state.setText(f"In the ledger since {rec.registered_at[:10]}: {count(runs, 'run')} charged.")
        self.page.gauge.set_dataset(
            float(b.spent_epsilon),
            float(b.total_epsilon),
            f"δ spent {amount(b.spent_delta)} of {amount(b.total_delta)}; "
            f"{count(runs, 'run')} across sessions.",
        )

    def _begin_raise(self) -> None:
        """Raise…: the explicit step, pre-filled with the current totals."""
        t = self.page.totals
        box = t.raise_box
        box.epsilon.setText(t.epsilon.text())
        box.delta.setText(t.delta.text())
        t.error.show_error(None)
        box.show()
        box.epsilon.setFocus()
        box.epsilon.selectAll()

    def _cancel_raise(self) -> None:
        self.page.totals.raise_box.hide()
        self.page.totals.error.show_error(None)

    def _apply_raise(self) -> None:
        t = self.page.totals
        box = t.raise_box
        try:
            self.ledger.raise_total(
                self.ds.dataset_id, box.epsilon.text().strip(), box.delta.text().strip() or None,
                note="raised in the GUI",
            )
        except ValueError as exc:
            t.error.show_error(str(exc))  # nothing changed; the confirmation stays open to correct it
            return
        log.info("dataset %s: total budget raised to ε = %s, δ = %s (logged in the ledger)",
                 self.ds.name, box.epsilon.text().strip(), box.delta.text().strip() or "unchanged")
        box.hide()
        t.error.show_error(None)
        self.refresh_budget()
        self.validate()

    # -- validation -----------------------------------------------------------------------------------
    def planned_queries(self) -> list[Any]:
        """The queue a run answers; none for a release (SparseProject answers queries later, from its
        file), so a long queue is neither validated, nor sent to the run process, for it."""
        return [] if self.workspace.info.input == RELEASE else self.workspace.queries

    def validate(self) -> None:
        """Run enabled or not, from the workspace's plan (built once per change, never here)."""
        if self.state in (RUNNING, PAUSED, DRAINED):
            return
        plan = self.workspace.plan
        problems = plan.by_field()
        if self.ds is None:
            problems = {"dataset": "open a dataset first", **problems}
        elif self.ledger_problem:
            problems = {"ledger": self.ledger_problem, **problems}
        self.problems = problems
        # An empty total is explained by the prompt above the field; only a wrong value is flagged here.
        typed = bool(self.page.totals.epsilon.text().strip())
        self.page.totals.error.show_error(problems.get("ledger")
                                          or (problems.get("budget") if typed else None))
        if self.state == IDLE:
            self._show_planned_cutoff()
        if problems:
            where = {"dataset": "Dataset", "ledger": "Ledger", "queries": "Queries", "budget": "Budget",
                     "mechanism": "Mechanism", "universe": "Mechanism, universe",
                     "release_out": "Mechanism, release file"}
            key, text = next(iter(problems.items()))
            self._set_runnable(False, f"Run is disabled: {text}")
            field = where.get(key) or (  # a message that already names its field is not prefixed twice
                "Mechanism" if text.startswith(label(key)) else f"Mechanism, {label(key)}")
            self.page.run_error.show_error(f"Run is disabled — {field}: {text}")
        else:
            self._set_runnable(True, RUN_TIP)
            self.page.run_error.show_error(self.outcome)  # how the last attempt went, until the next

    def _show_planned_cutoff(self) -> None:
        """Before any run, the gauge shows the cutoff the current settings would run with."""
        info = self.workspace.info
        self.page.gauge.set_counts(0, 0, self._planned_cutoff(), None if info.interactive else False)

    def _planned_cutoff(self) -> int | None:
        plan = self.workspace.plan
        if plan.cutoff is not None:
            return plan.cutoff
        value = self.workspace.entry("cutoff")  # the typed c while another parameter is invalid
        return int(value) if isinstance(value, int) and not isinstance(value, bool) else None

    def _set_runnable(self, enabled: bool, tip: str) -> None:
        """The one place the Run button's state is set, so the window's Run action can mirror it."""
        button = self.page.run_button
        if button.isEnabled() == enabled and button.toolTip() == tip:
            return
        button.setEnabled(enabled)
        button.setToolTip(tip)
        self.runnable_changed.emit(enabled, tip)

    # -- starting -------------------------------------------------------------------------------------
    def request_run(self) -> None:
        self.validate()
        if self.problems or self.state in (RUNNING, PAUSED, DRAINED):
            return
        plan = self.workspace.plan
        eps, dlt = plan.cost.epsilon, plan.cost.delta
        rec = self.dataset_record()
        if rec is None:
            t = self.page.totals
            remaining = (
                f"This new dataset will be recorded in the ledger with the total budget you declared, "
                f"ε = {t.epsilon.text().strip()}, δ = {t.delta.text().strip() or '0'} (it can later be "
                "raised, never lowered)"
            )
        else:
            b = self.ledger.budget(self.ds.dataset_id)
            remaining = (
                f"Remaining before this run: ε = {amount(b.remaining_epsilon)}, "
                f"δ = {amount(b.remaining_delta)}"
            )
        cost = f"ε = {exact(eps)}" + (f", δ = {exact(dlt)}" if dlt else "")
        info = self.workspace.info
        if info.input == RELEASE:
            spent_on = self.mech.linear.release_summary()
            when = "before the release is computed"
        else:
            n = len(self.workspace.queries)
            spent_on = (f"{count(n, 'planned query')} with {info.name}" if n else
                        f"{info.name} with no queries queued: every query will be one you ask on this page "
                        "(Next query), after seeing the answers before it")
            when = "before the first answer"
        self.page.confirm.text.setText(
            f"This run will spend {cost} of “{self.ds.name}”'s privacy budget on {spent_on}. {remaining}. "
            f"The spend is charged now, {when}, and is never refunded."
        )
        self.page.confirm.spend.setText(f"Spend {cost} and run")
        self.page.place_confirm()
        self.page.confirm.show()
        self.page.confirm.spend.setFocus()
        prepare()  # the run process starts importing while the curator reads the confirmation

    def confirm_run(self) -> bool:
        """Charge and start on the worker thread; False (reason shown inline) when refused here.

        An overspend found by the ledger itself (another process spent the budget meanwhile)
        arrives as the worker's ``refused`` signal; nothing is charged in either case.
        """
        self.page.confirm.hide()
        self.validate()
        if self.problems:
            return False
        plan = self.workspace.plan
        params, monotonic = self.workspace.run_inputs()
        try:
            if self.dataset_record() is None and register_or_bind(
                    self.page, self.ledger, self.ds, self.page.totals.epsilon.text().strip(),
                    self.page.totals.delta.text().strip() or "0") is None:
                self.outcome = "Run cancelled, nothing was charged: the dataset was not confirmed."
                self.page.run_error.show_error(self.outcome)
                return False
        except (ValueError, LedgerError) as exc:
            self.outcome = f"Run refused, nothing was charged: {exc}"
            self.page.run_error.show_error(self.outcome)
            return False
        queries = list(self.planned_queries())
        job = RunJob(str(self.ledger.path), self.ds, plan.mechanism_id, params, self.seed, monotonic,
                     pace=self.page.pace_rate())

        self.run, self.run_queries, self.adaptive = None, queries, []
        self.store.clear()
        self.store.reserve(len(queries))
        self.page.model.reset()
        self.page.chart.clear()
        if plan.info is not None and plan.info.input == HISTOGRAM:  # PMW: T bounds a free answer's error
            self.page.chart.set_pmw(float(params["threshold"]))
        else:
            self.page.chart.set_threshold(float(params["threshold"]) if "threshold" in params else None)
        self.planned_cutoff = plan.cutoff
        self.outcome = None
        self.page.run_error.show_error(None)
        w = RunWorker(job, queries)
        self.worker = w
        self.elapsed, self._working_since, self._idled = 0.0, None, False
        # Whatever exists now (the query list, the data, Qt wrappers) is left out of the cyclic
        # GC until the run ends: a full collection over a million queries holds the GUI thread
        # for ~100 ms. New objects are still collected.
        gc.freeze()
        self._set_state(RUNNING)
        self.timer.start()
        w.start()
        return True

    def _started(self, run) -> None:
        self.run = run
        g = run.record
        self.page.gauge.set_run(
            f"ε = {amount(g.epsilon)}, δ = {amount(g.delta)} — charged before the first answer, "
            "never refunded. "
            f"Noise: {'secure (OS CSPRNG)' if g.secure else 'seeded: reproducible, NOT secure'}."
        )
        log.info(
            "run %s started: %s, ε = %s, δ = %s, %d planned queries",
            run.id,
            g.mechanism_id,
            amount(g.epsilon),
            amount(g.delta),
            len(self.run_queries),
        )
        self.refresh_budget()

    def _refused(self, message: str) -> None:
        self.timer.stop()
        self._let_go()
        prefix = "Overspend refused" if "overspend" in message else "Run refused"
        self.outcome = f"{prefix}, nothing was charged: {message}"
        self.page.run_error.show_error(self.outcome)
        self._set_state(ENDED if self.run is not None else IDLE)
        self.refresh_budget()
        self.validate()

    # -- streaming ------------------------------------------------------------------------------------
    def _released(self, batch: ReleasedBatch) -> None:
        self.store.append(batch.index, batch.ref, batch.above, batch.value, batch.time, batch.free)
        if self.worker is not None:
            self.worker.acknowledge()

    def describe(self, ref: int) -> str:
        if ref >= 0:
            return self.run_queries[ref].describe() if ref < len(self.run_queries) else ""
        k = -1 - ref
        return ("(adaptive) " + self.adaptive[k].describe()) if k < len(self.adaptive) else ""

    def poll(self) -> None:
        """Drain the worker's events (timer), then refresh the views once for all of them."""
        w = self.worker
        if w is not None:
            handlers = {
                "started_run": self._started,
                "refused": self._refused,
                "released": self._released,
                "drained": self._drained,
                "ended": self._ended,
                "failed": self._failed,
                "adaptive_failed": self.page.ask.error.show_error,
            }
            for kind, payload in w.events():
                handler = handlers[kind]
                if payload is None:
                    handler()
                else:
                    handler(payload)
                if self.worker is not w:  # the run ended inside a handler
                    break
        now = time.perf_counter()
        if self.state in (RUNNING, PAUSED, DRAINED) and now - self._shown_at >= VIEW_SECONDS:
            self._shown_at = now
            self.refresh()

    def refresh(self) -> None:
        """Coalesced view update (timer): table rows, chart, gauge, status."""
        p, s = self.page, self.store
        p.model.refresh()
        if p.follow.isChecked() and p.model.rowCount():
            p.table.scrollToBottom()
        p.chart.update_from(*s.top_points(), s.n, *s.free_points())
        cutoff = self.run.cutoff if self.run is not None else self.planned_cutoff
        interactive = self.workspace.info.interactive
        p.gauge.set_counts(s.n_tops, s.n_bottoms, cutoff, None if interactive else False)
        p.counts.setText(f"{s.n:,} answered · ▲ ⊤ {s.n_tops:,} · ▽ ⊥ {s.n_bottoms:,}")
        self._status_text()

    def _status_text(self) -> None:
        s, n_plan = self.store, len(self.run_queries)
        if self.state == RUNNING:
            text = f"Running — {s.n:,} of {n_plan:,} planned queries answered."
        elif self.state == PAUSED:
            text = f"Paused after {count(s.n, 'answer')}. Step (F10) answers one more; Pause (F6) resumes."
        elif self.state == DRAINED and not n_plan and not s.n:
            text = "No queries were queued: ask one below (Next query), or Stop to end the run."
        elif self.state == DRAINED:
            planned = f"All {count(n_plan, 'planned query')}" if n_plan != 1 else "The planned query"
            text = f"{planned} answered. Ask another query below (adaptive), or Stop to end the run."
        elif (self.state == ENDED and self.run is not None
              and mechanisms.info(self.run.record.mechanism_id).input == RELEASE):
            text = (f"Release {'written' if self.run.status == 'finished' else self.run.status} "
                    f"in {self.elapsed:.2f} s: no query is answered in this run; anyone answers count "
                    "queries from the file later (Tools ▸ Answer from a release file…).")
        elif self.state == ENDED and self.run is not None:
            status = self.run.status
            ending = ENDINGS.get(status, status)
            if status in ("stopped", "interrupted") and s.n < n_plan:  # cut short: how far it got
                text = f"{ending} after {s.n:,} of {count(n_plan, 'planned query')} — {s.n_tops:,} ⊤"
            elif not s.n:
                text = f"{ENDINGS['stopped'] if status == 'finished' else ending} — no query was asked"
            else:
                text = f"{ending} — {count(s.n, 'answer')}, {s.n_tops:,} ⊤"
            if status == "halted":
                text += f" (c = {self.run.cutoff:,})"
            text += f"; running time {self.elapsed:.2f} s" + (" (pauses left out)." if self._idled else ".")
        else:
            text = "Ready: choose parameters and queries, then Run (F5)."
        if text != self.page.status.text():
            self.page.status.setText(text)
            self.status_changed.emit(text)

    def _drained(self) -> None:
        self._set_state(DRAINED)
        self.refresh()

    def _ended(self, status: str) -> None:
        self.timer.stop()
        self._let_go()
        if self.run is not None:
            log.info("run %s ended: %s after %d answers", self.run.id, status, self.store.n)
        self._set_state(ENDED)
        self.refresh()
        self.refresh_budget()
        self.validate()

    def _failed(self, message: str) -> None:
        self.outcome = f"The run stopped on an error (marked interrupted; the budget stays spent): {message}"
        self.page.run_error.show_error(self.outcome)
        if self.run is not None and self.worker is not None and self.worker.wait(2000):
            # The run process died without ending its run (killed): record that here.
            with contextlib.suppress(ValueError, LedgerError):
                if self.ledger.run(self.run.id).status == "running":
                    self.ledger.finish_run(self.run.id, "interrupted")
        self._ended("interrupted")

    def _let_go(self) -> None:
        """The run process has sent its last message and exits by itself: never wait for it here."""
        if self.worker is not None:
            self.worker.close()
            gc.unfreeze()
        self.worker = None

    # -- controls -------------------------------------------------------------------------------------
    def _pace_changed(self) -> None:
        """A new pace applies at once to a live run (the next batch comes at the new rate)."""
        if self.worker is not None:
            self.worker.set_pace(self.page.pace_rate())

    def toggle_pause(self) -> None:
        if self.worker is None:
            return
        if self.state == PAUSED:
            self.worker.resume()
            self._set_state(RUNNING)
        elif self.state == RUNNING:
            self.worker.pause()
            self._set_state(PAUSED)

    def step(self) -> None:
        if self.worker is not None and self.state in (RUNNING, PAUSED):
            self.worker.step()
            self._set_state(PAUSED)

    def stop(self) -> None:
        if self.worker is None:
            return
        if self.state == DRAINED:
            self.worker.finish()
        else:
            self.worker.stop()

    def ask(self, query) -> None:
        if self.worker is None or self.state not in (RUNNING, PAUSED, DRAINED):
            self.page.ask.error.show_error("Start a run first: adaptive queries join a running session.")
            return
        self.adaptive.append(query)
        self.page.ask.error.show_error(None)
        self.worker.ask(query)

    def shutdown(self) -> None:
        """Window closing: end the run cleanly (finished or stopped) and wait for the worker."""
        if self.worker is not None:
            if self.state == DRAINED:
                self.worker.finish()
            else:
                self.worker.stop()
            if not self.worker.wait(5000):
                self.worker.kill()
            self._let_go()
        discard_prepared()
        if self._ledger is not None:
            self._ledger.close()
            self._ledger = None

    def _filter(self, on: bool) -> None:
        self.page.model.set_only_above(on)

    def _clock(self, working: bool) -> None:
        """Count running time only: a stretch of RUNNING is added when it ends (pause, drain, end)."""
        now = self.clock()
        if working and self._working_since is None:
            self._working_since = now
        elif not working and self._working_since is not None:
            self.elapsed += now - self._working_since
            self._working_since = None

    def _set_state(self, state: str) -> None:
        self._clock(working=state == RUNNING)
        self._idled = self._idled or state in (PAUSED, DRAINED)
        self.state = state
        p = self.page
        live = state in (RUNNING, PAUSED, DRAINED)
        p.pause_button.setEnabled(state in (RUNNING, PAUSED))
        p.pause_button.setText("Resume" if state == PAUSED else "Pause")
        p.pause_button.setIcon(p.style().standardIcon(ICONS["resume" if state == PAUSED else "pause"]))
        p.step_button.setEnabled(state in (RUNNING, PAUSED))
        p.stop_button.setEnabled(live)
        p.ask.action.setEnabled(live)
        if live:
            self._set_runnable(False, "Run is disabled: a run is in progress (Stop it first, Shift+F5)")
        self._status_text()
        self.state_changed.emit(state)
