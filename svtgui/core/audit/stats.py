"""Exact binomial statistics for the auditor, with numpy only (no scipy).

Why exact: the auditor's verdict is a p-value, and a normal approximation is least accurate
exactly where the auditor works (rare events, huge ratios). Everything here is computed from
log-space binomial tails, summed over the window of terms that carry the mass:

* :func:`binom_log_sf` / :func:`binom_log_cdf`: ``log P[X ≥ k]`` / ``log P[X ≤ k]``;
* :func:`clopper_pearson`: exact one-sided confidence bounds by bisection on those tails;
* :func:`ratio_test`: the union-bound test of ``H0: p1 ≤ e^ε·p2`` for two independent binomial
  counts, and the matching lower confidence bound on ``ln(p1/p2)`` (DP-Sniper's ε_lcb).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

_BISECT = 80  # halvings: log-space bisection from [1e-300, 1] to far below float resolution


def _log_pmf_run(k0: int, k1: int, n: int, p: float) -> np.ndarray:
    """``log P[X = k]`` for k = k0..k1, X ~ Bin(n, p), 0 < p < 1 (one lgamma, then a cumsum)."""
    base = (math.lgamma(n + 1) - math.lgamma(k0 + 1) - math.lgamma(n - k0 + 1)
            + k0 * math.log(p) + (n - k0) * math.log1p(-p))
    if k1 == k0:
        return np.array([base])
    k = np.arange(k0, k1, dtype=np.float64)
    steps = np.log(n - k) - np.log(k + 1) + (math.log(p) - math.log1p(-p))
    return base + np.concatenate(([0.0], np.cumsum(steps)))


def _logsumexp(x: np.ndarray) -> float:
    m = float(np.max(x))
    return m + math.log(float(np.sum(np.exp(x - m))))


def _window(n: int, p: float) -> tuple[int, int]:
    """Indices outside which binomial terms are below e^-700 of the largest (40 sd plus slack)."""
    mean = n * p
    spread = 40.0 * math.sqrt(n * p * (1 - p)) + 50.0
    return max(0, int(mean - spread)), min(n, int(math.ceil(mean + spread)))


def binom_log_cdf(k: int, n: int, p: float) -> float:
    """``log P[X ≤ k]`` for X ~ Bin(n, p)."""
    if k < 0:
        return -math.inf
    if k >= n or p <= 0.0:
        return 0.0
    if p >= 1.0:
        return -math.inf
    lo, hi = _window(n, p)
    lo = min(lo, max(0, k - (hi - lo)))  # a k far in the left tail: sum the terms nearest k
    return min(0.0, _logsumexp(_log_pmf_run(lo, k, n, p)))


def binom_log_sf(k: int, n: int, p: float) -> float:
    """``log P[X ≥ k]`` for X ~ Bin(n, p) (by symmetry: X ≥ k iff n − X ≤ n − k)."""
    return binom_log_cdf(n - k, n, 1.0 - p) if 0.0 < p < 1.0 else (
        0.0 if k <= 0 or p >= 1.0 else -math.inf)


def _bisect_log_p(predicate, lo: float = 1e-300, hi: float = 1.0) -> float:
    """The boundary in (lo, hi) where ``predicate(p)`` turns from False to True (log-space bisection)."""
    a, b = math.log(lo), math.log(hi)
    for _ in range(_BISECT):
        mid = 0.5 * (a + b)
        if predicate(math.exp(mid)):
            b = mid
        else:
            a = mid
    return math.exp(b)


def clopper_pearson(k: int, n: int, alpha: float) -> tuple[float, float]:
    """One-sided exact bounds: ``(lower, upper)`` each holding with probability ≥ 1 − alpha.

    lower = the p with P_p[X ≥ k] = alpha (0 when k = 0); upper = the p with P_p[X ≤ k] = alpha
    (1 when k = n).
    """
    log_a = math.log(alpha)
    lower = 0.0 if k == 0 else _bisect_log_p(lambda p: binom_log_sf(k, n, p) >= log_a)
    upper = 1.0 if k == n else _bisect_log_p(lambda p: binom_log_cdf(k, n, p) <= log_a)
    return lower, upper


@dataclass(frozen=True)
class RatioTest:
    """Outcome of testing ``H0: p1 ≤ e^ε·p2`` from counts k1/n1 and k2/n2."""

    p_value: float
    epsilon_lcb: float  # lower confidence bound on ln(p1/p2) at confidence 1 − alpha (≥ 0)
    p1_lower: float
    p2_upper: float


def ratio_test(k1: int, n1: int, k2: int, n2: int, epsilon: float, alpha: float,
               delta: float = 0.0) -> RatioTest:
    """The union-bound Clopper–Pearson test of ``H0: p1 ≤ e^ε·p2 + δ`` and DP-Sniper's ε_lcb.

    With probability ≥ 1 − α both one-sided bounds hold (α/2 each), so
    ``ln((p1_lower − δ)/p2_upper)`` is a (1 − α) lower bound on the ε the event demonstrates, and
    H0 is rejected at level α when it exceeds ε. The p-value is the smallest α at which that
    happens: ``2·min_q max(P_{e^ε q + δ}[X1 ≥ k1], P_q[X2 ≤ k2])``, found by bisection on q where
    the two tails cross (one increases in q, the other decreases).
    """
    p1_lower = clopper_pearson(k1, n1, alpha / 2)[0]
    p2_upper = clopper_pearson(k2, n2, alpha / 2)[1]
    lcb = math.log((p1_lower - delta) / p2_upper) if p1_lower > delta else 0.0
    return RatioTest(_ratio_p_value(k1, n1, k2, n2, epsilon, delta), max(0.0, lcb), p1_lower, p2_upper)


def _ratio_p_value(k1: int, n1: int, k2: int, n2: int, epsilon: float, delta: float) -> float:
    if k1 == 0:
        return 1.0
    factor = math.exp(epsilon)

    def tail1(q: float) -> float:  # P[X1 ≥ k1] when p1 = e^ε q + δ: increasing in q
        return binom_log_sf(k1, n1, min(1.0, factor * q + delta))

    def tail2(q: float) -> float:  # P[X2 ≤ k2] when p2 = q: decreasing in q
        return binom_log_cdf(k2, n2, q)

    crossing = _bisect_log_p(lambda q: tail1(q) >= tail2(q), hi=1.0 / factor)
    return min(1.0, 2.0 * math.exp(max(tail1(crossing), tail2(crossing))))
