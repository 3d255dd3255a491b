"""Composition of k adaptively chosen ε₀-DP mechanisms, and the per-round ε₀ that meets a target (ε, δ).

Why this module exists
----------------------
Sparse and NumericSparse (Dwork & Roth 2014, Algorithms 2 and 3) run c rounds of an ε₀-DP
AboveThreshold and, with δ > 0, set ε₀ = ε/√(8c ln(1/δ)) by Corollary 3.21. That corollary is
proven only for ε < 1 (and it silently assumes small δ): at δ = 0.5, ε = 3, c = 10 it gives
ε₀ = 0.403, whose exact guarantee is ε ≈ 3.50, not 3. This module states the bounds precisely and
solves them, so that every (ε, δ) we print is one that a theorem proves.

The bounds (all for k-fold *adaptive* composition of pure ε₀-DP mechanisms)
----------------------------------------------------------------------------
Basic composition
    (k·ε₀, 0)-DP.

Dwork, Rothblum & Vadhan 2010 (D&R Theorem 3.20), for every ε₀ > 0 and δ ∈ (0, 1)
    (ε, δ)-DP with ε = √(2k ln(1/δ))·ε₀ + k·ε₀·(e^ε₀ − 1)            (:func:`drv_epsilon`)

Optimal composition (Kairouz, Oh & Viswanath 2015, Theorem 3.3; Murtagh & Vadhan 2016, Theorem 1.5)
    The k-fold composition is (ε, δ)-DP exactly for δ ≥ δ_opt(ε), where δ_opt is the hockey-stick
    divergence of k-fold randomised response with p = e^ε₀/(1 + e^ε₀):

        δ_opt(ε) = Σ_{l: (2l−k)ε₀ > ε} C(k, l)·[p^l (1−p)^(k−l) − e^ε (1−p)^l p^(k−l)]

    (the privacy loss of l "heads" is (2l − k)ε₀). No bound for homogeneous ε₀-DP composition can
    be smaller, and it dominates both bounds above. It costs O(k) per evaluation, so it is used for
    k ≤ :data:`EXACT_MAX_ROUNDS`; beyond that the certificate is DRV or basic composition.

What a mechanism gets (:func:`per_round_epsilon`)
------------------------------------------------
* δ = 0: ε₀ = ε/k (basic composition; nothing else gives pure DP).
* δ > 0: the largest of
    - D&R's closed form ε/√(8k ln(1/δ)), **only where it holds**, i.e. where the bound above
      certifies it (:func:`certifies`) — for ε ≤ 1 and δ ≤ 1/2 it always does (DRV: the second
      term is at most (e − 1)ε²/(8 ln(1/δ)) ≤ ε/2); this keeps the book's noise
      where the book's proof (or a sharper one) applies;
    - otherwise the root of the exact bound, found by bisection on ε₀ (the certificate is
      monotone in ε₀), so the composed guarantee is (ε, δ) and not more;
    - basic composition ε/k, which beats the closed form whenever k < 8 ln(1/δ).

Floating point: each certificate is evaluated with a relative safety margin (:data:`_MARGIN`,
2^-30) on the target, far above the rounding error of the sums (about k·2^-52), so a floating-
point ε₀ that passes is certified in exact arithmetic too (the tests re-check with 50-digit
decimals).
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache

import numpy as np

from svtgui.core import validation
from svtgui.core.noise import NoiseRangeError

EXACT_MAX_ROUNDS = 1 << 16
_MARGIN = 2.0**-30
_BISECTIONS = 200


def basic_per_round(epsilon: float, k: int) -> float:
    """The largest double ε₀ with k·ε₀ ≤ ε exactly (``ε/k`` can round up by half a unit)."""
    eps0 = epsilon / k
    while eps0 > 0 and Fraction(eps0) * k > Fraction(epsilon):
        eps0 = math.nextafter(eps0, 0.0)
    return eps0


def drv_epsilon(eps0: float, k: int, delta: float) -> float:
    """Dwork–Rothblum–Vadhan: k composed ε₀-DP mechanisms are (ε, δ)-DP with this ε (any ε₀, δ ∈ (0, 1))."""
    if eps0 > 700:  # e^ε₀ overflows; the bound is astronomically above any usable ε
        return math.inf
    return math.sqrt(2 * k * -math.log(delta)) * eps0 + k * eps0 * math.expm1(eps0)


def _softplus(x: float) -> float:
    """ln(1 + e^x) without overflow."""
    return max(x, 0.0) + math.log1p(math.exp(-abs(x)))


def optimal_delta(eps0: float, k: int, epsilon: float) -> float:
    """δ_opt(ε) of the k-fold composition of ε₀-DP mechanisms (Kairouz–Oh–Viswanath; exact, O(k))."""
    k = int(k)
    if eps0 <= 0:
        return 0.0
    # smallest l with (2l − k)·ε₀ > ε: below it every term is ≤ 0 (and is left out of the sum)
    ratio = epsilon / eps0
    if ratio >= k:
        return 0.0
    first = math.floor((k + ratio) / 2) + 1
    if first > k:
        return 0.0
    l = np.arange(first, k + 1, dtype=np.float64)
    # log C(k, l) by a running sum from l = first (exact lgamma once, then log-ratios)
    log_c0 = math.lgamma(k + 1) - math.lgamma(first + 1) - math.lgamma(k - first + 1)
    steps = np.log(k - l[:-1]) - np.log(l[:-1] + 1)
    log_c = log_c0 + np.concatenate(([0.0], np.cumsum(steps)))
    log_p, log_q = -_softplus(-eps0), -_softplus(eps0)  # p = e^ε₀/(1 + e^ε₀), q = 1 − p
    log_head = log_c + l * log_p + (k - l) * log_q
    loss = (2 * l - k) * eps0  # > ε for every l here
    terms = np.exp(log_head) * -np.expm1(epsilon - loss)
    return float(min(1.0, np.sum(terms)))


def certifies(eps0: float, k: int, epsilon: float, delta: float) -> bool:
    """True when k composed ε₀-DP mechanisms are provably (ε, δ)-DP by one of the bounds above."""
    if Fraction(eps0) * k <= Fraction(epsilon):  # basic composition, checked exactly
        return True
    if delta <= 0:
        return False
    if drv_epsilon(eps0, k, delta) <= epsilon * (1 - _MARGIN):
        return True
    return k <= EXACT_MAX_ROUNDS and optimal_delta(eps0, k, epsilon) <= delta * (1 - _MARGIN)


def closed_form(epsilon: float, delta: float, k: int) -> float:
    """D&R Corollary 3.21's per-round ε₀ = ε/√(8k ln(1/δ)) (valid only where :func:`certifies` says so)."""
    return epsilon / math.sqrt(8 * k * -math.log(delta))


def solve(epsilon: float, delta: float, k: int) -> float:
    """The largest ε₀ (to 1 part in 10^12) whose k-fold composition :func:`certifies` (ε, δ).

    The certificate only grows with ε₀ (each bound is increasing in ε₀), so bisection applies.
    Starts from basic composition ε/k, which is always certified.
    """
    lo = basic_per_round(epsilon, k)
    hi = 2 * lo if lo > 0 else math.ulp(0.0)  # ε/k may underflow to 0 (tiny ε, huge k)
    while certifies(hi, k, epsilon, delta):  # δ < 1 keeps this finite: δ_opt → 1 as ε₀ → ∞
        lo, hi = hi, 2 * hi
        if not math.isfinite(hi):
            raise ValueError(f"no finite per-round ε for epsilon={epsilon!r}, delta={delta!r}")
    for _ in range(_BISECTIONS):
        mid = (lo + hi) / 2
        if not lo < mid < hi or hi - lo <= lo * 1e-12:
            break
        if certifies(mid, k, epsilon, delta):
            lo = mid
        else:
            hi = mid
    return lo


@lru_cache(maxsize=256)
def per_round_epsilon(epsilon: float, delta: float, rounds: int) -> float:
    """ε₀ for each of ``rounds`` ε₀-DP mechanisms so that their composition is (ε, δ)-DP (module docstring).

    Raises :class:`~svtgui.core.noise.NoiseRangeError` (a ``ValueError``) when ε₀ is so small that the noise
    scale 4/ε₀ overflows.
    """
    eps = validation.positive("epsilon", epsilon)
    dlt = validation.probability("delta", delta)
    k = validation.count("rounds", rounds)
    basic = basic_per_round(eps, k)
    if dlt == 0:
        best = basic
    else:
        cf = closed_form(eps, dlt, k)
        best = max(basic, cf if certifies(cf, k, eps, dlt) else solve(eps, dlt, k))
    if not (best > 0 and math.isfinite(best) and math.isfinite(4 / best)):
        # a noise-scale refusal, so that ``mechanisms.create`` names ε and the cutoff with their usable ranges
        raise NoiseRangeError(f"per-round (epsilon = {epsilon:g} over cutoff {k})", math.inf)
    return best


def uses_closed_form(epsilon: float, delta: float, rounds: int) -> bool:
    """Whether :func:`per_round_epsilon` returns D&R's closed form (for notes and tests)."""
    if delta == 0:
        return False
    cf = closed_form(epsilon, delta, rounds)
    return cf >= basic_per_round(epsilon, rounds) and certifies(cf, rounds, epsilon, delta)
