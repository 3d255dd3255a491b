"""The exact P[⊤] curve (svtgui.core.preview) against the convolution it sums and against runs."""

from __future__ import annotations

import math

import numpy as np
import pytest

from svtgui.core import mechanisms
from svtgui.core.preview import TopCurve, tail


def _dl_pmf(scale: float, z: np.ndarray) -> np.ndarray:
    p = math.exp(-1 / scale)
    return (1 - p) / (1 + p) * p ** np.abs(z)


def _convolved_tail(threshold_scale: float, query_scale: float, d: int) -> float:
    """P[ν − ρ ≥ d] by summing the two pmfs over a support wide enough that the cut mass is < 1e-15."""
    radius = int(40 * max(threshold_scale, query_scale)) + 40
    z = np.arange(-radius, radius + 1)
    s = np.convolve(_dl_pmf(query_scale, z), _dl_pmf(threshold_scale, z))  # ν + (−ρ), −ρ ~ ρ
    support = np.arange(-2 * radius, 2 * radius + 1)
    return float(s[support >= d].sum())


@pytest.mark.parametrize("scales", [(1, 2), (0.125, 3), (2, 2), (5, 5.000001), (3, 1), (0.125, 0.125),
                                    (7, 20), (0.5, 0.2500001)])
def test_tail_equals_the_convolution_on_small_scales(scales):
    b_rho, b_nu = scales
    for d in (-25, -7, -1, 0, 1, 2, 5, 17, 60):
        exact = _convolved_tail(b_rho, b_nu, d)
        got = tail(b_rho, b_nu, d)
        assert got == pytest.approx(exact, rel=1e-9, abs=1e-14), d


def test_tail_is_relatively_accurate_far_out_and_sums_to_one_around_zero():
    # far in the tail the value is tiny but still relatively right (log space, not 1 − 1)
    exact = _convolved_tail(0.5, 1.0, 40)
    assert exact < 1e-15
    assert tail(0.5, 1.0, 40) == pytest.approx(exact, rel=1e-6)
    for b in (0.125, 3.0, 2.0**20, 2.0**40):
        assert tail(b, 2 * b, 0) + tail(b, 2 * b, 1) == pytest.approx(1.0, abs=1e-12)  # S is symmetric


@pytest.mark.parametrize("b", [0.125, 1.0, 1e3, 2.0**30, 2.0**40])
def test_tail_is_monotone_and_finite_over_the_scale_range(b):
    d = np.unique(np.round(np.linspace(-60 * b - 5, 60 * b + 5, 401))).astype(np.int64)
    p = np.array([tail(b, 2 * b, int(v)) for v in d])
    assert np.all(np.isfinite(p)) and np.all((p >= 0) & (p <= 1))
    assert np.all(np.diff(p) <= 1e-15)  # P[S ≥ d] falls as d grows
    assert p[0] > 0.999 and p[-1] < 1e-3


def test_curve_follows_the_mechanisms_scales_and_is_monotone_in_the_answer():
    m = mechanisms.create("sparse", epsilon=1.0, threshold=100.5, cutoff=3, sensitivity=1.0, integer=True,
                          rng=mechanisms.ScaleProbe())
    curve = TopCurve.of(m)
    assert curve.threshold_unit == 101  # T = 100.5 on integer answers behaves as 101
    x = curve.span()
    p = curve.probability(x)
    assert np.all(np.diff(p) >= 0) and p[0] < 0.01 and p[-1] > 0.99
    half = curve.answer_at(0.5)
    assert curve.probability([half])[0] >= 0.5 > curve.probability([half - 1])[0]


CASES = [
    ("sparse", dict(epsilon=0.5, threshold=10.0, cutoff=2, sensitivity=1.0, integer=True), 12.0),
    ("standard_svt", dict(epsilon=2.0, threshold=3.3, cutoff=1, sensitivity=0.7, integer=False), 2.9),
    ("above_threshold", dict(epsilon=1.0, threshold=0.0, sensitivity=1.0, integer=True), -3.0),
]
Z = 5.3  # |p̂ − p| ≤ Z·√(p(1 − p)/N) fails for a correct p with probability ≈ 1.2e-7 (normal approximation)


def _curve_at(mechanism_id: str, params: dict, answer: float) -> float:
    mech = mechanisms.create(mechanism_id, rng=mechanisms.ScaleProbe(), **params)
    return float(TopCurve.of(mech).probability([answer])[0])


@pytest.mark.parametrize("mechanism_id, params, answer", CASES)
def test_curve_matches_a_large_seeded_monte_carlo(mechanism_id, params, answer):
    """400,000 draws of the mechanism's own comparison from the exact sampler (seeded): the
    lattice's rounding of x and ceil of T, ν and ρ at the scales the mechanism reports."""
    n = 400_000
    mech = mechanisms.create(mechanism_id, rng=mechanisms.ScaleProbe(), **params)
    lat, scales = mech.lattice, mech.noise_scales()
    source = mechanisms.seeded(20261125)
    nu = source.discrete_laplace(scales["query"], n)
    rho = source.discrete_laplace(scales["threshold"], n)
    above = lat.unit(answer) + nu >= lat.threshold_unit(params["threshold"]) + rho
    p = _curve_at(mechanism_id, params, answer)
    assert 0.05 < p < 0.95  # a point on the slope, where the check has power
    assert abs(float(above.mean()) - p) <= Z * math.sqrt(p * (1 - p) / n)


@pytest.mark.parametrize("mechanism_id, params, answer", CASES[1:2])
def test_curve_matches_real_one_query_runs(mechanism_id, params, answer):
    """The same check through the mechanism's own submit (fewer runs: each builds a mechanism)."""
    runs, rng = 3_000, mechanisms.seeded(7)
    hits = sum(mechanisms.create(mechanism_id, rng=rng, **params).submit(answer).above for _ in range(runs))
    p = _curve_at(mechanism_id, params, answer)
    assert abs(hits / runs - p) <= Z * math.sqrt(p * (1 - p) / runs)


def test_mechanisms_without_a_threshold_test_are_refused():
    em = mechanisms.create("em_top_c", epsilon=1.0, cutoff=2, rng=mechanisms.ScaleProbe())
    with pytest.raises(ValueError, match="no single threshold test"):
        TopCurve.of(em)


def _reference_tail(b_rho: float, b_nu: float, d: int) -> float:
    """The closed form evaluated with 80-digit decimals: no cancellation can hurt it at these scales."""
    from decimal import Decimal, localcontext

    with localcontext() as ctx:
        ctx.prec = 80
        sign = d >= 1
        d = d if sign else 1 - d
        p = (Decimal(-1) / Decimal(b_rho)).exp()
        q = (Decimal(-1) / Decimal(b_nu)).exp()
        if p == q:
            value = p**d * (d * (1 - p * p) + 1 + p + 2 * p * p) / (1 + p) ** 3
        else:
            value = (((1 - p) ** 2 * q ** (d + 1) / (1 + q) - (1 - q) ** 2 * p ** (d + 1) / (1 + p))
                     / ((1 - p * q) * (q - p)))
        return float(value if sign else 1 - value)


@pytest.mark.parametrize("b", [0.125, 0.7, 30.0, 2.0**20, 2.0**40])
@pytest.mark.parametrize("ratio", [2.0, 1.0 + 1e-7, 1.0, 0.3])
def test_tail_is_numerically_stable_from_an_eighth_to_two_to_the_forty_steps(b, ratio):
    for d in (-int(3 * b) - 1, 0, 1, int(b) + 1, int(8 * b) + 2):
        assert tail(b, b * ratio, d) == pytest.approx(_reference_tail(b, b * ratio, d), rel=1e-9, abs=1e-300)


def test_an_answer_beyond_the_lattice_has_chance_0_or_1_and_nan_is_refused():
    # a typed x = 1e308 with Δ = 1 overflowed x/g to inf and int(inf) raised OverflowError in the
    # comparison dialog; far beyond every scale, P[⊤] is exactly 1 (above) or 0 (below)
    m = mechanisms.create("sparse", epsilon=1.0, threshold=0.0, cutoff=1, sensitivity=1.0,
                          rng=mechanisms.seeded(0))
    curve = TopCurve.of(m)
    assert list(curve.probability([1e308, np.inf, -1e308, -np.inf])) == [1.0, 1.0, 0.0, 0.0]
    with pytest.raises(ValueError, match="nan"):
        curve.probability([np.nan])
