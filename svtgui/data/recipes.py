"""Headless recipes from the seed material, built from the core mechanisms and the data layer.

* :func:`auto_avg` — the programming-DP notebook's auto-clipped mean: AboveThreshold over
  clipped-sum differences picks the clipping bound b, then Laplace releases Σclip(x, 0, b)
  (sensitivity b) and the count (sensitivity 1); budget in thirds by default.
* :func:`range_screening` — the notebook's ``range_query_svt``: Sparse finds up to c ranges whose
  count exceeds T (half the budget), fresh Laplace answers only those (ε/(2c) each).
* :func:`frequent_items` — top-c items of a transaction dataset by ``standard_svt`` (monotonic),
  the book's ``sparse`` or ``em_top_c`` (Lyu, Su & Li), scored by :func:`score_selection`.

All noise comes from ``svtgui.core`` (mechanisms and ``core.laplace``); pass ``rng=seeded(s)``
only for tests and reproducible demonstrations. When a ``budget`` is passed, the whole ε of the
recipe is charged before anything is computed and is never refunded.
Results hold only released (noisy) values and public choices, never true answers.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from svtgui.core import mechanisms, validation
from svtgui.core.laplace import check as laplace_check
from svtgui.core.laplace import laplace_release
from svtgui.core.noise import NoiseSource, secure
from svtgui.data import generators
from svtgui.data.dataset import Dataset
from svtgui.data.evaluate import evaluate
from svtgui.data.predicates import QueryError
from svtgui.data.queries import (
    ClipDiff,
    ClippedSum,
    Count,
    ItemSupport,
    Query,
    all_integer,
    batch_sensitivity,
)

FREQUENT_ITEM_METHODS = ("standard_svt", "sparse", "em_top_c")


class Charger(Protocol):
    """Whatever a recipe charges before it reads data: a ``core.budget.Budget`` or a ledger run."""

    def charge(self, run_id: str, epsilon: float) -> object: ...


def _charge(budget: Charger | None, run_id: str, epsilon: float) -> None:
    if budget is not None:
        budget.charge(run_id, epsilon)


def _shares(split: Sequence[float], n: int, name: str) -> list[float]:
    if len(split) != n or any(isinstance(s, bool) or not isinstance(s, int | float) or s <= 0 for s in split):
        raise ValueError(f"{name} must be {n} positive numbers, got {split!r}")
    total = float(sum(split))
    return [s / total for s in split]


def _split_epsilon(eps: float, split: Sequence[float], parts: Sequence[str]) -> list[float]:
    """ε shared among ``parts`` by ``split``; a share that rounds to 0 (ε = 5e-324 split in three)
    is refused naming ε and the split ("epsilon must be > 0, got 0.0" named a value nobody typed)."""
    shares = [eps * s for s in _shares(split, len(parts), "split")]
    if any(s <= 0 for s in shares):
        given = ", ".join(f"{part} {share:g}" for part, share in zip(parts, shares, strict=True))
        raise validation.ParamError("epsilon", f"epsilon = {eps:g} is too small to split {len(parts)} ways "
                                               f"({given}: a share rounds to 0); raise epsilon")
    return shares


def _share_refused(part: str, share: float, by: str, exc: ValueError) -> validation.ParamError:
    """A step's share of ε that its mechanism cannot use, said as the share (not as an ε nobody typed:
    --split 1e308,1,1 read "the Laplace noise scale would be inf", ε = 1e308 read "got 3.3e+307")."""
    return validation.ParamError("split", f"{part} gets epsilon × its share of the split = {share:g}, which "
                                          f"{by} cannot use ({exc}); change epsilon or the split")


# -- auto-clipped mean -------------------------------------------------------------------------------


@dataclass(frozen=True)
class AutoAvgResult:
    """The released bound, noisy sum, noisy count and their ratio; ε of each step."""

    column: str
    bound: float
    found: bool  # False: AboveThreshold never fired, the sweep's last bound was used
    examined: int  # sweep queries AboveThreshold answered (public: where it stopped)
    noisy_sum: float
    noisy_count: float
    epsilon: float
    epsilons: tuple[float, float, float]  # (svt, sum, count)

    @property
    def mean(self) -> float:
        return self.noisy_sum / max(self.noisy_count, 1.0)


def auto_avg(
    ds: Dataset,
    column: str,
    epsilon: float,
    *,
    sweep: Sequence[ClipDiff] | None = None,
    threshold: float = 0.0,
    split: Sequence[float] = (1, 1, 1),
    rng: NoiseSource | None = None,
    budget: Charger | None = None,
) -> AutoAvgResult:
    """Differentially private mean of ``column`` with a clipping bound chosen by AboveThreshold.

    ``sweep`` defaults to the notebook's ``bs = range(1, 150000, 5)`` with differences
    Σclip(x, 0, b+1) − Σclip(x, 0, b). AboveThreshold looks for the first b where that difference
    (how much clipping at b still loses) falls to ``threshold``: it is fed the negated differences
    against −threshold, as the notebook does. Works unchanged on age (b ≈ 90) and capital gain
    (b ≈ 10^5), which is the point of the recipe.
    """
    eps = validation.positive("epsilon", epsilon)
    validation.finite("threshold", threshold)
    e_svt, e_sum, e_count = _split_epsilon(eps, split, ("the bound search", "the sum", "the count"))
    sweep = list(sweep) if sweep is not None else generators.clip_bound_sweep(column, 1, 150_000, 5)
    if not sweep:
        raise QueryError("the clip-bound sweep is empty")
    if any(not isinstance(q, ClipDiff) or q.column != column for q in sweep):
        raise QueryError(f"the sweep must hold clip_diff queries on column {column!r}")
    ClippedSum(column, 0, 1).validate(ds.schema)
    source = rng if rng is not None else secure()
    # every mechanism and release is checked before the charge: a scale out of range is refused, not paid
    try:
        at = mechanisms.create(
            "above_threshold",
            epsilon=e_svt,
            threshold=-float(threshold),
            sensitivity=batch_sensitivity(sweep, ds.schema),
            rng=source,
        )
    except validation.ParamError as exc:
        if exc.param != "epsilon":
            raise
        raise _share_refused("the bound search", e_svt, "AboveThreshold", exc) from None
    try:
        for b in (min(q.bound for q in sweep), sweep[-1].bound + sweep[-1].step):
            laplace_check(max(float(b), 1e-9), e_sum)
    except ValueError as exc:
        raise _share_refused("the sum", e_sum, "Laplace", exc) from None
    try:
        laplace_check(1.0, e_count, integer=True)
    except ValueError as exc:
        raise _share_refused("the count", e_count, "Laplace", exc) from None
    _charge(budget, f"auto_avg:{column}", eps)
    answers = evaluate(ds, sweep)
    batch = at.submit_many(-answers)
    hits = np.flatnonzero(batch.above[: batch.consumed])
    found = bool(hits.size)
    chosen = sweep[int(hits[0])] if found else sweep[-1]
    bound = float(chosen.bound + chosen.step) if not found else float(chosen.bound)
    bound = max(bound, 1e-9)
    total = evaluate(ds, [ClippedSum(column, 0, bound), Count()])
    noisy_sum = float(laplace_release(total[0], bound, e_sum, source))
    noisy_count = float(laplace_release(total[1], 1.0, e_count, source, integer=True))
    return AutoAvgResult(column, bound, found, int(batch.consumed), noisy_sum, noisy_count, eps,
                         (e_svt, e_sum, e_count))


# -- range screening ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class ScreeningResult:
    """Indices (into the query list) Sparse found above T, and their fresh Laplace answers."""

    indices: tuple[int, ...]
    answers: tuple[float, ...]
    epsilon: float
    examined: int  # queries Sparse processed before halting (public: it is where it stopped)


def range_screening(
    ds: Dataset,
    queries: Sequence[Query],
    epsilon: float,
    threshold: float,
    cutoff: int,
    *,
    screen_share: float = 0.5,
    rng: NoiseSource | None = None,
    budget: Charger | None = None,
) -> ScreeningResult:
    """Sparse (ε·share) finds up to ``cutoff`` queries above ``threshold``; Laplace answers only those.

    Each answer gets ε·(1 − share)/cutoff, so the total is ε whatever Sparse finds.
    """
    eps = validation.positive("epsilon", epsilon)
    c = validation.count("cutoff", cutoff)
    share = validation.fraction_open("screen_share", screen_share)
    queries = list(queries)
    if not queries:
        raise QueryError("the query list is empty")
    sens = batch_sensitivity(queries, ds.schema)
    integer = all_integer(queries)
    source = rng if rng is not None else secure()
    try:  # the split's parts are named as the curator typed them, not as the inner ε they become
        sparse = mechanisms.create(
            "sparse",
            epsilon=eps * share,
            threshold=float(threshold),
            cutoff=c,
            sensitivity=sens,
            integer=integer,
            rng=source,
        )
    except validation.ParamError as exc:
        if exc.param != "epsilon":
            raise
        raise validation.ParamError(
            "screen_share", f"screening gets epsilon × screen_share = {eps * share:g}, which Sparse cannot "
                            f"use ({exc}); raise epsilon or screen_share") from None
    e_answer = eps * (1 - share) / c
    for q in queries:  # every possible answer's release is checked before the charge
        try:
            laplace_check(q.sensitivity(ds.schema), e_answer, integer=q.integer)
        except ValueError as exc:
            raise validation.ParamError(
                "screen_share", f"each answer gets epsilon × (1 − screen_share) / cutoff = {e_answer:g}, "
                                f"which Laplace cannot use ({exc}); raise epsilon or lower screen_share "
                                "or cutoff") from None
    _charge(budget, "range_screening", eps)
    answers = evaluate(ds, queries)
    batch = sparse.submit_many(answers)
    found = np.flatnonzero(batch.above[: batch.consumed])
    released = tuple(
        float(
            laplace_release(
                answers[i], queries[i].sensitivity(ds.schema), e_answer, source, integer=queries[i].integer
            )
        )
        for i in found
    )
    return ScreeningResult(tuple(int(i) for i in found), released, eps, int(batch.consumed))


# -- frequent items ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class FrequentItemsResult:
    method: str
    items: tuple
    epsilon: float
    cutoff: int


@dataclass(frozen=True)
class SelectionScore:
    precision: float
    recall: float
    f1: float


def frequent_items(
    ds: Dataset,
    cutoff: int,
    epsilon: float,
    method: str = "em_top_c",
    *,
    threshold: float | None = None,
    items: Sequence | None = None,
    column: str = "items",
    order_seed: int | None = 0,
    rng: NoiseSource | None = None,
    budget: Charger | None = None,
) -> FrequentItemsResult:
    """Up to ``cutoff`` frequent items chosen privately.

    ``items`` is the public item domain (default: the items that occur, see
    ``generators.observed_items``). SVT methods need a public ``threshold`` and examine the items
    in a public random order (``order_seed``; None keeps the given order) and stop after c ⊤.
    ``em_top_c`` needs no threshold.
    """
    if method not in FREQUENT_ITEM_METHODS:
        raise ValueError(f"method must be one of {', '.join(FREQUENT_ITEM_METHODS)}, got {method!r}")
    eps = validation.positive("epsilon", epsilon)
    c = validation.count("cutoff", cutoff)
    if method != "em_top_c" and threshold is None:
        raise ValueError(f"{method} needs a public threshold")
    domain = list(items) if items is not None else generators.observed_items(ds, column)
    if items is not None and 0 < len(domain) < c:  # the public domain's size (an observed one is private)
        size = len(domain)
        raise ValueError(f"cutoff c = {c:,} is more than the {size:,} items of the public item domain: at "
                         f"most {size:,} can be chosen, and a larger c only spreads ε thinner (each choice "
                         f"gets ε/c); give a cutoff of at most {size:,}")
    if order_seed is not None:
        domain = [domain[i] for i in np.random.default_rng(order_seed).permutation(len(domain))]
    queries = generators.every_item(domain, column)
    source = rng if rng is not None else secure()
    if method == "em_top_c":
        mech = mechanisms.create("em_top_c", epsilon=eps, cutoff=c, sensitivity=1.0, integer=True,
                                 monotonic=True, rng=source)
    else:
        extra = {"monotonic": True} if method == "standard_svt" else {}
        mech = mechanisms.create(
            method,
            epsilon=eps,
            threshold=float(threshold),
            cutoff=c,
            sensitivity=1.0,
            integer=True,
            rng=source,
            **extra,
        )
    _charge(budget, f"frequent_items:{method}", eps)  # after the mechanism's own checks
    answers = evaluate(ds, queries)
    if method == "em_top_c":
        chosen = list(mech.select(answers).indices)
    else:
        batch = mech.submit_many(answers)
        chosen = np.flatnonzero(batch.above[: batch.consumed]).tolist()
    return FrequentItemsResult(method, tuple(domain[i] for i in chosen), eps, c)


def true_top_items(ds: Dataset, cutoff: int, column: str = "items") -> tuple[list, np.ndarray]:
    """The exact top-c items (ties broken by item id) and all supports sorted descending.

    For evaluation and benchmarks only: the result is computed from the private data.
    """
    c = validation.count("cutoff", cutoff)
    domain = generators.observed_items(ds, column)
    supports = evaluate(ds, [ItemSupport((it,), column) for it in domain])
    order = np.lexsort((np.arange(len(domain)), -supports))
    return [domain[i] for i in order[:c]], supports[order]


def score_selection(selected: Sequence, truth: Sequence) -> SelectionScore:
    """Precision, recall and F1 of a selection against the true top-c."""
    chosen, true = set(selected), set(truth)
    hit = len(chosen & true)
    precision = hit / len(chosen) if chosen else 0.0
    recall = hit / len(true) if true else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return SelectionScore(precision, recall, f1)


def mid_threshold(sorted_supports: np.ndarray, cutoff: int) -> float:
    """Lyu et al.'s evaluation threshold: midway between the c-th and (c+1)-th largest supports.

    Data-dependent, so only for benchmarks that reproduce the paper's setting.
    """
    c = validation.count("cutoff", cutoff)
    s = sorted_supports
    return float((s[c - 1] + s[min(c, len(s) - 1)]) / 2) if len(s) else math.nan
