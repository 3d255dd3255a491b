"""Exact sampling of the exponential mechanism's top c (c rounds without replacement).

Each round picks i among the remaining items R with ``P[i] ∝ exp(−γ·(u_m − u_i))``, u_m the largest
remaining answer, for a rational γ. It is done by rejection: propose i uniformly on R (exact, from
random bits) and accept with probability ``p_i = exp(−γ·d_i)``, ``d_i = u_m − u_i ≥ 0`` an exact
rational. The first accepted proposal is i with probability ``(p_i/|R|) / Σ_j (p_j/|R|) = p_i / Σ_j p_j``:
the exponential mechanism's law, with no approximation. The item with d = 0 is accepted surely, so a
round needs at most |R| proposals on average.

Each Bernoulli(p_i) is decided as ``V < p_i`` for a uniform real V whose binary expansion is read
lazily. Its first 53 bits U settle the comparison against a certified bracket ``lo ≤ p_i ≤ hi``
(accept if ``U + 1 ≤ lo·2^53``, reject if ``U ≥ hi·2^53``); only when U falls inside the bracket
(probability about 2^-20·p_i) are more bits read and compared with ever tighter integer bounds from
:func:`~svtgui.core.sampling.exp_neg_bounds` on the exact exponent. Whatever screen decides, the
answer is the indicator of ``V < p_i`` itself, so the screen changes the cost, never the law.

The bracket is computed in numpy from the float approximation t of ``1024·γ·d_i`` and IEEE-754 basic
operations (each correctly rounded) only, never from a library ``exp``: with k = ⌊t⌋,
``e^(−γd) = e^(−⌊k/1024⌋)·e^(−(k mod 1024)/1024)·e^(−r)``, the first two factors from tables of
certified bounds (integers from ``exp_neg_bounds`` rounded outwards to doubles), and
``1 − r ≤ e^(−r) ≤ 1 − r + r²`` for the remainder ``|r| ≤ 2^-10 + η``, where η bounds t's error
(three correct roundings: ``|t − 1024γd| ≤ 2^-51·t``, below 2^-35 where the tables are used; a
difference that underflows is exact). The product is widened by ``1 ± 2^-45``, far more than the
few roundings (each ≤ 2^-53) of computing it. When γd > 45 certainly,
``p_i < 2^-64`` and the screen rejects every U ≥ 1.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache

import numpy as np

from svtgui.core.sampling import Bits, exp_neg_bounds

_STEPS = 1024  # table resolution: e^(-j/1024) for j < 1024
_NEAR = 46  # tables cover γd ≤ 46; beyond, the screen uses p < 2^-64
_ETA = 2.0**-40  # bound on the remainder's error from float rounding (analysis: module docstring)
_WIDEN = 2.0**-45
_TWO_53 = 2.0**53
_FIRST_BATCH = 64
_MAX_BATCH = 1 << 16
_PREC = 80


def _outward(lo: int, hi: int, prec: int) -> tuple[float, float]:
    """Doubles bracketing ``[lo, hi]/2^prec``: round to nearest, then one step outwards."""
    return (math.nextafter(float(Fraction(lo, 1 << prec)), 0.0),
            math.nextafter(float(Fraction(hi, 1 << prec)), math.inf))


@lru_cache(maxsize=1)
def _table() -> tuple[np.ndarray, np.ndarray]:
    """Double bounds of e^(−k/1024) for k = 0 … 46·1024: products of certified bounds of e^(−a) and
    e^(−b/1024), k = 1024a + b (the product's rounding is absorbed by the final widening)."""
    whole = [_outward(*exp_neg_bounds(Fraction(a), _PREC), _PREC) for a in range(_NEAR + 1)]
    frac = [_outward(*exp_neg_bounds(Fraction(b, _STEPS), _PREC), _PREC) for b in range(_STEPS)]
    lo = np.outer([w[0] for w in whole], [f[0] for f in frac]).ravel()
    hi = np.outer([w[1] for w in whole], [f[1] for f in frac]).ravel()
    return lo, hi


def _below_exp(bits: Bits, prefix: int, known: int, x: Fraction) -> bool:
    """Whether V < e^(−x), for a uniform V whose first ``known`` bits are ``prefix``: reads more bits
    until certified integer bounds decide (exact)."""
    while True:
        lo, hi = exp_neg_bounds(x, known)
        if prefix + 1 <= lo:
            return True
        if prefix >= hi:
            return False
        prefix, known = (prefix << 64) | bits.python_int(64), known + 64


def _screen(t: np.ndarray, u53: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(surely accepted, surely rejected) for trials with ``t ≈ 1024·γ·d`` (≥ 0, not NaN) and first
    53 bits ``u53``. Beyond the tables, γd > 45 and t is replaced by 45·1024, whose bracket's upper
    end e^-45 still bounds p from above (and whose lower end, below 2^-53, accepts nothing)."""
    lo, hi = _table()
    t = np.where(t > _NEAR * _STEPS, (_NEAR - 1) * _STEPS, t)
    k = t.astype(np.int64)  # t ≥ 0: truncation is the floor
    r = (t - k) * (1.0 / _STEPS)
    p_lo = lo[k] * (1.0 - (r + _ETA)) * (1.0 - _WIDEN)
    p_hi = hi[k] * (1.0 - (r - _ETA) + (r + _ETA) ** 2) * (1.0 + _WIDEN)
    return u53 + 1.0 <= p_lo * _TWO_53, u53 >= p_hi * _TWO_53


def _uniform_indices(bits: Bits, n: int, size: int) -> np.ndarray:
    """Independent uniform integers on [0, n), at most ``size`` of them (rejection on bit-length words)."""
    length = (n - 1).bit_length()
    if length == 0:
        return np.zeros(size, dtype=np.int64)
    j = (bits.take(size, 64) >> np.uint64(64 - length)).astype(np.int64)
    return j[j < n]


def _one_round(bits: Bits, answers: np.ndarray, remaining: np.ndarray, gamma: Fraction,
               gamma_1024: float) -> int:
    """The position in ``remaining`` of one exponential-mechanism draw among the remaining items."""
    top = int(remaining[np.argmax(answers[remaining])])
    u_top = float(answers[top])
    batch = _FIRST_BATCH
    while True:
        positions = _uniform_indices(bits, remaining.size, batch)
        items = remaining[positions]
        u53 = (bits.take(items.size, 64) >> np.uint64(11)).astype(np.float64)
        if math.isnan(gamma_1024):
            accept = reject = np.zeros(items.size, dtype=bool)
        else:
            with np.errstate(over="ignore"):
                accept, reject = _screen(gamma_1024 * (u_top - answers[items]), u53)
        for n in np.flatnonzero(~reject):
            i = int(items[n])
            if accept[n] or _below_exp(bits, int(u53[n]), 53,
                                       gamma * (Fraction(u_top) - Fraction(float(answers[i])))):
                return int(positions[n])
        batch = min(2 * batch, _MAX_BATCH)


def exponential_top_c(bits: Bits, answers: np.ndarray, gamma: Fraction, c: int) -> tuple[int, ...]:
    """min(c, n) distinct indices of ``answers`` drawn by c sequential rounds of the exponential
    mechanism, ``P[i] ∝ exp(γ·u_i)`` among the items not yet drawn, exactly (module docstring)."""
    if gamma <= 0:
        raise ValueError(f"gamma must be > 0, got {gamma}")
    answers = np.asarray(answers, dtype=np.float64)
    gamma_float = float(gamma)
    # the float screen's error analysis needs 1024·γ a normal double; otherwise every trial is exact
    gamma_1024 = gamma_float * _STEPS if 2.0**-1000 <= gamma_float <= 2.0**1000 else math.nan
    remaining = np.arange(answers.size, dtype=np.int64)
    chosen: list[int] = []
    for _ in range(min(c, answers.size)):
        pos = _one_round(bits, answers, remaining, gamma, gamma_1024)
        chosen.append(int(remaining[pos]))
        remaining[pos] = remaining[-1]
        remaining = remaining[:-1]
    return tuple(chosen)
