"""Recipes: auto-clipped mean, range screening, frequent items; and the core Laplace release.

Statistical checks use fixed seeds and tolerances of 25 noise scales unless stated otherwise:
P(|Lap(b)| > 25b) = e^-25 ≈ 1.4e-11 per draw, so the false-failure probability of each test is
below 1e-6 even after the union bounds noted next to the assertions.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from svtgui.core.budget import Budget, BudgetExceeded
from svtgui.core.laplace import laplace_release, laplace_scale
from svtgui.core.noise import seeded
from svtgui.data import generators, load_dataset, recipes
from svtgui.data.dataset import Dataset
from svtgui.data.evaluate import evaluate
from svtgui.data.predicates import QueryError
from svtgui.data.queries import RangeCount

TAIL = 25


@pytest.fixture(scope="module")
def adult(shared_data):
    return load_dataset(shared_data / "adult.csv")


@pytest.mark.parametrize("column, seed", [("age", 1), ("capital-gain", 2)])
def test_auto_avg_on_columns_of_very_different_scales(adult, column, seed):
    eps = 1.0
    res = recipes.auto_avg(adult, column, eps, rng=seeded(seed))
    x = adult.frame[column].to_numpy(dtype=float)
    n = len(x)
    assert res.epsilons == pytest.approx((eps / 3,) * 3) and res.found
    # AboveThreshold stops only once few rows lie above b: it compares −#{x > b} + Lap(12) with
    # Lap(6); stopping with ≥ 600 rows above needs a noise draw ≥ 300 = 25 scales among ≤ 30,000
    # queries: probability ≤ 30,000·e^-25 ≈ 4e-7.
    assert (x > res.bound).sum() < 600
    # Given the bound, sum and count carry independent lattice Laplace noise.
    clipped_sum = np.clip(x, 0, res.bound).sum()
    s_sum, s_count = laplace_scale(res.bound, eps / 3), laplace_scale(1, eps / 3, integer=True)
    assert abs(res.noisy_sum - clipped_sum) < TAIL * s_sum
    assert abs(res.noisy_count - n) < TAIL * s_count
    assert res.mean == pytest.approx(res.noisy_sum / res.noisy_count)


def test_auto_avg_charges_its_budget_first_and_refuses_when_short(adult):
    budget = Budget.of(1.5)
    recipes.auto_avg(adult, "age", 1.0, rng=seeded(3), budget=budget)
    assert budget.spent_epsilon == 1
    with pytest.raises(BudgetExceeded):
        recipes.auto_avg(adult, "age", 1.0, rng=seeded(3), budget=budget)
    assert budget.spent_epsilon == 1


def test_auto_avg_bad_input(adult):
    with pytest.raises(ValueError, match="epsilon"):
        recipes.auto_avg(adult, "age", 0)
    with pytest.raises(ValueError, match="split"):
        recipes.auto_avg(adult, "age", 1, split=(1, 1))
    with pytest.raises(QueryError, match="numeric"):
        recipes.auto_avg(adult, "sex", 1)
    with pytest.raises(QueryError, match="clip_diff"):
        recipes.auto_avg(adult, "age", 1, sweep=generators.clip_bound_sweep("fnlwgt", 1, 10, 1))


def test_range_screening_answers_only_large_ranges(adult):
    queries = generators.random_ranges("age", 17, 91, 2000, seed=9)
    eps, c, threshold = 1.0, 5, 10_000
    res = recipes.range_screening(adult, queries, eps, threshold, c, rng=seeded(4))
    truth = evaluate(adult, queries)
    assert 1 <= len(res.indices) <= c and len(res.answers) == len(res.indices)
    assert list(res.indices) == sorted(res.indices) and res.examined >= res.indices[-1] + 1
    # Sparse with ε/2 = 0.5, c = 5: σ = 2cΔ/ε = 20, query noise Lap(40), threshold noise Lap(20).
    # A ⊤ for a count below T − 2000 needs noise ≥ 1000 = 25 scales: ≤ 2000·e^-25 overall.
    assert all(truth[i] >= threshold - 2000 for i in res.indices)
    # The released answers carry fresh Laplace noise with ε/(2c) = 0.1 each: scale 10.
    scale = laplace_scale(1, eps / (2 * c), integer=True)
    assert all(abs(a - truth[i]) < TAIL * scale for i, a in zip(res.indices, res.answers, strict=True))
    assert all(isinstance(a, float) and float(a).is_integer() for a in res.answers)


def test_range_screening_bad_input(adult):
    with pytest.raises(QueryError, match="empty"):
        recipes.range_screening(adult, [], 1.0, 10, 2)
    with pytest.raises(ValueError, match="cutoff"):
        recipes.range_screening(adult, [RangeCount("age", 1, 2)], 1.0, 10, 0)
    with pytest.raises(ValueError, match="screen_share"):
        recipes.range_screening(adult, [RangeCount("age", 1, 2)], 1.0, 10, 1, screen_share=1)


@pytest.fixture(scope="module")
def baskets():
    from svtgui.assets import asset

    return load_dataset(asset("samples/baskets.dat"))


@pytest.mark.parametrize("method", recipes.FREQUENT_ITEM_METHODS)
def test_frequent_items_with_ample_budget_find_the_true_top(baskets, method):
    c = 5
    truth, supports = recipes.true_top_items(baskets, c)
    gap = supports[c - 1] - supports[c]
    assert gap > 100  # the sample's top 5 are well separated
    # ε = 10: every noise scale involved is ≤ 2 (EM: exp(2·q) per round, SVT scales ≤ 2), far below
    # gap/2 = 50 = 25 scales, so each method recovers the exact top c except with probability < 1e-6.
    res = recipes.frequent_items(
        baskets, c, 10.0, method, threshold=recipes.mid_threshold(supports, c), rng=seeded(6)
    )
    assert set(res.items) == set(truth)
    assert recipes.score_selection(res.items, truth).f1 == 1.0


def test_frequent_items_bad_input(baskets):
    with pytest.raises(ValueError, match="method"):
        recipes.frequent_items(baskets, 3, 1.0, "magic")
    with pytest.raises(ValueError, match="threshold"):
        recipes.frequent_items(baskets, 3, 1.0, "sparse")
    with pytest.raises(ValueError, match="cutoff"):
        recipes.frequent_items(baskets, 0, 1.0)


def test_score_selection():
    s = recipes.score_selection([1, 2, 3, 4], [1, 2, 5, 6, 7, 8])
    assert (s.precision, s.recall) == (0.5, 2 / 6) and s.f1 == pytest.approx(
        2 * 0.5 * (1 / 3) / (0.5 + 1 / 3)
    )
    assert recipes.score_selection([], [1]).f1 == 0.0


def test_true_top_items_breaks_ties_by_id():
    ds = Dataset.from_frame(pd.DataFrame({"items": pd.Series([(5, 2), (2, 5), (9,), (9,)], dtype=object)}))
    top, supports = recipes.true_top_items(ds, 2)
    assert top == [2, 5] and supports.tolist() == [2, 2, 2]


# -- core.laplace ------------------------------------------------------------------------------------


def test_integer_laplace_release_has_the_discrete_laplace_law():
    rng = seeded(11)
    eps = 0.5
    draws = np.array([laplace_release(100, 1, eps, rng, integer=True) for _ in range(20_000)]) - 100
    assert all(isinstance(v, int) for v in draws[:10].tolist())
    p = math.exp(-eps)  # two-sided geometric with P(z) ∝ p^|z|
    var = 2 * p / (1 - p) ** 2
    # mean: 5 standard errors (≈ 6e-7 two-sided, normal approximation)
    assert abs(draws.mean()) < 5 * math.sqrt(var / len(draws))
    # variance: 5 s.e. of the sample variance, s.e. ≈ sqrt((μ4 − σ⁴)/n) with μ4 ≈ 6σ⁴ (Laplace)
    assert abs(draws.var() - var) < 5 * math.sqrt(5 * var**2 / len(draws))


def test_real_laplace_release_lies_on_the_lattice():
    out = laplace_release(3.14159, 2.5, 1.0, seeded(1))
    step = 2.0 ** (math.floor(math.log2(2.5)) - 10)
    assert (out / step).is_integer()
    with pytest.raises(ValueError, match="epsilon"):
        laplace_release(1.0, 1.0, 0.0)
    with pytest.raises(ValueError, match="finite"):
        laplace_release(float("nan"), 1.0, 1.0)
