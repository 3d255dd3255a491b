"""The run half of the window as one Qt-free object: the open dataset's run, budget and status.

A :class:`RunModel` follows the :class:`~svtgui.app.workspace.Workspace` (the set-up half) the
way views follow a model in napari: it holds the dataset's ledger standing
(:class:`~svtgui.app.runs.dataset_budget.DatasetBudget`), the confirmation facts, the run's state
(:class:`~svtgui.app.runs.state.RunState`) and running-time clock, the worker streaming the run,
the released rows (:class:`~svtgui.app.runs.results.ResultStore`), the last refusal and the status
line — and tells its subscribers what changed. The Run page, the window's actions and the
History window read from it; none of them holds run or budget logic of its own, so all of it is
reachable by unit tests without a window.

Per dataset: opening another dataset starts the model over for it (no rows, no refusal, no
declared total of the previous dataset carry over), with that dataset's budget read from the
ledger. The window refuses to open a dataset while a run is live, so a run never changes dataset.

The run process's messages are drained by :meth:`RunModel.poll`, which the window calls from a
timer (30 Hz): the worker never calls back (a Qt signal emitted per batch leaked references in
PySide6 6.12, and draining coalesces), and the views are told about new rows at most ten times
per second (a table repaint costs ~8 ms).
"""

from __future__ import annotations

import contextlib
import gc
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from svtgui.app import gate
from svtgui.app.domains import reminder
from svtgui.app.events import Emitter, Listener
from svtgui.app.numbers import amount
from svtgui.app.params import Params
from svtgui.app.runs.confirmation import KNOWN, NEW, SEPARATE, SHARED, Confirmation
from svtgui.app.runs.dataset_budget import DIFFERENT, SAME, DatasetBudget
from svtgui.app.runs.results import ResultStore
from svtgui.app.runs.runner import request_for
from svtgui.app.runs.state import RunClock, RunState
from svtgui.app.runs.status import StatusFacts, status_line
from svtgui.app.runs.worker import Event, ReleasedBatch, RunJob, RunView, RunWorker, discard_prepared, prepare
from svtgui.app.workspace import DATASET, Workspace, label
from svtgui.core import mechanisms
from svtgui.core.mechanisms import HISTOGRAM, RELEASE
from svtgui.core.wording import count
from svtgui.data.queries import Query
from svtgui.ledger import DatasetRecord, Ledger, LedgerError

log = logging.getLogger("svtgui.app.runs")

# What changed, as told to subscribers.
STATE, STATUS, ROWS, BUDGET, RUNNABLE = "state", "status", "rows", "budget", "runnable"
CLEARED, STARTED, ADAPTIVE, OUTCOME = "cleared", "started", "adaptive", "outcome"

POLL_SECONDS = 0.033  # how often the window drains the run process's messages (and acknowledges)
VIEW_SECONDS = 0.1  # table, chart, gauge and status follow at 10 Hz
RUN_TIP = "Check the spend, then start answering (F5)"
LIVE_TIP = "Run is disabled: a run is in progress (Stop it first, Shift+F5)"
FIELDS = {"dataset": "Dataset", "ledger": "Ledger", "queries": "Queries", "budget": "Budget",
          "mechanism": "Mechanism", "universe": "Mechanism, universe",
          "release_out": "Mechanism, release file", "domains": "Queries, domains"}


class RunHandle(Protocol):
    """What the model asks of the worker that carries a run: the window's run process
    (:class:`~svtgui.app.runs.worker.RunWorker`), a headless run in the caller's thread
    (:class:`~svtgui.app.runs.in_process.InProcessWorker`), or a stand-in in unit tests."""

    def start(self) -> None: ...
    def events(self) -> list[Event]: ...
    def acknowledge(self) -> None: ...
    def pause(self) -> None: ...
    def resume(self) -> None: ...
    def step(self) -> None: ...
    def stop(self) -> None: ...
    def finish(self) -> None: ...
    def set_pace(self, rate: float | None) -> None: ...
    def ask(self, query: Query) -> None: ...
    def wait(self, ms: int) -> bool: ...
    def close(self) -> None: ...
    def kill(self) -> None: ...


@dataclass(frozen=True)
class Launcher:
    """How a run is started: a run process (the window's), in the caller's thread (the CLI's:
    :func:`~svtgui.app.runs.in_process.in_process_launcher`), or a stand-in in unit tests."""

    worker: Callable[[RunJob, list[Query]], RunHandle] = RunWorker
    prepare: Callable[[], None] = prepare  # start a run process while the confirmation shows
    discard: Callable[[], None] = discard_prepared  # let a prepared, unused one exit


class RunModel:
    """The open dataset's run: budget, confirmation, state machine, released rows, status; events."""

    def __init__(self, workspace: Workspace, open_ledger: Callable[[], Ledger] = Ledger.open,
                 launcher: Launcher | None = None) -> None:
        self.workspace = workspace
        self.launcher = launcher or Launcher()
        self.budget = DatasetBudget(workspace, open_ledger)
        self.store = ResultStore()
        self.events = Emitter()
        self.state = RunState.IDLE
        self._clock = RunClock()
        self.worker: RunHandle | None = None
        self.run: RunView | None = None
        self.run_queries: list[Query] = []
        self.adaptive: list[Query] = []
        self.params: Params = {}  # the parameters of the run being shown
        self.pace: float | None = None  # queries per second (None: as fast as possible)
        self.planned_cutoff: int | None = None  # the cutoff of the run being started, until it reports
        self.outcome: str | None = None  # a refused or failed run's message, kept until the next run
        self.refused = False  # the last attempt charged nothing
        self.adaptive_error: str | None = None  # why the last adaptive query was refused
        self.raise_entries = {"epsilon": "", "delta": ""}  # the new totals typed in the Raise box
        self._shown_at = 0.0
        workspace.subscribe(self._workspace_changed)

    def subscribe(self, listener: Listener) -> None:
        """Call ``listener(what_changed)`` after every change of the run model."""
        self.events.subscribe(listener)

    # -- clock --------------------------------------------------------------------------------------
    @property
    def clock(self) -> Callable[[], float]:
        """The clock of running time (tests make a pause last an hour at once)."""
        return self._clock.now

    @clock.setter
    def clock(self, now: Callable[[], float]) -> None:
        self._clock.now = now

    @property
    def elapsed(self) -> float:
        """Seconds of running time of the current run, pauses and waits left out."""
        return self._clock.elapsed

    # -- the ledger -----------------------------------------------------------------------------------
    @property
    def ledger(self) -> Ledger:
        """The window's ledger connection (``LedgerError`` when it cannot be opened)."""
        return self.budget.ledger

    def refresh_budget(self) -> None:
        """After a charge from any path (a run, a recipe, a SparseProject release, an export): the
        dataset's budget is read from the ledger again and every view follows."""
        self.budget.refresh()
        self.events.emit(BUDGET, RUNNABLE, STATUS)

    def set_raise_entry(self, name: str, text: str) -> None:
        """The new total ``"epsilon"`` or ``"delta"`` as typed in the Raise box (nothing changes yet)."""
        if name not in self.raise_entries:
            raise ValueError(f"a raise takes 'epsilon' or 'delta', not {name!r}")
        self.raise_entries[name] = text

    def raise_total(self) -> str | None:
        """Raise the dataset's total to the typed entries (logged); the reason it was refused (nothing
        changed), or None."""
        epsilon, delta = self.raise_entries["epsilon"], self.raise_entries["delta"]
        try:
            self.budget.raise_total(epsilon, delta)
        except (ValueError, LedgerError) as exc:
            return str(exc)
        log.info("dataset %s: total budget raised to ε = %s, δ = %s (logged in the ledger)",
                 self.workspace.dataset.name, epsilon.strip(), delta.strip() or "unchanged")
        self.events.emit(BUDGET, RUNNABLE, STATUS)
        return None

    def run_facts(self) -> dict[str, Any]:
        """What the current run recorded besides its rows (PMW's n̂, a release file); {} without a run.
        A JSON object as the ledger keeps it (``Any``: each fact is the JSON value it was recorded as)."""
        if self.run is None:
            return {}
        try:
            return self.ledger.facts(self.run.id)
        except LedgerError:
            return {}

    # -- whether a run may start -----------------------------------------------------------------
    @property
    def problems(self) -> dict[str, str]:
        """What keeps Run disabled, by field, from the workspace's plan (built once per change)."""
        problems = self.workspace.plan.by_field()
        if self.workspace.dataset is None:
            problems = {"dataset": "open a dataset first", **problems}
        elif self.budget.error is not None:
            problems = {"ledger": self.budget.error, **problems}
        return problems

    def runnable(self) -> tuple[bool, str]:
        """(Run enabled, the tooltip that says why or why not)."""
        if self.state.live:
            return False, LIVE_TIP
        problems = self.problems
        if problems:
            return False, f"Run is disabled: {next(iter(problems.values()))}"
        return True, RUN_TIP

    def error_line(self) -> str | None:
        """The line under the run controls: why the last attempt charged nothing (until the next one),
        else why Run is disabled, else how the last run went."""
        problems = {} if self.state.live or self.refused else self.problems
        if not problems:
            return self.outcome
        key, text = next(iter(problems.items()))
        field = FIELDS.get(key) or (  # a message that already names its field is not prefixed twice
            "Mechanism" if text.startswith(label(key)) else f"Mechanism, {label(key)}")
        return f"Run is disabled — {field}: {text}"

    def totals_error(self) -> str | None:
        """Next to the declared totals: the ledger's trouble, or a typed total that is wrong (an empty
        one is explained by the prompt above the fields)."""
        if self.budget.error is not None:
            return self.budget.error
        typed = bool(self.workspace.totals[0].strip())
        return self.problems.get("budget") if typed and not self.budget.known else None

    def gauge_counts(self) -> tuple[int, int, int | None, bool | None]:
        """(⊤, ⊥, cutoff, halted) for the cutoff bar; before a run, the cutoff the set-up would use."""
        s = self.store
        if self.state == RunState.IDLE:
            cutoff = self._planned_cutoff()
        else:
            cutoff = self.run.cutoff if self.run is not None else self.planned_cutoff
        return s.n_tops, s.n_bottoms, cutoff, None if self.workspace.info.interactive else False

    def _planned_cutoff(self) -> int | None:
        plan = self.workspace.plan
        if plan.cutoff is not None:
            return plan.cutoff
        value = self.workspace.entry("cutoff")  # the typed c while another parameter is invalid
        return int(value) if isinstance(value, int) and not isinstance(value, bool) else None

    @property
    def status(self) -> str:
        """The run's one-line status (the Run page and the window's status bar)."""
        s, run = self.store, self.run
        release = run is not None and mechanisms.info(run.record.mechanism_id).input == RELEASE
        problems = self.problems if self.state == RunState.IDLE else {}
        return status_line(StatusFacts(
            self.state, s.n, s.n_tops, len(self.run_queries), run.status if run is not None else None,
            release, run.cutoff if run is not None else None, self.elapsed, self._clock.idled,
            next(iter(problems.values()), None), self.refused))

    def progress(self) -> tuple[int, int, float | None] | None:
        """(answered, planned, seconds left at the chosen pace) while planned queries stream; None
        otherwise. Seconds left only for a paced run (an unpaced one is too quick to need it)."""
        planned = len(self.run_queries)
        if not self.state.steppable or not planned:
            return None
        answered = min(self.store.n, planned)
        left = (planned - answered) / self.pace if self.pace else None
        return answered, planned, left

    def describe(self, ref: int) -> str:
        """The text of a released row's query, from its ``ResultStore.ref``."""
        if ref >= 0:
            return self.run_queries[ref].describe() if ref < len(self.run_queries) else ""
        k = -1 - ref
        return ("(adaptive) " + self.adaptive[k].describe()) if k < len(self.adaptive) else ""

    def planned_queries(self) -> list[Query]:
        """The queue a run answers; none for a release (SparseProject answers queries later, from its
        file), so a long queue is neither validated, nor sent to the run process, for it."""
        return [] if self.workspace.info.input == RELEASE else self.workspace.queries

    # -- starting -----------------------------------------------------------------------------------
    def identity_question(self) -> DatasetRecord | None:
        """The known dataset (a ``DatasetRecord``) these new rows look like, while the curator has not
        said whether they are the same dataset; asked before the confirmation is worded."""
        return self.budget.lookalike

    def choose_identity(self, same: bool | None) -> None:
        """The curator's answer: the same dataset (shares its budget), a different one, or None."""
        self.budget.choose(None if same is None else SAME if same else DIFFERENT)
        self.events.emit(BUDGET, RUNNABLE, STATUS)

    def request_run(self) -> Confirmation | None:
        """The confirmation's facts, when a run may start now (None: it may not; the reason is in
        :meth:`error_line`, or the dataset's identity must be settled first). Charges nothing; the
        run process starts importing meanwhile."""
        if self.problems or self.state.live or self.identity_question() is not None:
            return None
        ws, plan, budget = self.workspace, self.workspace.plan, self.budget
        info = ws.info
        if info.input == RELEASE:
            lp = plan.linear
            size = lp.universe.size if lp is not None else 0
            cells = f"{size:,} cells" if size else "the chosen columns"
            spent_on = (f"one SparseProject release: a noisy projection of the histogram over {cells} "
                        f"({' × '.join(lp.specs if lp is not None else ())}), written to "
                        f"{lp.release_out if lp is not None else ''}. No queries are answered now: anyone "
                        "answers count queries from that file later, without the data, and that costs "
                        "nothing more")
            when = "before the release is computed"
        else:
            n = len(ws.queries)
            spent_on = (f"{count(n, 'planned query')} with {info.name}" if n else
                        f"{info.name} with no queries queued: every query will be one you ask on this page "
                        "(Next query), after seeing the answers before it")
            when = "before the first answer"
        choice = budget.choice
        whose = (KNOWN if budget.known else NEW if choice is None
                 else SHARED if choice.choice == SAME else SEPARATE)
        epsilon, delta = ws.totals
        confirmation = Confirmation(
            ws.dataset.name, plan.cost.epsilon, plan.cost.delta, spent_on, when, whose,
            remaining=budget.remaining(), declared=(epsilon.strip(), delta.strip() or "0"),
            shared_with=choice.known.dataset_id if choice is not None else None,
            notes=tuple(filter(None, [reminder(plan.domains_from_data)])))  # allowed: NOT private
        self.launcher.prepare()  # the run process starts importing while the curator reads the confirmation
        return confirmation

    def confirm(self) -> bool:
        """Charge and start (the run process charges, or refuses an overspend, before any answer).
        False, with the reason in :meth:`error_line`, when refused here; nothing is charged then.
        An in-process launcher (the CLI's) charges before this returns, and raises what refused the
        charge (``BudgetExceeded``, ``LedgerError``): the model stays as it was, nothing charged."""
        if self.state.live:
            return False
        if self.problems:
            self.events.emit(OUTCOME, RUNNABLE, STATUS)
            return False
        plan = self.workspace.plan
        params, monotonic = self.workspace.run_inputs()
        try:  # the gate's checks first: a refused run registers nothing (the run process checks again)
            gate.screen(self.ledger, request_for(self.workspace.dataset, self.planned_queries(), plan,
                                                 seed=self.workspace.options.seed))
            self.budget.register_or_bind()
        except (ValueError, LedgerError) as exc:
            self._clear_run()
            self._refuse(f"Run refused, nothing was charged: {exc}")
            return False
        queries = list(self.planned_queries())
        job = RunJob(str(self.ledger.path), self.workspace.dataset, plan.mechanism_id, params,
                     self.workspace.options.seed, monotonic, pace=self.pace, domains=self.workspace.domains(),
                     plan=plan)
        self._clear_run(queries, params, plan.cutoff)
        self.store.reserve(len(queries))
        worker = self.launcher.worker(job, queries)
        # Whatever exists now (the query list, the data, Qt wrappers) is left out of the cyclic GC
        # until the run ends: a full collection over a million queries holds the GUI thread for
        # ~100 ms. New objects are still collected.
        gc.freeze()
        try:  # an in-process launcher charges here: what refuses the charge goes to the caller as it is
            worker.start()
        except BaseException:
            gc.unfreeze()
            raise
        self.worker = worker
        self._set_state(RunState.RUNNING)
        return True

    @property
    def histogram(self) -> bool:
        """The run shown answers from a synthetic histogram (PMW: free and paid answers)."""
        mechanism_id = self.run.record.mechanism_id if self.run is not None else self.workspace.mechanism_id
        return mechanisms.info(mechanism_id).input == HISTOGRAM

    # -- the run process's messages ---------------------------------------------------------------
    def poll(self) -> None:
        """Drain the worker's messages (the window's timer), then tell the views at most at 10 Hz."""
        w = self.worker
        if w is not None:
            handlers: dict[str, Callable[..., None]] = {
                "started_run": self._started, "refused": self._refused, "released": self._released,
                "drained": self._drained, "ended": self._ended, "failed": self._failed,
                "adaptive_failed": self._adaptive_failed,
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
        if self.state.live and now - self._shown_at >= VIEW_SECONDS:
            self._shown_at = now
            self.events.emit(ROWS, STATUS)

    def _started(self, run: RunView) -> None:
        self.run = run
        g = run.record
        log.info("run %s started: %s, ε = %s, δ = %s, %d planned queries", run.id, g.mechanism_id,
                 amount(g.epsilon), amount(g.delta), len(self.run_queries))
        self.budget.refresh()
        self.events.emit(STARTED, BUDGET)

    def charged_line(self) -> str:
        """What the current run was charged (once the ledger has committed it)."""
        if self.run is None:
            return "No run yet." if not self.refused else "No run: nothing was charged."
        g = self.run.record
        noise = "secure (OS CSPRNG)" if g.secure else "seeded: reproducible, NOT secure"
        return (f"ε = {amount(g.epsilon)}, δ = {amount(g.delta)} — charged before the first answer, never "
                f"refunded. Noise: {noise}.")

    def _refused(self, message: str) -> None:
        self._let_go()
        prefix = "Overspend refused" if "overspend" in message else "Run refused"
        self._refuse(f"{prefix}, nothing was charged: {message}")

    def _refuse(self, outcome: str) -> None:
        self.outcome, self.refused = outcome, self.run is None
        self._set_state(RunState.ENDED if self.run is not None else RunState.IDLE)
        self.budget.refresh()
        self.events.emit(OUTCOME, BUDGET, STARTED, RUNNABLE, STATUS)

    def _released(self, batch: ReleasedBatch) -> None:
        self.store.append_batch(batch)
        if self.worker is not None:
            self.worker.acknowledge()

    def _drained(self) -> None:
        self._set_state(RunState.DRAINED)
        self.events.emit(ROWS)

    def _ended(self, status: str) -> None:
        self._let_go()
        if self.run is not None:
            self.run.status = status
            log.info("run %s ended: %s after %d answers", self.run.id, status, self.store.n)
        self._set_state(RunState.ENDED)
        self.budget.refresh()
        self.events.emit(ROWS, BUDGET, RUNNABLE, OUTCOME, STATUS)

    def _failed(self, message: str) -> None:
        self.outcome = f"The run stopped on an error (marked interrupted; the budget stays spent): {message}"
        if self.run is not None and self.worker is not None and self.worker.wait(2000):
            # The run process died without ending its run (killed): record that here.
            with contextlib.suppress(ValueError, LedgerError):
                if self.ledger.run(self.run.id).status == "running":
                    self.ledger.finish_run(self.run.id, "interrupted")
        self._ended("interrupted")

    def _adaptive_failed(self, message: str) -> None:
        self.adaptive_error = message
        self.events.emit(ADAPTIVE)

    def _let_go(self) -> None:
        """The run process has sent its last message and exits by itself: never wait for it here."""
        if self.worker is not None:
            self.worker.close()
            gc.unfreeze()
        self.worker = None

    # -- controls -----------------------------------------------------------------------------------
    def set_pace(self, rate: float | None) -> None:
        """A new pace applies at once to a live run (the next batch comes at the new rate)."""
        self.pace = rate
        if self.worker is not None:
            self.worker.set_pace(rate)

    def toggle_pause(self) -> None:
        if self.worker is None:
            return
        if self.state == RunState.PAUSED:
            self.worker.resume()
            self._set_state(RunState.RUNNING)
        elif self.state == RunState.RUNNING:
            self.worker.pause()
            self._set_state(RunState.PAUSED)

    def step(self) -> None:
        if self.worker is not None and self.state.steppable:
            self.worker.step()
            self._set_state(RunState.PAUSED)

    def stop(self) -> None:
        """End the run (Stop): at once, or after the queued work once the planned queries are done."""
        if self.worker is None:
            return
        if self.state == RunState.DRAINED:
            self.worker.finish()
        else:
            self.worker.stop()

    def ask(self, query: Query) -> bool:
        """Queue an adaptive query in the live run; False (and :attr:`adaptive_error`) without one."""
        if self.worker is None or not self.state.live:
            self.adaptive_error = "Start a run first: adaptive queries join a running session."
            self.events.emit(ADAPTIVE)
            return False
        self.adaptive.append(query)
        self.adaptive_error = None
        self.events.emit(ADAPTIVE)
        self.worker.ask(query)
        return True

    def shutdown(self) -> None:
        """Window closing: end the run cleanly (finished or stopped), wait for it, close the ledger."""
        if self.worker is not None:
            self.stop()
            if not self.worker.wait(5000):
                self.worker.kill()
            self._let_go()
        self.launcher.discard()
        self.budget.close()

    # -- state --------------------------------------------------------------------------------------
    def _set_state(self, state: RunState) -> None:
        self._clock.enter(state)
        self.state = state
        self.events.emit(STATE, RUNNABLE, STATUS)

    def _clear_run(self, queries: list[Query] | None = None, params: Params | None = None,
                   cutoff: int | None = None) -> None:
        """Nothing of the previous run stays on view: rows, its charge, its refusal, adaptive errors;
        the run about to start (its queries, parameters and cutoff) replaces it."""
        self.store.clear()
        self.run, self.run_queries, self.adaptive, self.params = None, queries or [], [], params or {}
        self.planned_cutoff, self.outcome, self.refused, self.adaptive_error = cutoff, None, False, None
        self._clock.reset()
        self.events.emit(CLEARED, STARTED, ADAPTIVE, OUTCOME, ROWS)

    def _workspace_changed(self, what: frozenset[str]) -> None:
        if DATASET in what and not self.state.live:  # another dataset: start over for it
            self.budget.forget()
            self._clear_run()
            self.state = RunState.IDLE
            self.budget.refresh()  # tells the workspace the ledger's budget (its event comes back here)
            self.events.emit(STATE, BUDGET, RUNNABLE, STATUS)
        else:
            self.events.emit(RUNNABLE, STATUS, *((ROWS,) if self.state == RunState.IDLE else ()),
                             *((BUDGET,) if "budget" in what or "totals" in what else ()))
