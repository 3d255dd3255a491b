"""Audit every catalogue entry at claimed ε = 0.1 (c = 1) and print ε_lcb, p-value and seconds.

    .venv/bin/python bench/audit.py [--seconds 50] [--epsilon 0.1] [--seed 1] [--no-variants] [ID ...]

The reference is the best published figure per variant in DP-Sniper's reference results (Bichsel et
al., S&P 2021, 90% confidence, same setting): 0.182 for Lyu et al.'s Algorithm 3 (our
lecture_sparse_2011; DP-Sniper, neural network), 0.172 for Algorithm 4, 14.31 for Algorithm 5 and
0.322 for Algorithm 6 (StatDP re-runs). The "vs published" column is our ε_lcb (one seed, 99%
confidence) divided by that figure; bench/audit_power.py gives the distribution over seeds.

PMW and SparseProject are audited on neighbouring histograms (add/remove; with the default set of
ids also under replace-one neighbours, and SparseProject with Laplace noise). A last table measures,
in the same run, how many runs per second their vectorised simulators make against the real
mechanism run once per run (the baseline), and so how many runs of each fit in the time budget.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from functools import partial

import numpy as np

from svtgui.core import mechanisms
from svtgui.core.audit import audit, auditable, candidate_pairs
from svtgui.core.audit.linear import LinearInput
from svtgui.core.audit.linear_sim import RealPMW
from svtgui.core.audit.sim import audit_params, simulator_for

DP_SNIPER = {"lecture_sparse_2011": 0.182, "lyu_alg4_lee_clifton": 0.172, "lyu_alg5_stoddard": 14.31,
             "lyu_alg6_chen": 0.322}
VARIANTS = [("pmw", {"neighbouring": "replace"}),
            ("sparse_project", {"neighbouring": "replace"}),
            ("sparse_project", {"noise": "laplace"})]


def _row(mid: str, params: dict | None, args: argparse.Namespace) -> None:
    status = mechanisms.info(mid).status
    label = mid + (" [" + ", ".join(f"{v}" for v in params.values()) + "]" if params else "")
    if not auditable(mid):
        print(f"{label:34} {status:18} {'n/a (not auditable)':19}")
        return
    t0 = time.perf_counter()
    r = audit(mid, args.epsilon, seconds=args.seconds, seed=args.seed, params=params)
    ref = DP_SNIPER.get(mid)
    ratio = f"{r.epsilon_lcb / ref:6.2f}" if ref else ""
    print(f"{label:34} {status:18} {r.verdict:19} {r.epsilon_lcb:7.3f} {r.p_value:9.2g} "
          f"{time.perf_counter() - t0:7.1f} {r.runs:12,} {ref if ref else '':>9} {ratio}", flush=True)


def _rate(run: Callable[[int], object], runs: int) -> float:
    t0 = time.perf_counter()
    run(runs)
    return runs / (time.perf_counter() - t0)


def _real_runner(mid: str, params: dict, inp: LinearInput,
                 gen: np.random.Generator) -> Callable[[int], object]:
    """The baseline: the real mechanism through its public API, once per run."""
    if mid == "pmw":
        return partial(RealPMW(params).run, inp, gen=gen)

    def release(k: int) -> None:
        for s in range(k):
            mechanisms.create(mid, rng=mechanisms.seeded(s), **params).release(inp.histogram)
    return release


def _speed(args: argparse.Namespace) -> None:
    """Runs per second: vectorised simulator vs the real mechanism once per run, same input."""
    print(f"\nsimulation speed at ε = {args.epsilon:g} (runs per second, same input; budget "
          f"{args.seconds:g} s, of which 60% is the final test)")
    print(f"{'mechanism':16} {'real mechanism':>15} {'vectorised':>12} {'ratio':>7} "
          f"{'final runs (real)':>18} {'final runs (vectorised)':>24}")
    gen = np.random.default_rng(args.seed)
    for mid in ("pmw", "sparse_project"):
        params = audit_params(mid, args.epsilon)
        sim = simulator_for(mid, params)
        inp = candidate_pairs(sim, params, 10, 30)[0].d1
        real_rate = _rate(_real_runner(mid, params, inp, gen), 500)
        sim_rate = _rate(partial(sim.run, inp, gen=gen), 1 << 17)
        final = 0.6 * args.seconds / 2  # two inputs share the final test
        print(f"{mid:16} {real_rate:15,.0f} {sim_rate:12,.0f} {sim_rate / real_rate:7.0f} "
              f"{int(real_rate * final):18,} {int(sim_rate * final):24,}", flush=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("ids", nargs="*", help="mechanism ids (default: the whole catalogue)")
    ap.add_argument("--seconds", type=float, default=50.0)
    ap.add_argument("--epsilon", type=float, default=0.1)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-variants", action="store_true", help="skip the replace/Laplace rows")
    args = ap.parse_args(argv)
    ids = args.ids or [e.id for e in mechanisms.catalog()]
    print(f"claimed ε = {args.epsilon:g}, cutoff c = 1, budget {args.seconds:g} s per mechanism, "
          f"seed {args.seed}")
    print(f"{'mechanism':34} {'status':18} {'verdict':19} {'ε_lcb':>7} {'p-value':>9} {'seconds':>7} "
          f"{'runs/input':>12} {'DP-Sniper':>9} {'ratio':>6}")
    for mid in ids:
        _row(mid, None, args)
    if not args.no_variants:
        for mid, params in VARIANTS:
            if mid in ids:
                _row(mid, params, args)
    if {"pmw", "sparse_project"} & set(ids):
        _speed(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
