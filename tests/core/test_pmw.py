"""PMW on the adult universe: free answers within the threshold, paid answers bounded, the API."""

import numpy as np
import pandas as pd
import pytest

from svtgui.core import laplace, mechanisms
from svtgui.core.linear import LinearQuery, SparseHistogram

AXES = (("age", [17, 25, 35, 45, 55, 65, 91]), ("education", None), ("sex", None), ("Salary", None))


@pytest.fixture(scope="module")
def adult_hist(shared_data):
    """age-bin × education × sex × income, built with pandas directly (the core sees arrays only)."""
    frame = pd.read_csv(shared_data / "adult.csv", sep=", ", engine="python", na_values="?")
    codes, shape = [], []
    for column, edges in AXES:
        if edges is None:
            cat = pd.Categorical(frame[column])
            codes.append(cat.codes.astype(np.int64))
            shape.append(len(cat.categories))
        else:
            codes.append(np.searchsorted(edges[1:-1], frame[column].to_numpy(), side="right"))
            shape.append(len(edges) - 1)
    cells = np.ravel_multi_index(codes, shape)
    return SparseHistogram.from_cells(cells, int(np.prod(shape))), tuple(shape)


def _random_queries(shape, count, rng):
    """Conjunctions of random level subsets on 1–3 random axes (all distinct in practice)."""
    out = []
    for _ in range(count):
        mask = np.ones(shape, dtype=bool)
        for k in rng.choice(len(shape), size=rng.integers(1, 4), replace=False):
            take = rng.random(shape[k]) < 0.5
            take[rng.integers(shape[k])] = True
            view = [1] * len(shape)
            view[k] = -1
            mask = mask & take.reshape(view)
        out.append(LinearQuery.counting(np.flatnonzero(mask.reshape(-1)), int(np.prod(shape))))
    return out


def test_free_answers_are_within_the_threshold(adult_hist):
    hist, shape = adult_hist
    k, beta, threshold = 3000, 0.05, 0.15
    m = mechanisms.create("pmw", epsilon=1.0, delta=1e-6, threshold=threshold, cutoff=100, learning_rate=0.5,
                          rng=mechanisms.seeded(21))
    m.bind(hist)
    queries = _random_queries(shape, k, np.random.default_rng(22))
    responses = [m.submit(q) for q in queries]
    assert not m.halted and m.answered == k
    truth = np.array([q.count(hist) for q in queries])
    errors = np.abs(np.array([r.value for r in responses]) * m.n - truth)
    free = np.array([r.answered_from_simulation for r in responses])
    assert all(r.above == (not r.answered_from_simulation) for r in responses)
    assert free.sum() + m.above_count == k and m.free_count == free.sum() and m.above_count <= 100
    assert free.sum() > 0.9 * k  # the point of PMW: most answers are free
    # With probability ≥ 1 − β every free answer errs by less than threshold·n̂ + α_svt (fixed seed)
    assert errors[free].max() < m.free_error_bound(k, beta)
    # ... and paid answers by less than the Laplace tail with c answers
    assert errors[~free].max() < m.paid_error_bound(beta)
    # the mean free error is within the configured threshold (itself well below the bound)
    assert errors[free].mean() < threshold * m.n


def test_budget_split_and_paid_answer_scale(adult_hist):
    hist, _ = adult_hist
    m = mechanisms.create("pmw", epsilon=2.0, threshold=0.1, cutoff=10, answer_share=0.25, count_share=0.1,
                          rng=mechanisms.seeded(1))
    assert m.count_epsilon + m.svt_epsilon + m.answer_epsilon == pytest.approx(2.0)
    assert m.answer_epsilon == pytest.approx(0.25 * 1.8)
    assert m.answer_scale == pytest.approx(laplace.laplace_scale(1.0, m.answer_epsilon / 10))
    r = mechanisms.create("pmw", epsilon=2.0, threshold=0.1, cutoff=10, neighbouring="replace",
                          rng=mechanisms.seeded(1))
    r.bind(hist)
    assert r.count_epsilon == 0 and r.n == hist.n  # n is public under replace-one neighbours


def test_cutoff_halts_and_queries_take_three_forms(adult_hist):
    hist, shape = adult_hist
    size = int(np.prod(shape))
    m = mechanisms.create("pmw", epsilon=1.0, threshold=0.01, cutoff=2, rng=mechanisms.seeded(3))
    with pytest.raises(ValueError, match="not bound"):
        m.submit(np.ones(size))
    m.bind(hist)
    first = m.submit(np.ones(size) * 0.5)  # dense vector
    m.submit((np.arange(10), np.ones(10)))  # (indices, weights)
    while not m.halted:
        m.submit(LinearQuery.counting(np.arange(size // 2), size))
    assert m.above_count == 2 and first.index == 0
    with pytest.raises(mechanisms.MechanismHalted):
        m.submit(np.ones(size))
    p = m.synthetic()
    assert p.shape == (size,) and p.sum() == pytest.approx(1.0)


def test_bad_inputs_name_the_problem(adult_hist):
    hist, _ = adult_hist
    with pytest.raises(ValueError, match="threshold is a fraction of n"):
        mechanisms.create("pmw", epsilon=1.0, threshold=2.0, rng=mechanisms.seeded(0))
    with pytest.raises(ValueError, match="answer_share must be strictly between 0 and 1"):
        mechanisms.create("pmw", epsilon=1.0, threshold=0.1, answer_share=1.0, rng=mechanisms.seeded(0))
    m = mechanisms.create("pmw", epsilon=1.0, threshold=0.1, rng=mechanisms.seeded(0))
    m.bind(hist)
    with pytest.raises(ValueError, match="already bound"):
        m.bind(hist)
    with pytest.raises(ValueError, match="universe of 5 cells"):
        m.submit(np.ones(5))
    with pytest.raises(ValueError, match="per-query thresholds"):
        m.submit(np.ones(hist.size), threshold=3.0)
    assert m.answered == 0


@pytest.mark.parametrize("learning_rate", [1e3, 1e300])
def test_a_large_learning_rate_keeps_the_synthetic_histogram_a_distribution(learning_rate):
    # p·exp(η·Q) overflowed: after one paid answer p was NaN and the next query failed after the charge
    m = mechanisms.create("pmw", epsilon=1.0, threshold=0.01, cutoff=5, learning_rate=learning_rate,
                          rng=mechanisms.seeded(2))
    m.bind(SparseHistogram(np.arange(8), np.array([50, 30, 20, 10, 5, 5, 5, 5]), 8))
    paid = 0
    for i in range(200):
        if m.halted:
            break
        query = np.zeros(8)
        query[i % 8] = 1.0
        paid += m.submit(query).above
        p = m.synthetic()
        assert np.all(np.isfinite(p)) and np.all(p >= 0) and abs(p.sum() - 1) < 1e-12
    assert paid >= 1  # the update ran (fixed seed; errors of up to 0.2·n̂ against α = 0.01 make it certain)
