"""The noise layer: discrete Laplace law, lattice rounding, integer mode, sources, the streaming pool."""

from __future__ import annotations

import math

import numpy as np
import pytest
from core_stats import SECURE_Z, Z, assert_mad, discrete_laplace_var

from svtgui.core import noise
from svtgui.core.noise import Lattice, NoisePool


def test_discrete_laplace_pmf_matches_two_sided_geometric():
    # Chi-square-free check of the shape: each cell's frequency within Z binomial SDs of
    # P[Z = z] = (1 − q)/(1 + q)·q^|z| (false failure ≈ 5.7e-7 per cell, 13 cells → < 1e-5).
    t, n = 2.5, 200_000
    z = noise.seeded(11).discrete_laplace(t, n)
    assert z.dtype == np.int64
    q = math.exp(-1 / t)
    for v in range(-6, 7):
        p = (1 - q) / (1 + q) * q ** abs(v)
        got = np.count_nonzero(z == v)
        assert abs(got - n * p) <= Z * math.sqrt(n * p * (1 - p)), f"P[Z = {v}]"


def test_discrete_laplace_variance_and_symmetry():
    # Var of the sample variance ≈ (μ4 − σ⁴)/n; Laplace has μ4 = 6σ⁴ (the lattice adds O(σ²)), so
    # SD(s²) ≈ σ²·√(5/n), padded by (1 + 1/σ²); the mean has SD σ/√n. False failure ≈ 1.1e-6 in all.
    t, n = 40.0, 200_000
    z = noise.seeded(12).discrete_laplace(t, n).astype(float)
    var = discrete_laplace_var(t, 1.0)
    assert abs(z.mean()) <= Z * math.sqrt(var / n)
    assert abs(z.var() - var) <= Z * var * math.sqrt(5 / n) * (1 + 1 / var)


def test_secure_and_seeded_sources_share_the_sampler():
    # Same code path, different words: both give the same law (mean |Z| within CLT tolerance). The
    # secure draw changes every run, so the tolerance is SECURE_Z standard errors (false failure
    # < 1e-10 per run, was 5.7e-7 at Z); 50,000 draws keep it tighter than Z on 20,000 (±3.1 % of E|Z|).
    for source in (noise.secure(), noise.seeded(3)):
        assert_mad(source.discrete_laplace(30.0, 50_000).astype(float), 30.0, 1.0, source.description,
                   z=SECURE_Z)


def test_seeded_is_reproducible_and_marked_not_secure():
    a, b = noise.seeded(5), noise.seeded(5)
    assert np.array_equal(a.discrete_laplace(10.0, 100), b.discrete_laplace(10.0, 100))
    assert not a.secure and "NOT secure" in a.description
    other = noise.seeded(6).discrete_laplace(10.0, 100)
    assert not np.array_equal(other, noise.seeded(5).discrete_laplace(10.0, 100))


def test_secure_source_reads_the_os_csprng():
    s = noise.secure()
    assert s.secure and "CSPRNG" in s.description
    # Two secure sources never agree on 64 words (probability 2^-4096 of a false failure).
    assert not np.array_equal(s.words(64), noise.secure().words(64))


@pytest.mark.parametrize("bad", [0.0, -1.0, float("nan"), float("inf")])
def test_noise_scale_must_be_positive_and_finite(bad):
    with pytest.raises(ValueError, match="noise scale"):
        noise.seeded(1).discrete_laplace(bad, 3)


def test_seed_must_be_a_non_negative_integer():
    for bad in (-1, 1.5, "7", True):
        with pytest.raises(ValueError, match="seed"):
            noise.seeded(bad)


def test_lattice_for_real_queries_is_a_power_of_two_and_inflates_sensitivity_slightly():
    for delta in (1.0, 0.5, 3.0, 1e-4, 250.0):
        lat = Lattice.for_sensitivity(delta, integer=False)
        assert math.log2(lat.step).is_integer()
        assert delta <= lat.effective_sensitivity <= delta * (1 + 2.0**-9) + lat.step
        # Rounding can move neighbours one extra step apart: units covers Δ/g + 1.
        assert lat.units >= delta / lat.step + 1


def test_lattice_rounding_and_exact_values():
    lat = Lattice.for_sensitivity(1.0, integer=False)  # step 2^-10
    assert lat.step == 2.0**-10
    assert lat.unit(0.3) == round(0.3 * 1024)
    xs = np.array([0.3, -1.7, 5.0])
    assert np.array_equal(lat.to_units(xs), np.rint(xs * 1024))
    assert lat.to_value(307) == 307 * 2.0**-10
    # Released values are exact lattice points: multiplying back by 1/step gives an integer.
    assert (lat.to_value(np.array([-5, 12345])) / lat.step == np.array([-5, 12345])).all()


def test_threshold_is_compared_exactly_not_rounded():
    lat = Lattice.for_sensitivity(1.0, integer=True)
    # z ≥ ceil(T) ⇔ z ≥ T for integers z: 100.5 behaves as 101, 100 as 100, −0.5 as 0.
    assert lat.threshold_unit(100.5) == 101 and lat.threshold_unit(100.0) == 100
    assert lat.threshold_unit(-0.5) == 0
    real = Lattice.for_sensitivity(1.0, integer=False)
    for t in (0.3, -2.71828, 1e6 + 0.1):
        z = real.threshold_unit(t)
        assert z * real.step >= t > (z - 1) * real.step
    assert np.array_equal(real.threshold_units(np.array([0.3, -2.71828])),
                          [real.threshold_unit(0.3), real.threshold_unit(-2.71828)])


def test_integer_mode_gives_integers_and_refuses_fractions():
    lat = Lattice.for_sensitivity(1.0, integer=True)
    assert lat.step == 1.0 and lat.units == 1
    assert isinstance(lat.to_value(7), int)
    with pytest.raises(ValueError, match=r"answer must be an integer.*2\.5"):
        lat.unit(2.5)
    with pytest.raises(ValueError, match=r"answer must be an integer.*0\.5"):
        lat.to_units(np.array([1.0, 0.5]))


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -float("inf")])
def test_lattice_refuses_non_finite(bad):
    lat = Lattice.for_sensitivity(1.0, integer=False)
    with pytest.raises(ValueError, match="answer must be finite"):
        lat.unit(bad)
    with pytest.raises(ValueError, match="answer must be finite"):
        lat.to_units(np.array([1.0, bad]))
    with pytest.raises(ValueError, match="threshold must be finite"):
        lat.threshold_unit(bad)


def test_lattice_refuses_values_beyond_exact_range():
    lat = Lattice.for_sensitivity(1.0, integer=False)
    with pytest.raises(ValueError, match="too large"):
        lat.unit(1e300)


def test_pool_draws_the_same_law_as_block_draws():
    pool = NoisePool(noise.seeded(21), 25.0)
    draws = np.array([pool.draw() for _ in range(20_000)], dtype=float)
    assert all(isinstance(pool.draw(), int) for _ in range(10))
    assert_mad(draws, 25.0, 1.0, "pool")


def test_pool_hands_out_every_block_draw_once_in_its_fixed_order():
    """Each value of the source's blocks (sizes doubling from 64) exactly once, each block from its
    end: the order seeded runs have always replayed, across several refills."""
    pool = NoisePool(noise.seeded(5), 7.0)
    drawn = [pool.draw() for _ in range(64 + 128 + 256 + 10)]
    source = noise.seeded(5)
    blocks = [source.discrete_laplace(7.0, size).tolist() for size in (64, 128, 256, 512)]
    expected = [v for block in blocks for v in reversed(block)]
    assert drawn == expected[:len(drawn)]


class Counting(noise.SeededNoise):
    """A source whose blocks hold 0, 1, 2, … in turn (each value once), and which counts its calls."""

    def __init__(self) -> None:
        super().__init__(0)
        self.next, self.calls = 0, 0

    def discrete_laplace(self, scale: float, size: int) -> np.ndarray:
        self.calls += 1
        self.next += size
        return np.arange(self.next - size, self.next, dtype=np.int64)


def test_pool_steps_and_single_draws_use_each_value_once_and_skip_none():
    """Slices (peek, then skip what was used) and single draws interleaved: every value the source
    gave is used once, none twice, and none is passed over except those single draws still hold."""
    source = Counting()
    pool = NoisePool(source, 3.0)
    used: list[int] = []
    rng = np.random.default_rng(4)
    for _ in range(300):
        if rng.random() < 0.3:
            used.append(pool.draw())
        else:
            k = int(rng.integers(1, 700))
            window = pool.peek(k)
            assert len(window) == k and not window.flags.writeable
            j = int(rng.integers(0, k + 1))  # a step stops at its first ⊤
            used.extend(window[:j].tolist())
            pool.skip(j)
    assert len(used) == len(set(used))
    held = [pool.draw() for _ in range(source.next - len(used))]  # what the draws' segment still holds
    assert sorted(used + held) == list(range(source.next))


def test_pool_refuses_to_skip_values_it_did_not_hand_out():
    pool = NoisePool(noise.seeded(3), 5.0)
    pool.peek(10)
    with pytest.raises(ValueError, match="cannot mark 11 values used"):
        pool.skip(11)


def test_a_step_over_k_queries_is_a_slice_not_a_sampler_call():
    """Issue 25 §4: adaptive batches of one through submit_many cost no sampler call each; the
    query noise comes from the pool's refilled blocks (64, 128, 256, … values)."""
    from svtgui.core import mechanisms

    source = Counting()
    m = mechanisms.create("sparse", epsilon=1.0, threshold=1e6, cutoff=1, sensitivity=1.0, rng=source)
    before = source.calls
    for _ in range(400):
        m.submit_many([0.0])
    assert m.answered == 400
    assert source.calls - before <= 4  # 64 + 128 + 256 ≥ 400, plus one spare


def test_pool_rejects_bad_scale():
    with pytest.raises(ValueError, match="noise scale"):
        NoisePool(noise.seeded(1), 0.0)


def test_exact_scale_rounds_up_and_is_the_rational_the_sampler_uses():
    # Rounding the float scale up by 2^-40 covers the few-ulp error of the formulas that computed it.
    from fractions import Fraction
    for t in (0.125, 1.0, 4100.3, 2.0**40):
        exact = noise.exact_scale(t)
        assert Fraction(t) < exact <= Fraction(t) * (1 + Fraction(1, 2**39))


@pytest.mark.parametrize("scale", [0.0, -1.0, math.inf, math.nan, 2.0**40 * 1.0001])
def test_the_sampler_refuses_scales_it_cannot_draw_exactly(scale):
    with pytest.raises(noise.NoiseRangeError, match="noise scale"):
        noise.seeded(1).discrete_laplace(scale, 3)
    with pytest.raises(noise.NoiseRangeError):
        NoisePool(noise.seeded(1), scale)


def test_scales_below_an_eighth_step_are_refused_by_the_range_check_only():
    # The sampler is exact at any positive scale; the 1/8 floor is the mechanisms' policy.
    assert noise.seeded(1).discrete_laplace(0.01, 5).shape == (5,)  # drawable
    with pytest.raises(noise.NoiseRangeError, match="99.9 %"):
        noise.check_scale(0.01, "query")
    assert noise.check_scale(noise.MIN_SCALE) == noise.MIN_SCALE


@pytest.mark.parametrize("delta", [1e-305, 1e296])
def test_real_valued_sensitivity_outside_the_lattice_range_is_refused(delta):
    with pytest.raises(ValueError, match=r"sensitivity must be in \[2\^-1000"):
        Lattice.for_sensitivity(delta, integer=False)


def test_the_documented_chance_of_no_noise_at_the_floor_is_the_samplers():
    """Issue 21 §10: docs/api.md states P[Z = 0] at the floor (and at 1 and 4 steps); the figures are
    the law's, and the sampler draws 0 that often (Z binomial SDs, fixed seed)."""
    from pathlib import Path

    api = (Path(__file__).resolve().parents[2] / "docs" / "api.md").read_text(encoding="utf-8")
    for scale in (noise.MIN_SCALE, 1.0, 4.0):
        q = math.exp(-1.0 / scale)
        p0 = (1 - q) / (1 + q)
        assert f"{100 * p0:.2f} %" in api, f"docs/api.md lacks P[Z = 0] = {100 * p0:.2f} % at {scale}"
        n = 200_000
        zeros = np.count_nonzero(noise.seeded(21).discrete_laplace(scale, n) == 0)
        assert abs(zeros / n - p0) <= Z * math.sqrt(p0 * (1 - p0) / n)
