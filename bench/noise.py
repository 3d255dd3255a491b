"""Throughput of 10^6 secure, exact discrete-Laplace draws (``svtgui.core.noise``, sampled by
``svtgui.core.sampling``), as ratios against ``numpy.random.default_rng().laplace`` (continuous,
not secure, not exact, not floating-point safe: the speed reference) and against OpenDP's exact
discrete-Laplace sampler when ``opendp`` is importable (measured on fewer draws, it is much slower;
rates are per second so the ratio is fair). All in the same run. A second line measures a
non-integer scale (three base-256 levels instead of two), the common case in the mechanisms.

Then the paths a streaming run draws through (``NoisePool``, one per scale and mechanism, a fresh
pool per measurement so its first small blocks are counted):

* **a run's step** over ``--step`` queries (default 1000, ``svtgui-cli run``'s batch): the query
  noise as one numpy slice of the pool (``peek``, then ``skip`` past the values used), what
  ``ThresholdSVT.submit_many`` takes per window — issue 25 §4's goal is ≥ 0.5× numpy here;
* **the whole step of Sparse** (``submit_many`` on ``--step`` answers far below T: noise, lattice
  rounding and comparisons, every answer ⊥);
* **one value at a time** (``NoisePool.draw``: an adaptive query, a traced teaching run, PMW's
  test), next to numpy asked for one value per call and to the ceiling of any Python loop that takes
  one value per iteration: no per-value path can beat that ceiling, which is below 0.5× numpy.

    .venv/bin/python bench/noise.py [--n 1000000] [--step 1000] [--opendp-n 100000]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np

from svtgui.core import noise

SCALE = 100.0
ODD_SCALE = 4100.3  # above_threshold's query noise at ε = 1, real-valued Δ = 1, in lattice steps


def rate(n: int, draw: Callable[[int], object], repeats: int = 3) -> float:
    """Best draws/s over ``repeats`` runs (best-of damps noise from other processes)."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        draw(n)
        best = min(best, time.perf_counter() - start)
    return n / best


def steps(pool: noise.NoisePool, n: int, k: int) -> None:
    """``n`` values in steps of ``k``, as ``submit_many`` takes them when no answer is ⊤."""
    for _ in range(n // k):
        pool.peek(k)
        pool.skip(k)


def sparse_steps(src: noise.NoiseSource, n: int, k: int) -> None:
    """``n`` answers through Sparse in batches of ``k``, every one far below T (all ⊥)."""
    from svtgui.core import mechanisms

    m = mechanisms.create("sparse", epsilon=1.0, threshold=1e12, cutoff=1, sensitivity=1.0, rng=src)
    answers = np.zeros(k)
    for _ in range(n // k):
        m.submit_many(answers)


def opendp_sampler() -> Callable[[int], object] | None:
    try:
        import opendp.prelude as dp
    except ImportError:
        return None
    dp.enable_features("contrib")
    meas = dp.m.make_laplace(dp.vector_domain(dp.atom_domain(T=int)), dp.l1_distance(T=int), scale=SCALE)
    return lambda n: meas([0] * n)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--step", type=int, default=1000)
    ap.add_argument("--opendp-n", type=int, default=100_000)
    args = ap.parse_args()
    src = noise.secure()
    src.discrete_laplace(SCALE, 1)  # the per-scale threshold tables are built once and cached
    src.discrete_laplace(ODD_SCALE, 1)
    ours = rate(args.n, lambda n: src.discrete_laplace(SCALE, n))
    odd = rate(args.n, lambda n: src.discrete_laplace(ODD_SCALE, n))
    gen = np.random.default_rng()
    ref = rate(args.n, lambda n: gen.laplace(0.0, SCALE, n))
    stepped = rate(args.n, lambda n: steps(noise.NoisePool(src, SCALE), n, args.step))
    sparse_step = rate(args.n, lambda n: sparse_steps(src, n, args.step))
    pool = noise.NoisePool(src, SCALE)
    pooled = rate(args.n, lambda n: [pool.draw() for _ in range(n)])
    # What one-at-a-time costs anyway: numpy asked for one Laplace value per call (the interactive
    # path's own shape), and the ceiling of any Python loop that takes one value per iteration.
    numpy_single = rate(args.n // 10, lambda n: [gen.laplace(0.0, SCALE) for _ in range(n)])
    items = list(range(args.n))
    ceiling = rate(args.n, lambda n: [nxt() for nxt in [iter(items).__next__] for _ in range(n)])
    print(f"svtgui secure discrete Laplace (block): {ours:>14,.0f} draws/s  "
          f"({args.n:,} in {args.n / ours:.3f} s)")
    print(f"numpy default_rng().laplace:            {ref:>14,.0f} draws/s")
    print(f"ratio svtgui / numpy:                   {ours / ref:>14.2f}")
    print(f"svtgui at scale {ODD_SCALE:g} (block):       {odd:>14,.0f} draws/s  "
          f"(ratio to numpy {odd / ref:.2f})")
    print(f"NoisePool, a run's step of {args.step:<5} values: {stepped:>12,.0f} draws/s  "
          f"(ratio to numpy {stepped / ref:.2f}; issue 25 goal >= 0.5)")
    print(f"Sparse submit_many, {args.step:<5} answers a step: {sparse_step:>11,.0f} answers/s "
          f"(ratio to numpy {sparse_step / ref:.2f}; noise + rounding + comparisons)")
    print(f"NoisePool, one int at a time:           {pooled:>14,.0f} draws/s  "
          f"(ratio to numpy {pooled / ref:.2f})")
    print(f"numpy laplace, one value per call:      {numpy_single:>14,.0f} draws/s  "
          f"(NoisePool / this: {pooled / numpy_single:.1f})")
    print(f"Python loop ceiling, one value a step:  {ceiling:>14,.0f} steps/s  "
          f"(ratio to numpy {ceiling / ref:.2f}; NoisePool reaches {pooled / ceiling:.2f} of it)")
    print(f"noise: block={ours / ref:.2f} step={stepped / ref:.2f} sparse_step={sparse_step / ref:.2f} "
          f"one_at_a_time={pooled / ref:.2f} loop_ceiling={ceiling / ref:.2f}")
    sampler = opendp_sampler()
    if sampler is None:
        print("OpenDP not importable: comparison skipped (pip install opendp to measure)")
        return
    theirs = rate(args.opendp_n, sampler, repeats=1)
    print(f"OpenDP make_laplace (int, exact):       {theirs:>14,.0f} draws/s  ({args.opendp_n:,} draws)")
    print(f"ratio svtgui / OpenDP:                  {ours / theirs:>14.1f}")


if __name__ == "__main__":
    main()
