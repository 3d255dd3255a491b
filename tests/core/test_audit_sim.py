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
from svtgui.core.audit.sim import GenericSim, Outputs, audit_params, on_histograms, simulator_for

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
