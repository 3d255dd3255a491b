"""Streaming throughput of every interactive mechanism, with secure (OS CSPRNG) noise.

Prints answers/s for 10^6 answers fed one at a time through ``submit`` and in one ``submit_many``
batch, each as a ratio against a baseline measured in the same run: the per-answer path the engine
used before noise pools (numpy lattice rounding and a size-1 numpy noise draw per answer, which is
what a straightforward implementation does). Thresholds are set so no run halts early.

    .venv/bin/python bench/mechanisms.py [--n 1000000]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from svtgui.core import mechanisms
from svtgui.core.noise import Lattice, secure

PARAMS = dict(epsilon=1.0, threshold=1e12)


def per_second(n: int, seconds: float) -> float:
    return n / seconds


def baseline(n: int) -> float:
    """Answers/s of the numpy-per-answer path: to_units + discrete_laplace(scale, 1) per answer."""
    lat = Lattice.for_sensitivity(1.0, integer=False)
    src = secure()
    scale = lat.scale_units(4.0)
    t = int(lat.threshold_units(np.array([PARAMS["threshold"]]))[0])
    rho = int(src.discrete_laplace(scale, 1)[0])
    answers = np.random.default_rng(0).normal(0, 10, n).tolist()
    start = time.perf_counter()
    for a in answers:
        q = int(lat.to_units(a))
        _ = q + int(src.discrete_laplace(scale, 1)[0]) >= t + rho
    return per_second(n, time.perf_counter() - start)


def streamed(mid: str, n: int) -> tuple[float, float]:
    names = {p.name for p in mechanisms.info(mid).params}
    extra = {"cutoff": 3} if "cutoff" in names else {}
    answers = np.random.default_rng(1).normal(0, 10, n)
    m = mechanisms.create(mid, allow_non_private=True, **PARAMS, **extra)
    assert m.secure
    as_list = answers.tolist()
    start = time.perf_counter()
    for a in as_list:
        m.submit(a)
    one = per_second(n, time.perf_counter() - start)
    m = mechanisms.create(mid, allow_non_private=True, **PARAMS, **extra)
    start = time.perf_counter()
    b = m.submit_many(answers)
    many = per_second(b.consumed, time.perf_counter() - start)
    return one, many


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1_000_000, help="answers per measurement (default 10^6)")
    n = ap.parse_args().n
    base = baseline(min(n, 200_000))
    print(f"baseline (numpy round + size-1 draw per answer): {base:>12,.0f} answers/s")
    print(f"{'mechanism':<22}{'submit()/s':>14}{'× baseline':>12}{'submit_many/s':>16}{'× baseline':>12}")
    for info in mechanisms.catalog():
        if not info.interactive or info.id not in mechanisms.REGISTRY:
            continue
        try:
            one, many = streamed(info.id, n)
        except ValueError as exc:  # mechanisms whose parameters differ (e.g. thresholds as fractions)
            print(f"{info.id:<22}skipped ({exc})")
            continue
        print(f"{info.id:<22}{one:>14,.0f}{one / base:>12.1f}{many:>16,.0f}{many / base:>12.1f}")


if __name__ == "__main__":
    main()
