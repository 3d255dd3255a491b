"""The exponential mechanism's exact sampler (svtgui.core.em_sampling) against the law it claims.

Expected probabilities are computed here from the definition (sequential rounds without replacement,
P[i] ∝ exp(γ·u_i) among the remaining), not from the sampler; frequencies are compared by a
chi-square test whose false-failure probability is 1e-6 per assertion.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest

from svtgui.core import em_sampling, mechanisms, noise
from svtgui.core.sampling import exp_neg_bounds

FALSE_FAILURE = 1e-6  # chi-square p-value below which a test fails (its false-failure probability)


def chi2_sf(x: float, dof: int) -> float:
    """P[χ²_dof ≥ x] = 1 − P(dof/2, x/2) (regularized lower incomplete gamma, by its power series)."""
    a, z = dof / 2, x / 2
    term = total = 1 / a
    n = 0
    while term > 1e-17 * total:
        n += 1
        term *= z / (a + n)
        total += term
    return max(0.0, 1 - math.exp(a * math.log(z) - z - math.lgamma(a)) * total)


def em_law(answers: list[float], gamma: float, c: int) -> dict[tuple[int, ...], float]:
    """Exact probability of each ordered selection of c items by c EM rounds (from the definition)."""
    w = [math.exp(gamma * (u - max(answers))) for u in answers]
    law = {}
    for order in itertools.permutations(range(len(answers)), c):
        p, left = 1.0, sum(w)
        for i in order:
            p *= w[i] / left
            left -= w[i]
        law[order] = p
    return law


def assert_matches(counts: Counter, law: dict[tuple[int, ...], float], n: int) -> None:
    assert set(counts) <= set(law), "a selection outside the support"
    assert min(law.values()) * n >= 5  # the chi-square approximation needs expected counts ≥ 5
    stat = sum((counts[k] - n * p) ** 2 / (n * p) for k, p in law.items())
    p_value = chi2_sf(stat, len(law) - 1)
    assert p_value > FALSE_FAILURE, f"χ² = {stat:.1f} on {len(law) - 1} dof, p = {p_value:.2e}"


def test_chi2_sf_matches_known_quantiles():
    # χ²₁ ≥ 3.841 and χ²₁₀ ≥ 18.307 with probability 0.05; χ²₂ ≥ x is exactly e^(−x/2)
    assert chi2_sf(3.841459, 1) == pytest.approx(0.05, rel=1e-5)
    assert chi2_sf(18.307038, 10) == pytest.approx(0.05, rel=1e-5)
    assert chi2_sf(30.0, 2) == pytest.approx(math.exp(-15), rel=1e-9)


@pytest.mark.parametrize("answers,gamma,c,n,seed", [
    ([0.0, 1.0, 2.0, 3.0, 5.0], Fraction(1, 2), 1, 80_000, 11),      # integer answers, one round
    ([0.3, 1.7, 2.2, -0.5, 1.1], Fraction(3, 4), 2, 120_000, 12),   # non-integer answers, two rounds
])
def test_selection_frequencies_follow_the_exponential_mechanism(answers, gamma, c, n, seed):
    source = noise.seeded(seed)
    arr = np.array(answers)
    counts = Counter(source.exponential_top_c(arr, gamma, c) for _ in range(n))
    assert_matches(counts, em_law(answers, float(gamma), c), n)


def test_a_dominating_score_is_always_selected_first():
    # 5,000 items at 0 and three far above: P[any other order] ≤ 5,000·e^(−500) ≈ 0 at γ = ε/(2cΔ) = 1/2.
    answers = np.zeros(5_000)
    answers[[4_321, 17, 999]] = [3_000.0, 2_000.0, 1_000.0]
    for seed in range(20):
        em = mechanisms.create("em_top_c", epsilon=3.0, cutoff=3, rng=mechanisms.seeded(seed))
        assert em.select(answers).indices == (4_321, 17, 999)


def test_monotonic_halves_the_factor():
    # γ = ε/(cΔ) when monotonic, ε/(2cΔ) otherwise: same seed, same γ ⇒ the same draws.
    answers = np.array([0.0, 0.4, 1.3, 2.0, 0.9])

    def picks(epsilon: float, monotonic: bool) -> list[tuple[int, ...]]:
        return [mechanisms.create("em_top_c", epsilon=epsilon, cutoff=2, monotonic=monotonic,
                                  rng=mechanisms.seeded(s)).select(answers).indices for s in range(200)]

    assert picks(1.0, True) == picks(2.0, False)
    assert picks(1.0, True) != picks(1.0, False)  # P[200 equal pairs at different γ] is astronomically small


def test_the_float_screen_never_contradicts_certified_bounds():
    # For exponents across the table (and beyond), and 53-bit prefixes just around p = e^(−x): a screen
    # decision must agree with exact 200-bit bounds on p. Deterministic: it can only fail on a bug.
    rng = np.random.default_rng(5)
    gamma = Fraction(0.0137)
    diffs = np.concatenate([rng.uniform(0, 3_500, 300), [0.0, 1e-300, 3_284.6, 3_357.7, 1e6]])
    for d in diffs:
        x = gamma * Fraction(float(d))
        lo, hi = exp_neg_bounds(x, 200)
        centre = hi >> (200 - 53)
        u53 = np.array([float(u) for u in range(max(0, centre - 3), min(2**53, centre + 4))])
        t = np.full(u53.size, float(gamma) * 1024 * float(d))
        accept, reject = em_sampling._screen(t, u53)
        for u, a, r in zip(u53, accept, reject, strict=True):
            assert not (a and r)
            if a:  # V < (u + 1)/2^53 ≤ p
                assert (int(u) + 1) << 147 <= lo
            if r:  # V ≥ u/2^53 ≥ p
                assert int(u) << 147 >= hi


def test_without_a_usable_float_screen_the_exact_path_alone_is_correct():
    # γ below 2^-1000 switches the screen off: every trial is decided by exact bounds; frequencies
    # still follow the law (χ², false failure 1e-6).
    gamma = Fraction(1, 2**1001)
    answers = [0.0, 2.0**1001, 2.0**1002]  # γ·u = 0, 1, 2
    source = noise.seeded(3)
    n = 5_000
    counts = Counter(source.exponential_top_c(np.array(answers), gamma, 1) for _ in range(n))
    assert_matches(counts, em_law([0.0, 1.0, 2.0], 1.0, 1), n)
