"""The auditor's exact binomial statistics, against brute-force sums and by simulation."""

import math

import numpy as np
import pytest

from svtgui.core.audit.stats import binom_log_cdf, binom_log_sf, clopper_pearson, ratio_test


def _cdf(k: int, n: int, p: float) -> float:
    return sum(math.comb(n, j) * p**j * (1 - p) ** (n - j) for j in range(k + 1))


@pytest.mark.parametrize(("k", "n", "p"), [(0, 10, 0.3), (3, 10, 0.5), (9, 10, 0.99), (40, 200, 0.1),
                                          (5, 200, 0.2), (199, 200, 0.995)])
def test_binomial_tails_match_direct_sums(k, n, p):
    assert math.exp(binom_log_cdf(k, n, p)) == pytest.approx(_cdf(k, n, p), rel=1e-9, abs=1e-300)
    assert math.exp(binom_log_sf(k, n, p)) == pytest.approx(1 - _cdf(k - 1, n, p), rel=1e-9, abs=1e-15)


def test_far_tails_are_finite_logs():
    # P[X <= 10] for Bin(10^7, 0.01) is about e^-99000: must be a finite log, not -inf or 0.
    v = binom_log_cdf(10, 10**7, 0.01)
    assert -1.1e5 < v < -9e4


@pytest.mark.parametrize(("k", "n", "alpha"),
                         [(5, 10, 0.025), (0, 20, 0.05), (20, 20, 0.05), (37, 1000, 0.005)])
def test_clopper_pearson_bounds_solve_their_defining_equations(k, n, alpha):
    lo, hi = clopper_pearson(k, n, alpha)
    if k > 0:
        assert 1 - _cdf(k - 1, n, lo) == pytest.approx(alpha, rel=1e-6)
    else:
        assert lo == 0.0
    if k < n:
        assert _cdf(k, n, hi) == pytest.approx(alpha, rel=1e-6)
    else:
        assert hi == 1.0


def test_known_textbook_interval():
    # The exact 95% interval for 5/10 is [0.1871, 0.8129] (Clopper & Pearson 1934 tables).
    lo, hi = clopper_pearson(5, 10, 0.025)
    assert (round(lo, 4), round(hi, 4)) == (0.1871, 0.8129)


def test_ratio_test_is_valid_at_the_null_boundary():
    # p1 = e^ε·p2 exactly: rejections at level 0.05 must be at most 5%. 400 replications:
    # under the worst case the count is Bin(400, 0.05) (mean 20, sd 4.36); we allow 34, which a
    # valid test exceeds with probability < 0.1%.
    gen = np.random.default_rng(11)
    eps, p2, n = 0.5, 0.02, 5000
    k1 = gen.binomial(n, math.exp(eps) * p2, 400)
    k2 = gen.binomial(n, p2, 400)
    rejected = sum(ratio_test(int(a), n, int(b), n, eps, 0.05).p_value < 0.05
                   for a, b in zip(k1, k2, strict=True))
    assert rejected <= 34


def test_ratio_test_detects_a_clear_excess_and_bounds_it_below():
    r = ratio_test(3000, 100_000, 1000, 100_000, 0.1, 0.01)
    # ln 3 = 1.10 is the point estimate; the relative standard errors are 1/√3000 and 1/√1000, so a
    # 99% bound sits about 2.58·(0.018 + 0.032) = 0.13 below it, and the excess over ε is > 20 sd.
    assert r.p_value < 1e-50
    assert 0.9 < r.epsilon_lcb < math.log(3.0)


def test_delta_absorbs_a_small_excess():
    # 60 vs 10 in 10^6 runs is a ratio of 6 but a difference of only 5e-5: δ = 1e-4 explains it.
    assert ratio_test(60, 10**6, 10, 10**6, 0.1, 0.01).p_value < 0.01
    assert ratio_test(60, 10**6, 10, 10**6, 0.1, 0.01, delta=1e-4).p_value == 1.0


def test_zero_events_give_no_evidence():
    r = ratio_test(0, 1000, 0, 1000, 0.1, 0.01)
    assert r.p_value == 1.0 and r.epsilon_lcb == 0.0
