"""Lyu, Su & Li's Algorithms 4, 5 and 6: published SVT variants that are NOT differentially private.

Lyu, Su and Li ("Understanding the Sparse Vector Technique for Differential Privacy", PVLDB 2017,
Figure 1) collected six SVT variants from the literature and showed that four of them do not
satisfy the ε-DP they claim. Algorithm 3 is our ``lecture_sparse_2011`` (:mod:`.broken`); this
module adds the other three, exactly as printed there, as labelled teaching examples:

* Algorithm 4 (Lee & Clifton 2014): ε1 = ε/4, ρ = Lap(Δ/ε1); ν_i = Lap(Δ/ε2) — the query noise
  does not grow with c. Actually ((1 + 6c)/4)·ε-DP.
* Algorithm 5 (Stoddard et al. 2014): ε1 = ε/2, ρ = Lap(Δ/ε1); ν_i = 0 and no cutoff. ∞-DP.
* Algorithm 6 (Chen et al. 2015): ε1 = ε/2, ρ = Lap(Δ/ε1); ν_i = Lap(Δ/ε2) and no cutoff. ∞-DP.

``create`` refuses them unless ``allow_non_private=True``; the auditor
(:mod:`svtgui.core.audit`) and the teaching gallery demonstrate each leak.

Two engine details, stated rather than hidden: "no cutoff" is a cutoff of ``NO_CUTOFF`` (2^62,
never reached), and Algorithm 5's "ν_i = 0" is discrete-Laplace noise of scale 1/64 lattice step,
which is 0 except with probability 2/(e^64 + 1) < 10^-27, because the engine has no noiseless query
path; the range check of ``mechanisms.create`` exempts that one scale (``noiseless``).
"""

from __future__ import annotations

from svtgui.core import validation
from svtgui.core.mechanisms.base import (
    CUTOFF,
    EPSILON,
    INTEGER,
    KNOWN_NON_PRIVATE,
    SENSITIVITY,
    THRESHOLD,
    Guarantee,
    MechanismInfo,
    Scales,
    register,
)
from svtgui.core.mechanisms.engine import Release, ThresholdSVT
from svtgui.core.mechanisms.lyu import LYU
from svtgui.core.noise import Lattice, NoiseSource

NO_CUTOFF = 2**62
#: Algorithm 5's "no query noise", in lattice steps (see the module docstring).
ZERO_NOISE_UNITS = 1.0 / 64


def _build(info: MechanismInfo, *, epsilon: float, threshold: float, cutoff: int | None,
           sensitivity: float, integer: bool, rng: NoiseSource, trace: bool,
           threshold_share: float, query_noise: bool) -> ThresholdSVT:
    """ρ = Lap(Δ/ε1) with ε1 = share·ε, drawn once; ν_i = Lap(Δ/ε2) (or none); ⊤/⊥ only."""
    eps = validation.positive("epsilon", epsilon)
    c = NO_CUTOFF if cutoff is None else validation.count("cutoff", cutoff)
    lattice = Lattice.for_sensitivity(sensitivity, integer=bool(integer))
    s = lattice.effective_sensitivity
    eps1 = threshold_share * eps
    eps2 = eps - eps1
    query = s / eps2 if query_noise else ZERO_NOISE_UNITS * lattice.step
    params = dict(epsilon=eps, threshold=threshold, sensitivity=float(sensitivity), integer=bool(integer))
    if cutoff is not None:
        params["cutoff"] = c
    mech = ThresholdSVT(
        guarantee=Guarantee(eps, 0.0), rng=rng, sensitivity=float(sensitivity), params=params,
        threshold=threshold, cutoff=c, lattice=lattice,
        scales=Scales(threshold=s / eps1, query=query, extra=dict(epsilon1=eps1, epsilon2=eps2)),
        refresh_threshold=False, release=Release.NONE, trace=trace)
    mech.info = info
    if not query_noise:
        mech.noiseless = ("query",)  # Algorithm 5's flaw, kept on purpose (module docstring)
    return mech


LYU_ALG4 = MechanismInfo(
    id="lyu_alg4_lee_clifton",
    name="SVT of Lee & Clifton 2014 (Lyu et al. Algorithm 4, NOT private)",
    summary="Teaching example: the per-query noise does not grow with the cutoff c.",
    citation="J. Lee and C. W. Clifton, Top-k Frequent Itemsets via Differentially Private FP-trees, "
             "KDD 2014; shown not private by " + LYU + ", Algorithm 4",
    guarantee="claims ε-DP; actually ((1 + 6c)/4)·ε-DP",
    interactive=True,
    releases_numbers=False,
    status=KNOWN_NON_PRIVATE,
    params=(EPSILON, THRESHOLD, CUTOFF, SENSITIVITY, INTEGER),
    why_not_private="Its per-query noise Lap(Δ/ε2) does not grow with the cutoff c, so each ⊤ answer "
                    "costs up to 2ε2 instead of ε2/c and the run really spends ((1 + 6c)/4)·ε, not ε.",
    notes="ε1 = ε/4, ρ = Lap(Δ/ε1) once; ε2 = 3ε/4, ν_i = Lap(Δ/ε2); halts after c ⊤.",
)


@register(LYU_ALG4)
def lyu_alg4_lee_clifton(*, epsilon, threshold, cutoff=1, sensitivity=1.0, integer=False, rng, trace=False):
    return _build(LYU_ALG4, epsilon=epsilon, threshold=threshold, cutoff=cutoff, sensitivity=sensitivity,
                  integer=integer, rng=rng, trace=trace, threshold_share=0.25, query_noise=True)


LYU_ALG5 = MechanismInfo(
    id="lyu_alg5_stoddard",
    name="SVT of Stoddard et al. 2014 (Lyu et al. Algorithm 5, NOT private)",
    summary="Teaching example: noisy threshold, but the query answers get no noise at all.",
    citation="B. Stoddard, Y. Chen and A. Machanavajjhala, Differentially Private Algorithms for "
             "Empirical Machine Learning, arXiv:1411.5428, 2014; shown not private by " + LYU
             + ", Algorithm 5",
    guarantee="claims ε-DP; not ε'-DP for any finite ε'",
    interactive=True,
    releases_numbers=False,
    status=KNOWN_NON_PRIVATE,
    params=(EPSILON, THRESHOLD, SENSITIVITY, INTEGER),
    why_not_private="It adds no noise to the query answers, so the ⊤/⊥ pattern compares true answers "
                    "with one another exactly, and some patterns are possible on one dataset but "
                    "impossible on its neighbour.",
    notes="ε1 = ε/2, ρ = Lap(Δ/ε1) once; ν_i = 0; no cutoff (never halts).",
)


@register(LYU_ALG5)
def lyu_alg5_stoddard(*, epsilon, threshold, sensitivity=1.0, integer=False, rng, trace=False):
    return _build(LYU_ALG5, epsilon=epsilon, threshold=threshold, cutoff=None, sensitivity=sensitivity,
                  integer=integer, rng=rng, trace=trace, threshold_share=0.5, query_noise=False)


LYU_ALG6 = MechanismInfo(
    id="lyu_alg6_chen",
    name="SVT of Chen et al. 2015 (Lyu et al. Algorithm 6, NOT private)",
    summary="Teaching example: small per-query noise and no cutoff, so it never stops answering.",
    citation="R. Chen, Q. Xiao, Y. Zhang and J. Xu, Differentially Private High-Dimensional Data "
             "Publication via Sampling-Based Inference, KDD 2015; shown not private by " + LYU
             + ", Algorithm 6",
    guarantee="claims ε-DP; not ε'-DP for any finite ε'",
    interactive=True,
    releases_numbers=False,
    status=KNOWN_NON_PRIVATE,
    params=(EPSILON, THRESHOLD, SENSITIVITY, INTEGER),
    why_not_private="It has no cutoff, so it answers ⊤ without limit while each ⊤ costs privacy, and the "
                    "total loss grows with the number of queries instead of staying at ε.",
    notes="ε1 = ε/2, ρ = Lap(Δ/ε1) once; ε2 = ε/2, ν_i = Lap(Δ/ε2); no cutoff (never halts).",
)


@register(LYU_ALG6)
def lyu_alg6_chen(*, epsilon, threshold, sensitivity=1.0, integer=False, rng, trace=False):
    return _build(LYU_ALG6, epsilon=epsilon, threshold=threshold, cutoff=None, sensitivity=sensitivity,
                  integer=integer, rng=rng, trace=trace, threshold_share=0.5, query_noise=True)
