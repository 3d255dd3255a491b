"""Ding, Wang, Zhang & Kifer, "Free Gap Information from the Differentially Private Sparse Vector
and Noisy Max Mechanisms", PVLDB 13(3), 2019.

For each ⊤ the mechanism also releases the noisy gap ``(q_i + ν_i) − (T_i + ρ)``, at no extra
privacy cost: the gap is a function of the same noise the ⊤/⊥ decision used, and their proof
(alignment of ρ and the ν of ⊤ queries) covers it. ``value`` is ``T_i + gap``, an unbiased estimate
of the answer obtained by post-processing (T_i is public). Budget split and noise scales are
Lyu et al.'s SVT-S, which is the setting of Ding et al.'s Algorithm 1.
"""

from __future__ import annotations

from svtgui.core.mechanisms.base import (
    CUTOFF,
    EPSILON,
    INTEGER,
    MONOTONIC,
    PRIVATE,
    SENSITIVITY,
    THRESHOLD,
    MechanismInfo,
    register,
)
from svtgui.core.mechanisms.engine import Release
from svtgui.core.mechanisms.lyu import SPLIT, _svt_s

GAP_SVT = MechanismInfo(
    id="gap_svt",
    name="Sparse Vector with free gap",
    summary="Standard SVT that also tells how far above the threshold each ⊤ query was, for free.",
    citation="Z. Ding, Y. Wang, D. Zhang and D. Kifer, Free Gap Information from the Differentially "
             "Private Sparse Vector and Noisy Max Mechanisms, PVLDB 13(3):293–306, 2019",
    guarantee="ε-DP",
    interactive=True,
    releases_numbers=True,
    status=PRIVATE,
    params=(EPSILON, THRESHOLD, CUTOFF, SENSITIVITY, INTEGER, MONOTONIC, SPLIT),
    notes="Releases gap = (q_i + ν_i) − (T_i + ρ) for each ⊤ (Response.gap) and value = T_i + gap.",
)


@register(GAP_SVT)
def gap_svt(*, epsilon, threshold, cutoff=1, sensitivity=1.0, integer=False, monotonic=False, split=None,
            rng, trace=False):
    return _svt_s(GAP_SVT, Release.GAP, epsilon=epsilon, threshold=threshold, cutoff=cutoff,
                  sensitivity=sensitivity, integer=integer, monotonic=monotonic, split=split,
                  numeric_share=0.0, rng=rng, trace=trace)
