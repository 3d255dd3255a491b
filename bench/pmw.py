"""PMW vs the Laplace mechanism on 10,000 random marginal queries over the adult universe.

Universe: age-bin × education × sex × income. Queries: conjunctions over 1–3 random attributes, each
restricted to a random non-empty subset of its levels. Both sides spend the same total ε (δ = 1e-6
for PMW's SVT test). The baseline answers every query with Laplace noise of scale k/ε (basic
composition over k queries). Errors are in rows (counts); the truth is public data here (a bench).

    .venv/bin/python bench/pmw.py [--epsilon 1] [--queries 10000] [--seed 1]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from svtgui.core import laplace, mechanisms
from svtgui.data import load_dataset
from svtgui.data.universe import Universe

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "adult.csv"
SPECS = ["age@17,25,35,45,55,65,91", "education", "sex", "Salary"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--epsilon", type=float, default=1.0)
    ap.add_argument("--queries", type=int, default=10_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threshold", type=float, default=0.15)
    ap.add_argument("--cutoff", type=int, default=100)
    ap.add_argument("--learning-rate", type=float, default=0.5)
    a = ap.parse_args()
    ds = load_dataset(DATA)
    universe = Universe.of(ds, SPECS)
    hist = universe.histogram(ds)
    rng = np.random.default_rng(a.seed)
    per = -(-a.queries // 3)
    queries = [q for w in (1, 2, 3) for q in universe.random_marginals(per, rng, width=w, subsets=True)]
    queries = [queries[i] for i in rng.permutation(len(queries))[: a.queries]]
    truth = np.array([q.count(hist) for q in queries])

    t0 = time.perf_counter()
    pmw = mechanisms.create("pmw", epsilon=a.epsilon, delta=1e-6, threshold=a.threshold, cutoff=a.cutoff,
                            learning_rate=a.learning_rate, rng=mechanisms.seeded(a.seed))
    pmw.bind(hist)
    batch = pmw.submit_many(queries)
    t_pmw = time.perf_counter() - t0
    answered = batch.consumed
    err = np.abs(batch.values[:answered] * pmw.n - truth[:answered])
    free = ~batch.above[:answered]

    t0 = time.perf_counter()
    source = mechanisms.seeded(a.seed + 1)
    base = np.array([laplace.laplace_release(t, 1.0, a.epsilon / len(queries), source, integer=True)
                     for t in truth])
    t_lap = time.perf_counter() - t0
    base_err = np.abs(base - truth)

    print(f"adult universe {universe.shape} = {universe.size} cells, n = {hist.n}, {len(queries)} queries, "
          f"total ε = {a.epsilon:g}")
    print(f"PMW (threshold {a.threshold:g}·n, c = {a.cutoff}, η = {a.learning_rate:g}): answered {answered}, "
          f"free {int(free.sum())}, paid {int((~free).sum())}, halted {pmw.halted}")
    print(f"  mean error {err.mean():.1f} rows, max {err.max():.1f}; free mean {err[free].mean():.1f}, "
          f"bound {pmw.free_error_bound(len(queries), 0.05):.0f} (β = 0.05)")
    print(f"Laplace (scale {laplace.laplace_scale(1.0, a.epsilon / len(queries)):.0f} per query): "
          f"mean error {base_err.mean():.1f} rows, max {base_err.max():.1f}")
    print(f"ratio Laplace/PMW: mean error {base_err.mean() / err.mean():.1f}×, max error "
          f"{base_err.max() / err.max():.1f}×; time PMW {t_pmw:.2f} s, Laplace {t_lap:.2f} s")


if __name__ == "__main__":
    main()
