"""The plan of a run: the one validation of a set-up, before anything is spent (Qt-free).

The window, the CLI and the run itself ask the same question — *may this run be charged, and
what exactly would it be?* — and get the same answer from :func:`build`: a :class:`Plan` with

* ``problems``: every reason the run may not start, each tied to the field at fault
  (``Problem.field`` is a parameter name such as ``"epsilon"``, or ``"dataset"``, ``"queries"``,
  ``"budget"``, ``"mechanism"``, ``"universe"``, ``"release_out"``, ``"report"``, ``"domains"``), taken from
  ``ParamError.param`` where the core raised one, never guessed from the message's text;
* the parameters a mechanism is built with, the derived ones included: Δ (from the query
  definitions and the declared bounds, never from the data), ``integer`` and ``monotonic``
  (only under add/remove neighbours, and only when asked for and every query is monotonic);
* ``warnings`` that do not block a run but change what it means (one wide query setting Δ for
  every query in the queue);
* the cost (ε, δ) and whether it fits what remains of the dataset's budget (or, for a dataset new
  to the ledger, the total the curator declared).

Nothing is charged unless the whole plan is valid: value types of every query, writability of
every output file, the budget, the parameters. The queue's facts (:func:`queue_facts`) are
computed once per queue change and reused for every parameter edit, so a plan over a million
queries is cheap to rebuild while typing.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

from svtgui.app import domains as domain_check
from svtgui.app import linear_setup as linear
from svtgui.app.outputs import Inputs, check_output
from svtgui.app.params import Params
from svtgui.core import mechanisms
from svtgui.core.budget import Budget, BudgetExceeded, fmt
from svtgui.core.mechanisms import PRIVATE, Guarantee, MechanismInfo
from svtgui.core.noise import Lattice, ScaleProbe
from svtgui.core.validation import ParamError
from svtgui.core.wording import plain
from svtgui.data.dataset import Dataset
from svtgui.data.queries import Query
from svtgui.data.schema import Schema

# Parameters a run derives itself: the user never types them (and cannot lie about them).
DERIVED = ("integer", "monotonic")
# Keywords of ``mechanisms.create`` that are not catalogue parameters: never accepted from users.
FORBIDDEN = ("rng", "trace", "allow_non_private")
NOT_MONOTONIC_RELATION = "monotonicity needs the 'add or remove one row' relation"


class PlanError(ParamError):
    """A plan with a problem, raised where a caller needs an exception (``param`` is the field)."""


@dataclass(frozen=True)
class Problem:
    """One reason a run may not start, and the field it belongs to."""

    field: str
    message: str


@dataclass(frozen=True)
class QueueFacts:
    """What the query list determines, computed once per change of the list or the schema."""

    count: int = 0
    sensitivity: float = 0.0  # the largest Δ a query needs (0 for an empty list)
    widest: str = ""  # the query that sets it
    narrowest: float = 0.0  # the smallest Δ in the list
    integer: bool = False  # every answer is an integer (counts)
    monotonic: bool = False  # every query is monotonic under the schema's relation
    monotonic_reason: str = "there are no queries yet"
    problem: Problem | None = None  # the first query that does not fit the schema
    reach: float = 0.0  # the largest |answer| any query can have on public_rows(schema) rows
    farthest: str = ""  # the query that can reach it
    columns: frozenset[str] = frozenset()  # every column a query reads (complete when there is no problem)

    @property
    def mixed(self) -> bool:
        """Queries of very different Δ: every one gets the noise of the widest."""
        return self.count > 1 and self.narrowest > 0 and self.sensitivity > self.narrowest

    def summary(self) -> str:
        """One line for the queue: how many, Δ, integer-valued, monotonic."""
        if not self.count:
            return "No queries yet: build one, generate a list (Ctrl+G) or import JSON (Ctrl+I)."
        if self.problem is not None:
            return f"{self.count:,} {'query' if self.count == 1 else 'queries'}"
        return (f"{self.count:,} {'query' if self.count == 1 else 'queries'} · "
                f"Δ = {plain(self.sensitivity, 12)} · "
                f"{'integer-valued' if self.integer else 'real-valued'} · "
                f"{'all monotonic' if self.monotonic else 'not all monotonic'}")


def queue_facts(queries: Sequence[Query], schema: Schema | None) -> QueueFacts:
    """Validate every query against ``schema`` (kinds, columns, value types) and derive Δ, integer,
    monotonic — one pass; a repeated query object is checked once."""
    tally = QueueTally(schema)
    tally.add(queries)
    return tally.facts()


#: The most rows SVT Studio answers for when n is not declared: a public limit of the tool, never read
#: from the data, from which every answer's range is bounded at plan time (a count reaches at most n).
MAX_ROWS = 2**40


def public_rows(schema: Schema | None) -> int:
    """The public bound on the number of rows: the declared n (replace-one), else :data:`MAX_ROWS`."""
    n = getattr(schema, "n", None)
    return int(n) if n is not None and not _add_remove(schema) else MAX_ROWS


def lattice_problem(what: str, reach: float, sensitivity: float, integer: bool) -> str | None:
    """Why an answer of magnitude up to ``reach`` would not fit the noise lattice of a run of Δ =
    ``sensitivity``, or None. Decided from public facts only, before the charge: a run never aborts
    on one dataset and releases on its neighbour (issue 21 §8)."""
    try:
        limit = Lattice.for_sensitivity(sensitivity, integer=integer).limit
    except ValueError:
        return None  # the sensitivity itself is refused, by the mechanism's own check
    if reach <= limit:
        return None
    return (f"{what} can reach |answer| = {reach:.6g} within the declared bounds on up to the public "
            f"number of rows, beyond the noise lattice of Δ = {plain(sensitivity, 12)} (|answer| ≤ "
            f"{limit:.6g}); declare narrower bounds, a public n (replace-one), or ask it in a run of "
            "its own")


def _monotonic(q: Query, schema: Schema | None) -> bool:
    """The query's monotonicity under the declared bounds (a linear query built in code: its flag)."""
    judge = getattr(q, "monotonic_for", None)
    return bool(judge(schema)) if judge is not None else bool(getattr(q, "monotonic", False))


class QueueTally:
    """The queue's facts kept as running totals, so queries appended later are checked alone.

    Why: a curator adds queries one at a time to queues of hundreds of thousands; checking the
    whole queue again on every append cost a third of a second. The totals (how many queries, the
    largest and smallest Δ and the query that set it, whether all are integer-valued and monotonic,
    the first query that does not fit) only grow with an append; any other edit starts a new tally.
    """

    def __init__(self, schema: Schema | None) -> None:
        self.schema = schema
        self.count = 0
        self.top, self.low, self.widest = 0.0, math.inf, ""
        self.integer, self.monotonic = True, True
        self.first_non_monotonic: Query | None = None
        self.problem: Problem | None = None  # the first query that does not fit (later ones are not checked)
        self.rows = public_rows(schema)
        self.reach, self.farthest = 0.0, ""  # the largest |answer| a query can have on self.rows rows
        self.columns: set[str] = set()

    def add(self, queries: Sequence[Query]) -> None:
        """Take in ``queries``, appended after those already counted."""
        checked: dict[int, tuple[float, float]] = {}
        for i, q in enumerate(queries):
            if self.problem is not None:
                break
            known = checked.get(id(q))
            if known is None:
                try:
                    validate_query(q, self.schema)
                    known = float(q.sensitivity(self.schema)), float(q.magnitude(self.schema, self.rows))
                    if not math.isfinite(known[0]) or known[0] <= 0:
                        raise ValueError(f"sensitivity must be a positive number, got {known[0]!r}")
                except ValueError as exc:
                    where = f"query {self.count + i + 1} ({describe_query(q)})"
                    self.problem = Problem("queries", f"{where}: {exc}")
                    break
                checked[id(q)] = known
            s, reach = known
            if reach > self.reach:
                self.reach, self.farthest = reach, describe_query(q)
            if s > self.top:
                self.top, self.widest = s, describe_query(q)
            self.low = min(self.low, s)
            self.integer = self.integer and bool(q.integer)
            if self.monotonic and not _monotonic(q, self.schema):
                self.monotonic, self.first_non_monotonic = False, q
            read = getattr(q, "columns", None)
            if callable(read):
                self.columns.update(read())
        self.count += len(queries)

    def facts(self) -> QueueFacts:
        if not self.count:
            return QueueFacts()
        if self.problem is not None:
            return QueueFacts(self.count, problem=self.problem)
        add_remove = _add_remove(self.schema)
        if not add_remove:
            reason = NOT_MONOTONIC_RELATION
        elif self.first_non_monotonic is not None:
            reason = f"'{describe_query(self.first_non_monotonic)}' is not monotonic"
        else:
            reason = "every query only grows when a row is added."
        return QueueFacts(self.count, self.top, self.widest, self.low, self.integer,
                          add_remove and self.monotonic, reason, reach=self.reach, farthest=self.farthest,
                          columns=frozenset(self.columns))


@dataclass(frozen=True)
class Plan:
    """A run as it would be charged, or the problems that keep it from starting."""

    mechanism_id: str
    params: Params = field(default_factory=dict)  # what the mechanism is built with (derived too)
    run_params: Params = field(default_factory=dict)  # PMW/SparseProject: universe, release_out
    queue: QueueFacts = QueueFacts()
    problems: tuple[Problem, ...] = ()
    warnings: tuple[str, ...] = ()
    cost: Guarantee | None = None  # (ε, δ) charged in full before the first answer
    fits: bool | None = None  # None when the budget is unknown (no ledger, or not declared yet)
    linear: linear.LinearPlan | None = None
    cutoff: int | None = None  # the run halts after this many ⊤ (AboveThreshold: 1); None without one
    # The domains read off the data this release depends on (:mod:`svtgui.app.domains`): refused
    # (field "domains") unless the curator allowed them; an allowed run is NOT differentially private.
    domains_from_data: tuple[str, ...] = ()
    domains_allowed: bool = False  # the curator's override, carried to the gate with the notes

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def info(self) -> MechanismInfo | None:
        try:
            return mechanisms.info(self.mechanism_id)
        except ValueError:
            return None

    @property
    def sensitivity(self) -> float:
        return float(self.params.get("sensitivity", self.queue.sensitivity or 1.0))

    @property
    def monotonic(self) -> bool:
        return bool(self.params.get("monotonic", False))

    def by_field(self) -> dict[str, str]:
        """The first problem of each field, in the order found."""
        out: dict[str, str] = {}
        for p in self.problems:
            out.setdefault(p.field, p.message)
        return out

    def raise_if_invalid(self) -> None:
        """:class:`PlanError` naming the first problem (for callers that stop at the first)."""
        if self.problems:
            p = self.problems[0]
            raise PlanError(p.field, p.message)


def build(dataset: Dataset | None, queries: Sequence[Query], mechanism_id: str, params: Params, *,
          monotonic: bool = False, facts: QueueFacts | None = None, budget: Budget | None = None,
          outputs: Sequence[str | os.PathLike[str]] = (), adaptive: bool = False,
          inputs: Inputs | Callable[[], Inputs] | None = None,
          domains: domain_check.Domains = domain_check.DECLARED) -> Plan:
    """Validate a run as a whole without charging anything.

    ``params`` are what the user chose (ε, δ, T, c, …, and PMW/SparseProject's ``universe`` and
    ``release_out``); ``sensitivity`` may be given to leave room for adaptive queries, never below
    what the planned queries need. ``facts`` are :func:`queue_facts` of ``queries`` when the caller
    already has them. ``budget`` is what the dataset may still spend (the ledger's, or the declared
    total of a new dataset); ``outputs`` are the reports the run will write — they and a
    SparseProject release file (``release_out``) are checked for writability and
    against ``inputs`` (:mod:`svtgui.app.outputs`: every file the command read, the ledger; or a
    function giving them, called only when there is an output to check) and the
    dataset's own file and schema sidecar: a report written over one of them would destroy it.
    ``adaptive`` runs (the window) may start with no planned query; others refuse an empty list.
    ``domains`` are the domains read off the data that the query list brings and the curator's
    override: a release depending on any (those, the schema's levels read from the data, a universe's
    observed levels) is refused without the override (field ``domains``).
    """
    problems: list[Problem] = []
    warnings: list[str] = []
    params = dict(params)
    try:
        info = mechanisms.info(mechanism_id)
    except ValueError as exc:
        return Plan(mechanism_id, problems=(Problem("mechanism", str(exc)),))
    if info.status != PRIVATE:
        return Plan(mechanism_id, problems=(Problem("mechanism", (
            f"{mechanism_id} is known not to be differentially private ({info.why_not_private}); "
            "it is available only in the teaching mode")),))
    for key in FORBIDDEN + DERIVED:
        if key in params:
            problems.append(Problem(key if key in DERIVED else "mechanism", (
                f"parameter {key!r} cannot be set for a release: "
                + ("it is derived from the queries" if key in DERIVED else "it is internal"))))
            params.pop(key)
    if dataset is None:
        problems.append(Problem("dataset", "open a dataset first"))
    schema = getattr(dataset, "schema", None)
    queries = () if info.input == mechanisms.RELEASE else queries  # a release answers no query (never copied)
    facts = facts if facts is not None and info.input != mechanisms.RELEASE else queue_facts(queries, schema)
    if facts.problem is not None and dataset is not None:
        problems.append(facts.problem)
    run_params: Params = {}
    linear_plan = None
    if info.linear:
        run_params = {k: params[k] for k in linear.RUN_PARAMS[mechanism_id] if k in params}
        if dataset is not None:
            try:  # the universe (and release file) split off, neighbouring and PMW's unit set
                params, linear_plan = linear.prepare(dataset, queries, mechanism_id, params)
            except ParamError as exc:
                problems.append(Problem(exc.param, str(exc)))
                if exc.param not in linear.SET_BY_RUN:  # the other parameters are still checked
                    params.update(linear.set_by_run(dataset, mechanism_id))
        for key in run_params:
            params.pop(key, None)
    notes = domain_check.release_notes(schema, queries, domains.from_data,
                                       linear_plan.universe if linear_plan is not None else None,
                                       columns=facts.columns if facts.problem is None else None)
    refused = domain_check.problem(notes, domains.allowed)
    if refused is not None and dataset is not None:
        problems.append(Problem(domain_check.FIELD, refused))
    elif notes:
        warnings.append(domain_check.warning(notes))
    names = {p.name for p in info.params}
    for key in sorted(set(params) - names):
        problems.append(Problem("mechanism", f"{mechanism_id} has no parameter {key!r}; "
                                             f"its parameters: {', '.join(sorted(names))}"))
        params.pop(key)
    if not queries and info.needs_queries:
        problems.append(Problem("queries", f"{info.name} is non-interactive: it needs the whole query list "
                                           "up front; add queries first"))
    elif not queries and info.input != mechanisms.RELEASE and not adaptive:
        problems.append(Problem("queries", "the query list is empty: there is nothing to answer"))
    typed_sensitivity = "sensitivity" in params
    _derive(params, names, info, facts, monotonic, problems, warnings, adaptive=adaptive)
    if facts.reach and "sensitivity" in params and not info.linear:
        beyond = lattice_problem(f"'{facts.farthest}'", facts.reach, params["sensitivity"],
                                 bool(params.get("integer")))
        if beyond:
            problems.append(Problem("queries", beyond))
    if dataset is not None and public_rows(schema) == MAX_ROWS and _rows(dataset) > MAX_ROWS:
        problems.append(Problem("dataset", f"the dataset has more than {MAX_ROWS:,} rows, the most SVT "
                                           "Studio answers for without a declared public n"))
    cost, cutoff = None, None
    # the cost needs the parameters and the universe, not the release file's path: a bad --out still
    # lets an overspend be listed with it (sparse-project build named one of its two problems)
    blocking = ("mechanism", *(k for k in linear.RUN_PARAMS.get(mechanism_id, ()) if k != "release_out"))
    if not any(p.field in names or p.field in blocking for p in problems):
        try:
            mech = _throwaway(mechanism_id, params)
            cost, cutoff = mech.guarantee, getattr(mech, "cutoff", None)
        except ParamError as exc:
            problems.append(_blamed(exc, names, facts, typed_sensitivity))
        except ValueError as exc:
            problems.append(Problem("mechanism", str(exc)))
    _delta_limits(params.get("delta"), schema, problems, warnings)
    fits = None
    if cost is not None and budget is not None:
        fits = _fits(budget, cost, problems)
    release = linear_plan.release_out if linear_plan is not None else None
    targets = [*outputs, *([release] if release is not None else [])]
    protected = _protected(inputs, dataset) if targets else Inputs()
    for out in targets:
        try:
            check_output(out, protected, output_bytes(out, len(queries), params.get("projection_size")))
        except ValueError as exc:
            release = Path(out).suffix.lower() == linear.RELEASE_SUFFIX
            problems.append(Problem("release_out" if release else "report", str(exc)))
    return Plan(mechanism_id, params, run_params, facts, tuple(problems), tuple(warnings), cost, fits,
                linear_plan, cutoff, notes, domains.allowed)


def _protected(inputs: Inputs | Callable[[], Inputs] | None, dataset: Dataset | None) -> Inputs:
    """The files no output may be: ``inputs`` (or what the function gives, called only now: the window
    looks its files up on the disk, ~0.6 ms, and builds a plan on every edit) and the dataset's own."""
    given = inputs() if callable(inputs) else inputs
    protected = given.copy() if given is not None else Inputs()
    protected.add_dataset(getattr(dataset, "path", None))
    return protected


def _derive(params: Params, names: set[str], info: MechanismInfo, facts: QueueFacts, monotonic: bool,
            problems: list[Problem], warnings: list[str], *, adaptive: bool) -> None:
    """Δ, integer and monotonic from the queue (and the declared bounds), into ``params``."""
    given = params.pop("sensitivity", None)
    needed = facts.sensitivity if facts.problem is None else 0.0
    if given is None:
        if not facts.count and adaptive and "sensitivity" in names and not any(
                p.field == "queries" for p in problems):
            problems.append(Problem("sensitivity", "an adaptive run with no planned queries needs an "
                                                   "explicit sensitivity Δ"))
        sensitivity = needed or 1.0  # linear queries over a universe: Δ = 1 by construction
    else:
        try:
            sensitivity = float(given)
            if not math.isfinite(sensitivity) or sensitivity <= 0:
                raise ValueError
        except (TypeError, ValueError):
            problems.append(Problem("sensitivity", f"sensitivity must be a number > 0, got {given!r}"))
            sensitivity = needed or 1.0
        if sensitivity < needed:
            problems.append(Problem("sensitivity", f"sensitivity Δ = {plain(sensitivity, 12)} is below what "
                                                   f"the queries need ({plain(needed, 12)})"))
    if "sensitivity" in names:
        params["sensitivity"] = sensitivity
        if facts.mixed and facts.problem is None:
            warnings.append(
                f"Δ = {plain(facts.sensitivity, 12)} is set by '{facts.widest}'; every query of the queue "
                f"gets noise for Δ = {plain(facts.sensitivity, 12)}, also those that need only "
                f"Δ = {plain(facts.narrowest, 12)}: "
                "split the queue into runs of alike queries for less noise")
    if "integer" in names:
        params["integer"] = facts.count > 0 and facts.problem is None and facts.integer
    if "monotonic" in names:
        params["monotonic"] = bool(monotonic) and facts.count > 0 and facts.monotonic
    elif monotonic:
        problems.append(Problem("monotonic", f"{info.id} has no monotonic variant"))


#: δ at or above this is refused: a guarantee that fails outright with probability δ protects no one.
MAX_DELTA = 0.1


def _delta_limits(delta: float | str | None, schema: Schema | None, problems: list[Problem],
                  warnings: list[str]) -> None:
    """δ ≥ :data:`MAX_DELTA` is refused; δ ≥ 1/n (n declared, so public) is warned about: with
    probability δ a (ε, δ) mechanism may release a whole row, and n rows make that likely."""
    try:
        d = float(delta)
    except (TypeError, ValueError):
        return  # not a number: the mechanism's own check names it
    if not d > 0 or not math.isfinite(d) or any(p.field == "delta" for p in problems):
        return  # no δ, or the mechanism's own check already names it
    if d >= MAX_DELTA:
        problems.append(Problem("delta", f"δ = {plain(d, 12)} is at least {MAX_DELTA:g}: with probability "
                                         "δ the guarantee fails outright, so it protects no one; choose δ "
                                         "far below 1/n"))
        return
    n = public_rows(schema)
    if n != MAX_ROWS and d >= 1 / n:
        warnings.append(f"δ = {plain(d, 12)} is at least 1/n = 1/{n:,}: the guarantee allows releasing one "
                        "row's data outright with probability δ, and with n rows that is likely for "
                        "someone; choose δ well below 1/n")


def _blamed(exc: ParamError, names: set[str], facts: QueueFacts, typed_sensitivity: bool) -> Problem:
    """The problem a refused mechanism is, tied to what the curator can change: a Δ nobody typed
    comes from the widest query's declared bounds, so that query (and its bounds) is at fault — a
    sum with upper bound 1e308 was blamed on "sensitivity"."""
    if exc.param == "sensitivity" and not typed_sensitivity and facts.widest:
        return Problem("queries", f"'{facts.widest}' needs Δ = {plain(facts.sensitivity, 12)}, derived from "
                                  f"its bounds: {exc}; give it narrower bounds (the query's clip or the "
                                  "column's declared public bounds)")
    return Problem(exc.param if exc.param in names else "mechanism", str(exc))


def _throwaway(mechanism_id: str, params: Params) -> mechanisms.Mechanism:
    """Build the mechanism (the catalogue's own parameter checks, the sampler's scale limits) on a
    source that draws no noise: it is only read for its guarantee and cutoff, never run."""
    return mechanisms.create(mechanism_id, rng=ScaleProbe(), **params)


#: How a plan says its cost does not fit the budget (the accuracy preview still shows what it would buy).
DOES_NOT_FIT = "does not fit what remains of this dataset's budget"


def _fits(budget: Budget, cost: Guarantee, problems: list[Problem]) -> bool:
    try:
        budget.check(repr(cost.epsilon), repr(cost.delta))
    except BudgetExceeded as exc:
        amounts = str(exc).split(". ", 1)[-1]  # total, spent and requested ε and δ, exactly
        problems.append(Problem("epsilon", (
            f"ε = {cost.epsilon:g}{f', δ = {cost.delta:g}' if cost.delta else ''} {DOES_NOT_FIT}: "
            f"ε = {fmt(budget.remaining_epsilon)}, "
            f"δ = {fmt(budget.remaining_delta)} ({amounts})")))
        return False
    except ValueError as exc:  # the parameters themselves are refused (and named) elsewhere
        problems.append(Problem("epsilon", str(exc)))
        return False
    return True


def declared_budget(epsilon: str | None, delta: str | None) -> Budget:
    """The total budget a curator declares for a dataset new to the ledger (``PlanError`` on
    ``budget`` when it is missing or not a number > 0 with δ in [0, 1))."""
    text = (epsilon or "").strip()
    if not text:
        raise PlanError("budget", "this dataset is new to the ledger: declare its total budget first")
    try:
        eps, dlt = Fraction(text), Fraction((delta or "").strip() or "0")
    except (ValueError, ZeroDivisionError):
        raise PlanError("budget", "the dataset's total ε must be a number > 0 and δ in [0, 1)") from None
    if eps <= 0 or not 0 <= dlt < 1:
        raise PlanError("budget", "the dataset's total ε must be a number > 0 and δ in [0, 1)")
    return Budget(eps, dlt)


#: Upper bounds of an output's size, for the free-space check: a report's fixed part (the PDF holds
#: its chart and fonts), its size per released row, and a SparseProject release per projected count.
_REPORT_BASE = {".pdf": 1 << 20}
_REPORT_BASE_OTHER = 64 << 10
_BYTES_PER_ROW = 512
_RELEASE_BYTES_PER_COUNT = 8


def output_bytes(path: str | os.PathLike[str], rows: int, projection_size: int | None = None) -> int:
    """About how many bytes an output of a run with ``rows`` planned queries can take, at most: a
    report (its fixed part plus every row) or, ``.npz``, a SparseProject release of T counts."""
    suffix = Path(path).suffix.lower()
    if suffix == linear.RELEASE_SUFFIX:
        return _REPORT_BASE_OTHER + _RELEASE_BYTES_PER_COUNT * int(projection_size or 4096)
    return _REPORT_BASE.get(suffix, _REPORT_BASE_OTHER) + _BYTES_PER_ROW * max(0, int(rows))


def validate_query(q: Query, schema: Schema | None) -> None:
    """The query's own schema check (unknown column, wrong kind, value types) when it has one."""
    check = getattr(q, "validate", None)
    if callable(check):
        check(schema)


def _rows(dataset: Dataset) -> int:
    """The dataset's row count (0 for a stand-in without one): compared only with :data:`MAX_ROWS`."""
    try:
        return int(dataset.n_rows)
    except (AttributeError, TypeError, ValueError):
        return 0


def _add_remove(schema: Schema | None) -> bool:
    """Monotonicity holds only under add/remove-one neighbours (under replace-one nothing is monotonic)."""
    relation = getattr(schema, "neighbouring", "add_remove")
    return getattr(relation, "value", relation) == "add_remove"


def describe_query(q: Query) -> str:
    try:
        return str(q.describe())
    except Exception:  # a broken description must not hide the real error
        return type(q).__name__
