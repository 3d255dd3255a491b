"""Figures for the user guide's "How to choose T, c and ε", computed on the public UCI Adult data.

    .venv/bin/python docs/choosing_parameters.py ../shared/data/adult.csv

Prints the Markdown tables the guide quotes. Adult is a *public* dataset, which is why this script may
look at true answers (quantiles, how many ranges exceed T) to explain the trade-offs; on private data
nobody may look, and T must come from public knowledge. Runs use seeded noise (reproducible, not
secure) because they demonstrate the spread of outcomes rather than release anything.
"""

from __future__ import annotations

import sys

import numpy as np

from svtgui.core import accuracy, mechanisms
from svtgui.data import LoadOptions, generators, load_dataset, recipes
from svtgui.data.evaluate import evaluate

BETA = 0.05
RUNS = 200


def table(header: list[str], rows: list[list[object]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def alpha(mechanism_id: str, epsilon: float, cutoff: int, k: int, **extra: object) -> float:
    params = dict(epsilon=epsilon, threshold=0.0, cutoff=cutoff, sensitivity=1.0, integer=True, **extra)
    return accuracy.bound(mechanism_id, params, k, BETA).alpha


def alpha_table() -> str:
    rows = []
    for c in (1, 5, 20):
        for k in (10, 1_000, 100_000):
            rows.append([c, f"{k:,}", f"{alpha('sparse', 0.5, c, k):,.0f}",
                         f"{alpha('standard_svt', 0.5, c, k, monotonic=True):,.0f}"])
    return table(["c", "k queries", "α Sparse (D&R)", "α Standard SVT (monotonic)"], rows)


def threshold_table(ds, k: int = 1_000) -> str:
    queries = generators.random_ranges("age", 30, 70, k, seed=0)
    answers = evaluate(ds, queries)
    a = alpha("sparse", 0.5, 5, k)
    rows = []
    for t in (10_000, 20_000, 21_000, 21_500, 22_500):
        found, correct = [], []
        for seed in range(RUNS):
            r = recipes.range_screening(ds, queries, 1.0, t, 5, rng=mechanisms.seeded(seed))
            found.append(len(r.indices))
            correct.extend(answers[list(r.indices)] >= t)
        rows.append([f"{t:,}", int((answers >= t + a).sum()), int((answers >= t).sum()),
                     int((np.abs(answers - t) < a).sum()), f"{np.mean(found):.1f}",
                     f"{np.mean(correct):.0%}" if correct else "— (nothing found)"])
    header = ["T", "ranges ≥ T + α", "ranges ≥ T", f"ranges within ±α = {a:,.0f} of T",
              f"mean # ⊤ (c = 5, {RUNS} runs)", "share of ⊤ truly ≥ T"]
    quantiles = ", ".join(f"{q}%: {v:,.0f}" for q, v in zip((5, 25, 50, 75, 95),
                                                            np.percentile(answers, [5, 25, 50, 75, 95]),
                                                            strict=True))
    return f"True counts of the {k:,} ranges (public data only!): {quantiles}\n\n" + table(header, rows)


def clip_table(ds) -> str:
    rows = []
    for column, stop, step in (("age", 150, 5), ("capital-gain", 150_000, 5)):
        sweep = generators.clip_bound_sweep(column, 1, stop, step)
        true_mean = float(ds.frame[column].mean())
        for eps in (0.1, 1.0):
            results = [recipes.auto_avg(ds, column, eps, sweep=sweep, rng=mechanisms.seeded(s))
                       for s in range(RUNS)]
            bounds = np.percentile([r.bound for r in results], [5, 50, 95])
            errors = np.abs(np.array([r.mean for r in results]) - true_mean)
            rows.append([column, f"{len(sweep):,}", eps, " / ".join(f"{b:,.0f}" for b in bounds),
                         f"{true_mean:,.2f}", f"{np.median(errors):,.2f}"])
    return table(["column", "k bounds tried", "ε (⅓ to SVT)", "chosen b: 5% / 50% / 95%", "true mean",
                  "median \\|error\\| of the mean"], rows)


def main(path: str) -> None:
    ds = load_dataset(path, LoadOptions(missing=("?",)))
    print(f"## α at β = {BETA} for ε = 0.5 (half of ε = 1), sensitivity 1, integer answers\n")
    print(alpha_table())
    print("\n## Range screening on age: ε = 1 (half Sparse, half Laplace), c = 5, k = 1,000 ranges\n")
    print(threshold_table(ds))
    print(f"\n## auto_avg: AboveThreshold picks the clipping bound (T = 0), {RUNS} seeded runs\n")
    print(clip_table(ds))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: choosing_parameters.py PATH/TO/adult.csv")
    main(sys.argv[1])
