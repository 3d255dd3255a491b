"""The curator's set-up as one Qt-free object: what the window shows and session files hold.

A :class:`Workspace` holds the dataset (and its declared schema), the query queue, the chosen
mechanism, the parameter entries, the totals declared for a dataset new to the ledger and the
ledger's budget of a known one. Widgets *bind* to it (as in glue): an edit writes one value here,
and every view — the form, the queue's summary, the preview, the Run button, the gauge — reads
back from here when told that something changed. No set-up state lives only in a widget, so a
session file is written from the workspace and read into it, and the CLI could drive it too.

Parameter entries are shared by name across mechanisms: switching Sparse → NumericSparse →
Standard SVT keeps ε, δ, T, c and every other parameter that means the same thing. An entry keeps
what the curator typed (text for a number field), so a half-typed value survives a switch; the
catalogue's ``Param`` says how to read it, and a value that does not parse is a problem of that
field.

The queue carries its provenance (:mod:`svtgui.app.domains`): the domains read off the data that
its queries were built from (a list generated from the items that occur, an imported list whose
file says so), kept while the queue holds queries, and the curator's override that allows a
release over them (NOT differentially private). The plan refuses such a release without it.

The :class:`~svtgui.app.plan.Plan` of the current set-up is built once per change (lazily, on
first use after a change). The queue is one evented list (:class:`~svtgui.app.query_queue.QueryQueue`)
edited in place; its facts are kept as it is edited (an append checks the new queries alone), so
neither a parameter edit nor an added query re-validates a long queue.

A headless run (``svtgui-cli run``) sets the same object, plus what only it has, held as
:class:`RunOptions`: the reports it writes (checked by the plan), that it answers its list and takes
no adaptive query, and its parameters *given* as already-typed values (options, ``--param``, a
config's ``[params]``) instead of the window's typed text. The plan and the run's start are then
the window's own (:class:`~svtgui.app.runs.model.RunModel`), so the two cannot drift.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from svtgui.app import threshold_default
from svtgui.app.domains import Domains
from svtgui.app.linear_setup import RUN_PARAMS, SET_BY_RUN
from svtgui.app.outputs import Inputs
from svtgui.app.params import Params
from svtgui.app.plan import Plan, PlanError, Problem, QueueFacts, build, declared_budget
from svtgui.app.query_queue import QueryQueue, QueueChange
from svtgui.core import mechanisms
from svtgui.core.budget import Budget
from svtgui.core.mechanisms import MechanismInfo, Param
from svtgui.data.dataset import Dataset
from svtgui.data.queries import Query
from svtgui.data.schema import Schema

# What changed, as told to listeners.
DATASET, QUERIES, MECHANISM, PARAMS = "dataset", "queries", "mechanism", "params"
TOTALS, BUDGET, DOMAINS, OPTIONS = "totals", "budget", "domains", "options"
Listener = Callable[[frozenset[str]], None]
#: What a field of the form holds: the text typed into a number field, a tick box's flag, a linear
#: run's columns, or a value set by code (a proposed T, a sample's or a session's entries).
Entry = str | float | int | bool | list[str] | None
NO_TOTALS = ("", "0")  # nothing declared: ε to be typed, δ = 0 unless the curator types one

DERIVED = ("sensitivity", "integer")  # read off the queries, never typed
HIDDEN = SET_BY_RUN  # set by the run itself: the schema's neighbouring notion, PMW's unit
LABELS = {
    "epsilon": "Privacy budget ε",
    "delta": "δ",
    "threshold": "Threshold T",
    "cutoff": "Cutoff c",
    "sensitivity": "Sensitivity Δ",
    "integer": "Integer answers",
    "monotonic": "Monotonic queries",
    "split": "Noise split ε₂/ε₁",
    "numeric_share": "Budget split",
    "raise_by": "Threshold raise",
    "max_passes": "Maximum passes",
    "projection_size": "Projection size",
    "queries": "Queries covered k",
    "beta": "Failure probability β",
    "sparsity": "Cells per query m",
    "noise": "Noise",
    "count_share": "Share of ε for n̂",
    "answer_share": "Share of ε for paid answers",
    "learning_rate": "Learning rate η",
}


@dataclass(frozen=True)
class RunOptions:
    """What a run is set up with besides the form's entries (the window's defaults; the CLI sets them).

    ``outputs``: the reports the run will write, checked by the plan (writable, never one of the
    inputs) before anything is charged. ``adaptive``: queries may be added during the run (the
    window's Next query), so an empty queue may start; a headless run answers its list only, and an
    empty list is refused. ``given``: parameters given as typed values by a headless front end,
    handed to the plan as they are (the mechanism's own checks word a bad value, and a name the
    mechanism does not take is refused, as the window's shared entries never are); None: the
    parameters are read from the entries. ``monotonic``: with ``given``, whether the monotonic
    variant was asked for (the window reads its tick box's entry instead). ``seed``: tests only (the
    CLI's ``--test-seed``, the window's tests): reproducible noise, so the release is NOT
    differentially private (the gate allows it on public rows only, and the ledger says so).
    """

    outputs: tuple[Path, ...] = ()
    adaptive: bool = True
    given: Params | None = None
    monotonic: bool = False
    seed: int | None = None


def label(name: str) -> str:
    """The words a curator reads for a parameter."""
    return LABELS.get(name, name)


def parse_number(text: str, name: str) -> float:
    """The number typed into a field, or ValueError naming the field."""
    t = text.strip().replace("−", "-")
    if not t:
        raise ValueError(f"{name} is empty: type a number")
    try:
        x = float(t)
    except ValueError:
        raise ValueError(f"{name} must be a number, got {text.strip()!r}") from None
    if not math.isfinite(x):
        raise ValueError(f"{name} must be finite, got {text.strip()!r}")
    return x


def read_entry(p: Param, value: Entry) -> Entry:
    """An entry as the catalogue parameter ``p`` takes it (``ValueError`` naming the field)."""
    name = label(p.name)
    if p.kind == "bool":
        return bool(value)
    if p.kind == "int":
        if isinstance(value, str):
            value = parse_number(value, name)
        if value is None or isinstance(value, bool) or float(value) != int(value):
            raise ValueError(f"{name} must be a whole number, got {value!r}")
        x: float = int(value)
    elif p.kind == "float":
        if value is None or (isinstance(value, str) and not value.strip()):
            if not p.required:
                return p.default
            raise ValueError(f"{name} is empty: type a number")
        x = parse_number(value, name) if isinstance(value, str) else float(value)
    else:
        return value if value is not None else p.default
    if (p.minimum is not None and x < p.minimum) or (p.maximum is not None and x > p.maximum):
        raise ValueError(f"{name} must be in [{p.minimum:g}, {p.maximum:g}], got {x:g}"
                         if p.maximum is not None and p.minimum is not None
                         else f"{name} must be ≥ {p.minimum:g}, got {x:g}" if p.minimum is not None
                         else f"{name} must be ≤ {p.maximum:g}, got {x:g}")
    if p.name == "epsilon" and x <= 0:
        raise ValueError(f"{name} must be > 0, got {x:g}")
    return x


class Workspace:
    """The set-up of one run: dataset, queries, mechanism, parameters, totals; change events."""

    def __init__(self, mechanism_id: str = "sparse", entries: dict[str, Entry] | None = None) -> None:
        self._dataset: Dataset | None = None
        self._queries = QueryQueue()
        self._queries.subscribe(self._queue_edited)
        self._quiet = False  # set_dataset tells one event for the dataset and its queue
        self._queries_from_data: tuple[str, ...] = ()  # domains read off the data the queue was built from
        self._allow_from_data = False  # the curator's override: release over them, NOT private
        self._mechanism_id = mechanisms.info(mechanism_id).id
        self._entries: dict[str, Entry] = dict(entries or {})
        self._totals = NO_TOTALS  # declared total ε, δ of a dataset new to the ledger (as typed)
        self._budget: Budget | None = None  # the ledger's, for a known dataset
        self._listeners: list[Listener] = []
        self._plan: Plan | None = None
        self._proposed: float | None = None  # the T last proposed from public facts (None: none)
        self._options = RunOptions()
        # the files the window's set-up reads (the data, the ledger, the open session): the window sets
        # it; the plan refuses an output that is one of them, and every save dialog asks it too
        self.input_files: Callable[[], Inputs] = Inputs

    # -- reading ----------------------------------------------------------------------------------
    @property
    def dataset(self) -> Dataset | None:
        return self._dataset

    @property
    def schema(self) -> Schema | None:
        return None if self._dataset is None else self._dataset.schema

    @property
    def queries(self) -> QueryQueue:
        """The queue, edited in place (``queries.append(...)``, ``remove``, ``move``, ``reset``)."""
        return self._queries

    @property
    def queries_from_data(self) -> tuple[str, ...]:
        """The domains read off the data that the queue's queries were built from (empty: declared)."""
        return self._queries_from_data

    @property
    def allow_from_data(self) -> bool:
        """Whether the curator allowed a release over domains read from the data (NOT private)."""
        return self._allow_from_data

    @property
    def mechanism_id(self) -> str:
        return self._mechanism_id

    @property
    def info(self) -> MechanismInfo:
        return mechanisms.info(self._mechanism_id)

    @property
    def entries(self) -> dict[str, Entry]:
        return dict(self._entries)

    def entry(self, name: str) -> Entry:
        """The current entry of a parameter of the chosen mechanism (its default when never set)."""
        if name in self._entries:
            return self._entries[name]
        try:
            return self.info.param(name).default
        except KeyError:
            return None

    @property
    def totals(self) -> tuple[str, str]:
        return self._totals

    @property
    def options(self) -> RunOptions:
        """Outputs, adaptive or not, parameters given as values (see :class:`RunOptions`)."""
        return self._options

    @property
    def budget(self) -> Budget | None:
        """The ledger's budget of the dataset; None while the dataset is new to the ledger."""
        return self._budget

    @property
    def facts(self) -> QueueFacts:
        """Δ, integer, monotonic and the first misfit of the queue (kept by the queue as it is edited)."""
        return self._queries.facts(self.schema)

    def monotonic_requested(self) -> bool:
        """Monotonic queries: ticked by default whenever the queue allows it, unless unticked (only for
        mechanisms with a monotonic variant). With parameters given as values: as asked (the plan
        refuses it for a mechanism without that variant)."""
        if self._options.given is not None:
            return self._options.monotonic
        if not any(p.name == "monotonic" for p in self.info.params):
            return False
        chosen = self._entries.get("monotonic")
        return self.facts.monotonic if chosen is None else bool(chosen)

    def parameters(self) -> tuple[Params, dict[str, str]]:
        """(catalogue parameters as the mechanism takes them, {field: problem}) from the entries;
        Δ from the queue, integer and monotonic left to the plan to derive. Parameters given as values
        (:attr:`RunOptions.given`) are taken as they are: Δ only when given, else the plan derives it."""
        if self._options.given is not None:
            return dict(self._options.given), {}
        params: Params = {}
        problems: dict[str, str] = {}
        for p in self.info.params:
            if p.name in HIDDEN or p.name in ("integer", "monotonic"):
                continue
            if p.name == "sensitivity":
                params[p.name] = self.facts.sensitivity or 1.0
                continue
            try:
                params[p.name] = read_entry(p, self.entry(p.name))
            except ValueError as exc:
                problems[p.name] = str(exc)
        for key in RUN_PARAMS.get(self._mechanism_id, ()):  # the universe, the release file
            value = self._entries.get(key)
            params[key] = list(value or []) if key == "universe" else str(value or "")
        return params, problems

    def run_inputs(self) -> tuple[Params, bool]:
        """(parameters, monotonic asked) as a run takes them — the run plans them again, once."""
        return self.parameters()[0], self.monotonic_requested()

    @property
    def plan(self) -> Plan:
        """The plan of the current set-up, with the entries' own problems first (cached until a change)."""
        if self._plan is None:
            self._plan = self._build_plan()
        return self._plan

    def _build_plan(self) -> Plan:
        params, typed = self.parameters()
        budget, declared = self._budget, None
        if self._dataset is not None and budget is None:
            try:
                budget = declared_budget(*self._totals)
            except PlanError as exc:
                declared = Problem(exc.param, str(exc))
        plan = build(self._dataset, self._queries, self._mechanism_id, params,
                     monotonic=self.monotonic_requested(), facts=self.facts, budget=budget,
                     outputs=self._options.outputs, adaptive=self._options.adaptive,
                     inputs=self.input_files, domains=self.domains())
        problems = [Problem(k, v) for k, v in typed.items()]  # a field that does not parse says so itself
        hidden = (*typed, "mechanism") if typed else ()  # (the mechanism then misses that parameter)
        problems += [p for p in plan.problems if p.field not in hidden]
        if declared is not None:
            problems.append(declared)
        return dataclasses.replace(plan, problems=tuple(problems))

    # -- writing ----------------------------------------------------------------------------------
    def subscribe(self, listener: Listener) -> None:
        """Call ``listener(what_changed)`` after every change (plain callbacks, any thread-free code)."""
        self._listeners.append(listener)

    def domains(self) -> Domains:
        """The queue's domains read from the data and the override, as the plan and a run take them."""
        return Domains(self._queries_from_data, self._allow_from_data)

    def set_dataset(self, dataset: Dataset, queries: Iterable[Query] | None = None,
                    from_data: Iterable[str] = ()) -> None:
        """A newly opened dataset (and the queue that goes with it: none unless given, with the domains
        read from the data it was built from). Totals declared for the previous dataset are not kept:
        nothing is assumed for this one; nor is an override given for other rows."""
        before = self.domains()
        self._dataset = dataset
        self._quiet = True
        try:
            self._queries.reset(queries or [])
        finally:
            self._quiet = False
        self._queries_from_data = tuple(from_data) if self._queries else ()
        self._allow_from_data = False
        self._budget = None
        self._totals = NO_TOTALS
        domains = (DOMAINS,) if self.domains() != before else ()
        t = self._propose_threshold(keep_typed=False)  # a T typed for another dataset is not kept
        self._changed(DATASET, QUERIES, *domains, *t)

    def set_schema(self, schema: Schema) -> None:
        """The curator declared other bounds, kinds or neighbours: the same rows, a new schema."""
        if self._dataset is not None:
            self._dataset = self._dataset.with_schema(schema)
            t = self._propose_threshold(keep_typed=True)  # a public n may now be declared
            self._changed(DATASET, *t)

    def set_queries(self, queries: Iterable[Query], from_data: Iterable[str] | None = None) -> None:
        """Replace the queue (a sample's, a session's, an import, Undo): ``queries.reset``.
        ``from_data``: the domains read from the data it was built from (an imported list's, an undone
        Clear's); None keeps the current ones."""
        before = self._queries_from_data
        if from_data is not None:
            self._queries_from_data = tuple(from_data)
        self._queries.reset(queries)
        if self._queries_from_data != before:
            self._changed(DOMAINS)

    def _queue_edited(self, _change: QueueChange) -> None:
        """The queue was edited in place (the notes stay while it holds queries: an edit may keep any
        query built from a domain read off the data, so nothing is forgotten until it is empty)."""
        emptied = not self._queries and self._queries_from_data
        if emptied:
            self._queries_from_data = ()
        if not self._quiet:
            domains = (DOMAINS,) if emptied else ()
            self._changed(QUERIES, *domains, *self._propose_threshold(keep_typed=True))

    def add_from_data(self, notes: Iterable[str]) -> None:
        """Queries just added to the queue were built from these domains read off the data."""
        merged = tuple(dict.fromkeys((*self._queries_from_data, *notes)))
        if merged != self._queries_from_data and self._queries:
            self._queries_from_data = merged
            self._changed(DOMAINS)

    def set_allow_from_data(self, allowed: bool) -> None:
        """The curator's override (after a confirmation in the window): a release over domains read from
        the data may run, and is recorded and reported as NOT differentially private."""
        if bool(allowed) != self._allow_from_data:
            self._allow_from_data = bool(allowed)
            self._changed(DOMAINS)

    def _propose_threshold(self, *, keep_typed: bool) -> tuple[str, ...]:
        """T from public facts of this dataset and queue (:mod:`svtgui.app.threshold_default`), or
        none; with ``keep_typed`` only while T is still the last proposal (the curator's own T stays).
        Returns ``(PARAMS,)`` when an entry changed, for the change event."""
        before = {name: self._entries.get(name) for name in threshold_default.DATASET_ENTRIES}
        if keep_typed and before["threshold"] != self._proposed:
            return ()
        self._proposed = threshold_default.propose(self.schema, lambda: self.facts)
        for name in threshold_default.DATASET_ENTRIES:
            self._entries.pop(name, None)
        if self._proposed is not None:
            self._entries["threshold"] = self._proposed
        return (PARAMS,) if any(self._entries.get(k) != v for k, v in before.items()) else ()

    def set_mechanism(self, mechanism_id: str) -> None:
        mechanism_id = mechanisms.info(mechanism_id).id
        if mechanism_id != self._mechanism_id:
            self._mechanism_id = mechanism_id
            self._changed(MECHANISM)

    def set_entry(self, name: str, value: Entry) -> None:
        self.set_entries({name: value})

    def set_entries(self, values: dict[str, Entry]) -> None:
        """Several entries at once (a session restored, a sample's starting values): one event."""
        changed = {k: v for k, v in values.items() if self._entries.get(k, _UNSET) != v}
        if changed:
            self._entries.update(changed)
            self._changed(PARAMS)

    def set_totals(self, epsilon: str, delta: str) -> None:
        if (epsilon, delta) != self._totals:
            self._totals = (epsilon, delta)
            self._changed(TOTALS)

    def set_options(self, options: RunOptions) -> None:
        if options != self._options:
            self._options = options
            self._changed(OPTIONS)

    def set_budget(self, budget: Budget | None) -> None:
        """The ledger's budget of the dataset (None: new to the ledger), after every ledger change."""
        self._budget = budget
        self._changed(BUDGET)

    def remembered(self) -> dict[str, Entry]:
        """The entries worth restoring next time (typed values; nothing derived)."""
        run_params = {k for keys in RUN_PARAMS.values() for k in keys}  # a file, columns: per session
        return {k: v for k, v in self._entries.items()
                if k not in DERIVED and k != "monotonic" and k not in run_params
                and isinstance(v, str | int | float | bool)}

    def _changed(self, *what: str) -> None:
        self._plan = None
        event = frozenset(what)
        for listener in list(self._listeners):
            listener(event)


_UNSET = object()
