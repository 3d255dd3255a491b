"""SparseProject: privacy calibration (the seed checked), discrete Gaussian, evaluator accuracy vs theory."""

import math

import numpy as np
import pytest

from svtgui.core import gaussian, mechanisms
from svtgui.core.linear import LinearQuery, SparseHistogram
from svtgui.core.mechanisms import sparse_project_theory as th
from svtgui.core.mechanisms.sparse_project import ProjectionRelease, measured_error

# ---- calibration -------------------------------------------------------------------------------


def test_seed_calibration_advanced_composition_certifies_add_remove_but_not_replace():
    eps, delta, T = 1.0, 1e-6, 4096
    b = math.sqrt(8 * math.log(1 / delta)) / eps  # the seed's 1/σ
    for change in (1, 2):
        eps0 = change / math.sqrt(T) / b  # one coordinate moves by change/√T
        expected = math.sqrt(2 * T * math.log(1 / delta)) * eps0 + T * eps0 * (math.exp(eps0) - 1)
        got = th.seed_epsilon_advanced(eps, delta, T, th.ADD_REMOVE if change == 1 else th.REPLACE)
        assert got == pytest.approx(expected, rel=1e-12)
    assert th.seed_epsilon_advanced(eps, delta, T, th.ADD_REMOVE) < 0.52 * eps  # ε/2 + ε²/(8 ln 1/δ)
    assert th.seed_epsilon_advanced(eps, delta, T, th.REPLACE) > eps  # advanced composition does not prove it


def test_laplace_renyi_divergence_matches_numerical_integration():
    # D_α(Lap(0, 1) ‖ Lap(ε₀, 1)) = 1/(α−1)·ln ∫ p^α q^(1−α), integrated on a fine grid (independent of the
    # closed form); the integrand decays like e^(−|x|), so [−60, 60] leaves < e^-50 out.
    x = np.linspace(-60, 60, 1_200_001)
    for alpha, eps0 in [(1.5, 0.3), (4.0, 0.05), (30.0, 0.01), (2.0, 2.0)]:
        log_p, log_q = -np.abs(x) - math.log(2), -np.abs(x - eps0) - math.log(2)
        integral = np.trapezoid(np.exp(alpha * log_p + (1 - alpha) * log_q), x)
        assert th.laplace_rdp(alpha, eps0) == pytest.approx(math.log(integral) / (alpha - 1), rel=1e-6)


def test_renyi_bound_certifies_the_seed_under_replace_at_moderate_epsilon():
    # The issue's figure: ε' ≈ 0.85 at ε = 1, δ = 1e-6. Independent check, large T: T·D_α(ε₀) → α·ρ with
    # ρ = T·ε₀²/2 = 2/b² (b the seed's scale, Δ_coord = 2/√T), converted by CKS 2020 at the best α.
    eps, delta = 1.0, 1e-6
    rho = 2 * eps**2 / (8 * math.log(1 / delta))
    alphas = np.exp(np.linspace(0.001, 12, 200_000))
    converted = alphas * rho + np.log1p(-1 / alphas) - (math.log(delta) + np.log(alphas)) / (alphas - 1)
    limit = float(np.min(converted))
    assert limit == pytest.approx(0.853, abs=0.002)
    assert th.seed_epsilon_renyi(eps, delta, 2**20, th.REPLACE) == pytest.approx(limit, abs=2e-3)
    assert th.seed_epsilon(eps, delta, 4096, th.REPLACE) < 0.86
    grid = [(e, 1e-6) for e in (0.1, 1.0, 2.0, 5.0)] + [(e, d) for e in (0.1, 1.0, 2.0) for d in (1e-9, 1e-3)]
    for e, d in grid:  # the cases the module docstring lists as shown
        for T in (1, 4, 16, 256, 4096, 2**20):
            assert th.seed_epsilon(e, d, T, th.REPLACE) <= e, (e, d, T)
    assert th.seed_epsilon(10.0, 1e-6, 4096, th.REPLACE) > 10.0  # not shown at ε = 10 (docstring)
    assert th.seed_epsilon(5.0, 1e-3, 256, th.REPLACE) <= 5.0 < th.seed_epsilon(5.0, 1e-3, 4096, th.REPLACE)
    notes = mechanisms.info("sparse_project").notes
    assert "Rényi" in notes and "NOT" not in notes


@pytest.mark.parametrize("neighbouring", [th.ADD_REMOVE, th.REPLACE])
@pytest.mark.parametrize("T", [4, 64, 4096])
def test_laplace_scale_spends_exactly_epsilon(neighbouring, T):
    eps, delta = 0.7, 1e-5
    b = th.laplace_scale(eps, delta, T, neighbouring)
    step = th.coordinate_change(neighbouring) / math.sqrt(T)
    pure = step * T / b  # ε of the L1 (pure) route at this scale
    advanced = th.advanced_composition(step / b, T, delta)
    assert min(pure, advanced) == pytest.approx(eps, rel=1e-9)
    assert min(pure, advanced) <= eps * (1 + 1e-12)


def test_gaussian_calibration_round_trips_and_beats_the_seed():
    eps, delta = 1.0, 1e-6
    rho = gaussian.rho_for(eps, delta)
    assert gaussian.epsilon_for(rho, delta) == pytest.approx(eps, rel=1e-12)
    sigma = th.gaussian_sigma(eps, delta, th.ADD_REMOVE)
    assert sigma == pytest.approx(1 / math.sqrt(2 * rho))  # L2 sensitivity 1 in units of u
    assert th.gaussian_sigma(eps, delta, th.REPLACE) == pytest.approx(2 * sigma)
    seed_std = math.sqrt(2) * th.seed_scale(eps, delta)
    assert sigma < seed_std / 2.5


def test_discrete_gaussian_matches_its_law():
    sigma, n = 3.0, 40_000
    y = gaussian.discrete_gaussian(mechanisms.seeded(4), sigma, n)
    ks = np.arange(-60, 61)
    pmf = np.exp(-ks**2 / (2 * sigma**2))
    pmf /= pmf.sum()
    var = float((pmf * ks**2).sum())
    # sample variance: sd ≈ √(2/n)·var; 5 sd → false failure ≈ 6e-7 (normal approximation)
    assert abs(y.var() - var) < 5 * math.sqrt(2 / n) * var
    assert abs(y.mean()) < 5 * math.sqrt(var / n)
    # P[Y = 0]: binomial sd √(p(1−p)/n), 5 sd
    p0 = float(pmf[60])
    assert abs((y == 0).mean() - p0) < 5 * math.sqrt(p0 * (1 - p0) / n)


# ---- release and evaluator ---------------------------------------------------------------------


def _histogram(size: int, n: int, seed: int) -> SparseHistogram:
    rng = np.random.default_rng(seed)
    weights = rng.pareto(1.5, size) + 0.01  # skewed, like real data
    return SparseHistogram.from_cells(rng.choice(size, size=n, p=weights / weights.sum()), size)


def test_release_noise_has_the_calibrated_scale():
    hist = _histogram(64, 2000, 1)
    T = 4096
    mech = mechanisms.create("sparse_project", epsilon=1.0, delta=1e-6, projection_size=T,
                             rng=mechanisms.seeded(2))
    rel = mech.release(hist)
    exact = rel.signs(hist.cells).astype(np.int64) @ hist.counts
    noise = rel.noisy - exact
    sigma_w = mech.scale * math.sqrt(T)
    # the sample sd of T discrete Gaussians: relative sd ≈ 1/√(2T); 5 of those
    assert abs(noise.std() / sigma_w - 1) < 5 / math.sqrt(2 * T)
    assert mech.scale == pytest.approx(th.gaussian_sigma(1.0 - 0.05, 1e-6, th.ADD_REMOVE))
    assert abs(rel.n - hist.n) < 20 * 20  # n̂ = n + discrete Laplace(1/0.05): 20 scales ≈ 2e-9 tail
    assert rel.header["n_is_noisy"] and rel.header["accuracy"]["alpha"] > 0


def test_evaluator_errors_match_the_projection_variance():
    """Squared errors over the exact JL + noise variance average to ≈ 1 (needs 4-wise independence)."""
    size, T = 2048, 1024
    hist = _histogram(size, 20_000, 3)
    mech = mechanisms.create("sparse_project", epsilon=1.0, delta=1e-6, projection_size=T,
                             neighbouring="replace", rng=mechanisms.seeded(5))
    rel = mech.release(hist)
    assert rel.n == hist.n  # n is public under replace
    rng = np.random.default_rng(6)
    perm = rng.permutation(size)
    queries = [LinearQuery(perm[8 * j:8 * j + 8], rng.uniform(0.2, 1, 8), size) for j in range(200)]
    D = hist.dense()
    ratios = []
    for q, est in zip(queries, rel.answer_many(queries) * rel.n, strict=True):
        Qd = np.zeros(size)
        Qd[q.indices] = q.weights
        qq, dd, qd = Qd @ Qd, D @ D, Qd @ D
        jl_var = (qq * dd + qd**2 - 2 * np.sum(Qd**2 * D**2)) / T
        noise_var = mech.scale**2 * qq
        ratios.append((est - qd) ** 2 / (jl_var + noise_var))
    # disjoint queries: errors uncorrelated; mean of 200 χ²₁-like ratios has sd ≈ 0.1, so [0.6, 1.5]
    # is ≥ 4 sd on either side (false failure < 1e-4)
    assert 0.6 < np.mean(ratios) < 1.5


def test_measured_error_is_within_theoretical_alpha():
    size, T, m, k = 512, 2048, 8, 200
    hist = _histogram(size, 30_000, 7)
    mech = mechanisms.create("sparse_project", epsilon=1.0, delta=1e-6, projection_size=T, queries=k,
                             sparsity=m, beta=0.05, rng=mechanisms.seeded(8))
    rel = mech.release(hist)
    rng = np.random.default_rng(9)
    queries = [LinearQuery.counting(rng.choice(size, m, replace=False), size) for _ in range(k)]
    err = measured_error(rel, hist, queries)
    alpha = rel.header["accuracy"]["alpha"]
    assert err.max() <= alpha  # holds with probability ≥ 1 − β = 0.95 (fixed seed)
    # the worst case ‖D‖₂ = n is loose: the data-dependent bound with the real ‖D‖₂ also holds
    tau = 0.05 / (4 * k + 1)
    gamma = th.jl_gamma(T, tau)
    real = (gamma * math.sqrt(m) * np.linalg.norm(hist.counts)
            + th.noise_tail("gaussian", mech.scale, m, gamma, T, tau)) / rel.n
    real += rel.header["accuracy"]["count"]
    assert err.max() <= real < alpha


def test_paper_projection_size_is_astronomical():
    T = th.paper_projection_size(n=32_561, m=16, k=1000, beta=0.05)
    expected = 4 * 64**2 * math.log(4 * 1000 / 0.05) * (16**1.5 / 2 + 32_561**4 / 8 + 4 * 32_561**2)
    assert T == pytest.approx(expected) and T > 1e21


def test_release_round_trips_through_a_file(tmp_path):
    hist = _histogram(128, 3000, 10)
    rel = mechanisms.create("sparse_project", epsilon=0.5, projection_size=256,
                            rng=mechanisms.seeded(11)).release(hist, metadata={"universe": {"axes": []}})
    path = rel.save(tmp_path / "r.npz")
    back = ProjectionRelease.load(path)
    q = LinearQuery.counting(np.arange(10), 128)
    assert back.answer(q) == rel.answer(q)
    assert back.n == rel.n and back.hash == rel.hash and back.header["metadata"] == {"universe": {"axes": []}}
    assert back.answer((np.arange(10), np.ones(10))) == rel.answer(q)


def test_bad_release_files(tmp_path):
    with pytest.raises(ValueError, match="no such release file"):
        ProjectionRelease.load(tmp_path / "missing.npz")
    junk = tmp_path / "junk.npz"
    junk.write_text("not a zip")
    with pytest.raises(ValueError, match="junk.npz: not a SparseProject release"):
        ProjectionRelease.load(junk)
    other = tmp_path / "other.npz"
    np.savez(other, header=np.array('{"format": "something-else", "version": 1}'), noisy=np.zeros(2),
             coefficients=np.zeros(2, dtype=np.uint64))
    with pytest.raises(ValueError, match="format 'something-else'"):
        ProjectionRelease.load(other)


@pytest.mark.parametrize("params, message", [
    (dict(epsilon=0.0), "epsilon must be > 0"),
    (dict(epsilon=1.0, delta=0.0), "delta must be in \\(0, 1\\)"),
    (dict(epsilon=1.0, projection_size=0), "projection_size must be >= 1"),
    (dict(epsilon=1.0, projection_size=2**23), "projection_size must be <= 4194304"),
    (dict(epsilon=1.0, neighbouring="swap"), "neighbouring must be one of add_remove, replace"),
    (dict(epsilon=1.0, noise="cauchy"), "noise must be one of gaussian, laplace"),
    (dict(epsilon=1.0, count_share=1.0), "count_share must be strictly between 0 and 1"),
])
def test_bad_parameters_name_the_problem(params, message):
    with pytest.raises(ValueError, match=message):
        mechanisms.create("sparse_project", rng=mechanisms.seeded(0), **params)


def test_single_use_and_bad_histograms():
    mech = mechanisms.create("sparse_project", epsilon=1.0, projection_size=16, rng=mechanisms.seeded(0))
    with pytest.raises(ValueError, match="needs a SparseHistogram"):
        mech.release(np.ones(4))
    mech.release(SparseHistogram(np.array([1]), np.array([3]), 4))
    with pytest.raises(mechanisms.MechanismHalted, match="single-use"):
        mech.release(SparseHistogram(np.array([1]), np.array([3]), 4))
    with pytest.raises(ValueError, match="strictly increasing"):
        SparseHistogram(np.array([2, 1]), np.array([1, 1]), 4)
    with pytest.raises(ValueError, match="outside the universe"):
        SparseHistogram(np.array([4]), np.array([1]), 4)
    with pytest.raises(ValueError, match="weights must be in \\[0, 1\\]"):
        LinearQuery(np.array([0]), np.array([1.5]), 4)
