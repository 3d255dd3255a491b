"""The run loop of every mechanism run, Qt-free: the window's run process (:mod:`.process`)
and the CLI's run in its own thread (:mod:`.in_process`), both started by the run model.

Order of events, which is the whole point of this module:

1. :func:`start_run` validates *everything* it can before spending anything: the mechanism id and
   its parameters, every query against the dataset's schema, the sensitivity Δ (from the query
   definitions and declared public bounds, never from the data). A bad input raises ``ValueError``
   and nothing is charged.
2. The run's full guarantee is charged in one committed ledger transaction (``BudgetExceeded``
   when it does not fit; nothing charged).
3. :meth:`Run.next_batch` evaluates the next queries (vectorised), feeds the mechanism, commits
   the responses to the ledger in one transaction, and only *then* returns them. Whatever a caller
   shows is therefore already in the ledger, even if the process is killed a microsecond later.

Secrets (true answers, noise, the noisy threshold) stay inside the mechanism and local variables;
a batch carries only what is released: the mechanism's arrays become one
:class:`~svtgui.ledger.ResponseBatch` (the ⊥ mask applied as it is made), which the ledger commits
and the caller then gets, unchanged.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Protocol

import numpy as np

from svtgui.app import gate
from svtgui.app.domains import DECLARED, Domains, gate_extra, problem, recorded, release_notes
from svtgui.app.params import Params
from svtgui.app.plan import Plan, build, describe_query, lattice_problem, public_rows, validate_query
from svtgui.app.run_plans import PLAN_FACT, PlanDocument, mechanism_plan
from svtgui.app.runs import linear
from svtgui.core import mechanisms
from svtgui.core.linear import LinearQuery
from svtgui.core.mechanisms import PRIVATE, Batch, Mechanism, SelectionMechanism, StreamingMechanism
from svtgui.core.mechanisms.base import Response
from svtgui.data.dataset import Dataset
from svtgui.data.schema import Schema
from svtgui.ledger import FINISHED, HALTED, INTERRUPTED, STOPPED, Ledger, ResponseBatch, RunRecord


class QueryLike(Protocol):
    """What the runner needs of a query (``svtgui.data.queries.Query`` provides it)."""

    @property
    def monotonic(self) -> bool: ...

    @property
    def integer(self) -> bool: ...

    def sensitivity(self, schema: Schema) -> float: ...

    def magnitude(self, schema: Schema, n: int) -> float: ...

    def describe(self) -> str: ...


Evaluator = Callable[[Dataset, Sequence[QueryLike]], np.ndarray]


def _default_evaluate(dataset: Dataset, queries: Sequence[QueryLike]) -> np.ndarray:
    from svtgui.data.evaluate import evaluate  # the data layer; imported late so tests can inject

    return evaluate(dataset, list(queries))


def plan_run(dataset: Dataset, queries: Sequence[QueryLike], mechanism_id: str, params: Params,
             *, monotonic: bool = False, adaptive: bool = True, domains: Domains = DECLARED) -> Plan:
    """Validate a run without charging anything: :func:`svtgui.app.plan.build`, raising its first
    problem as a :class:`~svtgui.app.plan.PlanError` (a ``ValueError`` whose ``param`` names the field).

    * ``params`` holds the catalogue parameters the user chose (epsilon, delta, threshold, cutoff, …);
      ``sensitivity`` may be given to leave room for adaptive queries, but never below what the
      planned queries need.
    * ``integer`` is set when every planned query is integer-valued; ``monotonic`` only when the
      user asked *and* every query is monotonic (and neighbours are add/remove-one).
    * ``pmw`` and ``sparse_project`` also take the run parameters of :mod:`svtgui.app.runs.linear`
      (``universe``; ``release_out`` for SparseProject); their neighbouring notion is the schema's.
    * ``adaptive=False`` (the CLI) refuses an empty query list: there would be nothing to answer.
    * ``domains``: the domains read off the data the query list brings, and the curator's override
      (:mod:`svtgui.app.domains`; without it a release over such a domain is refused).
    """
    plan = build(dataset, queries, mechanism_id, params, monotonic=monotonic, adaptive=adaptive,
                 domains=domains)
    plan.raise_if_invalid()
    return plan


def _create(mechanism_id: str, params: Params, seed: int | None) -> Mechanism:
    rng = mechanisms.secure() if seed is None else mechanisms.seeded(_seed(seed))
    m = mechanisms.create(mechanism_id, rng=rng, **params)
    release_grade(m)
    return m


def _seed(seed: object) -> int:
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    return seed


def release_grade(m: Mechanism) -> None:
    """Refuse a mechanism that may not release to a curator: traced (teaching) or known non-private."""
    if m.traced:
        raise ValueError("a traced (teaching-mode) mechanism records its internals and cannot release")
    if m.info.status != PRIVATE:
        raise ValueError(f"{m.info.id} is known not to be differentially private")


def start_run(ledger: Ledger, dataset: Dataset, queries: Sequence[QueryLike], mechanism_id: str,
              params: Params, *, seed: int | None = None, monotonic: bool = False,
              evaluate: Evaluator | None = None, plan: Plan | None = None,
              domains: Domains = DECLARED) -> Run:
    """Validate, charge the full guarantee (committed), and return a :class:`Run` ready to stream.

    ``dataset``'s rows must be registered in ``ledger`` (looked up by their private content
    fingerprint, so the budget charged is always the one of these rows, whatever ``dataset_id`` the
    object carries). ``seed`` is for tests only: the noise is reproducible, *not secure* and *not
    differentially private*; the ledger records that, never the seed. ``evaluate`` defaults to
    ``svtgui.data.evaluate.evaluate``. ``plan`` is the caller's :func:`svtgui.app.plan.build` of
    exactly these inputs (the workspace's plan, carried by the run's ``RunJob``: it checked the
    output files and the budget). ``domains`` as for
    :func:`plan_run`; the domains read from the data an allowed run depends on are stored with its
    charge, so its reports say it is NOT differentially private.
    """
    if plan is None:  # the caller's plan of exactly these inputs, else built here: once per run
        plan = plan_run(dataset, queries, mechanism_id, params, monotonic=monotonic, domains=domains)
    else:
        plan.raise_if_invalid()
    if seed is not None:
        _seed(seed)
    m = _create(plan.mechanism_id, plan.params, seed)
    # kept with the run so that its release can be replayed (svtgui.app.replay); public, never reported
    replay = mechanism_plan(mechanism_id, params, queries, monotonic)
    request = _request(dataset, m, plan, m.params, len(queries))
    if plan.linear is not None:
        return _start_linear(ledger, dataset, list(queries), m, plan.linear, replay, request)
    record = gate.charge(ledger, request)
    try:  # charged: from here on the run ends in the ledger whatever happens (a signal, a full disk)
        ledger.record_fact(record.id, PLAN_FACT, replay)
        return Run(ledger, record, dataset, list(queries), m, evaluate or _default_evaluate)
    except BaseException:
        ledger.finish_run(record.id, INTERRUPTED)  # the budget stays spent: never refunded
        raise


def request_for(dataset: Dataset, queries: Sequence[QueryLike], plan: Plan, *,
                seed: int | None = None) -> gate.Request:
    """The gate's request for this run, without charging: the CLI screens it
    (:func:`svtgui.app.gate.screen`) before a new dataset is registered, so a refused run leaves the
    ledger as it was."""
    m = _create(plan.mechanism_id, plan.params, seed)
    return _request(dataset, m, plan, m.params, len(queries))


def _request(dataset: Dataset, m: Mechanism, plan: Plan, params: Params,
             queries_planned: int | None) -> gate.Request:
    """What the gate checks and charges for this run of ``m``: its whole guarantee and its noise, and
    the domains read from the data it depends on with the curator's word on them (:mod:`.domains`)."""
    return gate.Request(dataset, plan.mechanism_id, params, repr(m.guarantee.epsilon),
                        repr(m.guarantee.delta), secure=m.secure, noise_description=m.noise_description,
                        queries_planned=queries_planned,
                        extra=gate_extra(plan.domains_from_data, plan.domains_allowed))


def _start_linear(ledger: Ledger, dataset: Dataset, queries: list[QueryLike], m: Mechanism,
                  plan: linear.LinearPlan, replay: PlanDocument, request: gate.Request) -> Run:
    """PMW / SparseProject: histogram first (nothing charged if it fails), charge, then release.

    PMW releases n̂ at ``bind`` (recorded as a run fact) and then streams like any interactive run.
    SparseProject writes its release file before returning; the run has nothing left to answer
    and ends (``finished``) at its first ``next_batch`` / ``finish`` like any non-interactive run.
    """
    histogram = plan.universe.histogram(dataset)  # private; handed to the mechanism only
    release = plan.release_out is not None
    record = gate.charge(ledger, dataclasses.replace(request, mechanism_id=m.info.id,
                                                     params={**m.params, **plan.ledger_params()},
                                                     queries_planned=None if release else len(queries)))
    ledger.record_fact(record.id, PLAN_FACT, replay)
    try:
        if release:
            # the release file is published: it names the dataset by its public name, never the file's
            registration = ledger.dataset(record.dataset_id)
            assert registration is not None  # charged just now
            for key, value in linear.write_release(m, histogram, plan, registration.public_name).items():
                ledger.record_fact(record.id, key, value)
            return Run(ledger, record, dataset, [], m, _default_evaluate)
        m.bind(histogram)  # type: ignore[attr-defined]
        n_released = int(m.n)  # type: ignore[attr-defined]
        ledger.record_fact(record.id, "n_released", n_released)
    except BaseException:
        ledger.finish_run(record.id, INTERRUPTED)  # the budget stays spent: never refunded
        raise
    return Run(ledger, record, dataset, queries, m, _default_evaluate,
               feed=linear.LinearFeed(plan.universe, n_released))


def released(out: Batch, queries: Sequence[QueryLike]) -> ResponseBatch:
    """The mechanism's batch as the ledger records it: its arrays as they are, the descriptions of
    the ``out.consumed`` queries it answered (the ⊥ mask is the batch's own, applied once)."""
    k = out.consumed
    return ResponseBatch(np.arange(out.start_index, out.start_index + k, dtype=np.int64),
                         [describe_query(q) for q in queries[:k]], out.above[:k], out.values[:k],
                         None if out.gaps is None else out.gaps[:k])


def _one(r: Response) -> Batch:
    """One adaptive query's response as a batch of one, so it takes the same path as a stream."""
    return Batch(np.array([r.above], dtype=bool), np.array([np.nan if r.value is None else r.value]), 1,
                 r.index, None if r.gap is None else np.array([r.gap], dtype=np.float64))


def _nothing() -> ResponseBatch:
    """An empty batch: nothing was left to answer."""
    return ResponseBatch(np.empty(0, dtype=np.int64), [], np.empty(0, dtype=bool), np.empty(0))


class Run:
    """A charged, running release. Methods are serialised by a lock (stop() may come from another thread)."""

    def __init__(self, ledger: Ledger, record: RunRecord, dataset: Dataset, queries: list[QueryLike],
                 mechanism: Mechanism, evaluate: Evaluator, feed: linear.LinearFeed | None = None) -> None:
        """``feed`` (PMW) turns queries into linear queries and responses into rows; without it the
        queries are evaluated on the dataset and the answers fed to the mechanism."""
        release_grade(mechanism)
        self._feed = feed
        self.ledger = ledger
        self.record = record
        self._dataset = dataset
        self._queries = queries
        self.__mechanism = mechanism  # holds the secrets; never exposed
        self._evaluate = evaluate
        self._lock = threading.RLock()
        self._position = 0  # next planned query
        self._answered = 0  # responses recorded (planned and adaptive)
        self._above = 0
        self.status = record.status

    # ------------------------------------------------------------------ public state
    @property
    def id(self) -> int:
        return self.record.id

    @property
    def interactive(self) -> bool:
        return isinstance(self.__mechanism, StreamingMechanism)

    @property
    def halted(self) -> bool:
        return self.__mechanism.halted if self.interactive else self.status == FINISHED

    @property
    def finished(self) -> bool:
        """True once the run has ended (halted, finished, stopped or interrupted) in the ledger."""
        return self.status != "running"

    @property
    def remaining(self) -> int:
        """Planned queries not yet answered."""
        return len(self._queries) - self._position

    @property
    def total(self) -> int:
        return len(self._queries)

    @property
    def answered(self) -> int:
        return self._answered

    @property
    def above_count(self) -> int:
        return self._above

    @property
    def cutoff(self) -> int | None:
        return getattr(self.__mechanism, "cutoff", None)

    @property
    def params(self) -> Params:
        return dict(self.__mechanism.params)

    def __repr__(self) -> str:
        return f"<Run {self.id} {self.record.mechanism_id} {self.status} {self._answered}/{self.total}>"

    # ------------------------------------------------------------------ streaming
    def next_batch(self, n: int) -> ResponseBatch:
        """Answer up to ``n`` planned queries; returns the committed batch (empty when nothing is left).

        Non-interactive mechanisms answer the whole list at once, whatever ``n``. The run ends
        itself (status ``halted``) when the mechanism reaches its cutoff.
        """
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise ValueError(f"batch size must be a positive integer, got {n!r}")
        with self._lock:
            self._require_running()
            if not self.interactive:
                return self._select_all()
            batch = self._queries[self._position:self._position + n]
            if not batch:
                return _nothing()
            out = self.__mechanism.submit_many(self._inputs(batch))
            committed = self._commit(self._released(out, batch))
            self._position += out.consumed
            if self.__mechanism.halted:
                self._end(HALTED)
            return committed

    def submit_query(self, query: QueryLike) -> ResponseBatch:
        """Answer one adaptive query, composed after seeing the previous responses.

        The query must fit the run's declared sensitivity Δ (and be integer-valued in an integer
        run, monotonic in a monotonic one); otherwise ``ValueError`` and nothing is recorded.
        Returns the committed batch of one.
        """
        with self._lock:
            self._require_running()
            if not self.interactive:
                raise ValueError(f"{self.record.mechanism_id} is non-interactive: queries cannot be added")
            self._check_adaptive(query)
            inputs = self._inputs([query])
            r = self.__mechanism.submit(inputs[0] if self._feed else float(inputs[0]))
            committed = self._commit(self._released(_one(r), [query]))
            if self.__mechanism.halted:
                self._end(HALTED)
            return committed

    def stream(self, batch_size: int = 1000) -> Iterator[ResponseBatch]:
        """Yield committed batches until the planned queries run out or the mechanism halts."""
        while not self.finished:
            batch = self.next_batch(batch_size)
            if not len(batch):
                return
            yield batch

    def stop(self) -> RunRecord:
        """The curator stopped the run early (status ``stopped``; the budget stays spent)."""
        return self._end_if_running(STOPPED)

    def finish(self) -> RunRecord:
        """End the run: ``finished`` if every planned query was answered, else ``stopped``."""
        return self._end_if_running(FINISHED if self.remaining == 0 else STOPPED)

    def __enter__(self) -> Run:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.finish()
        else:
            self._end_if_running(INTERRUPTED)

    # ------------------------------------------------------------------ internals
    def _inputs(self, queries: Sequence[QueryLike]) -> np.ndarray | list[LinearQuery]:
        """What the mechanism takes: linear queries (PMW) or the true answers (evaluated here)."""
        return self._feed.inputs(queries) if self._feed else self._answers(queries)

    def _released(self, out: Batch, queries: Sequence[QueryLike]) -> ResponseBatch:
        """PMW's answers in rows (its feed), any other mechanism's as they are."""
        return self._feed.released(out, queries) if self._feed else released(out, queries)

    def _answers(self, queries: Sequence[QueryLike]) -> np.ndarray:
        answers = np.asarray(self._evaluate(self._dataset, queries), dtype=np.float64).reshape(-1)
        if answers.shape != (len(queries),):
            raise RuntimeError(f"evaluation returned {answers.shape[0]} answers for {len(queries)} queries")
        if not np.all(np.isfinite(answers)):
            bad = int(np.flatnonzero(~np.isfinite(answers))[0])
            raise ValueError(f"query {describe_query(queries[bad])!r} has no finite answer on this dataset "
                             "(e.g. a mean over no rows); nothing was released for this batch")
        return answers

    def _check_adaptive(self, q: QueryLike) -> None:
        params = self.__mechanism.params
        try:
            validate_query(q, self._dataset.schema)
            s = float(q.sensitivity(self._dataset.schema))
        except ValueError as exc:
            raise ValueError(f"query {describe_query(q)}: {exc}") from None
        delta = float(params.get("sensitivity", self.__mechanism.sensitivity))
        what = f"query {describe_query(q)}"
        if not s <= delta:
            raise ValueError(f"{what} has sensitivity {s:g}, above this run's Δ = {delta:g}")
        schema = self._dataset.schema
        beyond = None if self._feed else lattice_problem(
            what, float(q.magnitude(schema, public_rows(schema))), delta, bool(params.get("integer")))
        if beyond:  # decided from public facts: the same on every neighbour, before anything is recorded
            raise ValueError(beyond)
        if params.get("integer") and not q.integer:
            raise ValueError(f"{what} is not integer-valued, but this run releases integers")
        if params.get("monotonic") and not q.monotonic:
            raise ValueError(f"{what} is not monotonic, but this run assumes monotonic queries")
        notes = release_notes(schema, [q])  # schema levels read from the data, e.g. from the pick list
        if notes and not recorded(self.ledger.declarations(self.record.id)):
            raise ValueError(f"{what}: {problem(notes, False)}; this run was charged as differentially "
                             "private, so it cannot take such a query (start a run that allows them)")

    def _select_all(self) -> ResponseBatch:
        if not isinstance(self.__mechanism, SelectionMechanism):  # a release, made at start: done
            self._position = len(self._queries)
            self._end(FINISHED)
            return _nothing()
        answers = self._answers(self._queries)
        sel = self.__mechanism.select(answers)
        n = len(self._queries)
        chosen = np.asarray(sel.indices, dtype=np.int64)
        above = np.zeros(n, dtype=bool)
        above[chosen] = True
        values = np.full(n, np.nan)
        if sel.values is not None:
            values[chosen] = sel.values
        committed = self._commit(released(Batch(above, values, n, 0), self._queries))
        self._position = len(self._queries)
        self._end(FINISHED)
        return committed

    def _commit(self, batch: ResponseBatch) -> ResponseBatch:
        """Record the batch in the ledger (which stamps its time), and only then hand it back."""
        self.ledger.record(self.id, batch)
        self._answered += len(batch)
        self._above += batch.above_count
        return batch

    def _require_running(self) -> None:
        if self.finished:
            raise RuntimeError(f"run {self.id} has ended ({self.status})")

    def _end(self, status: str) -> RunRecord:
        self.record = self.ledger.finish_run(self.id, status)
        self.status = self.record.status
        return self.record

    def _end_if_running(self, status: str) -> RunRecord:
        with self._lock:
            return self.record if self.finished else self._end(status)
