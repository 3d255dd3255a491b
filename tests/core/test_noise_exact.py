"""The exact samplers (svtgui.core.sampling), block by block, then whole, then in the far tail.

Each building block is checked against its exact law: brackets against an independent
high-precision computation (decimal, 100 digits), Bernoulli frequencies against the exact
binomial, whole samplers by chi-square at 10^7 draws, and the far tail (beyond 20 scales, where
ordinary sampling never goes) by conditioning the inversion's uniform on a tiny prefix and
comparing with the exact conditional law. Fixed seeds; every tolerance comes from the
distribution, with its false-failure probability stated next to it.
"""

from __future__ import annotations

import math
from decimal import Decimal, getcontext
from fractions import Fraction

import numpy as np
import pytest
from core_stats import Z

from svtgui.core import noise, sampling

getcontext().prec = 100


def bits_of(seed: int) -> sampling.Bits:
    return sampling.Bits(noise.seeded(seed).words)


def exp_neg(gamma: Fraction) -> Decimal:
    """e^(−γ) to 100 significant digits, computed independently of the code under test."""
    return (-(Decimal(gamma.numerator) / Decimal(gamma.denominator))).exp()


def chi2_critical(df: int, tail: float = 1e-6) -> float:
    """Upper ``tail`` quantile of χ²(df) by Wilson–Hilferty, which overestimates it at this tail for
    small df (df = 3: 32.8 against 30.7), so the stated false-failure probability is an upper bound."""
    z = {1e-6: 4.753424}[tail]  # one-sided normal quantile
    return df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3


def chi2(counts: np.ndarray, probs: np.ndarray) -> float:
    n = counts.sum()
    expected = n * probs
    assert expected.min() >= 5, "bins too thin for a chi-square test"
    return float(((counts - expected) ** 2 / expected).sum())


def assert_binomial(hits: int, n: int, p: float, what: str) -> None:
    """Two-sided CLT tolerance on a Bernoulli frequency: false failure ≈ 5.7e-7 (Z = 5)."""
    assert abs(hits - n * p) <= Z * math.sqrt(n * p * (1 - p)) + 1, f"{what}: {hits}/{n}, p = {p:.6g}"


# -- building blocks ------------------------------------------------------------------------------

@pytest.mark.parametrize("bound", [1, 3, 6, 1000, 2**64 + 13])
def test_uniform_below_is_uniform(bound):
    # Chi-square over 6 equal-probability classes of [0, bound) (exact when 6 | bound; otherwise the
    # classes are floor-based and their exact sizes are used). False failure ≤ 1e-6.
    bits = bits_of(1)
    n = 30_000
    draws = [sampling.uniform_below(bits, bound) for _ in range(n)]
    assert all(0 <= d < bound for d in draws)
    classes = min(bound, 6)
    edges = [bound * k // classes for k in range(classes + 1)]
    counts = np.histogram(np.array([d * classes // bound for d in draws], dtype=float),
                          bins=np.arange(classes + 1) - 0.5)[0]
    probs = np.array([(edges[k + 1] - edges[k]) / bound for k in range(classes)])
    if classes > 1:
        assert chi2(counts, probs) <= chi2_critical(max(classes - 1, 3))


@pytest.mark.parametrize("p", [Fraction(0), Fraction(1), Fraction(3, 7), Fraction(1, 10**12 + 39)])
def test_bernoulli_of_a_rational_matches_the_exact_binomial(p):
    bits = bits_of(2)
    n = 40_000
    hits = sum(sampling.bernoulli(bits, p) for _ in range(n))
    if p in (0, 1):
        assert hits == n * p
    else:
        assert_binomial(hits, n, float(p), f"Bernoulli({p})")


@pytest.mark.parametrize("gamma", [Fraction(0), Fraction(1, 3), Fraction(1), Fraction(5, 2),
                                   Fraction(123456789, 2**30)])
def test_bernoulli_exp_matches_the_exact_binomial(gamma):
    bits = bits_of(3)
    n = 40_000
    hits = sum(sampling.bernoulli_exp(bits, gamma) for _ in range(n))
    assert_binomial(hits, n, float(exp_neg(gamma)), f"Bernoulli(exp(-{gamma}))")


@pytest.mark.parametrize("gamma", [Fraction(0), Fraction(1, 4100), Fraction(1, 3), Fraction(1),
                                   Fraction(256 * 10, 41003), Fraction(5331, 7), Fraction(200),
                                   Fraction(10**6 + 1, 3)])
@pytest.mark.parametrize("prec", [64, 128, 200])
def test_exp_neg_bounds_bracket_the_true_value(gamma, prec):
    lo, hi = sampling.exp_neg_bounds(gamma, prec)
    exact = exp_neg(gamma) * Decimal(2) ** prec
    assert Decimal(lo) <= exact <= Decimal(hi)
    assert hi - lo <= 64  # a few units: the bracket is useful, not just valid


@pytest.mark.parametrize("scale", [Fraction(1), Fraction(4100.3), Fraction(2, 7)])
def test_every_threshold_cut_is_the_floor_of_the_exact_probability(scale):
    # The inversion compares U with ⌊P[D ≥ b]·2^64⌋; each cut must be that floor exactly.
    for digit in sampling._levels(scale):
        y = Decimal(digit.y.numerator) / Decimal(digit.y.denominator)
        top = (-y * 256).exp()
        for b, cut in enumerate(digit.cuts.tolist(), start=1):
            p = (-y * b).exp()
            if digit.truncated:
                p = (p - top) / (1 - top)
            elif cut == 0:  # the tail marker: every later threshold is below 2^-64
                assert p * Decimal(2) ** 64 < 1
                continue
            assert int(p * Decimal(2) ** 64) == cut, (scale, b)


# -- whole samplers at 10^7 draws -------------------------------------------------------------------

def test_geometric_chi_square_at_ten_million_draws():
    # t = 2.5: y = 0.4, so one truncated base-256 digit and the top digit (y_J = 102.4).
    # Bins g = 0..29 and a tail bin; χ² with 30 df, false failure ≤ 1e-6.
    t = Fraction(5, 2)
    g = sampling.geometric(bits_of(4), t, 10_000_000)
    q = math.exp(-1 / t)
    k = 30
    probs = np.array([(1 - q) * q**i for i in range(k)] + [q**k])
    counts = np.bincount(np.minimum(g, k), minlength=k + 1)
    assert chi2(counts, probs) <= chi2_critical(k)


@pytest.mark.parametrize("scale", [3.7, 4100.3])
def test_discrete_laplace_chi_square_at_ten_million_draws(scale):
    # Bins of width w = ⌈t/4⌉ symmetric around 0 out to ±10 scales, plus two tail bins; the exact
    # probability of a bin is a difference of the two-sided geometric CDF. χ² at false failure 1e-6.
    z = noise.seeded(5).discrete_laplace(scale, 10_000_000)
    t = float(noise.exact_scale(scale))
    q = math.exp(-1 / t)
    w = max(1, math.ceil(t / 4))
    edges = np.arange(-10 * t // w * w, 10 * t // w * w + w + 1, w)  # integer bin starts

    def cdf(x: float) -> float:  # P[Z ≤ x] for integer x
        x = math.floor(x)
        return q ** (-x) / (1 + q) if x < 0 else 1 - q ** (x + 1) / (1 + q)

    probs = [cdf(edges[0] - 1)] + [cdf(b - 1) - cdf(a - 1) for a, b in zip(edges[:-1], edges[1:],
                                                                                strict=True)]
    probs.append(1 - cdf(edges[-1] - 1))
    counts = np.bincount(np.searchsorted(edges, z, side="right"), minlength=len(edges) + 1)
    assert chi2(counts, np.array(probs)) <= chi2_critical(len(probs) - 1)


def test_noise_pool_streams_the_same_law():
    # 200,000 pooled ints: cell frequencies at t = 1.5 within Z binomial SDs (false failure ≈ 6e-6).
    pool = noise.NoisePool(noise.seeded(6), 1.5)
    z = np.array([pool.draw() for _ in range(200_000)])
    q = math.exp(-1 / float(noise.exact_scale(1.5)))
    for v in range(-5, 6):
        assert_binomial(int(np.count_nonzero(z == v)), z.size, (1 - q) / (1 + q) * q ** abs(v), f"P[{v}]")


# -- the far tail: conditional laws beyond 20 scales --------------------------------------------------

class PrefixedBits(sampling.Bits):
    """Bits whose 16-bit prefixes and 48-bit extensions are all 0, i.e. every inversion's uniform U
    is conditioned on U < 2^-64; later bits (the bit-by-bit path) and the signs stay random."""

    def __init__(self, seed: int) -> None:
        super().__init__(noise.seeded(seed).words)
        self._random = bits_of(seed + 1000)

    def take(self, n: int, width: int) -> np.ndarray:
        if width in (16, 64):
            return np.zeros(n, dtype=np.uint16 if width == 16 else np.uint64)
        return self._random.take(n, width)

    def python_int(self, bits: int) -> int:
        return self._random.python_int(bits)


def test_far_tail_of_a_one_level_geometric_given_u_below_two_to_minus_64():
    # t = 1: G is the top digit alone, G = max{g : U < e^(−g/t)}. Given U < 2^-64 (by the prefix),
    # P[G ≥ g | ·] = min(1, e^(−g/t)·2^64): G ≥ 44 always (44 scales out), and the law of G above 44
    # is exactly known. 4,000 draws, bins 44, 45, 46, 47, ≥48; χ² with 4 df at false failure 1e-6.
    t = noise.exact_scale(1.0)
    g = sampling.geometric(PrefixedBits(7), t, 4_000)
    tail = [min(1.0, float(exp_neg(Fraction(k) / t) * Decimal(2) ** 64)) for k in range(44, 49)]
    assert g.min() >= 44
    assert tail[0] == 1.0  # e^-44·2^64 ≈ 14: every U < 2^-64 gives G ≥ 44
    probs = np.array([tail[i] - tail[i + 1] for i in range(4)] + [tail[4]])
    counts = np.bincount(np.minimum(g, 48) - 44, minlength=5)
    assert chi2(counts, probs) <= chi2_critical(4)


def test_far_tail_of_a_three_level_geometric_given_u_below_two_to_minus_64():
    # t = 4100.3 (y = 1/t): G = D0 + 256·D1 + 65536·Q. With every U < 2^-64, each truncated digit is
    # at its largest value (P[D ≥ 255] > 2^-64 at these y) and Q, whose y_J = 65536/t ≈ 15.98, has
    # P[Q ≥ q | ·] = min(1, e^(−q·y_J)·2^64): Q ≥ 2 always (G ≥ 48 scales) and P[Q ≥ 3] ≈ 0.028.
    t = noise.exact_scale(4100.3)
    g = sampling.geometric(PrefixedBits(8), t, 20_000).astype(object)
    assert all((x - 65535) % 65536 == 0 for x in g)
    q = np.array([(x - 65535) // 65536 for x in g])
    y_top = Fraction(65536) / t
    p3 = float(exp_neg(3 * y_top) * Decimal(2) ** 64)
    assert q.min() >= 2 and float(exp_neg(2 * y_top) * Decimal(2) ** 64) > 1
    assert_binomial(int(np.count_nonzero(q >= 3)), q.size, p3, "P[Q ≥ 3 | U < 2^-64]")
    assert np.count_nonzero(q >= 4) <= 1  # P[Q ≥ 4 | ·] ≈ 3e-9: once in 20,000 has probability 7e-5


def test_far_tail_at_the_largest_usable_scale_stays_exact_int64():
    # At t = 2^40 (MAX_SCALE) there are five truncated digits and a top digit with y_J ≈ 1; given
    # every U < 2^-64 the truncated digits are 255 and Q ≥ 44, so G = (2^40 − 1) + Q·2^40 ≥ 44 scales
    # out, still an exact int64 (the bound of the noise docstring: |Z| ≤ 2^52 but for e^-4096).
    t = noise.exact_scale(noise.MAX_SCALE)
    g = sampling.geometric(PrefixedBits(9), t, 50)
    assert g.dtype == np.int64
    assert all((int(x) + 1) % 2**40 == 0 and int(x) >= 45 * 2**40 - 1 for x in g)


def test_discrete_gaussian_chi_square():
    # CKS Algorithm 3 runs its acceptance on Python ints, so 40,000 draws (≈ 2 s), not 10^7. σ = 3.3:
    # bins −11..11 and two tails against the exact normalised law; χ² at false failure ≤ 1e-6.
    sigma = 3.3
    y = noise.seeded(10).discrete_gaussian(sigma, 40_000)
    s = float(noise.exact_scale(sigma))
    support = np.arange(-200, 201)
    weights = np.exp(-(support.astype(float) ** 2) / (2 * s * s))
    pmf = weights / weights.sum()
    inner = (support >= -11) & (support <= 11)
    probs = np.concatenate([[pmf[support < -11].sum()], pmf[inner], [pmf[support > 11].sum()]])
    counts = np.bincount(np.clip(y, -12, 12) + 12, minlength=25)
    assert chi2(counts, probs) <= chi2_critical(24)
