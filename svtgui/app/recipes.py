"""The seeds' recipes as ledger runs, shared by the window (Queries → Recipes…) and ``svtgui-cli recipe``.

A recipe composes mechanisms (SVT to choose, Laplace to answer) into one release. Here each one is
one ledger run, charged its whole ε before any data is read, with what it released committed to
the ledger before it is returned: the SVT stream as ⊥/⊤ rows (the stopping point is public) and the
released numbers as run facts. The computations themselves are :mod:`svtgui.data.recipes`.

Why one run per recipe and not one per step: the curator decides, and is charged, for the recipe
as a whole; a recipe that fails after the charge is marked interrupted and keeps its spend, as any
run does.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from svtgui.app import gate
from svtgui.app.domains import DECLARED, Domains, gate_extra, problem, release_notes
from svtgui.app.params import Params
from svtgui.app.run_plans import PLAN_FACT, PlanDocument, recipe_plan
from svtgui.core.laplace import laplace_scale
from svtgui.core.noise import Lattice, NoiseSource
from svtgui.data import recipes
from svtgui.data.dataset import Dataset
from svtgui.data.generators import clip_bound_sweep
from svtgui.data.queries import ItemSupport, Query
from svtgui.data.schema import Schema
from svtgui.ledger import FINISHED, INTERRUPTED, Ledger, ResponseBatch, RunRecord

ACCURACY_BETA = 0.05  # each released number's accuracy is stated at 95 %


@dataclass(frozen=True)
class RecipeInfo:
    """What reports and the history say about a recipe (the fields of a catalogue entry they use)."""

    id: str
    name: str
    summary: str
    citation: str
    guarantee: str
    interactive: bool = False


NEAR = "Near & Abuah, Programming Differential Privacy, chapter 'The Sparse Vector Technique'"
AUTO_MEAN = RecipeInfo(
    "recipe_auto_mean", "Auto-clipped mean (recipe)",
    "AboveThreshold over clipped-sum differences chooses the clipping bound b; Laplace then releases "
    "the clipped sum (sensitivity b) and the count (sensitivity 1).",
    f"{NEAR} (auto_avg)", "ε-DP (basic composition of AboveThreshold and two Laplace releases)")
SCREEN_RANGES = RecipeInfo(
    "recipe_screen_ranges", "Range screening (recipe)",
    "Sparse finds up to c ranges whose count exceeds T; fresh Laplace noise answers only those.",
    f"{NEAR} (range_query_svt)", "ε-DP (basic composition of Sparse and c Laplace releases)")
FREQUENT_ITEMS = RecipeInfo(
    "recipe_frequent_items", "Frequent items (recipe)",
    "The top c items of a transactions dataset, chosen by the exponential mechanism (or Standard SVT).",
    "Lyu, Su & Li, Understanding the Sparse Vector Technique for Differential Privacy, VLDB 2017",
    "ε-DP (the chosen selection mechanism)")
RECIPES = {r.id: r for r in (AUTO_MEAN, SCREEN_RANGES, FREQUENT_ITEMS)}


def info(recipe_id: str) -> RecipeInfo | None:
    """The recipe with this ledger mechanism id, or None for a catalogue mechanism."""
    return RECIPES.get(recipe_id)


#: What a recipe records besides its rows, as the ledger keeps it: a JSON object (``Any``: each fact is
#: the JSON value the recipe recorded: a mean, a chosen bound, a count).
Facts = dict[str, Any]
#: What a recipe's computation returns (its own result class in :mod:`svtgui.data.recipes`).
Result = TypeVar("Result")


class Charger(Protocol):
    """Charges a recipe's budget when the recipe reaches its charge (after its checks)."""

    def charge(self, label: str, epsilon: float) -> None: ...


@dataclass
class RecipeRun:
    """What a recipe released, as recorded: the finished run and its facts."""

    record: RunRecord
    facts: Facts = field(default_factory=dict)


class _Checked(Exception):
    """Raised by :class:`_DryRun` at the charge: every check before it passed."""


class _DryRun:
    """A charger that stops the recipe at its charge, so its own checks run and nothing else."""

    def charge(self, _label: str, _epsilon: float) -> None:
        raise _Checked


class _LedgerCharge:
    """Starts the ledger run, through the gate, when the recipe charges (after its own checks, before
    reading data)."""

    def __init__(self, ledger: Ledger, plan: RecipePlan) -> None:
        self.ledger, self.plan = ledger, plan
        self.record: RunRecord | None = None

    def charge(self, _label: str, epsilon: float) -> None:
        self.record = gate.charge(self.ledger, self.plan.request(epsilon))


@dataclass
class RecipePlan(Generic[Result]):
    """A recipe set up but not run: what it costs, its checks, and how it is recorded.

    ``compute(charger)`` is the :mod:`svtgui.data.recipes` call; it checks its inputs, charges, then
    reads the data. ``to_ledger(result)`` turns its result into ledger rows and facts.
    """

    recipe: RecipeInfo
    epsilon: float
    params: Params
    source: NoiseSource
    compute: Callable[[Charger], Result]
    to_ledger: Callable[[Result], tuple[list[tuple], Facts]]
    #: The queries the recipe will ask and the schema they must fit: checked by :meth:`check` exactly as
    #: a run's queries are (column, kind, value types), so a query that cannot be evaluated is refused
    #: before the charge instead of failing after it.
    queries: Sequence[Query] = ()
    dataset: Dataset | None = None
    #: The keyword arguments that make the same plan again (kept in the ledger: :mod:`.run_plans`).
    arguments: PlanDocument = field(default_factory=dict)
    #: Domains read off the data that the recipe's inputs bring (a query list's, the items that occur)
    #: and the curator's override: without it such a recipe is refused (:mod:`svtgui.app.domains`).
    domains: Domains = DECLARED

    def domains_from_data(self) -> tuple[str, ...]:
        """Every domain read off the data this recipe depends on (its own and the schema's)."""
        return release_notes(self.schema, self.queries, self.domains.from_data)

    @property
    def schema(self) -> Schema | None:
        return None if self.dataset is None else self.dataset.schema

    def request(self, epsilon: float | None = None) -> gate.Request:
        """What the gate checks and charges for this recipe (``epsilon``: what it charges, else its ε)."""
        eps = self.epsilon if epsilon is None else epsilon
        return gate.Request(self.dataset, self.recipe.id, self.params, repr(float(eps)), "0",
                            secure=self.source.secure, noise_description=self.source.description,
                            extra=gate_extra(self.domains_from_data(), self.domains.allowed))

    def check(self) -> None:
        """Run the recipe's own checks and every query's schema check, without charging or reading the
        data (raises what they raise); a domain read off the data is refused unless allowed."""
        from svtgui.app.plan import describe_query, validate_query

        refused = problem(self.domains_from_data(), self.domains.allowed)
        if refused is not None:
            raise ValueError(refused)
        for i, q in enumerate(self.queries):
            try:
                validate_query(q, self.schema)
            except ValueError as exc:
                raise ValueError(f"query {i + 1} ({describe_query(q)}): {exc}") from None
        try:
            self.compute(_DryRun())
        except _Checked:
            return
        raise AssertionError(f"{self.recipe.id} did not charge before computing")  # pragma: no cover

    def run(self, ledger: Ledger) -> RecipeRun:
        """Charge the whole ε (one ledger run, through the gate), compute, commit rows and facts, finish.

        Everything :meth:`check` checks is checked first, then the gate's checks at the charge (nothing
        charged when either fails); a failure after the charge ends the run as interrupted, and the
        spend is kept.
        """
        self.check()
        charge = _LedgerCharge(ledger, self)
        try:
            rows, facts = self.to_ledger(self.compute(charge))
            assert charge.record is not None, "a recipe returned without charging"
            ledger.record_fact(charge.record.id, PLAN_FACT, recipe_plan(self.recipe.id, self.epsilon,
                                                                        self.arguments))
            if rows:
                ledger.record(charge.record.id, ResponseBatch.of(rows))
            for key, value in facts.items():
                ledger.record_fact(charge.record.id, key, value)
        except BaseException:
            if charge.record is not None:
                ledger.finish_run(charge.record.id, INTERRUPTED)
            raise
        return RecipeRun(ledger.finish_run(charge.record.id, FINISHED), facts)


def laplace_alpha(sensitivity: float, epsilon: float, *, integer: bool, beta: float = ACCURACY_BETA) -> float:
    """|release − true| ≤ α with probability ≥ 1 − β for one lattice Laplace release.

    Discrete Laplace with scale t (lattice units) has P[|Z| ≥ k] = 2p^k/(1 + p), p = e^(−1/t); the
    rounding of the true value to the lattice adds at most half a step (none for integers).
    """
    lattice = Lattice.for_sensitivity(sensitivity, integer=integer)
    t = lattice.scale_units(laplace_scale(sensitivity, epsilon, integer=integer))
    p = math.exp(-1.0 / t)
    k = max(1, math.ceil(math.log(beta * (1 + p) / 2) / math.log(p)))
    return k * lattice.step + (0.0 if integer else lattice.step / 2)


# -- auto-clipped mean -------------------------------------------------------------------------------


def default_sweep(ds: Dataset, column: str) -> tuple[float, float, float]:
    """(start, stop, step) of the clip-bound sweep: from the column's declared public bounds.

    A declared upper bound U gives at most about 1,000 bounds from 1 to 1.2·U: past U every difference
    is 0, and the sweep needs a stretch of such queries for AboveThreshold (threshold 0) to fire
    reliably. Without a declared bound, the notebook's range(1, 150000, 5). Never read from the data.
    """
    upper = ds.schema.column(column).upper if column in ds.schema else None
    if upper is None or not math.isfinite(float(upper)) or float(upper) <= 1:
        return 1.0, 150_000.0, 5.0
    stop = math.ceil(1.2 * float(upper)) + 2
    return 1.0, float(stop), float(max(1, math.ceil(stop / 1000)))


def auto_mean(ds: Dataset, column: str, epsilon: float, *, sweep: tuple[float, float, float] | None = None,
              split: Sequence[float] = (1, 1, 1), threshold: float = 0.0,
              rng: NoiseSource | None = None) -> RecipePlan:
    """The auto-clipped mean; facts: bound, found, noisy sum/count, mean, accuracy, a 90 % interval."""
    start, stop, step = sweep if sweep is not None else default_sweep(ds, column)
    queries = clip_bound_sweep(column, start, stop, step)
    source = rng if rng is not None else _secure()

    def to_ledger(result: recipes.AutoAvgResult) -> tuple[list[tuple], Facts]:
        rows = [(i, q.describe(), result.found and i == result.examined - 1, None, None)
                for i, q in enumerate(queries[:result.examined])]
        e_svt, e_sum, e_count = result.epsilons
        a_sum = laplace_alpha(result.bound, e_sum, integer=False)
        a_count = laplace_alpha(1.0, e_count, integer=True)
        return rows, {"bound": result.bound, "bound_found": result.found, "noisy_sum": result.noisy_sum,
                      "noisy_count": result.noisy_count, "mean": result.mean,
                      "epsilon_split": [e_svt, e_sum, e_count],
                      "sum_alpha_95": a_sum, "count_alpha_95": a_count,
                      "mean_interval_90": mean_interval(result.noisy_sum, result.noisy_count, a_sum, a_count)}

    return RecipePlan(
        AUTO_MEAN, epsilon,
        {"column": column, "sweep_start": start, "sweep_stop": stop, "sweep_step": step, "split": list(split),
         "threshold": threshold, "queries": len(queries)},
        source,
        lambda charger: recipes.auto_avg(ds, column, epsilon, sweep=queries, threshold=threshold, split=split,
                                         rng=source, budget=charger),
        to_ledger, queries, ds,
        {"column": column, "sweep": [start, stop, step], "split": list(split), "threshold": threshold})


def mean_interval(noisy_sum: float, noisy_count: float, a_sum: float, a_count: float) -> list[float] | None:
    """Where the clipped mean lies when both releases are within their α (probability ≥ 90 %).

    From released values only: if |S − Ŝ| ≤ α_S and |N − N̂| ≤ α_N then S/N lies between the extreme
    ratios of those intervals. None when the count interval reaches 0 (no useful statement).
    """
    lo_n, hi_n = noisy_count - a_count, noisy_count + a_count
    if lo_n <= 0:
        return None
    ratios = [(noisy_sum + s) / n for s in (-a_sum, a_sum) for n in (lo_n, hi_n)]
    return [min(ratios), max(ratios)]


# -- range screening ---------------------------------------------------------------------------------


def screen_ranges(ds: Dataset, queries: Sequence[Query], epsilon: float, threshold: float, cutoff: int, *,
                  screen_share: float = 0.5, rng: NoiseSource | None = None,
                  domains: Domains = DECLARED) -> RecipePlan:
    """Range screening: ⊤ rows carry the fresh Laplace answers; facts list them with their α.
    ``domains``: the query list's domains read from the data, and the override."""
    queries = list(queries)
    source = rng if rng is not None else _secure()

    def to_ledger(result: recipes.ScreeningResult) -> tuple[list[tuple], Facts]:
        answers = dict(zip(result.indices, result.answers, strict=True))
        rows = [(i, q.describe(), i in answers, answers.get(i), None)
                for i, q in enumerate(queries[:result.examined])]
        e_answer = epsilon * (1 - screen_share) / cutoff
        alphas = [laplace_alpha(queries[i].sensitivity(ds.schema), e_answer, integer=queries[i].integer)
                  for i in result.indices]
        return rows, {"found": len(result.indices), "examined": result.examined,
                      # each answer's sensitivity and lattice: its exact interval in the statistics table
                      "answers": [{"query": queries[i].describe(), "value": v,
                                   "sensitivity": queries[i].sensitivity(ds.schema),
                                   "integer": queries[i].integer} for i, v in answers.items()],
                      "epsilon_per_answer": e_answer, "answer_alpha_95": max(alphas) if alphas else None}

    return RecipePlan(
        SCREEN_RANGES, epsilon,
        {"threshold": threshold, "cutoff": cutoff, "screen_share": screen_share, "queries": len(queries)},
        source,
        lambda charger: recipes.range_screening(ds, queries, epsilon, threshold, cutoff,
                                                screen_share=screen_share, rng=source, budget=charger),
        to_ledger, queries, ds,
        {"queries": [q.to_json() for q in queries], "threshold": threshold, "cutoff": cutoff,
         "screen_share": screen_share}, domains)


# -- frequent items ----------------------------------------------------------------------------------


def frequent_items(ds: Dataset, items: Sequence[str | int | float], cutoff: int, epsilon: float, *,
                   method: str = "em_top_c", threshold: float | None = None, column: str = "items",
                   rng: NoiseSource | None = None, domains: Domains = DECLARED) -> RecipePlan:
    """Frequent items: one ⊤ row per chosen item, in the order chosen.

    ``items`` is the PUBLIC item domain (e.g. every product id of a catalogue): the list of items
    that occur in the data is itself private (an item bought once names its buyer's basket), so it
    is never the default here; a caller that offers it passes its note in ``domains``
    (:func:`svtgui.data.provenance.items_note`), and the recipe is then refused unless allowed.
    """
    items = list(items)
    source = rng if rng is not None else _secure()

    def compute(charger: Charger) -> recipes.FrequentItemsResult:
        if not items:
            raise ValueError("the item domain is empty: give the public list of possible items")
        return recipes.frequent_items(ds, cutoff, epsilon, method, threshold=threshold, items=items,
                                      column=column, rng=source, budget=charger)

    def to_ledger(result: recipes.FrequentItemsResult) -> tuple[list[tuple], Facts]:
        rows = [(i, f"item {item}", True, None, None) for i, item in enumerate(result.items)]
        return rows, {"items": [_plain(it) for it in result.items]}

    # one support query stands for all of them: the column check is the same for every item
    probe = [ItemSupport((items[0],), column)] if items else []
    return RecipePlan(
        FREQUENT_ITEMS, epsilon,
        {"method": method, "cutoff": cutoff, "threshold": threshold, "column": column,
         "domain_size": len(items)},
        source, compute, to_ledger, probe, ds,
        {"items": items, "cutoff": cutoff, "method": method, "threshold": threshold, "column": column},
        domains)


def _plain(item: object) -> object:
    """An item as JSON (numpy scalars become Python numbers)."""
    return item.item() if hasattr(item, "item") else item


def _secure() -> NoiseSource:
    from svtgui.core.noise import secure

    return secure()
