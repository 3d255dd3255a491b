"""SparseProject on the adult universe: theoretical α vs measured error as T grows, and timing.

Universe: age-bin × education × sex × income (1,071 cells). Queries: k random m-sparse counting
queries (m random cells each). For each T the release is built with seeded noise (a bench) and the
measured max/mean error (fractions of n) is printed next to the theoretical α of the release and
the paper's T. Baseline for time and error: the Laplace mechanism answering the same k queries
directly at the same ε (scale k/ε per query, basic composition).

    .venv/bin/python bench/sparse_project.py [--T 256 1024 4096] [--queries 200] [--sparsity 16]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from svtgui.core import laplace, mechanisms
from svtgui.core.linear import LinearQuery
from svtgui.core.mechanisms.sparse_project import measured_error
from svtgui.data import load_dataset
from svtgui.data.universe import Universe

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "adult.csv"
SPECS = ["age@17,25,35,45,55,65,91", "education", "sex", "Salary"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--T", type=int, nargs="+", default=[256, 1024, 4096])
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--sparsity", type=int, default=16)
    ap.add_argument("--epsilon", type=float, default=1.0)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    ds = load_dataset(DATA)
    universe = Universe.of(ds, SPECS)
    hist = universe.histogram(ds)
    rng = np.random.default_rng(a.seed)
    queries = [LinearQuery.counting(rng.choice(universe.size, a.sparsity, replace=False), universe.size)
               for _ in range(a.queries)]
    counts = np.array([q.count(hist) for q in queries])
    truth = counts / hist.n
    t0 = time.perf_counter()
    source = mechanisms.seeded(a.seed)
    lap = np.array([laplace.laplace_release(c, 1.0, a.epsilon / a.queries, source, integer=True)
                    for c in counts]) / hist.n
    t_lap = time.perf_counter() - t0
    lap_err = np.abs(lap - truth)
    print(f"adult universe {universe.size} cells, n = {hist.n}, k = {a.queries} {a.sparsity}-sparse queries, "
          f"ε = {a.epsilon:g}, δ = 1e-6")
    print(f"Laplace baseline: max error {lap_err.max():.4f}, mean {lap_err.mean():.4f} (fractions of n), "
          f"{t_lap:.3f} s")
    print(f"{'T':>7} {'build s':>8} {'answer s':>9} {'α theory':>9} {'max err':>8} {'mean err':>9} "
          f"{'vs Laplace mean':>15}")
    for T in a.T:
        mech = mechanisms.create("sparse_project", epsilon=a.epsilon, delta=1e-6, projection_size=T,
                                 queries=a.queries, sparsity=a.sparsity, rng=mechanisms.seeded(a.seed + T))
        t0 = time.perf_counter()
        release = mech.release(hist)
        t_build = time.perf_counter() - t0
        t0 = time.perf_counter()
        err = measured_error(release, hist, queries)
        t_answer = time.perf_counter() - t0
        acc = release.header["accuracy"]
        print(f"{T:>7} {t_build:>8.2f} {t_answer:>9.2f} {acc['alpha']:>9.4f} {err.max():>8.4f} "
              f"{err.mean():>9.4f} {lap_err.mean() / err.mean():>14.1f}×")
    print(f"paper's T: {acc['paper_projection_size']:.3g} (α there {acc['alpha_at_paper_size']:.4f})")


if __name__ == "__main__":
    main()
