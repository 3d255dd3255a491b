"""Clipped sums are exact (issue 11 §7): neighbours never differ by more than the declared Δ.

The crafted neighbouring pairs below break a floating-point prefix-sum evaluation (the previous
implementation, reproduced here as ``float_prefix_*`` to show the pairs are adversarial): a row far
below the clip bound (−1e16 or −1e300, clipped to l) swallows every in-range value that follows it
in the running sum, and a clip difference at a large bound b with a tiny step s is a difference of
two prefix sums whose rounding error is far above s. Sensitivities are checked in exact rational
arithmetic (``Fraction``), and on the mechanisms' lattice in units (``Lattice.units``).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from svtgui.core.noise import Lattice
from svtgui.data import exact_sums
from svtgui.data.dataset import Dataset
from svtgui.data.evaluate import evaluate
from svtgui.data.queries import ClipDiff, ClippedSum
from svtgui.data.schema import Neighbouring

SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
TINY = 5e-324  # the smallest subnormal


def float_prefix_sum(x: np.ndarray, lower: float, upper: float) -> float:
    """The previous evaluation: sorted values, float prefix sums, l·#{x<l} + Σ_in + u·#{x>u}."""
    xs = np.sort(x)
    prefix = np.concatenate(([0.0], np.cumsum(xs)))
    i, j = np.searchsorted(xs, lower, "left"), np.searchsorted(xs, upper, "right")
    return float(lower * i + (prefix[j] - prefix[i]) + upper * (len(xs) - j))


def float_prefix_clip_diff(x: np.ndarray, b: float, s: float) -> float:
    xs = np.sort(x)
    prefix = np.concatenate(([0.0], np.cumsum(xs)))
    i, j = np.searchsorted(xs, b, "right"), np.searchsorted(xs, b + s, "right")
    return float((prefix[j] - prefix[i]) - b * (j - i) + s * (len(xs) - j))


def answer(values, query, neighbouring=Neighbouring.ADD_REMOVE) -> float:
    ds = Dataset.from_frame(pd.DataFrame({"x": np.asarray(values, dtype=np.float64)}))
    if neighbouring == Neighbouring.REPLACE:
        ds = ds.with_schema(ds.schema.with_neighbouring(Neighbouring.REPLACE, n=len(values)))
    return float(evaluate(ds, [query])[0])


def assert_within(a: float, b: float, delta: float) -> None:
    """|a − b| ≤ Δ plus half an ulp of each (the single final rounding), exactly; and on the lattice."""
    slack = Fraction(math.ulp(a)) / 2 + Fraction(math.ulp(b)) / 2
    assert abs(Fraction(a) - Fraction(b)) <= Fraction(delta) + slack
    if delta < 2.0**-1000:  # 0, or a Δ the noise lattice refuses (no release is ever made with it)
        return
    lat = Lattice.for_sensitivity(delta, integer=False)
    assert abs(round(a / lat.step) - round(b / lat.step)) <= lat.units


SWALLOWING_PAIRS = [  # (D, D' = D without its first row, l, u): Δ = max(|l|, |u|) under add/remove
    (np.r_[-1e16, np.ones(3000)], 0.0, 1.0),
    (np.r_[-1e300, np.full(500, 100.0)], 0.0, 100.0),
    (np.r_[-1e16, np.full(2000, 1.0), np.full(50, TINY)], 0.0, 1.0),
]


@pytest.mark.parametrize("values,lower,upper", SWALLOWING_PAIRS)
def test_add_remove_pairs_that_float_prefix_sums_break(values, lower, upper):
    delta = max(abs(lower), abs(upper))
    neighbour = values[1:]
    broken = abs(float_prefix_sum(values, lower, upper) - float_prefix_sum(neighbour, lower, upper))
    assert broken > 100 * delta  # the pair is adversarial for floating point
    q = ClippedSum("x", lower, upper)
    a, b = answer(values, q), answer(neighbour, q)
    assert_within(a, b, delta)
    assert b == pytest.approx(float(np.clip(neighbour, lower, upper).sum()), rel=1e-12)


@pytest.mark.parametrize("values,b,s", [
    (np.r_[-1e16, np.full(1000, 1.5)], 1.0, 1.0),
    (np.r_[-1e300, 2.0**20 + np.arange(1, 2000) * 2.0**-32], 2.0**20, 2.0**-20),
])
def test_clip_difference_pairs_that_float_prefix_sums_break(values, b, s):
    neighbour = values[1:]  # the far-negative row adds 0 to the clip difference, yet swamps the prefix sums
    assert abs(float_prefix_clip_diff(values, b, s) - float_prefix_clip_diff(neighbour, b, s)) > 100 * s
    a, c = answer(values, ClipDiff("x", b, s)), answer(neighbour, ClipDiff("x", b, s))
    assert_within(a, c, s)
    exact = sum(min(max(Fraction(v) - Fraction(b), Fraction(0)), Fraction(s)) for v in neighbour.tolist())
    assert c == float(exact)  # every value is on the grid of b + s: the answer is the exact one


def test_clip_difference_at_a_large_bound_with_a_tiny_step():
    b, s = 2.0**20, 2.0**-20
    values = b + np.random.default_rng(3).uniform(-4e-5, 4e-5, 20_000)
    a = answer(values, ClipDiff("x", b, s))
    for k in range(20):  # drop rows one at a time: every (D, D minus a row) is a neighbouring pair
        assert_within(a, answer(np.delete(values, k), ClipDiff("x", b, s)), s)
    exact = sum(min(max(Fraction(v) - Fraction(b), Fraction(0)), Fraction(s)) for v in values.tolist())
    assert a == float(exact)


def test_replace_one_pairs_within_u_minus_l():
    lower, upper = -3.0, 7.5
    base = np.r_[-1e16, 1e16, np.full(1000, 0.1), np.full(7, TINY)]
    q = ClippedSum("x", lower, upper)
    for old, new in [(0.1, 1e300), (1e16, -1e16), (TINY, 7.5), (0.1, -3.0)]:
        replaced = base.copy()
        replaced[np.flatnonzero(base == old)[0]] = new
        a = answer(base, q, Neighbouring.REPLACE)
        assert_within(a, answer(replaced, q, Neighbouring.REPLACE), upper - lower)


@SETTINGS
@given(st.lists(st.one_of(st.floats(allow_nan=False, allow_infinity=False, allow_subnormal=True),
                          st.sampled_from([1e16, -1e16, 1.0, TINY, -TINY, 0.5, 2.0**53 + 2])),
                min_size=1, max_size=40),
       st.floats(-1e17, 1e17), st.floats(0, 1e17), st.randoms(use_true_random=False))
def test_any_add_remove_pair_and_any_row_order(values, lower, width, random):
    upper = lower + width
    if not math.isfinite(upper):
        return
    delta = max(abs(lower), abs(upper))
    x = np.array(values)
    q = ClippedSum("x", lower, upper)
    a = answer(x, q)
    shuffled = x.copy()
    random.shuffle(shuffled)
    assert answer(shuffled, q) == a  # bit-identical whatever the row order
    assert exact_sums.exact_clipped_sum(shuffled, lower, upper) == a  # the reference rule agrees
    k = random.randrange(len(x))
    assert_within(a, answer(np.delete(x, k), q), delta)


@SETTINGS
@given(st.lists(st.floats(-1e6, 1e6, allow_subnormal=True), min_size=1, max_size=60),
       st.lists(st.tuples(st.floats(-1e6, 1e6), st.floats(0, 1e6)), min_size=1, max_size=10))
def test_batch_path_equals_the_reference_rule_and_is_accurate(values, specs):
    x = np.array(values)
    queries = [ClippedSum("x", lo, lo + w) for lo, w in specs]
    got = evaluate(Dataset.from_frame(pd.DataFrame({"x": x})), queries)
    for g, (lo, w) in zip(got, specs, strict=True):
        assert g == exact_sums.exact_clipped_sum(x, lo, lo + w)
        real = sum(min(max(Fraction(v), Fraction(lo)), Fraction(lo + w)) for v in values)
        q = exact_sums.sum_grid(lo, lo + w).step
        assert abs(Fraction(g) - real) <= len(values) * Fraction(q) + Fraction(math.ulp(g))  # documented


@SETTINGS
@given(st.lists(st.floats(-10, 1e4), min_size=1, max_size=60),
       st.lists(st.tuples(st.floats(0, 1e4), st.floats(1e-6, 100), st.booleans()), min_size=1, max_size=10))
def test_clip_diff_batch_equals_reference_and_neighbours_differ_by_at_most_s(values, specs):
    x = np.array(values)
    got = evaluate(Dataset.from_frame(pd.DataFrame({"x": x})), [ClipDiff("x", b, s, n) for b, s, n in specs])
    for g, (b, s, norm) in zip(got, specs, strict=True):
        assert g == exact_sums.exact_clip_diff(x, b, s, norm)
        other = exact_sums.exact_clip_diff(x[1:], b, s, norm)
        assert_within(g, other, 1.0 if norm else s)


def test_missing_values_are_skipped_and_bounds_off_the_grid_round_inwards():
    x = np.array([np.nan, 0.1, 0.2, np.nan])
    assert exact_sums.exact_clipped_sum(x, 0.0, 1.0) == pytest.approx(0.3, rel=1e-15)
    grid = exact_sums.sum_grid(0.1, 1e20)  # 0.1 is far below the grid of 1e20: L rounds up, never down
    assert Fraction(grid.low) * Fraction(grid.step) >= Fraction(0.1)
    assert Fraction(grid.high) * Fraction(grid.step) <= Fraction(1e20)


@SETTINGS
@given(st.lists(st.sampled_from([0.0, 1.0, -2.5, 1e16, -1e16, TINY, 0.1, 7.0, 2.0**60]),
                min_size=1, max_size=80),
       st.lists(st.tuples(st.floats(-1e17, 1e17), st.floats(0, 1e17)), min_size=1, max_size=8))
def test_a_weighted_histogram_answers_bit_for_bit_as_the_rows(values, specs):
    # What an engine that aggregates in the database passes: distinct values and their counts.
    x = np.sort(np.array(values))
    distinct, counts = np.unique(x, return_counts=True)
    lo = np.array([a for a, _ in specs])
    hi = lo + np.array([w for _, w in specs])
    rows = exact_sums.SortedColumn(x).clipped_sums(lo, hi)
    weighted = exact_sums.SortedColumn(distinct, counts).clipped_sums(lo, hi)
    np.testing.assert_array_equal(rows, weighted)
    reference = [exact_sums.exact_clipped_sum(x, a, b) for a, b in zip(lo, hi, strict=True)]
    np.testing.assert_array_equal(rows, reference)
