"""A run in the caller's own process and thread: the launcher of a headless run (``svtgui-cli run``).

The window starts a run through :meth:`~svtgui.app.runs.model.RunModel.confirm`, whose launcher
hands the job to a run process (:mod:`.worker`) so the GUI thread never waits. A terminal has no
GUI thread to keep free: :func:`in_process_launcher` gives the same model a worker that charges
(:func:`~svtgui.app.runs.runner.start_run`, with the model's plan) in :meth:`InProcessWorker.start`,
synchronously, so anything that refuses the charge (``BudgetExceeded``, a ``LedgerError``) reaches
the caller as the exception it is. The caller then streams :attr:`InProcessWorker.run` itself,
printing each committed batch; :meth:`InProcessWorker.events` tells the model that the run started
and, once it has ended, how, so the model's state machine follows a headless run as it follows the
window's.
"""

from __future__ import annotations

import numpy as np

from svtgui.app.runs.model import Launcher
from svtgui.app.runs.process import Event, RunJob, RunView, to_arrays
from svtgui.app.runs.runner import Run, start_run
from svtgui.data.queries import Query
from svtgui.ledger import Ledger


class InProcessWorker:
    """The model's handle on a run charged and streamed in this thread (no process, no relay task).

    Pausing, stepping and pacing are the caller's: it pulls each batch from :attr:`run` when it wants
    it, so the requests that steer a run process are no-ops here; stop, finish and the outcome are
    the run's own."""

    def __init__(self, ledger: Ledger, job: RunJob, queries: list[Query]) -> None:
        self._ledger = ledger
        self._job = job
        self._queries = queries
        self.run: Run | None = None  # charged by start()
        self._told: set[str] = set()
        self._answers: list[Event] = []  # adaptive queries' outcomes, not yet told
        self._asked = 0  # adaptive queries answered

    def start(self) -> None:
        """Charge (or raise what refused the charge: nothing was charged then) and hold the run."""
        job = self._job
        self.run = start_run(self._ledger, job.dataset, self._queries, job.mechanism_id, job.params,
                             seed=job.seed, monotonic=job.monotonic, domains=job.domains, plan=job.plan)
        self._queries = []  # the run holds them

    def events(self) -> list[Event]:
        """``started_run`` once charged, each adaptive query's outcome, ``ended`` once the run has ended."""
        run = self.run
        if run is None:
            return []
        out: list[Event] = []
        if "started_run" not in self._told:
            out.append(("started_run", RunView.of(run)))
        out += self._answers
        self._answers = []
        if run.finished and "ended" not in self._told:
            out.append(("ended", run.status))
        self._told.update(kind for kind, _ in out)
        return out

    def stop(self) -> None:
        if self.run is not None:
            self.run.stop()

    def finish(self) -> None:
        if self.run is not None:
            self.run.finish()

    def wait(self, ms: int) -> bool:
        """Nothing runs elsewhere: there is never anything to wait for."""
        return True

    def close(self) -> None:
        """Nothing to release: the run ended in the ledger, and the caller holds it."""

    def kill(self) -> None:
        """Nothing to kill: the run ends with the caller's hold on it."""

    def acknowledge(self) -> None:
        """No back-pressure: the caller pulls each batch itself."""

    def pause(self) -> None:
        """The caller paces the run: it pulls batches when it wants them."""

    def resume(self) -> None:
        """The caller paces the run: it pulls batches when it wants them."""

    def step(self) -> None:
        """The caller paces the run: it pulls batches when it wants them."""

    def set_pace(self, rate: float | None) -> None:
        """The caller paces the run: it pulls batches when it wants them."""

    def ask(self, query: Query) -> None:
        """An adaptive query, answered now (committed before it returns), told as the run process tells
        it: the released row, with its reference -k for the k-th adaptive query, or why it was refused."""
        if self.run is None:
            return
        try:
            batch = self.run.submit_query(query)
        except ValueError as exc:
            self._answers.append(("adaptive_failed", str(exc)))
            return
        self._asked += 1
        self._answers.append(("released", to_arrays(batch, np.array([-self._asked], dtype=np.int64))))


def in_process_launcher(ledger: Ledger) -> Launcher:
    """A :class:`~svtgui.app.runs.model.Launcher` whose runs are charged on ``ledger`` in this thread."""
    return Launcher(worker=lambda job, queries: InProcessWorker(ledger, job, queries),
                    prepare=_nothing, discard=_nothing)


def _nothing() -> None:
    """No run process to start ahead of the job, or to let go of."""
