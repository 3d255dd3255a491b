"""Exact confidence intervals for values released with discrete Laplace noise on the noise lattice.

Every number SVT Studio releases is ``lattice point of the true value + step·Z``, with Z discrete
Laplace, P[Z = z] ∝ p^|z| and p = e^(−1/t) for the scale t in lattice steps (see
:mod:`svtgui.core.noise`: the mechanisms' fresh answers, the Laplace releases of the recipes). Its
tail has a closed form, P[|Z| > k] = 2p^(k+1)/(1 + p), so the smallest k with
P[|Z| ≤ k] ≥ γ is exact, not a bound; the interval ``released ± k·step`` then holds the true value's
lattice point with probability at least γ (exactly ``coverage(t, k)``), and widening it by half a
step (the rounding to the lattice; none on the integer lattice) makes it hold the true value.
Nothing here sees data: only public scales, steps and the released value.
"""

from __future__ import annotations

import math

from svtgui.core import validation
from svtgui.core.laplace import laplace_scale
from svtgui.core.noise import Lattice


def tail(scale_units: float, k: int) -> float:
    """P[|Z| > k] for discrete Laplace noise of scale ``scale_units`` (lattice steps)."""
    p = math.exp(-1.0 / validation.positive("scale", scale_units))
    return 2.0 * p ** (k + 1) / (1.0 + p)


def coverage(scale_units: float, k: int) -> float:
    """P[|Z| ≤ k]: the exact probability that ``released ± k`` steps holds the true lattice point."""
    return 1.0 - tail(scale_units, k)


def radius(scale_units: float, confidence: float) -> int:
    """The smallest k ≥ 0 (lattice steps) with P[|Z| ≤ k] ≥ ``confidence``."""
    gamma = validation.fraction_open("confidence", confidence)
    t = validation.positive("scale", scale_units)
    p = math.exp(-1.0 / t)
    if p == 0.0:
        return 0
    # 2p^(k+1)/(1+p) ≤ 1−γ  ⇔  k + 1 ≥ ln((1−γ)(1+p)/2) / ln p; then step once either way against rounding
    k = max(0, math.ceil(math.log((1 - gamma) * (1 + p) / 2) / math.log(p)) - 1)
    while k > 0 and tail(t, k - 1) <= 1 - gamma:
        k -= 1
    while tail(t, k) > 1 - gamma:
        k += 1
    return k


def lattice_interval(value: float, step: float, scale_units: float, confidence: float, *,
                     integer: bool) -> tuple[float, float]:
    """[low, high] holding the true value with probability ≥ ``confidence`` around a released ``value``.

    ``step``: the lattice step; ``integer``: the true value was on the lattice (no rounding to widen by).
    """
    half = radius(scale_units, confidence) * step + (0.0 if integer else step / 2)
    return value - half, value + half


def laplace_interval(value: float, sensitivity: float, epsilon: float, confidence: float, *,
                     integer: bool) -> tuple[float, float]:
    """The interval of a :func:`svtgui.core.laplace.laplace_release` of ``value`` (its public Δ and ε)."""
    lattice = Lattice.for_sensitivity(sensitivity, integer=integer)
    t = lattice.scale_units(laplace_scale(sensitivity, epsilon, integer=integer))
    return lattice_interval(value, lattice.step, t, confidence, integer=integer)
