"""Each vectorised simulator has the distribution of the mechanism we ship (so the auditor audits it).

For every catalogue mechanism on answer vectors with a vectorised simulator, K runs of the real streaming (or
selecting) mechanism and K simulated runs on the same small input are compared category by
category (⊤/⊥ pattern, and the decile of the first released number). For each category the two
frequencies must agree within 4.5 standard errors of their difference: a correct simulator fails
one given category with probability 6.8e-6, so the whole test (≤ 400 categories in all) has a
false-failure probability below 0.3%. The simulators of PMW and SparseProject are checked in
``test_audit_linear.py``.
"""

import numpy as np
import pytest

from svtgui.core import mechanisms
from svtgui.core.audit import auditable
from svtgui.core.audit.first_hit import Likelihood, all_outcomes
from svtgui.core.audit.sim import (
    GenericSim,
    Outputs,
    ThresholdSim,
    audit_params,
    on_histograms,
    simulator_for,
)

K = 4000
ANSWERS = np.array([0.0, 3.0, -2.0, 1.0, 5.0])
EPSILON = 3.0  # noise scales of a few units, comparable to the spread of ANSWERS
VECTORISED = [e.id for e in mechanisms.catalog() if auditable(e.id) and not on_histograms(e.id)
              and not isinstance(simulator_for(e.id, audit_params(e.id, 1.0)), GenericSim)]


def _params(mid: str) -> dict:
    names = {p.name for p in mechanisms.info(mid).params}
    extra = {"cutoff": 2} if "cutoff" in names else {}   # exercises threshold refresh and halting
    return audit_params(mid, EPSILON, extra)


def _real_outputs(mid: str, params: dict) -> Outputs:
    above = np.full((K, len(ANSWERS)), -1, dtype=np.int8)
    values = np.full((K, len(ANSWERS)), np.nan)
    for r in range(K):
        m = mechanisms.create(mid, rng=mechanisms.seeded(r), allow_non_private=True, **params)
        if mechanisms.info(mid).interactive:
            for i, a in enumerate(ANSWERS):
                resp = m.submit(float(a))
                above[r, i] = resp.above
                if resp.value is not None:
                    values[r, i] = resp.value
                if m.halted:
                    break
        else:
            sel = m.select(ANSWERS)
            above[r] = 0
            above[r, list(sel.indices)] = 1
            values[r, list(sel.indices)] = np.arange(len(sel.indices))
    return Outputs(above, values)


def _categories(o: Outputs, edges: np.ndarray) -> np.ndarray:
    pattern = (o.above.astype(np.int64) + 1) @ (3 ** np.arange(o.above.shape[1]))
    if o.values is None or edges.size == 0:
        return pattern
    first = np.where(np.isfinite(o.values), o.values, np.inf).min(axis=1)
    decile = np.where(np.isfinite(first), np.searchsorted(edges, first, side="right") + 1, 0)
    return pattern * 16 + decile


@pytest.mark.parametrize("mid", VECTORISED)
def test_simulator_matches_the_real_mechanism(mid):
    params = _params(mid)
    real = _real_outputs(mid, params)
    sim = simulator_for(mid, params).run(ANSWERS, K, np.random.default_rng(5))
    _assert_same_law(mid, real, sim)


def _assert_same_law(mid: str, real: Outputs, sim: Outputs) -> None:
    """Every ⊤/⊥ pattern × first-value decile has the same share in both, within 4.5 s.e."""
    assert (sim.values is None) == (not np.isfinite(real.values).any())
    pooled = real.values[np.isfinite(real.values)] if sim.values is not None else np.array([])
    edges = np.unique(np.quantile(pooled, np.linspace(0.1, 0.9, 9))) if pooled.size else pooled
    a, b = _categories(real, edges), _categories(sim, edges)
    keys = np.union1d(a, b)
    pa = np.array([(a == k).mean() for k in keys])
    pb = np.array([(b == k).mean() for k in keys])
    pbar = (pa + pb) / 2
    se = np.sqrt(np.maximum(pbar * (1 - pbar), 1 / K**2) * 2 / K)
    worst = int(np.argmax(np.abs(pa - pb) / se))
    assert np.all(np.abs(pa - pb) <= 4.5 * se), (
        f"{mid}: category {keys[worst]} real {pa[worst]:.4f} vs simulated {pb[worst]:.4f}")


def test_every_answer_vector_mechanism_is_simulated_vectorised():
    """Only mechanisms outside the threshold/selection families fall back to the slow path."""
    assert {"sparse", "numeric_sparse", "gap_svt", "standard_svt", "above_threshold", "em_top_c",
            "svt_retraversal", "lecture_sparse_2011", "lyu_alg4_lee_clifton", "lyu_alg5_stoddard",
            "lyu_alg6_chen"} <= set(VECTORISED)


def test_generic_simulator_runs_the_public_api():
    params = audit_params("sparse", 1.0, {"cutoff": 2})
    out = GenericSim("sparse", params).run(ANSWERS, 50, np.random.default_rng(1))
    assert out.above.shape == (50, len(ANSWERS))
    # each run stops after its second ⊤: nothing is answered after it
    for row in out.above:
        tops = np.flatnonzero(row == 1)
        if tops.size == 2:
            assert np.all(row[tops[1] + 1:] == -1)


THRESHOLD_IDS = [m for m in VECTORISED if isinstance(simulator_for(m, audit_params(m, 1.0)), ThresholdSim)]
# one mechanism per release rule (⊤/⊥ only, fresh value, noisy gap, the same noisy answer) and Algorithm 5's
# noiseless queries: the block sampler's branches
SAMPLER_IDS = ["above_threshold", "numeric_sparse", "gap_svt", "lecture_sparse_2011", "lyu_alg5_stoddard"]
ENUMERATED_IDS = [m for m in THRESHOLD_IDS if simulator_for(m, audit_params(m, 1.0)).model.release != "gap"]


@pytest.mark.parametrize("mid", SAMPLER_IDS)
def test_first_hit_sampler_matches_the_real_mechanism_at_cutoff_1(mid):
    """With cutoff 1 the simulator draws (first ⊤, value) by the block sampler: same law as the engine."""
    names = {p.name for p in mechanisms.info(mid).params}
    params = audit_params(mid, EPSILON, {"cutoff": 1} if "cutoff" in names else {})
    real = _real_outputs(mid, params)
    sim = simulator_for(mid, params).run(ANSWERS, K, np.random.default_rng(6))
    _assert_same_law(mid, real, sim)


@pytest.mark.parametrize("mid", ENUMERATED_IDS)
def test_exact_first_hit_probabilities_sum_to_one_and_match_the_sampler(mid):
    """The likelihoods the auditor ranks events by: a distribution, and the sampler's one.

    Per outcome with probability p, the sampler's share of 40,000 runs has s.d. √(p(1−p)/40,000);
    the tolerance of 5 s.d. (plus 1e-4) fails by chance with probability below 1e-5 per outcome.
    """
    sim = simulator_for(mid, audit_params(mid, EPSILON))
    q = sim.lattice.to_units(ANSWERS).astype(np.float64)
    like = Likelihood(sim.model, q)
    outcomes = all_outcomes(like, like)
    probs = np.exp(like.log_p(*outcomes))
    assert probs.sum() == pytest.approx(1.0, abs=1e-6)
    runs = 40_000
    hits = sim.first_hits(ANSWERS, runs, np.random.default_rng(7))
    first, _ = outcomes  # compare the law of the first ⊤'s position (values: the law test above)
    share = np.bincount(hits.first, minlength=len(q) + 1) / runs
    probs = np.bincount(first, weights=probs, minlength=len(q) + 1)
    tolerance = 5 * np.sqrt(probs * (1 - probs) / runs) + 1e-4
    assert np.all(np.abs(share - probs) <= tolerance), (share, probs)
