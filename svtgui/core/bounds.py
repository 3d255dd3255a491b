"""(α, β) accuracy guarantees of the SVT mechanisms: the formulas (numbers in, numbers out).

Each mechanism answers its own bound (``Mechanism.accuracy_bound``) from these formulas and its
own scales; :mod:`svtgui.core.accuracy` is the entry point by mechanism id. This module imports
no mechanism, so the mechanisms can use it without an import cycle.

What "(α, β)-accurate" means here (Dwork & Roth, Definitions 3.9–3.10; Roth's 2011 notes,
Definition 1): except with probability at most β, over all queries the run answers,

* every released number is within ±α of the true answer;
* every ⊤ query has a true answer ≥ T_i − α (queries below T_i − α come back ⊥);
* every ⊥ query has a true answer ≤ T_i + α.

Two kinds of bound, both in value units and both using the mechanism's *effective* (lattice)
sensitivity ``D·g`` (see :mod:`svtgui.core.noise`), so they describe the noise a run really adds:

Book theorems (functions named after them)
    D&R Theorem 3.24 (AboveThreshold) α = 8Δ(ln k + ln(2/β))/ε; Theorem 3.26 (Sparse)
    α = 8cΔ(ln k + ln(2c/β))/ε, or Δ√(512 c ln(1/δ))(ln k + ln(2c/β))/ε with δ > 0; Theorem 3.28
    (NumericSparse) α = 9cΔ(ln k + ln(4c/β))/ε, or Δ(ln k + ln(4c/β))√(c ln(2/δ))(√512 + 1)/ε;
    Roth 2011 Theorem 2, α = 4cΔ(ln k + ln(2/β))/ε (4c(log k + log 2/β)/(εn) for Δ = 1/n).

    Caveat, found by this module's tests: Theorem 3.28 with δ > 0 does not hold for small k. The
    algorithm answers with Lap(σ(ε2)), ε2 = 2ε/(√512 + 1), i.e. scale √8(√512 + 1)√(c ln(2/δ))/ε;
    keeping c such answers within α with probability 1 − β/2 needs √8·ln(2c/β) ≤ ln k + ln(4c/β),
    which fails below k ≈ 900 for c = 3, β = 0.1. The function returns the theorem as printed
    (it is what the book states); :func:`bound` never uses it.

Union bound with the actual scales (:func:`union_bound`, derived here)
    A run fails only if some threshold draw ρ_j (r of them: 1, or c when the threshold is redrawn
    after each ⊤) exceeds a_ρ in magnitude, some query draw ν_i (k of them) exceeds a_ν, or some
    fresh numeric draw (m ≤ c of them) exceeds a_v. For Laplace noise of scale b,
    P(|X| > a) = exp(−a/b). Off those events, ⊤ ⇒ q_i ≥ T_i − (a_ρ + a_ν), ⊥ ⇒ q_i ≤ T_i + a_ρ + a_ν,
    a gap release q_i + ν_i − ρ is within a_ρ + a_ν, a same-noise release within a_ν, a fresh
    release within a_v. Splitting the test's share β_t of β between ρ and ν in proportion to their
    scales minimises a_ρ + a_ν (Lagrange condition b_ρ/β_ρ = b_ν/β_ν), giving

        α_test = b_ρ ln(r(b_ρ + b_ν)/(β_t b_ρ)) + b_ν ln(k(b_ρ + b_ν)/(β_t b_ν)),
        α_num  = b_v ln(m/β_n),   α = max(α_test, α_num),

    with β_t = β when nothing fresh is released, else β_t = β_n = β/2. This covers
    ``standard_svt`` (r = 1, b_ρ = Δ/ε1, b_ν = 2cΔ/ε2 or cΔ/ε2, b_v = cΔ/ε3), ``gap_svt`` (same
    test; the gap release is q_i + ν_i − ρ, covered by α_test) and ``svt_retraversal`` (r = 1,
    k·passes comparisons, statement relative to the raised threshold T' = T + raise·√2·b_ν).

Discrete noise and rounding
    The mechanisms add discrete Laplace noise on a lattice of step g. Its tail is
    P(|Z|·g > a) < κ·exp(−a/b) with κ = 2/(1 + e^(−g/b)) ≤ 1 + g/(2b), so every bound above is
    evaluated at β/κ (κ of the smallest scale involved); real-valued answers are rounded to the
    lattice, moving them by at most g/2, which is added to α (integer queries are not rounded).
    With the default lattice both corrections are below 0.1% of α.

The exponential mechanism (``em_top_c``) has a different guarantee: each selected query is within α
of the largest answer not yet selected, α = 2cΔ(ln k + ln(c/β))/ε (cΔ(...)/ε for monotonic
queries), from the exponential mechanism's utility theorem with β/c per round.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from svtgui.core import validation

STATEMENT = "released answers within ±α with probability 1 − β; queries below T − α come back ⊥"
RETRAVERSAL_STATEMENT = ("with probability 1 − β, no query below T' − α is selected, and when fewer than c "
                         "are selected none above T' + α is left out (T' is the raised threshold)")
UNION_SOURCE = "union bound over Laplace tails with the run's scales"
EM_STATEMENT = ("with probability 1 − β, every selected query is within α of the largest answer "
                "not selected before it")


@dataclass(frozen=True)
class Accuracy:
    """An (α, β) guarantee: ``statement`` is the plain sentence the GUI shows next to α."""

    alpha: float
    beta: float
    statement: str = STATEMENT
    source: str = ""


def _check(k: int, beta: float, epsilon: float, sensitivity: float) -> tuple[int, float, float, float]:
    return (validation.count("k", k), validation.probability("beta", beta, allow_zero=False),
            validation.positive("epsilon", epsilon), validation.positive("sensitivity", sensitivity))


def tail_factor(step: float, scale: float) -> float:
    """Tail inflation of discrete Laplace on a grid of ``step`` versus continuous Laplace of ``scale``."""
    return 2.0 / (1.0 + math.exp(-step / scale))


# ---- book theorems (continuous Laplace, any sensitivity Δ) ---------------------------------------

def above_threshold(epsilon: float, k: int, beta: float, sensitivity: float = 1.0) -> float:
    """D&R Theorem 3.24: α = 8Δ(ln k + ln(2/β))/ε."""
    k, beta, eps, s = _check(k, beta, epsilon, sensitivity)
    return 8 * s * (math.log(k) + math.log(2 / beta)) / eps


def sparse(epsilon: float, k: int, beta: float, cutoff: int, delta: float = 0.0,
           sensitivity: float = 1.0) -> float:
    """D&R Theorem 3.26: c AboveThresholds with β/c each (δ = 0), or the advanced-composition σ."""
    k, beta, eps, s = _check(k, beta, epsilon, sensitivity)
    c = validation.count("cutoff", cutoff)
    dlt = validation.probability("delta", delta)
    logs = math.log(k) + math.log(2 * c / beta)
    if dlt == 0:
        return 8 * c * s * logs / eps
    return s * math.sqrt(512 * c * math.log(1 / dlt)) * logs / eps


def numeric_sparse(epsilon: float, k: int, beta: float, cutoff: int, delta: float = 0.0,
                   sensitivity: float = 1.0) -> float:
    """D&R Theorem 3.28: 9cΔ(ln k + ln(4c/β))/ε, or Δ(ln k + ln(4c/β))√(c ln(2/δ))(√512 + 1)/ε."""
    k, beta, eps, s = _check(k, beta, epsilon, sensitivity)
    c = validation.count("cutoff", cutoff)
    dlt = validation.probability("delta", delta)
    logs = math.log(k) + math.log(4 * c / beta)
    if dlt == 0:
        return 9 * c * s * logs / eps
    return s * logs * math.sqrt(c * math.log(2 / dlt)) * (math.sqrt(512) + 1) / eps


def lecture_2011(epsilon: float, k: int, beta: float, cutoff: int, sensitivity: float = 1.0) -> float:
    """Roth 2011, Theorem 2: α = 4cΔ(ln k + ln(2/β))/ε, i.e. 4c(log k + log 2/β)/(εn) for Δ = 1/n.

    (An accuracy statement only: the algorithm it belongs to is not differentially private.)
    """
    k, beta, eps, s = _check(k, beta, epsilon, sensitivity)
    c = validation.count("cutoff", cutoff)
    return 4 * c * s * (math.log(k) + math.log(2 / beta)) / eps


def em_top_c(epsilon: float, k: int, beta: float, cutoff: int, sensitivity: float = 1.0,
             monotonic: bool = False) -> float:
    """Exponential mechanism, c rounds of ε/c with β/c each: α = 2cΔ(ln k + ln(c/β))/ε (cΔ… monotonic)."""
    k, beta, eps, s = _check(k, beta, epsilon, sensitivity)
    c = validation.count("cutoff", cutoff)
    factor = 1 if monotonic else 2
    return factor * c * s * (math.log(k) + math.log(c / beta)) / eps


# ---- derived union bound with the actual scales -------------------------------------------------

def union_bound(*, threshold_scale: float, query_scale: float, k: int, beta: float,
                threshold_draws: int = 1, numeric_scale: float | None = None, releases: int = 0) -> float:
    """α from a union bound over Laplace tails with the given scales (see the module docstring)."""
    k = validation.count("k", k)
    beta = validation.probability("beta", beta, allow_zero=False)
    b_rho = validation.positive("threshold_scale", threshold_scale)
    b_nu = validation.positive("query_scale", query_scale)
    r = validation.count("threshold_draws", threshold_draws)
    numeric = numeric_scale is not None and releases > 0
    beta_test = beta / 2 if numeric else beta
    total = b_rho + b_nu
    alpha = (b_rho * math.log(r * total / (beta_test * b_rho))
             + b_nu * math.log(k * total / (beta_test * b_nu)))
    if numeric:
        b_v = validation.positive("numeric_scale", numeric_scale)
        alpha = max(alpha, b_v * math.log(releases / (beta / 2)))
    return alpha


def on_lattice(lattice: Any, scales: Any, k: int, beta: float, *, threshold_draws: int = 1,
               releases: int = 0, statement: str = STATEMENT, source: str = UNION_SOURCE) -> Accuracy:
    """:func:`union_bound` for discrete noise on ``lattice`` with a run's ``scales`` (module docstring:
    β shrunk by the tail factor κ of the smallest scale, half a step of rounding added)."""
    k = validation.count("k", k)
    beta = validation.probability("beta", beta, allow_zero=False)
    used = [scales.threshold, scales.query] + ([scales.numeric] if scales.numeric else [])
    kappa = max(tail_factor(lattice.step, b) for b in used)
    rounding = 0.0 if lattice.integer else lattice.step / 2
    alpha = union_bound(threshold_scale=scales.threshold, query_scale=scales.query, k=k, beta=beta / kappa,
                        threshold_draws=threshold_draws, numeric_scale=scales.numeric, releases=releases)
    return Accuracy(alpha + rounding, beta, statement, source)
