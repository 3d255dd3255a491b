"""Accuracy bounds: the book formulas, the derived union bound, and — the real check — that the
empirical failure rate of every bound on simulated runs is at most β.

Failure counts are compared with the exact binomial quantile: for a bound that truly holds, the
chance that Binomial(n, β) exceeds the limit is ≤ 1e-6 per assertion (false-failure probability).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from core_stats import binomial_upper

from svtgui.core import accuracy, mechanisms

K, BETA, TRIALS = 50, 0.1, 600
T = 0.0
# Answers spread across the threshold so both the ⊤ and the ⊥ conditions are exercised.
ANSWERS = np.linspace(T - 40.0, T + 40.0, K)[np.random.default_rng(3).permutation(K)]

CASES = [
    ("above_threshold", dict(epsilon=1.0, threshold=T)),
    ("sparse", dict(epsilon=1.0, threshold=T, cutoff=3)),
    ("sparse", dict(epsilon=2.0, threshold=T, cutoff=3, delta=1e-4, integer=True)),
    ("numeric_sparse", dict(epsilon=1.0, threshold=T, cutoff=3)),
    ("numeric_sparse", dict(epsilon=2.0, threshold=T, cutoff=3, delta=1e-4)),
    ("standard_svt", dict(epsilon=1.0, threshold=T, cutoff=3)),
    ("standard_svt", dict(epsilon=1.0, threshold=T, cutoff=3, numeric_share=0.3, monotonic=True)),
    ("gap_svt", dict(epsilon=1.0, threshold=T, cutoff=3)),
    ("gap_svt", dict(epsilon=1.0, threshold=T, cutoff=2, integer=True, sensitivity=2.0)),
    ("lecture_sparse_2011", dict(epsilon=1.0, threshold=T, cutoff=3)),
    ("svt_retraversal", dict(epsilon=1.0, threshold=T, cutoff=3, raise_by=1.0, max_passes=5)),
    ("em_top_c", dict(epsilon=1.0, cutoff=3)),
]


def answers_for(params: dict) -> np.ndarray:
    return np.rint(ANSWERS) if params.get("integer") else ANSWERS


@pytest.mark.parametrize("mid,params", CASES)
def test_empirical_failure_rate_of_the_bound_is_at_most_beta(mid, params):
    est = accuracy.empirical_alpha(mid, params, answers_for(params), beta=BETA, trials=TRIALS, seed=100)
    acc = accuracy.bound(mid, params, K, BETA)
    failures = int(np.sum(est.errors > acc.alpha))
    assert failures <= binomial_upper(TRIALS, BETA), f"{mid}: {failures}/{TRIALS} runs beyond α = {acc.alpha}"
    assert est.errors.max() > 0  # the answers really exercise the conditions (not a vacuous check)


BOOK = {
    "above_threshold": lambda p, b, s: accuracy.above_threshold(p["epsilon"], K, b, s),
    "sparse": lambda p, b, s: accuracy.sparse(p["epsilon"], K, b, p["cutoff"], p.get("delta", 0.0), s),
    "numeric_sparse": lambda p, b, s: accuracy.numeric_sparse(p["epsilon"], K, b, p["cutoff"],
                                                              p.get("delta", 0.0), s),
    "lecture_sparse_2011": lambda p, b, s: accuracy.lecture_2011(p["epsilon"], K, b, p["cutoff"], s),
}


BOOK_CASES = [c for c in CASES if c[0] in BOOK and not (c[0] == "numeric_sparse" and c[1].get("delta"))]


@pytest.mark.parametrize("mid,params", BOOK_CASES)
def test_book_theorems_hold_empirically_with_the_lattice_corrections(mid, params):
    # Evaluated as accuracy.bound does: effective sensitivity, β/κ, + half a step for rounding.
    from svtgui.core import mechanisms

    m = mechanisms.create(mid, rng=mechanisms.seeded(0), allow_non_private=True, **params)
    lat = m.lattice
    kappa = max(accuracy.tail_factor(lat.step, b) for b in (m.scales.threshold, m.scales.query))
    alpha = BOOK[mid](params, BETA / kappa, lat.effective_sensitivity) + (0 if lat.integer else lat.step / 2)
    est = accuracy.empirical_alpha(mid, params, answers_for(params), beta=BETA, trials=300, seed=7)
    assert int(np.sum(est.errors > alpha)) <= binomial_upper(300, BETA)


def test_dwork_roth_theorem_3_28_with_delta_fails_for_small_k():
    # The caveat documented in svtgui.core.accuracy: with δ > 0 and small k the printed α is too small
    # for the fresh answers. c = 100 > 8 ln(2/δ), so the book's closed-form σ is used (not basic
    # composition). Premise of the theorem met: k = c = 100 queries far above T, so 100 numbers are
    # released, each with Lap(b), b = √8(√512 + 1)√(c ln(2/δ))/ε, and
    # P[some error > α] = 1 − (1 − e^(−α/b))^100 ≈ 0.56 for β = 0.05. With 400 runs the count exceeds
    # the 1e-6 binomial limit for rate β unless something is wrong (false-failure probability ≈ 1e-6).
    c, k = 100, 100
    params = dict(epsilon=2.0, threshold=0.0, cutoff=c, delta=1e-4, integer=True)
    answers = np.full(k, 1e5)
    alpha = accuracy.numeric_sparse(2.0, k, 0.05, c, delta=1e-4)
    b = math.sqrt(8) * (math.sqrt(512) + 1) * math.sqrt(c * math.log(2 / 1e-4)) / 2.0
    assert mechanisms.create("numeric_sparse", rng=mechanisms.seeded(0), **params).scales.numeric == \
        pytest.approx(b, rel=1e-9)
    assert 1 - (1 - math.exp(-alpha / b)) ** k > 0.5
    est = accuracy.empirical_alpha("numeric_sparse", params, answers, beta=0.05, trials=400, seed=5)
    assert int(np.sum(est.errors > alpha)) > binomial_upper(400, 0.05)
    ours = accuracy.bound("numeric_sparse", params, k, 0.05).alpha
    assert int(np.sum(est.errors > ours)) <= binomial_upper(400, 0.05)  # the union bound does hold


def test_estimator_quantile_has_the_stated_failure_rate():
    # Sanity of the estimator itself: its α is the (1 − β) quantile of the per-run errors, so about a
    # fraction β of runs exceed it (by construction, up to ties); and it is reproducible by seed.
    params = dict(epsilon=0.5, threshold=T, cutoff=2)
    a = accuracy.empirical_alpha("sparse", params, ANSWERS, beta=0.2, trials=200, seed=1)
    b = accuracy.empirical_alpha("sparse", params, ANSWERS, beta=0.2, trials=200, seed=1)
    assert np.array_equal(a.errors, b.errors) and a.alpha == b.alpha
    assert a.failure_rate(a.alpha) <= 0.2 < a.failure_rate(a.alpha * 0.5)


def test_book_formulas():
    ln = math.log
    assert accuracy.above_threshold(1.0, 100, 0.1) == pytest.approx(8 * (ln(100) + ln(20)))
    assert accuracy.above_threshold(2.0, 100, 0.1, sensitivity=0.5) == pytest.approx(2 * (ln(100) + ln(20)))
    assert accuracy.sparse(1.0, 100, 0.1, 3) == pytest.approx(24 * (ln(100) + ln(60)))
    assert accuracy.sparse(1.0, 100, 0.1, 3, delta=1e-6) == pytest.approx(
        math.sqrt(512 * 3 * ln(1e6)) * (ln(100) + ln(60)))
    assert accuracy.numeric_sparse(1.0, 100, 0.1, 3) == pytest.approx(27 * (ln(100) + ln(120)))
    assert accuracy.numeric_sparse(1.0, 100, 0.1, 3, delta=1e-6) == pytest.approx(
        (ln(100) + ln(120)) * math.sqrt(3 * ln(2e6)) * (math.sqrt(512) + 1))
    n = 1000  # the lecture's form: 4c(log k + log 2/β)/(εn) for sensitivity 1/n
    assert accuracy.lecture_2011(0.5, 100, 0.1, 3, sensitivity=1 / n) == pytest.approx(
        4 * 3 * (ln(100) + ln(20)) / (0.5 * n))


def test_union_bound_is_the_documented_formula_and_monotone():
    b_rho, b_nu, k, beta = 2.0, 6.0, 40, 0.05
    expected = (b_rho * math.log((b_rho + b_nu) / (beta * b_rho))
                + b_nu * math.log(k * (b_rho + b_nu) / (beta * b_nu)))
    got = accuracy.union_bound(threshold_scale=b_rho, query_scale=b_nu, k=k, beta=beta)
    assert got == pytest.approx(expected)
    assert accuracy.union_bound(threshold_scale=b_rho, query_scale=b_nu, k=2 * k, beta=beta) > got
    assert accuracy.union_bound(threshold_scale=b_rho, query_scale=b_nu, k=k, beta=beta / 2) > got
    with_numbers = accuracy.union_bound(threshold_scale=b_rho, query_scale=b_nu, k=k, beta=beta,
                                        numeric_scale=50.0, releases=3)
    assert with_numbers == pytest.approx(50.0 * math.log(3 / (beta / 2)))


def test_bound_statement_and_source():
    acc = accuracy.bound("sparse", dict(epsilon=1.0, threshold=5.0, cutoff=2), 100, 0.05)
    assert acc.statement == ("released answers within ±α with probability 1 − β; "
                             "queries below T − α come back ⊥")
    assert acc.beta == 0.05 and acc.alpha > 0 and acc.source
    assert "selected" in accuracy.bound("em_top_c", dict(epsilon=1.0, cutoff=2), 100, 0.05).statement


def test_bound_uses_effective_sensitivity():
    # Doubling Δ doubles every scale: α doubles up to the (tiny) rounding term.
    one = accuracy.bound("standard_svt", dict(epsilon=1.0, threshold=0.0, cutoff=2, sensitivity=1.0), 50, 0.1)
    two = accuracy.bound("standard_svt", dict(epsilon=1.0, threshold=0.0, cutoff=2, sensitivity=2.0), 50, 0.1)
    assert two.alpha == pytest.approx(2 * one.alpha, rel=1e-3)


@pytest.mark.parametrize("kw,name", [(dict(k=0, beta=0.1), "k"), (dict(k=10, beta=0.0), "beta"),
                                     (dict(k=10, beta=1.0), "beta"), (dict(k=10, beta=float("nan")), "beta")])
def test_bad_inputs_are_named(kw, name):
    with pytest.raises(ValueError, match=name):
        accuracy.bound("sparse", dict(epsilon=1.0, threshold=0.0), **kw)
    with pytest.raises(ValueError, match=name):
        accuracy.above_threshold(1.0, **kw)


def test_estimator_refuses_bad_answers():
    with pytest.raises(ValueError, match="answers"):
        accuracy.empirical_alpha("sparse", dict(epsilon=1.0, threshold=0.0), [1.0, float("nan")])
    with pytest.raises(ValueError, match="trials"):
        accuracy.empirical_alpha("sparse", dict(epsilon=1.0, threshold=0.0), [1.0], trials=0)


def test_mechanisms_do_not_import_the_accuracy_entry_point():
    """accuracy → mechanisms → bounds, one way: no mechanism (PMW included) imports accuracy."""
    import subprocess
    import sys

    code = ("import sys, svtgui.core.mechanisms as m; "
            "m.create('pmw', epsilon=1.0, threshold=10.0, threshold_unit='rows').free_error_bound(10, 0.1); "
            "print('svtgui.core.accuracy' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_pmw_free_bound_uses_sparse_own_bound():
    from svtgui.core import mechanisms

    pmw = mechanisms.create("pmw", epsilon=1.0, threshold=10.0, cutoff=3, threshold_unit="rows")
    params = dict(epsilon=pmw.svt_epsilon, delta=pmw.delta, threshold=0.0, cutoff=3, sensitivity=1.0)
    expected = 10.0 + accuracy.bound("sparse", params, 100, 0.05).alpha
    assert pmw.free_error_bound(100, 0.05) == pytest.approx(expected)
