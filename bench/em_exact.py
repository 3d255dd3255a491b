"""Time of em_top_c's exact sampler against the floating-point Gumbel-top-c it replaced.

Scores: item supports of ../shared/data/retail.dat (frequent-item mining) when the file exists, else
a synthetic Zipf of 16,470 items. Both samplers run in this process on the same scores and ε; the
baseline is a local copy of the old three-line Gumbel computation (numpy's generator, not noise).

    nice .venv/bin/python bench/em_exact.py [--repeats 20] [--epsilon 1.0]
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from fractions import Fraction
from pathlib import Path

import numpy as np

from svtgui.core import noise

RETAIL = Path(__file__).resolve().parents[2] / "shared" / "data" / "retail.dat"


def scores() -> tuple[np.ndarray, str]:
    """Item supports (number of baskets holding the item), largest first."""
    if RETAIL.exists():
        support: Counter[str] = Counter()
        with RETAIL.open() as f:
            for line in f:
                support.update(set(line.split()))
        return np.array(sorted(support.values(), reverse=True), dtype=np.float64), f"supports of {RETAIL}"
    ranks = np.arange(1, 16_471)
    return np.floor(50_000 / ranks**0.9), "synthetic Zipf supports (retail.dat not found)"


def gumbel_top_c(answers: np.ndarray, gamma: float, c: int, gen: np.random.Generator) -> np.ndarray:
    """The old sampler: scaled scores plus floating-point Gumbel noise, top c."""
    keys = (answers - answers.max()) * gamma + gen.gumbel(size=answers.size)
    top = np.argpartition(-keys, c - 1)[:c]
    return top[np.argsort(-keys[top])]


def best_time(run, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--epsilon", type=float, default=1.0)
    args = parser.parse_args()
    answers, what = scores()
    print(f"scores: {answers.size} items, {what}; ε = {args.epsilon}, Δ = 1, best of {args.repeats}")
    source, gen = noise.secure(), np.random.default_rng()
    source.exponential_top_c(answers[:2], Fraction(1), 1)  # build the certified tables once
    for c in (10, 50):
        gamma = Fraction(args.epsilon) / (2 * c)
        exact = best_time(lambda g=gamma, k=c: source.exponential_top_c(answers, g, k), args.repeats)
        old = best_time(lambda g=float(gamma), k=c: gumbel_top_c(answers, g, k, gen), args.repeats)
        print(f"c = {c:2d}: exact {exact * 1e3:8.2f} ms   float Gumbel {old * 1e3:6.2f} ms   "
              f"ratio exact/Gumbel {exact / old:6.1f}")


if __name__ == "__main__":
    main()
