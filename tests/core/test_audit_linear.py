"""The auditor on the mechanisms on histograms: PMW and SparseProject.

1. Simulators match the mechanisms we ship, in distribution (as ``test_audit_sim.py`` does for the
   answer-vector mechanisms): K runs of the real mechanism and K simulated runs on the same input
   are compared category by category; each frequency must agree within 4.5 standard errors of the
   difference. A correct simulator fails one given category with probability 6.8e-6; the tests
   below compare fewer than 1,500 categories in all, so their joint false-failure probability is
   below 1%. The SparseProject sign matrix is compared exactly. Power (checked by mutating the PMW
   simulator once, not in the suite): a wrong learning rate, paid-answer scale ×1/1.5 or query-noise
   scale ×2 fails; a 30% error in one SVT scale or a missing threshold refresh does not, at K = 3000.
2. Verdicts with fixed seeds and sample sizes (10^4 search and 10^5 final runs per input, claimed
   ε = 1). False alarms: the final test is an exact level-α test (α = 0.01) on a sample independent
   of the search, so a private mechanism is flagged with probability at most 1% per audit (far less
   in practice: the best events of the real mechanisms have ε_lcb ≈ 0.5 at ε = 1, well inside).
   Misses: the broken variants leak by orders of magnitude (noise /10: ratio e^4 at the chosen
   event; a paid answer without noise: an impossible event), p-values below 1e-100 in our runs.
"""

import math

import numpy as np
import pytest

from svtgui.core import mechanisms
from svtgui.core.audit import NO_VIOLATION, VIOLATION, audit, candidate_pairs
from svtgui.core.audit.linear import (
    ROWS,
    UNIVERSE,
    LinearInput,
    at_threshold_counts,
    pmw_candidates,
    sparse_project_candidates,
)
from svtgui.core.audit.linear_sim import PMWSim, RealPMW, SparseProjectSim, discrete_gaussian
from svtgui.core.audit.outputs import Outputs
from svtgui.core.audit.sim import audit_params, simulator_for
from svtgui.core.linear import LinearQuery, SparseHistogram

K = 3000
SIZES = dict(search_runs=10_000, final_runs=100_000)
Z = 4.5


def _assert_same_distribution(real: np.ndarray, sim: np.ndarray, what: str) -> None:
    """Category frequencies of two samples of K agree within Z standard errors each."""
    keys = np.union1d(real, sim)
    pa = (real[:, None] == keys[None, :]).mean(axis=0)
    pb = (sim[:, None] == keys[None, :]).mean(axis=0)
    pbar = (pa + pb) / 2
    se = np.sqrt(np.maximum(pbar * (1 - pbar), 1 / len(real) ** 2) * (1 / len(real) + 1 / len(sim)))
    worst = int(np.argmax(np.abs(pa - pb) / se))
    assert np.all(np.abs(pa - pb) <= Z * se), (
        f"{what}: category {keys[worst]} real {pa[worst]:.4f} vs simulated {pb[worst]:.4f}")


def _deciles(pooled: np.ndarray, x: np.ndarray) -> np.ndarray:
    edges = np.unique(np.quantile(pooled[np.isfinite(pooled)], np.linspace(0.1, 0.9, 9)))
    return np.where(np.isfinite(x), np.searchsorted(edges, x, side="right") + 1, 0)


# -- PMW ---------------------------------------------------------------------------------------
U = LinearQuery.counting(np.arange(8), UNIVERSE, "U")
V = LinearQuery.counting(np.r_[0, 8:15], UNIVERSE, "V")
W = LinearQuery.counting(np.arange(8, 16), UNIVERSE, "W")
X = LinearQuery.counting(np.r_[0:4, 8:12], UNIVERSE, "X")
HALF = LinearQuery(np.arange(0, 12), np.linspace(0.25, 1.0, 12), UNIVERSE, "weighted")  # non-integer
# errors of the uniform simulation (n/2 = 100) at different distances from the threshold (20 or 15
# rows): U 28, V 18, X ≈ 1, W 28 (U and W also differ in sign), so the patterns depend on every scale
SIM_COUNTS = np.array([20, 16, 16, 16, 15, 15, 15, 15, 9, 9, 9, 9, 9, 9, 8, 10])


def _histogram(counts: np.ndarray) -> SparseHistogram:
    nz = np.flatnonzero(counts)
    return SparseHistogram(nz, counts[nz], counts.size)


PMW_CASES = {
    # cutoff 2: the runs split after the first paid answer (multiplicative-weights step, both directions)
    "add_remove, c = 2": (dict(cutoff=2), (U, X, V, W, U, V)),
    # replace: n exact; the threshold in rows; a weighted query (non-integer lattice); c = 3
    "replace, rows, weighted, c = 3": (dict(cutoff=3, neighbouring="replace", threshold_unit="rows",
                                            threshold=15.0), (U, HALF, X, W, V, U)),
}


def _pattern(o: Outputs) -> np.ndarray:
    return (o.above.astype(np.int64) + 1) @ (3 ** np.arange(o.above.shape[1]))


def _paid_counts(o: Outputs) -> np.ndarray:
    """Paid answers in rows (value·n̂: the noisy count), NaN where the answer was free."""
    return np.where(o.above == 1, o.values * o.extra["n_hat"][:, None], np.nan)


def _pmw_history(o: Outputs, paid: np.ndarray) -> np.ndarray:
    """One category per run: the free/paid pattern, the decile of the first paid count (edges from
    ``paid``) and every free value (they depend on the multiplicative-weights steps before them)."""
    pattern = _pattern(o)
    counts = _paid_counts(o)
    at_first = counts[np.arange(o.runs), np.argmax(o.above == 1, axis=1)]
    first = np.where(np.isfinite(counts).any(axis=1), at_first, np.nan)
    decile = _deciles(paid, first)
    free = np.where(o.above == 0, np.round(o.values, 9), -1.0)
    return np.array([hash((int(a), int(b), tuple(f))) for a, b, f in
                     zip(pattern, decile, free.tolist(), strict=True)])


@pytest.mark.parametrize("case", list(PMW_CASES))
def test_pmw_simulator_matches_the_real_mechanism(case):
    overrides, queries = PMW_CASES[case]
    params = audit_params("pmw", 3.0, overrides)  # noise scales comparable to the error spread
    inp = LinearInput(_histogram(SIM_COUNTS), queries)
    real = RealPMW(params).run(inp, K, np.random.default_rng(11))
    sim = simulator_for("pmw", params).run(inp, K, np.random.default_rng(7))
    assert isinstance(simulator_for("pmw", params), PMWSim)
    paid = np.concatenate([_paid_counts(real).reshape(-1), _paid_counts(sim).reshape(-1)])
    _assert_same_distribution(_pmw_history(real, paid), _pmw_history(sim, paid), f"{case}: history")
    _assert_same_distribution(_pattern(real), _pattern(sim), f"{case}: free/paid pattern")
    pooled = np.concatenate([real.extra["n_hat"], sim.extra["n_hat"]]).astype(float)
    _assert_same_distribution(_deciles(pooled, real.extra["n_hat"]), _deciles(pooled, sim.extra["n_hat"]),
                              f"{case}: n̂")


# -- SparseProject -------------------------------------------------------------------------------
SP_CASES = {"gaussian, add_remove": {}, "laplace, replace": dict(noise="laplace", neighbouring="replace")}
SP_COUNTS = np.array([0, 3, 40, 1, 0, 0, 7, 2, 90, 0, 0, 5, 5, 0, 1, 46])


@pytest.mark.parametrize("case", list(SP_CASES))
def test_sparse_project_simulator_matches_the_real_mechanism(case):
    params = audit_params("sparse_project", 1.0, SP_CASES[case])
    hist = _histogram(SP_COUNTS)
    K_SP = 1500  # T = 16 coordinates each: 24,000 noise draws per side
    real_noise, real_n = [], []
    for r in range(K_SP):
        rel = _sparse_project(r, **SP_CASES[case]).release(hist)
        exact = rel.signs(np.arange(UNIVERSE)).astype(np.int64) @ SP_COUNTS
        real_noise.append(rel.noisy - exact)
        real_n.append(rel.n)
    sim = simulator_for("sparse_project", params)
    out = sim.run(LinearInput(hist), K_SP, np.random.default_rng(3))
    sim_noise = out.extra["w"] - sim.signs @ SP_COUNTS
    a, b = np.concatenate(real_noise).astype(float), sim_noise.reshape(-1)
    pooled = np.concatenate([a, b])
    _assert_same_distribution(_deciles(pooled, a), _deciles(pooled, b), f"{case}: noise")
    n_a, n_b = np.array(real_n, dtype=float), out.extra["n_hat"].astype(float)
    _assert_same_distribution(_deciles(np.r_[n_a, n_b], n_a), _deciles(np.r_[n_a, n_b], n_b), f"{case}: n̂")
    # the noise is centred on the exact projection: mean within 4.5 standard errors per coordinate
    se = sim_noise.std(axis=0) / math.sqrt(K_SP)
    assert np.all(np.abs(sim_noise.mean(axis=0)) <= Z * se)


def test_sparse_project_simulator_uses_the_real_public_matrix():
    sim = SparseProjectSim(_sparse_project(0))
    rel = _sparse_project(0).release(_histogram(SP_COUNTS))
    assert np.array_equal(sim.signs, rel.signs(np.arange(UNIVERSE)))
    assert set(np.unique(sim.signs)) == {-1, 1} and sim.signs.shape == (16, UNIVERSE)


def test_discrete_gaussian_has_the_discrete_gaussian_law():
    # P[Y = y] ∝ exp(−y²/2σ²): compare frequencies of −6…6 with the exact pmf (σ = 2.5, 10^5 draws)
    sigma, n = 2.5, 100_000
    y = discrete_gaussian(np.random.default_rng(1), sigma, (n,))
    support = np.arange(-40, 41)
    pmf = np.exp(-support**2 / (2 * sigma**2))
    pmf /= pmf.sum()
    for v in range(-6, 7):
        p = pmf[support == v][0]
        assert abs((y == v).mean() - p) <= Z * math.sqrt(p * (1 - p) / n)


# -- inputs --------------------------------------------------------------------------------------
def test_pmw_pairs_are_neighbours_with_errors_at_the_threshold():
    for neighbouring, moved in (("add_remove", 1), ("replace", 2)):
        pairs = pmw_candidates(20.0, neighbouring, queries=10, long_run=30)
        assert len(pairs) == 7
        for p in pairs:
            assert np.abs(p.difference).sum() == moved, p.name
            assert p.d1.queries == p.d2.queries and len(p.d1.queries) >= 2
            if neighbouring == "replace":
                assert p.d1.histogram.n == p.d2.histogram.n
    counts = at_threshold_counts(20.0)
    n = counts.sum()
    assert n == ROWS
    for q, sign in ((U, 1), (V, -1), (W, -1)):  # uniform p answers n/2; the truth is off by ±20 rows
        assert q.count(_histogram(counts)) - n / 2 == sign * 20


def test_sparse_project_replace_pairs_move_a_row_between_the_most_different_columns():
    signs = np.ones((8, UNIVERSE), dtype=np.int64)
    signs[:, 5] = -1  # column 5 differs from every other in all 8 coordinates
    signs[:3, 9] = -1
    for pair in sparse_project_candidates(signs, "replace"):
        changed = set(np.flatnonzero(pair.difference).tolist())
        assert 5 in changed and len(changed) == 2 and pair.d1.histogram.n == pair.d2.histogram.n
    for pair in sparse_project_candidates(signs, "add_remove"):
        assert np.abs(pair.difference).sum() == 1


def test_candidate_pairs_follow_the_mechanism_kind():
    sim = simulator_for("pmw", audit_params("pmw", 1.0))
    assert all(len(p.d1.queries) > 0 for p in candidate_pairs(sim, {}, 10, 30))
    sim = simulator_for("sparse_project", audit_params("sparse_project", 1.0))
    assert all(len(p.d1.queries) == 0 for p in candidate_pairs(sim, {}, 10, 30))


# -- verdicts ------------------------------------------------------------------------------------
@pytest.mark.parametrize(("mid", "overrides"), [
    ("pmw", dict(cutoff=2)),
    ("pmw", dict(neighbouring="replace")),
    ("sparse_project", dict(neighbouring="replace", noise="laplace")),
    ("sparse_project", dict(noise="laplace")),
])
def test_histogram_mechanisms_pass_in_other_settings(mid, overrides):
    r = audit(mid, 1.0, seed=5, params=overrides, **SIZES)
    assert r.verdict == NO_VIOLATION and r.p_value >= 0.01, r.summary()


def _sparse_project(seed: int, **overrides):
    return mechanisms.create("sparse_project", rng=mechanisms.seeded(seed),
                             **audit_params("sparse_project", 1.0, overrides))


def _broken_sparse_project():
    mech = _sparse_project(0)
    mech.scale /= 10  # the noise of a tenfold smaller scale, still claiming (1, 1e-6)-DP
    return SparseProjectSim(mech)


def _broken_pmw():
    mech = mechanisms.create("pmw", rng=mechanisms.seeded(0), **audit_params("pmw", 1.0))
    mech.answer_epsilon = 1e12  # paid answers carry (practically) no noise, still claiming ε = 1
    return PMWSim(mech)


@pytest.mark.parametrize(("mid", "broken"), [("sparse_project", _broken_sparse_project),
                                             ("pmw", _broken_pmw)])
def test_deliberately_broken_variants_are_flagged(mid, broken):
    r = audit(mid, 1.0, seed=3, simulator=broken(), **SIZES)
    assert r.verdict == VIOLATION and r.p_value < 0.01, r.summary()
    assert r.epsilon_lcb > 1.0 and r.counts[0] > math.exp(1.0) * r.counts[1]
    assert np.abs(r.witness.difference).sum() == 1  # a genuine add/remove neighbour
    d = r.to_dict()
    assert d["witness"]["d1"]["universe_size"] == UNIVERSE and d["witness"]["change"]


def test_broken_sparse_project_simulator_matches_the_tampered_mechanism():
    # the tampering acts on the real mechanism too: its releases have a tenth of the noise
    sim = _broken_sparse_project()
    mech = _sparse_project(1)
    mech.scale /= 10
    rel = mech.release(_histogram(SP_COUNTS))
    noise = rel.noisy - rel.signs(np.arange(UNIVERSE)).astype(np.int64) @ SP_COUNTS
    # σ_w ≈ 0.56·4 = 2.25: 16 draws stay within 6σ with probability > 1 − 1e-7
    assert np.all(np.abs(noise) <= 6 * sim.scale_w)


def test_the_teaching_comparison_refuses_histogram_mechanisms():
    from svtgui.core.audit.compare import compare

    with pytest.raises(ValueError, match="takes a histogram, not answer vectors"):
        compare("pmw", 1.0, [0.0, 1.0], [1.0, 0.0])
