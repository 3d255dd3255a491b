"""Batch evaluation vs the naive per-query pandas loop, on ../shared/data/adult.csv.

    .venv/bin/python bench/queries.py [--naive-sample K] [--repeat R]

Two workloads from the programming-DP notebook:

* the clip-bound search on ``capital-gain``: bs = range(1, 150000, 5), 30,000 queries
  Σclip(x, 0, b+1) − Σclip(x, 0, b);
* 10,000 random age-range counts.

The naive loop runs one pandas expression per query. It is timed on an evenly spaced subsample
of K queries (default 1,000) and extrapolated linearly to the full list (each naive query costs
the same: one full pass over the column); the output says so. Both sides' answers are checked
equal on the subsample. Times are the best of R runs.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from svtgui.data import generators, load_dataset  # noqa: E402
from svtgui.data.evaluate import evaluate  # noqa: E402


def best_of(repeat: int, fn) -> tuple[float, object]:
    best, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def naive_clip(frame, column, queries):
    s = frame[column]
    return np.array(
        [
            s.clip(lower=0, upper=q.bound + q.step).sum() - s.clip(lower=0, upper=q.bound).sum()
            for q in queries
        ],
        dtype=float,
    )


def naive_ranges(frame, column, queries):
    s = frame[column]
    return np.array([len(frame[(s >= q.low) & (s < q.high)]) for q in queries], dtype=float)


def run(name: str, ds, queries, naive, column: str, sample: int, repeat: int) -> None:
    k = len(queries)
    pick = np.linspace(0, k - 1, min(sample, k)).astype(int)
    subset = [queries[i] for i in pick]
    t_naive_sub, naive_answers = best_of(1, lambda: naive(ds.frame, column, subset))
    ds._cache.clear()
    t_ours, ours = best_of(repeat, lambda: (ds._cache.clear(), evaluate(ds, queries))[1])
    if not np.allclose(np.asarray(ours)[pick], naive_answers, rtol=1e-12, atol=1e-9):
        raise SystemExit(f"{name}: vectorised answers differ from the naive loop")
    t_naive = t_naive_sub * k / len(subset)
    extrapolated = len(subset) < k
    print(f"{name}: {k:,} queries")
    factor = k / len(subset)
    note = f"  (measured on {len(subset):,} queries: {t_naive_sub:.3f} s, extrapolated x{factor:.1f})"
    print(f"  naive pandas loop : {t_naive:9.3f} s" + (note if extrapolated else ""))
    print(f"  svtgui evaluate   : {t_ours:9.4f} s  (best of {repeat}, cold caches: includes sorting)")
    print(f"  speed-up          : {t_naive / t_ours:9.0f} x")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(REPO.parent / "shared" / "data" / "adult.csv"))
    ap.add_argument("--naive-sample", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args(argv)
    ds = load_dataset(args.data)
    print(f"dataset: {args.data} ({ds.n_rows:,} rows)")
    t0 = time.perf_counter()
    clip = generators.clip_bound_sweep("capital-gain", 1, 150_000, 5)
    ranges = generators.random_ranges("age", 17, 91, 10_000, seed=1)
    print(f"building both query lists (Python objects): {time.perf_counter() - t0:.3f} s (not in the ratios)")
    run(
        "clip-bound search on capital-gain",
        ds,
        clip,
        naive_clip,
        "capital-gain",
        args.naive_sample,
        args.repeat,
    )
    run("random age-range counts", ds, ranges, naive_ranges, "age", args.naive_sample, args.repeat)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
