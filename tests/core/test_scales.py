"""Distribution tests: every mechanism's threshold noise, query noise and released values have the
scales of its specification (issue 2 / the cited papers), written out here independently of the code.

Internals are observed through ``trace=True`` (the teaching-mode window). Tolerances come from
:mod:`core_stats` (CLT, Z = 5 standard errors, false failure ≈ 5.7e-7 per assertion).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from core_stats import Z, assert_mad

from svtgui.core import mechanisms

EPS, C = 1.0, 3
R512 = math.sqrt(512)


def spec(mid: str, delta: float = 0.0, monotonic: bool = False, share: float = 0.0, d: float = 1.0):
    """(threshold scale, query scale, numeric scale or None) from the specification, for sensitivity d."""
    if mid == "above_threshold":
        return 2 * d / EPS, 4 * d / EPS, None
    # δ > 0 (EPS ≤ 1, where D&R's closed form is proven): per-round ε₀ = max(ε/c, ε/√(8c ln(1/δ'))),
    # basic composition winning when c < 8 ln(1/δ'); σ = 2/ε₀ (δ' = δ for Sparse, δ/2 per part of
    # NumericSparse)
    if mid == "sparse":
        sigma = (2 * C / EPS if delta == 0 else min(2 * C, math.sqrt(32 * C * math.log(1 / delta))) / EPS) * d
        return sigma, 2 * sigma, None
    if mid == "numeric_sparse":
        e1, e2 = (8 * EPS / 9, 2 * EPS / 9) if delta == 0 else (R512 * EPS / (R512 + 1), 2 * EPS / (R512 + 1))
        sig = ((lambda e: 2 * C / e) if delta == 0
               else (lambda e: min(2 * C, math.sqrt(32 * C * math.log(2 / delta))) / e))
        return sig(e1) * d, 2 * sig(e1) * d, sig(e2) * d
    if mid in ("standard_svt", "gap_svt"):
        ratio = (C if monotonic else 2 * C) ** (2 / 3)
        e3 = share * EPS
        e1 = (EPS - e3) / (1 + ratio)
        e2 = EPS - e3 - e1
        return d / e1, (1 if monotonic else 2) * C * d / e2, (C * d / e3 if share else None)
    if mid == "lecture_sparse_2011":
        return 2 * d / EPS, 2 * C * d / EPS, None
    raise AssertionError(mid)


CASES = [
    ("above_threshold", {}), ("sparse", {}), ("sparse", {"delta": 1e-3}), ("numeric_sparse", {}),
    ("numeric_sparse", {"delta": 1e-3}), ("standard_svt", {}), ("standard_svt", {"monotonic": True}),
    ("standard_svt", {"numeric_share": 0.3}), ("gap_svt", {}), ("gap_svt", {"monotonic": True}),
    ("lecture_sparse_2011", {}),
]


def create(mid: str, extra: dict, seed: int, threshold: float = 0.0, integer: bool = True,
           sensitivity: float = 1.0, trace: bool = True):
    params = dict(epsilon=EPS, threshold=threshold, integer=integer, sensitivity=sensitivity, **extra)
    if mid != "above_threshold":
        params["cutoff"] = C
    return mechanisms.create(mid, rng=mechanisms.seeded(seed), trace=trace, allow_non_private=True, **params)


def expected(mid: str, extra: dict, d: float = 1.0):
    return spec(mid, extra.get("delta", 0.0), extra.get("monotonic", False),
                extra.get("numeric_share", 0.0), d)


@pytest.mark.parametrize("mid,extra", CASES)
def test_threshold_noise_scale(mid, extra):
    rho = []
    for s in range(2500):
        m = create(mid, extra, seed=s)
        m.submit(0)
        rho.append(m.internals()[0].noisy_threshold)  # T = 0
    assert_mad(np.array(rho), expected(mid, extra)[0], 1.0, f"{mid} threshold noise")


@pytest.mark.parametrize("mid,extra", CASES)
def test_query_noise_scale(mid, extra):
    m = create(mid, extra, seed=77, threshold=1e12)
    m.submit_many(np.zeros(20_000))
    nu = np.array([s.noisy_answer for s in m.internals()])  # answers are 0
    assert_mad(nu, expected(mid, extra)[1], 1.0, f"{mid} query noise")


FRESH = [c for c in CASES if c[0] == "numeric_sparse" or "numeric_share" in c[1]]


@pytest.mark.parametrize("mid,extra", FRESH)
def test_fresh_numeric_noise_scale_and_independence(mid, extra):
    # Always ⊤ (threshold far below): every released value is answer + fresh noise. Fresh means
    # independent of the ν that passed the test: |corr| ≤ Z/√n (false failure ≈ 5.7e-7).
    released, nu = [], []
    for s in range(2000):
        m = create(mid, extra, seed=s, threshold=-1e12)
        b = m.submit_many(np.zeros(C))
        released.extend(b.values[: b.consumed])
        nu.extend(st.noisy_answer for st in m.internals())
    released, nu = np.array(released), np.array(nu)
    assert_mad(released, expected(mid, extra)[2], 1.0, f"{mid} numeric noise")
    assert abs(np.corrcoef(released, nu)[0, 1]) <= Z / math.sqrt(len(nu))


def test_lecture_variant_releases_the_noise_that_passed_the_test():
    m = create("lecture_sparse_2011", {}, seed=4, threshold=-1e12)
    b = m.submit_many(np.zeros(C))
    assert list(b.values) == [s.noisy_answer for s in m.internals()]


@pytest.mark.parametrize("mid,extra", [("gap_svt", {}), ("gap_svt", {"monotonic": True})])
def test_gap_is_noisy_answer_minus_noisy_threshold(mid, extra):
    gaps, steps = [], []
    for s in range(300):
        m = create(mid, extra, seed=s, threshold=5.5, integer=False)
        for a in (20.0, 3.25, 40.0):
            r = m.submit(a)
            if r.above:
                gaps.append((r.gap, r.value))
                steps.append(m.internals()[-1])
    assert len(gaps) > 100
    for (gap, value), st in zip(gaps, steps, strict=True):
        assert gap == pytest.approx(st.noisy_answer - st.noisy_threshold, abs=1e-9)
        assert value == pytest.approx(5.5 + gap, abs=1e-9)


# AboveThreshold halts at its first ⊤, so it has no second threshold to compare.
@pytest.mark.parametrize("mid,refresh", [("sparse", True), ("numeric_sparse", True), ("standard_svt", False),
                                         ("gap_svt", False), ("lecture_sparse_2011", False)])
def test_threshold_redrawn_after_each_top_only_in_dwork_roth(mid, refresh):
    firsts, seconds = [], []
    for s in range(2000):
        m = create(mid, {}, seed=s)
        m.submit_many(np.full(2, 1e9))  # two certain ⊤
        a, b = (st.noisy_threshold for st in m.internals())
        firsts.append(a)
        seconds.append(b)
    firsts, seconds = np.array(firsts), np.array(seconds)
    if refresh:
        assert_mad(seconds, expected(mid, {})[0], 1.0, f"{mid} redrawn threshold")
        assert abs(np.corrcoef(firsts, seconds)[0, 1]) <= Z / math.sqrt(len(firsts))
    else:
        assert np.array_equal(firsts, seconds)


def test_real_valued_queries_use_the_effective_lattice_sensitivity():
    # Δ = 0.5 → step 2^-11, D = ceil(0.5/2^-11) + 1 = 1025 steps, effective Δ = 1025·2^-11.
    step = 2.0**-11
    d_eff = 1025 * step
    m = create("sparse", {}, seed=3, threshold=1e12, integer=False, sensitivity=0.5)
    m.submit_many(np.full(20_000, 0.25))
    nu = np.array([s.noisy_answer for s in m.internals()]) - 0.25
    assert_mad(nu, spec("sparse", d=d_eff)[1], step, "sparse query noise, Δ = 0.5")
    assert np.all(nu / step == np.rint(nu / step))  # lattice points only


def test_integer_mode_releases_integers():
    m = create("numeric_sparse", {}, seed=8, threshold=-1e12, trace=False)
    values = [m.submit(7).value for _ in range(C)]
    assert all(type(v) is int for v in values)


@pytest.mark.parametrize("monotonic,p_top", [(False, math.exp(0.5) / (1 + math.exp(0.5))),
                                             (True, math.e / (1 + math.e))])
def test_em_selection_probabilities(monotonic, p_top):
    # P[choose the larger of answers (0, 1)] = e^(ε/(2Δ))/(1 + e^(ε/(2Δ))) (e^(ε/Δ)… monotonic), ε = 1,
    # c = 1. Binomial tolerance Z·√(np(1−p)): false failure ≈ 5.7e-7.
    n = 5000

    def top(seed: int) -> bool:
        em = mechanisms.create("em_top_c", epsilon=1.0, cutoff=1, monotonic=monotonic,
                               rng=mechanisms.seeded(seed))
        return em.select([0.0, 1.0]).indices == (1,)

    hits = sum(top(s) for s in range(n))
    assert abs(hits - n * p_top) <= Z * math.sqrt(n * p_top * (1 - p_top))


def test_retraversal_uses_standard_svt_scales():
    m = mechanisms.create("svt_retraversal", epsilon=EPS, threshold=0, cutoff=C, rng=mechanisms.seeded(1))
    d = m.lattice.effective_sensitivity
    rho, nu, _ = spec("standard_svt", d=d)
    assert m.scales.threshold == pytest.approx(rho) and m.scales.query == pytest.approx(nu)
