"""Frequent items on retail.dat: EM vs Standard SVT vs the book's Sparse (Lyu, Su & Li's comparison).

    .venv/bin/python bench/frequent_items.py [--runs R] [--data PATH]

For each ε and c, every method selects up to c items privately; the table shows the mean F1
against the true top-c over R runs (seeded, reproducible, NOT secure noise: this is a benchmark).
The SVT methods use Lyu et al.'s evaluation threshold (midway between the true c-th and (c+1)-th
supports), scan the items in a seeded random order and stop after c ⊤; ``em_top_c`` needs no
threshold. Lyu et al. report, for the non-interactive setting: EM ≥ Standard SVT ≥ the book's SVT.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from svtgui.core.noise import seeded  # noqa: E402
from svtgui.data import load_dataset, recipes  # noqa: E402

METHODS = ("em_top_c", "standard_svt", "sparse")
LABELS = {"em_top_c": "EM top-c", "standard_svt": "Standard SVT", "sparse": "book SVT (Sparse)"}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(REPO.parent / "shared" / "data" / "retail.dat"))
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--epsilons", type=float, nargs="+", default=[0.1, 0.25, 0.5, 1.0])
    ap.add_argument("--cutoffs", type=int, nargs="+", default=[25, 50, 100])
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    ds = load_dataset(args.data)
    print(f"dataset: {args.data} ({ds.n_rows:,} baskets), {args.runs} runs per cell, mean F1 (± s.d.)")
    header = f"{'ε':>6} {'c':>5} " + " ".join(f"{LABELS[m]:>20}" for m in METHODS)
    print(header)
    print("-" * len(header))
    wins = {"em>=standard": 0, "standard>=book": 0, "cells": 0}
    for eps in args.epsilons:
        for c in args.cutoffs:
            truth, supports = recipes.true_top_items(ds, c)
            threshold = recipes.mid_threshold(supports, c)
            means = {}
            cells = []
            for m in METHODS:
                f1 = []
                for run in range(args.runs):
                    res = recipes.frequent_items(
                        ds, c, eps, m, threshold=threshold, order_seed=run, rng=seeded(1000 * run + 17)
                    )
                    f1.append(recipes.score_selection(res.items, truth).f1)
                means[m] = float(np.mean(f1))
                cells.append(f"{means[m]:13.3f} ± {np.std(f1):4.2f}")
            print(f"{eps:>6g} {c:>5d} " + " ".join(f"{x:>20}" for x in cells))
            wins["cells"] += 1
            wins["em>=standard"] += means["em_top_c"] >= means["standard_svt"]
            wins["standard>=book"] += means["standard_svt"] >= means["sparse"]
    n = wins["cells"]
    print(
        f"\nEM ≥ Standard SVT in {wins['em>=standard']}/{n} cells; "
        f"Standard SVT ≥ book SVT in {wins['standard>=book']}/{n} cells "
        f"({time.perf_counter() - t0:.1f} s)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
