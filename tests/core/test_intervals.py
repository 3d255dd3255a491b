"""Exact intervals of lattice Laplace releases: the smallest radius, and the stated coverage in practice.

Coverage is checked on seeded releases (fixed outcome); the tolerance is Z standard deviations of the
binomial count of hits at the exact coverage probability (false failure ≈ 5.7e-7 per assertion).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from svtgui.core import intervals, mechanisms
from svtgui.core.laplace import laplace_release, laplace_scale
from svtgui.core.noise import Lattice, seeded
from tests.core.core_stats import Z

N = 4000


def _hits_within_binomial(hits: int, n: int, p: float) -> None:
    sd = math.sqrt(n * p * (1 - p))
    assert n * p - Z * sd <= hits <= n * p + Z * sd, (hits, n, p)


@pytest.mark.parametrize("scale", [0.3, 1.0, 2.5, 40.0, 1234.5])
@pytest.mark.parametrize("confidence", [0.5, 0.9, 0.95, 0.99])
def test_radius_is_the_smallest_with_the_confidence(scale, confidence):
    k = intervals.radius(scale, confidence)
    assert intervals.coverage(scale, k) >= confidence
    assert k == 0 or intervals.coverage(scale, k - 1) < confidence


def test_coverage_is_the_discrete_laplace_law():
    t, k = 3.0, 4
    z = np.arange(-400, 401)
    pmf = np.exp(-np.abs(z) / t)
    assert intervals.coverage(t, k) == pytest.approx(pmf[np.abs(z) <= k].sum() / pmf.sum(), rel=1e-12)


@pytest.mark.parametrize("value, sensitivity, epsilon, integer", [
    (1234, 1.0, 0.5, True),  # a count
    (5_000.3, 90.0, 0.3, False),  # a clipped sum: rounded to the lattice, half a step more
])
def test_laplace_release_interval_covers_the_true_value_as_stated(value, sensitivity, epsilon, integer):
    lattice = Lattice.for_sensitivity(sensitivity, integer=integer)
    t = lattice.scale_units(laplace_scale(sensitivity, epsilon, integer=integer))
    k = intervals.radius(t, 0.95)
    rng = seeded(11)
    hits = 0
    for _ in range(N):
        low, high = intervals.laplace_interval(float(laplace_release(value, sensitivity, epsilon, rng,
                                                                     integer=integer)),
                                               sensitivity, epsilon, 0.95, integer=integer)
        hits += low <= value <= high
    # the truth's lattice point is covered with probability exactly coverage(t, k); half a step of
    # rounding room can only add to it, by less than the next lattice point's probability
    p = intervals.coverage(t, k)
    _hits_within_binomial(hits, N, p) if integer else \
        _hits_within_binomial(hits, N, min(p + (intervals.coverage(t, k + 1) - p) / 2, 1.0))
    assert hits >= N * 0.95 - Z * math.sqrt(N * 0.95 * 0.05)


def test_numeric_sparse_fresh_answers_carry_the_exact_interval():
    """NumericSparse's ⊤ answers: the fresh lattice Laplace draw the statistics table assumes."""
    truth = 1_000_000.0
    params = {"epsilon": 2.0, "threshold": 0.0, "cutoff": 50, "integer": True}
    probe = mechanisms.create("numeric_sparse", rng=seeded(0), **params)
    t = probe.lattice.scale_units(probe.scales.numeric)
    k = intervals.radius(t, 0.95)
    hits = total = 0
    for seed in range(N // 50):
        mech = mechanisms.create("numeric_sparse", rng=seeded(100 + seed), **params)
        batch = mech.submit_many(np.full(50, truth))
        values = batch.values[batch.above]
        hits += int(np.sum(np.abs(values - truth) <= k))
        total += values.size
    assert total == N  # every answer far above T = 0 came back ⊤
    _hits_within_binomial(hits, total, intervals.coverage(t, k))
