"""Dwork & Roth, *The Algorithmic Foundations of Differential Privacy* (2014), Section 3.6.

AboveThreshold (Algorithm 1), Sparse (Algorithm 2: AboveThreshold restarted after each ⊤, at
most c times) and NumericSparse (Algorithm 3: Sparse plus a *fresh* Laplace answer per ⊤).
"""

from __future__ import annotations

import math

from svtgui.core import validation
from svtgui.core.mechanisms.base import (
    CUTOFF,
    DELTA,
    EPSILON,
    INTEGER,
    PRIVATE,
    SENSITIVITY,
    THRESHOLD,
    Guarantee,
    MechanismInfo,
    Scales,
    register,
)
from svtgui.core.mechanisms.engine import Release, ThresholdSVT
from svtgui.core.noise import Lattice, NoiseSource

DR_BOOK = ("C. Dwork and A. Roth, The Algorithmic Foundations of Differential Privacy, "
           "Foundations and Trends in TCS 9(3–4), 2014, Section 3.6")


def _build(info: MechanismInfo, *, epsilon: float, delta: float, threshold: float, cutoff: int,
           sensitivity: float, integer: bool, rng: NoiseSource, trace: bool,
           scales_for, release: Release) -> ThresholdSVT:
    eps = validation.positive("epsilon", epsilon)
    dlt = validation.probability("delta", delta)
    c = validation.count("cutoff", cutoff)
    lattice = Lattice.for_sensitivity(sensitivity, integer=bool(integer))
    scales = scales_for(eps, dlt, c, lattice.effective_sensitivity)
    mech = ThresholdSVT(
        guarantee=Guarantee(eps, dlt), rng=rng, sensitivity=float(sensitivity),
        params=dict(epsilon=eps, delta=dlt, threshold=threshold, cutoff=c,
                    sensitivity=float(sensitivity), integer=bool(integer)),
        threshold=threshold, cutoff=c, lattice=lattice, scales=scales,
        refresh_threshold=True, release=release, trace=trace)
    mech.info = info
    return mech


def sparse_sigma(epsilon: float, delta: float, cutoff: int) -> float:
    """D&R's σ per unit sensitivity: 2c/ε (δ = 0) or √(32 c ln(1/δ))/ε (advanced composition)."""
    if delta == 0:
        return 2 * cutoff / epsilon
    return math.sqrt(32 * cutoff * math.log(1 / delta)) / epsilon


def numeric_sparse_split(epsilon: float, delta: float) -> tuple[float, float]:
    """D&R Algorithm 3's (ε1, ε2): 8ε/9 and 2ε/9 (δ = 0), √512ε/(√512+1) and 2ε/(√512+1) (δ > 0)."""
    if delta == 0:
        return 8 * epsilon / 9, 2 * epsilon / 9
    root = math.sqrt(512)
    return root * epsilon / (root + 1), 2 * epsilon / (root + 1)


def numeric_sparse_sigma(epsilon: float, delta: float, cutoff: int) -> float:
    """NumericSparse's σ(ε): 2c/ε (δ = 0) or √(32 c ln(2/δ))/ε (δ split between its two parts)."""
    if delta == 0:
        return 2 * cutoff / epsilon
    return math.sqrt(32 * cutoff * math.log(2 / delta)) / epsilon


ABOVE_THRESHOLD = MechanismInfo(
    id="above_threshold",
    name="AboveThreshold",
    summary="Finds the first query whose answer is (noisily) above the threshold, then stops.",
    citation=DR_BOOK + ", Algorithm 1 (AboveThreshold)",
    guarantee="ε-DP",
    interactive=True,
    releases_numbers=False,
    status=PRIVATE,
    params=(EPSILON, THRESHOLD, SENSITIVITY, INTEGER),
    notes="T̂ = T + Lap(2Δ/ε) once; ν_i = Lap(4Δ/ε); halts at the first ⊤.",
)


@register(ABOVE_THRESHOLD)
def above_threshold(*, epsilon, threshold, sensitivity=1.0, integer=False, rng, trace=False):
    return _build(ABOVE_THRESHOLD, epsilon=epsilon, delta=0.0, threshold=threshold, cutoff=1,
                  sensitivity=sensitivity, integer=integer, rng=rng, trace=trace,
                  scales_for=lambda e, d, c, s: Scales(threshold=2 * s / e, query=4 * s / e),
                  release=Release.NONE)


SPARSE = MechanismInfo(
    id="sparse",
    name="Sparse",
    summary="Answers above/below for a stream of queries; stops after c answers above the threshold.",
    citation=DR_BOOK + ", Algorithm 2 (Sparse)",
    guarantee="(ε, δ)-DP (ε-DP when δ = 0)",
    interactive=True,
    releases_numbers=False,
    status=PRIVATE,
    params=(EPSILON, DELTA, THRESHOLD, CUTOFF, SENSITIVITY, INTEGER),
    notes="AboveThreshold restarted after each ⊤ with σ = 2cΔ/ε (δ = 0) or √(32c ln(1/δ))Δ/ε: "
          "threshold noise Lap(σ), query noise Lap(2σ).",
)


@register(SPARSE)
def sparse(*, epsilon, threshold, cutoff=1, delta=0.0, sensitivity=1.0, integer=False, rng, trace=False):
    def scales(e, d, c, s):
        sigma = sparse_sigma(e, d, c) * s
        return Scales(threshold=sigma, query=2 * sigma)

    return _build(SPARSE, epsilon=epsilon, delta=delta, threshold=threshold, cutoff=cutoff,
                  sensitivity=sensitivity, integer=integer, rng=rng, trace=trace,
                  scales_for=scales, release=Release.NONE)


NUMERIC_SPARSE = MechanismInfo(
    id="numeric_sparse",
    name="NumericSparse",
    summary="Like Sparse, and also releases a freshly noised value for each query above the threshold.",
    citation=DR_BOOK + ", Algorithm 3 (NumericSparse)",
    guarantee="(ε, δ)-DP (ε-DP when δ = 0)",
    interactive=True,
    releases_numbers=True,
    status=PRIVATE,
    params=(EPSILON, DELTA, THRESHOLD, CUTOFF, SENSITIVITY, INTEGER),
    notes="ε1 finds the queries (threshold Lap(σ(ε1)), queries Lap(2σ(ε1))); ε2 answers them with fresh "
          "Lap(σ(ε2)). δ = 0: ε1 = 8ε/9, ε2 = 2ε/9, σ(ε) = 2cΔ/ε. δ > 0: ε1 = √512ε/(√512+1), "
          "ε2 = 2ε/(√512+1), σ(ε) = √(32c ln(2/δ))Δ/ε.",
)


@register(NUMERIC_SPARSE)
def numeric_sparse(*, epsilon, threshold, cutoff=1, delta=0.0, sensitivity=1.0, integer=False, rng,
                   trace=False):
    def scales(e, d, c, s):
        eps1, eps2 = numeric_sparse_split(e, d)
        find = numeric_sparse_sigma(eps1, d, c) * s
        answer = numeric_sparse_sigma(eps2, d, c) * s
        return Scales(threshold=find, query=2 * find, numeric=answer)

    return _build(NUMERIC_SPARSE, epsilon=epsilon, delta=delta, threshold=threshold, cutoff=cutoff,
                  sensitivity=sensitivity, integer=integer, rng=rng, trace=trace,
                  scales_for=scales, release=Release.FRESH)
