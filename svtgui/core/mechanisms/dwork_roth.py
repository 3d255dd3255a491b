"""Dwork & Roth, *The Algorithmic Foundations of Differential Privacy* (2014), Section 3.6.

AboveThreshold (Algorithm 1), Sparse (Algorithm 2: AboveThreshold restarted after each ⊤, at
most c times) and NumericSparse (Algorithm 3: Sparse plus a *fresh* Laplace answer per ⊤).

With δ > 0 the book sets each round's ε₀ by Corollary 3.21, which is proven for ε < 1 only. The
per-round ε₀ here comes from :func:`svtgui.core.composition.per_round_epsilon`: the book's closed
form where an exact composition bound certifies it, otherwise the root of that bound, and basic
composition ε/c whenever it is better — so the (ε, δ) charged is always proven.
"""

from __future__ import annotations

import math

from svtgui.core import composition, validation
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
    """σ per unit sensitivity of c rounds of AboveThreshold (each (2/σ)-DP) composing to (ε, δ).

    δ = 0: 2c/ε (the book). δ > 0: 2/ε₀ with ε₀ from :func:`composition.per_round_epsilon`, i.e. the
    book's √(32c ln(1/δ))/ε where that is proven, the exact bound's root elsewhere, 2c/ε when smaller.
    """
    if delta == 0:
        return 2 * cutoff / epsilon
    return 2 / composition.per_round_epsilon(epsilon, delta, cutoff)


def numeric_sparse_split(epsilon: float, delta: float) -> tuple[float, float]:
    """D&R Algorithm 3's (ε1, ε2): 8ε/9 and 2ε/9 (δ = 0), √512ε/(√512+1) and 2ε/(√512+1) (δ > 0).

    The run spends ε1 finding the queries and ε2/2 answering them (c fresh Laplace draws at σ(ε2),
    each (1/σ(ε2))-DP): ε1 + ε2/2 = ε, with δ/2 for each part.
    """
    if delta == 0:
        return 8 * epsilon / 9, 2 * epsilon / 9
    root = math.sqrt(512)
    return root * epsilon / (root + 1), 2 * epsilon / (root + 1)


def numeric_sparse_sigma(epsilon: float, delta: float, cutoff: int) -> float:
    """NumericSparse's σ(e) for its finding part (e = ε1, (ε1, δ/2)-DP): :func:`sparse_sigma` at δ/2."""
    return sparse_sigma(epsilon, delta / 2, cutoff)


def numeric_sparse_answer_scale(epsilon2: float, delta: float, cutoff: int) -> float:
    """Laplace scale of NumericSparse's c fresh answers, composing to (ε2/2, δ/2): σ(ε2) in the book.

    δ = 0: 2c/ε2. δ > 0: 1/ε₀ with ε₀ = per_round_epsilon(ε2/2, δ/2, c), which is the book's
    √(32c ln(2/δ))/ε2 where its closed form is proven.
    """
    if delta == 0:
        return 2 * cutoff / epsilon2
    return 1 / composition.per_round_epsilon(epsilon2 / 2, delta / 2, cutoff)


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
    notes="AboveThreshold restarted after each ⊤ with σ = 2cΔ/ε (δ = 0) or, with δ > 0, σ = 2Δ/ε₀ for the "
          "largest proven per-round ε₀: the book's ε/√(8c ln(1/δ)) where an exact composition bound "
          "certifies it (always for ε ≤ 1, δ ≤ 1/2), the bound's root elsewhere, ε/c when larger: "
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
          "ε2 = 2ε/(√512+1), each part with δ/2 and Sparse's proven per-round calibration (the book's "
          "σ(ε) = √(32c ln(2/δ))Δ/ε where its closed form is proven).",
)


@register(NUMERIC_SPARSE)
def numeric_sparse(*, epsilon, threshold, cutoff=1, delta=0.0, sensitivity=1.0, integer=False, rng,
                   trace=False):
    def scales(e, d, c, s):
        eps1, eps2 = numeric_sparse_split(e, d)
        find = numeric_sparse_sigma(eps1, d, c) * s
        answer = numeric_sparse_answer_scale(eps2, d, c) * s
        return Scales(threshold=find, query=2 * find, numeric=answer)

    return _build(NUMERIC_SPARSE, epsilon=epsilon, delta=delta, threshold=threshold, cutoff=cutoff,
                  sensitivity=sensitivity, integer=integer, rng=rng, trace=trace,
                  scales_for=scales, release=Release.FRESH)
