"""Published SVT variants that are NOT differentially private, kept only as labelled teaching examples.

``create`` refuses them unless ``allow_non_private=True``; the curator's window never offers them.
The auditor (:mod:`svtgui.core.audit`) demonstrates each leak.
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
from svtgui.core.noise import Lattice

LECTURE_SPARSE_2011 = MechanismInfo(
    id="lecture_sparse_2011",
    name="Sparse from the 2011 lecture notes (NOT private)",
    summary="Teaching example: releases the same noisy value that was compared with the threshold.",
    citation="A. Roth, Lecture 11: The Sparse Vector Technique, lecture notes, 2011; shown not private by "
             "Lyu, Su and Li, PVLDB 2017 (their Algorithm 3)",
    guarantee="claims ε-DP; not private",
    interactive=True,
    releases_numbers=True,
    status=KNOWN_NON_PRIVATE,
    params=(EPSILON, THRESHOLD, CUTOFF, SENSITIVITY, INTEGER),
    why_not_private="It publishes the very noisy answer that passed the threshold test, so every ⊤ also "
                    "reveals information about the noisy threshold, and the privacy loss grows with the "
                    "number of ⊥ answers.",
    notes="T̂ = T + Lap(2Δ/ε) once; ν_i = Lap(2cΔ/ε); outputs q_i + ν_i for ⊤.",
)


@register(LECTURE_SPARSE_2011)
def lecture_sparse_2011(*, epsilon, threshold, cutoff=1, sensitivity=1.0, integer=False, rng, trace=False):
    eps = validation.positive("epsilon", epsilon)
    c = validation.count("cutoff", cutoff)
    lattice = Lattice.for_sensitivity(sensitivity, integer=bool(integer))
    s = lattice.effective_sensitivity
    mech = ThresholdSVT(
        guarantee=Guarantee(eps, 0.0), rng=rng, sensitivity=float(sensitivity),
        params=dict(epsilon=eps, threshold=threshold, cutoff=c, sensitivity=float(sensitivity),
                    integer=bool(integer)),
        threshold=threshold, cutoff=c, lattice=lattice,
        scales=Scales(threshold=2 * s / eps, query=2 * c * s / eps),
        refresh_threshold=False, release=Release.SAME_NOISE, trace=trace)
    mech.info = LECTURE_SPARSE_2011
    return mech
