"""Lyu, Su & Li, "Understanding the Sparse Vector Technique for Differential Privacy", PVLDB 10(6), 2017.

* ``standard_svt`` — their Algorithm 1 / SVT-S: threshold noise drawn once, query noise scaling
  with c, optional fresh numeric answers, per-query thresholds, optimised budget split.
* ``svt_retraversal`` — the non-interactive SVT-ReTr: raise the threshold, traverse the list
  again until c queries are selected.
* ``em_top_c`` — their recommendation for the non-interactive setting: select the top c by the
  exponential mechanism (c rounds of ε/c each).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

import numpy as np

from svtgui.core import bounds, validation
from svtgui.core.mechanisms.base import (
    CUTOFF,
    EPSILON,
    INTEGER,
    MONOTONIC,
    PRIVATE,
    SENSITIVITY,
    THRESHOLD,
    Guarantee,
    MechanismInfo,
    Param,
    Scales,
    Selection,
    SelectionMechanism,
    register,
)
from svtgui.core.mechanisms.engine import Release, ThresholdSVT
from svtgui.core.noise import Lattice, NoiseSource, check_scale

LYU = ("M. Lyu, D. Su and N. Li, Understanding the Sparse Vector Technique for Differential Privacy, "
       "PVLDB 10(6):637–648, 2017")

SPLIT = Param("split", "float",
              "ε2/ε1: budget for testing queries vs. perturbing the threshold; empty = the paper's "
              "optimum (2c)^(2/3), or c^(2/3) for monotonic queries", default=None, minimum=0.0)
NUMERIC_SHARE = Param("numeric_share", "float",
                      "Share of ε spent on fresh numeric answers for ⊤ queries (ε3/ε); 0 = ⊤/⊥ only",
                      default=0.0, minimum=0.0, maximum=1.0)


def default_split(cutoff: int, monotonic: bool) -> float:
    """The paper's optimal ε2/ε1: (2c)^(2/3), or c^(2/3) for monotonic queries."""
    return float(cutoff if monotonic else 2 * cutoff) ** (2.0 / 3.0)


def budget_parts(epsilon: float, cutoff: int, monotonic: bool, split: float | None,
                 numeric_share: float) -> tuple[float, float, float]:
    """(ε1, ε2, ε3): ε3 = share·ε for numeric answers; the rest split ε1:ε2 = 1:split."""
    ratio = default_split(cutoff, monotonic) if split is None else validation.positive("split", split)
    share = validation.finite("numeric_share", numeric_share)
    if not 0 <= share < 1:
        raise validation.ParamError("numeric_share",
                                    f"numeric_share must be in [0, 1), got {numeric_share!r}")
    eps3 = share * epsilon
    eps1 = (epsilon - eps3) / (1 + ratio)
    return eps1, epsilon - eps3 - eps1, eps3


def svt_s_scales(eps1: float, eps2: float, eps3: float, cutoff: int, monotonic: bool,
                 sensitivity: float) -> Scales:
    """ρ = Lap(Δ/ε1); ν = Lap(2cΔ/ε2) (cΔ/ε2 monotonic); numeric Lap(cΔ/ε3)."""
    factor = 1 if monotonic else 2
    return Scales(threshold=sensitivity / eps1, query=factor * cutoff * sensitivity / eps2,
                  numeric=cutoff * sensitivity / eps3 if eps3 > 0 else None)


def _svt_s(info: MechanismInfo, release_default: Release, *, epsilon, threshold, cutoff, sensitivity,
           integer, monotonic, split, numeric_share, rng: NoiseSource, trace: bool) -> ThresholdSVT:
    eps = validation.positive("epsilon", epsilon)
    c = validation.count("cutoff", cutoff)
    lattice = Lattice.for_sensitivity(sensitivity, integer=bool(integer))
    eps1, eps2, eps3 = budget_parts(eps, c, bool(monotonic), split, numeric_share)
    scales = svt_s_scales(eps1, eps2, eps3, c, bool(monotonic), lattice.effective_sensitivity)
    scales.extra.update(epsilon1=eps1, epsilon2=eps2, epsilon3=eps3)
    release = Release.FRESH if eps3 > 0 else release_default
    mech = ThresholdSVT(
        guarantee=Guarantee(eps, 0.0), rng=rng, sensitivity=float(sensitivity),
        params=dict(epsilon=eps, threshold=threshold, cutoff=c, sensitivity=float(sensitivity),
                    integer=bool(integer), monotonic=bool(monotonic), split=split,
                    numeric_share=numeric_share),
        threshold=threshold, cutoff=c, lattice=lattice, scales=scales,
        refresh_threshold=False, release=release, trace=trace)
    mech.info = info
    return mech


STANDARD_SVT = MechanismInfo(
    id="standard_svt",
    name="Standard SVT (SVT-S)",
    summary="Lyu et al.'s improved SVT: threshold noised once, better budget split, optional numeric "
            "answers.",
    citation=LYU + ", Algorithm 1 (SVT-S)",
    guarantee="ε-DP",
    interactive=True,
    releases_numbers=True,
    status=PRIVATE,
    params=(EPSILON, THRESHOLD, CUTOFF, SENSITIVITY, INTEGER, MONOTONIC, SPLIT, NUMERIC_SHARE),
    notes="ρ = Lap(Δ/ε1) once; ν_i = Lap(2cΔ/ε2) (cΔ/ε2 monotonic); ⊤ answers Lap(cΔ/ε3) when ε3 > 0; "
          "per-query thresholds T_i via submit(answer, threshold=T_i).",
)


@register(STANDARD_SVT)
def standard_svt(*, epsilon, threshold, cutoff=1, sensitivity=1.0, integer=False, monotonic=False,
                 split=None, numeric_share=0.0, rng, trace=False):
    return _svt_s(STANDARD_SVT, Release.NONE, epsilon=epsilon, threshold=threshold, cutoff=cutoff,
                  sensitivity=sensitivity, integer=integer, monotonic=monotonic, split=split,
                  numeric_share=numeric_share, rng=rng, trace=trace)


RAISE_BY = Param("raise_by", "float",
                 "Threshold raise, in standard deviations of the query noise (the paper tries 1, 3, 5)",
                 default=1.0, minimum=0.0)
#: A traversal draws fresh noise for every remaining query: a run of 10^18 passes with a threshold no
#: answer reaches would never end after its charge. The paper tries a handful; 100 is the default.
PASSES_LIMIT = 10_000
MAX_PASSES = Param("max_passes", "int", "Stop after this many traversals even if fewer than c were selected",
                   default=100, minimum=1, maximum=PASSES_LIMIT)


class RetraversalSVT(SelectionMechanism):
    """SVT-ReTr: Standard SVT over the list, traversed again (fresh ν each time) until c are selected.

    Every comparison is one more query to the same SVT-S instance (ρ drawn once, at most c ⊤), so
    re-traversing costs nothing beyond SVT-S's ε; already-selected queries are skipped.
    """

    def __init__(self, *, lattice: Lattice, scales: Scales, cutoff: int, threshold: float,
                 raise_by: float, max_passes: int, **kw) -> None:
        super().__init__(**kw)
        self.lattice, self.scales, self.cutoff = lattice, scales, cutoff
        self.threshold = threshold
        std = math.sqrt(2.0) * scales.query  # Python floats: an overflow is inf, refused below
        self.raised_threshold = threshold + raise_by * std
        self.max_passes = max_passes
        for name, units in self.noise_scales().items():  # before the raised T', which they set
            check_scale(units, name)
        lattice.threshold_unit(self.raised_threshold, "threshold")  # refused now, not after the charge

    def noise_scales(self) -> dict[str, float]:
        return self.scales.in_units(self.lattice)

    def accuracy_bound(self, k: int, beta: float) -> bounds.Accuracy:
        """Union bound over k × max_passes comparisons, relative to the raised threshold T'."""
        return bounds.on_lattice(self.lattice, self.scales, validation.count("k", k) * self.max_passes, beta,
                                 statement=bounds.RETRAVERSAL_STATEMENT,
                                 source=f"union bound over Laplace tails (k × {self.max_passes} passes "
                                        "comparisons)")

    def select(self, answers: Sequence[float] | np.ndarray,
               thresholds: Sequence[float] | np.ndarray | None = None) -> Selection:
        lat = self.lattice
        q = lat.to_units(answers)
        if thresholds is None:
            t = np.full(q.shape, lat.threshold_unit(self.raised_threshold))
        else:
            given = np.asarray(thresholds, dtype=np.float64)
            if given.shape != q.shape:
                raise ValueError(f"thresholds must have one entry per answer ({q.size}), "
                                 f"got shape {given.shape}")
            t = lat.threshold_units(given + (self.raised_threshold - self.threshold))
        self._begin(answers)
        rho = int(self._rng.discrete_laplace(lat.scale_units(self.scales.threshold), 1)[0])
        chosen: list[int] = []
        remaining = np.arange(len(q))
        for _ in range(self.max_passes):
            nu = self._rng.discrete_laplace(lat.scale_units(self.scales.query), len(remaining))
            hits = remaining[q[remaining] + nu >= t[remaining] + rho]
            take = hits[: self.cutoff - len(chosen)]
            chosen.extend(int(i) for i in take)
            if len(chosen) >= self.cutoff:
                break
            remaining = np.setdiff1d(remaining, take, assume_unique=True)
            if remaining.size == 0:
                break
        return Selection(tuple(chosen))


SVT_RETRAVERSAL = MechanismInfo(
    id="svt_retraversal",
    name="SVT with retraversal (SVT-ReTr)",
    summary="Non-interactive: picks c queries above a raised threshold, scanning the list again if needed.",
    citation=LYU + ", Section 4.3 (SVT-ReTr)",
    guarantee="ε-DP",
    interactive=False,
    releases_numbers=False,
    status=PRIVATE,
    params=(EPSILON, THRESHOLD, CUTOFF, SENSITIVITY, INTEGER, MONOTONIC, SPLIT, RAISE_BY, MAX_PASSES),
    notes="Threshold raised by raise_by × the query-noise standard deviation; ρ drawn once; "
          "use select(answers).",
)


@register(SVT_RETRAVERSAL)
def svt_retraversal(*, epsilon, threshold, cutoff=1, sensitivity=1.0, integer=False, monotonic=False,
                    split=None, raise_by=1.0, max_passes=100, rng, trace=False):
    eps = validation.positive("epsilon", epsilon)
    c = validation.count("cutoff", cutoff)
    thr = validation.finite("threshold", threshold)
    raise_by = validation.finite("raise_by", raise_by)
    if raise_by < 0:
        raise validation.ParamError("raise_by", f"raise_by must be >= 0, got {raise_by!r}")
    passes = validation.count("max_passes", max_passes)
    if passes > PASSES_LIMIT:
        raise validation.ParamError("max_passes",
                                    f"max_passes must be at most {PASSES_LIMIT:,}, got {max_passes!r}")
    lattice = Lattice.for_sensitivity(sensitivity, integer=bool(integer))
    eps1, eps2, _ = budget_parts(eps, c, bool(monotonic), split, 0.0)
    scales = svt_s_scales(eps1, eps2, 0.0, c, bool(monotonic), lattice.effective_sensitivity)
    mech = RetraversalSVT(
        lattice=lattice, scales=scales, cutoff=c, threshold=thr, raise_by=raise_by, max_passes=passes,
        guarantee=Guarantee(eps, 0.0), rng=rng, sensitivity=float(sensitivity), trace=trace,
        params=dict(epsilon=eps, threshold=thr, cutoff=c, sensitivity=float(sensitivity),
                    integer=bool(integer), monotonic=bool(monotonic), split=split, raise_by=raise_by,
                    max_passes=passes))
    mech.info = SVT_RETRAVERSAL
    return mech


class ExponentialTopC(SelectionMechanism):
    """Top-c selection by c rounds of the exponential mechanism, each with ε/c.

    Score = the query's answer on the noise lattice (:class:`~svtgui.core.noise.Lattice`): the integer
    k_i = rint(q_i / g), whose neighbours differ by at most D = ``lattice.units`` whatever the float
    rounding of an exact sum was (a score taken straight from the double of an exact sum near 1e19
    moves by up to 1,024 between neighbours, far more than Δ). P[i] ∝ exp(γ·k_i) with γ = ε/(2cD)
    (ε/(cD) for monotonic queries) among the items not yet selected. Sampled exactly
    (:mod:`svtgui.core.em_sampling`): γ is the exact rational of the float parameters, scores enter
    as exact integers, and each round proposes an item uniformly and accepts it with probability
    exp(−γ·(max − k_i)), decided by comparing random bits with certified integer bounds. The first
    accepted item has exactly the EM's law, so the ε-DP guarantee is that of what is drawn; no
    floating-point noise is involved. Only indices are released. An answer beyond the lattice
    (|q| > 2^52·g) is refused; the plan refuses such a query before the charge, from public facts.
    """

    def __init__(self, *, cutoff: int, monotonic: bool, lattice: Lattice, **kw) -> None:
        super().__init__(**kw)
        self.cutoff = cutoff
        self.monotonic = monotonic
        self.lattice = lattice

    def noise_scales(self) -> dict[str, float]:
        """The exponential mechanism's temperature 1/(γΔ) in units of Δ (the score's step): 2c/ε (c/ε
        monotonic); refused below the lattice floor like every noise scale."""
        return {"exponential mechanism": self._factor * self.cutoff / self.guarantee.epsilon}

    @property
    def _factor(self) -> int:
        return 1 if self.monotonic else 2

    def accuracy_bound(self, k: int, beta: float) -> bounds.Accuracy:
        """The exponential mechanism's utility theorem, β/c per round."""
        eps, lat = self.guarantee.epsilon, self.lattice
        alpha = bounds.em_top_c(eps, k, beta, self.cutoff, lat.effective_sensitivity, self.monotonic)
        alpha += 0.0 if lat.integer else lat.step  # two scores rounded to the lattice, half a step each
        return bounds.Accuracy(alpha, beta, bounds.EM_STATEMENT,
                               "exponential mechanism utility theorem, β/c per round")

    def select(self, answers: Sequence[float] | np.ndarray,
               thresholds: Sequence[float] | np.ndarray | None = None) -> Selection:
        if thresholds is not None:
            raise ValueError("em_top_c has no threshold: it selects the c largest answers")
        scores = self.lattice.to_units(self._begin(answers)).astype(np.float64)  # |k| ≤ 2^52: exact
        # Fraction(float) is exact: γ is exactly the rational the float parameters denote
        gamma = Fraction(self.guarantee.epsilon) / (self.cutoff * self._factor * self.lattice.units)
        return Selection(self._rng.exponential_top_c(scores, gamma, self.cutoff))


EM_TOP_C = MechanismInfo(
    id="em_top_c",
    name="Exponential mechanism, top c",
    summary="Non-interactive: picks the c largest queries with the exponential mechanism (recommended).",
    citation=LYU + ", Section 6 (EM for the non-interactive setting); F. McSherry and K. Talwar, "
             "Mechanism Design via Differential Privacy, FOCS 2007",
    guarantee="ε-DP",
    interactive=False,
    releases_numbers=False,
    status=PRIVATE,
    params=(EPSILON, CUTOFF, SENSITIVITY, INTEGER, MONOTONIC),
    notes="c rounds of EM with ε/c each on the answers' lattice integers, sampled exactly (uniform "
          "proposals accepted with probability exp(−γ·(max − k)), decided on certified integer bounds); "
          "releases indices only; use select(answers).",
)


@register(EM_TOP_C)
def em_top_c(*, epsilon, cutoff=1, sensitivity=1.0, integer=False, monotonic=False, rng, trace=False):
    eps = validation.positive("epsilon", epsilon)
    c = validation.count("cutoff", cutoff)
    s = validation.positive("sensitivity", sensitivity)
    lattice = Lattice.for_sensitivity(s, integer=bool(integer))
    mech = ExponentialTopC(cutoff=c, monotonic=bool(monotonic), lattice=lattice,
                           guarantee=Guarantee(eps, 0.0), rng=rng, sensitivity=s, trace=trace,
                           params=dict(epsilon=eps, cutoff=c, sensitivity=s, integer=bool(integer),
                                       monotonic=bool(monotonic)))
    mech.info = EM_TOP_C
    return mech
