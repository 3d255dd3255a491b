"""The exact chance that a query comes back ⊤: a closed form on the mechanism's own lattice.

Why a closed form: the preview used to estimate P[⊤] from 60 one-query runs per point, which
zig-zags near T. Every threshold-SVT mechanism here (AboveThreshold, Sparse, NumericSparse,
Standard SVT, the free-gap SVT) decides a query with true answer x by the integer comparison
(:mod:`svtgui.core.mechanisms.engine`)

    round(x/g) + ν ≥ ceil(T/g) + ρ,   ν ~ DL(b_ν), ρ ~ DL(b_ρ) independent,

where DL(b) is discrete Laplace, P[Z = z] = (1 − p)/(1 + p)·p^|z| with p = e^(−1/b), and the
scales b are what the mechanism reports in lattice steps (``noise_scales()``), rounded up by the
sampler's factor 1 + 2^-40 (:func:`svtgui.core.noise.exact_scale`). So P[⊤] = P[S ≥ d] with
S = ν − ρ (a sum of two symmetric two-sided geometrics, since ρ is symmetric) and
d = ceil(T/g) − round(x/g).

The tail of S, derived by summing the convolution Σ_z p^|z| q^|s−z| in closed form
(p = e^(−1/b_ρ), q = e^(−1/b_ν)), for d ≥ 1:

    P[S ≥ d] = [(1 − p)²·q^(d+1)/(1 + q) − (1 − q)²·p^(d+1)/(1 + p)] / ((1 − pq)(q − p)),

symmetric in p and q; for p = q its limit p^d·(d(1 − p²) + 1 + p + 2p²)/(1 + p)³; and
P[S ≥ d] = 1 − P[S ≥ 1 − d] for d ≤ 0 (S is symmetric). Evaluated in log space with
``expm1``/``log1p`` (p close to 1 at 2^40 steps, p^d far below the smallest double), with the
p = q form at the midpoint scale when the two terms cancel (the error there is second order,
since the function is symmetric). It is monotone in x and exact at every lattice point.

This is the probability for one comparison on its own: later queries of a run share ρ with the
earlier ones (Standard SVT, AboveThreshold) or follow a ⊤ (Sparse redraws ρ), and a run stops at
its cutoff, so it is what a query *would* do when compared — the right picture before spending,
and computed from public parameters only.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from svtgui.core.noise import exact_scale

_CLOSE = 1e-5  # |log R| below which the p = q form at the midpoint replaces the cancelling difference


def _log1mexp(a: float) -> float:
    """log(1 − e^(−a)) for a > 0, accurate for tiny and large a."""
    return math.log(-math.expm1(-a)) if a < 0.6931 else math.log1p(-math.exp(-a))


def _log_tail_equal(lam: float, d: int) -> float:
    """log P[S ≥ d], d ≥ 1, both scales 1/λ: p^d·(d(1 − p²) + 1 + p + 2p²)/(1 + p)³."""
    p = math.exp(-lam)
    one_minus_p2 = math.exp(_log1mexp(2 * lam))
    return -d * lam + math.log(d * one_minus_p2 + 1 + p + 2 * p * p) - 3 * math.log1p(p)


def _log_tail(lam: float, mu: float, d: int) -> float:
    """log P[S ≥ d] for d ≥ 1, with p = e^(−λ), q = e^(−μ) (λ = 1/b_ρ, μ = 1/b_ν)."""
    if mu > lam:  # symmetric: let q be the larger
        lam, mu = mu, lam
    p, q = math.exp(-lam), math.exp(-mu)
    log_1mp, log_1mq = _log1mexp(lam), _log1mexp(mu)
    # R = (1 − q)²(1 + q)p^(d+1) / ((1 − p)²(1 + p)q^(d+1)) ≤ 1
    log_r = 2 * (log_1mq - log_1mp) + math.log1p(q) - math.log1p(p) - (d + 1) * (lam - mu)
    if -log_r < _CLOSE:
        return _log_tail_equal((lam + mu) / 2, d)
    log_num = 2 * log_1mp - (d + 1) * mu - math.log1p(q) + _log1mexp(-log_r)
    log_den = _log1mexp(lam + mu) - mu + _log1mexp(lam - mu)
    return log_num - log_den


def tail(threshold_scale: float, query_scale: float, d: int) -> float:
    """P[ν − ρ ≥ d] for discrete Laplace ν, ρ of the given scales (in lattice steps, as sampled)."""
    lam, mu = 1.0 / threshold_scale, 1.0 / query_scale
    d = int(d)
    if d >= 1:
        return math.exp(_log_tail(lam, mu, d))
    return -math.expm1(_log_tail(lam, mu, 1 - d))


@dataclass(frozen=True)
class TopCurve:
    """What P[⊤] depends on: the lattice step, whether answers are integers, ceil(T/g), the two scales.

    Built from a mechanism (:meth:`of`) so the curve always uses the scales a run draws from."""

    step: float
    integer: bool
    threshold_unit: int
    threshold_scale: float  # lattice steps, as sampled (rounded up by 1 + 2^-40)
    query_scale: float

    @classmethod
    def of(cls, mechanism) -> TopCurve:
        """The curve of a threshold-SVT mechanism (``ValueError`` if it has no single threshold test)."""
        scales = mechanism.noise_scales() if hasattr(mechanism, "noise_scales") else {}
        lattice = getattr(mechanism, "lattice", None)
        if lattice is None or "threshold" not in scales or "query" not in scales:
            raise ValueError(f"{mechanism.info.name} has no single threshold test to draw")
        return cls(lattice.step, lattice.integer, lattice.threshold_unit(mechanism.threshold),
                   float(exact_scale(scales["threshold"])), float(exact_scale(scales["query"])))

    def probability(self, answers: Sequence[float] | np.ndarray) -> np.ndarray:
        """P[⊤] of a query compared on its own, for each true answer x (rounded to the lattice first)."""
        x = np.asarray(answers, dtype=np.float64)
        if np.any(np.isnan(x)):
            raise ValueError("the answer must be a number, got nan")
        with np.errstate(over="ignore"):  # x/step may overflow to ±inf: clipped just below
            units = np.rint(x / self.step)
        # Beyond 2^62 steps from anything a lattice holds (|T/g| ≤ 2^52, scales ≤ 2^40 steps) P[⊤] is
        # exactly 0 or 1 in doubles, so a typed 1e308 (or ±inf) is the answer at that distance.
        units = np.clip(units, -(2.0**62), 2.0**62)
        out = np.empty(x.shape)
        cache: dict[int, float] = {}
        for i, u in np.ndenumerate(units):
            d = self.threshold_unit - int(u)
            if d not in cache:
                cache[d] = tail(self.threshold_scale, self.query_scale, d)
            out[i] = cache[d]
        return out

    def _at(self, offset: int) -> float:
        """P[⊤] of the lattice answer ceil(T/g) + offset."""
        return tail(self.threshold_scale, self.query_scale, -offset)

    def answer_at(self, probability: float) -> float:
        """The smallest lattice answer whose P[⊤] reaches ``probability`` (the curve is monotone)."""
        target = float(probability)
        lo, hi = -1, 0  # offsets from ceil(T/g) with P(lo) < target ≤ P(hi), found by doubling
        while self._at(hi) < target:
            hi = 2 * hi + 1
        while self._at(lo) >= target:
            lo *= 2
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if self._at(mid) >= target:
                hi = mid
            else:
                lo = mid
        return (self.threshold_unit + hi) * self.step

    def span(self, points: int = 161, coverage: float = 1e-3, include: Sequence[float] = ()) -> np.ndarray:
        """Answers from where P[⊤] is ``coverage`` to where it is 1 − ``coverage`` (widened to reach
        every value of ``include``, e.g. T ± α), evenly spaced (lattice points for integer answers)."""
        lo = min([self.answer_at(coverage), *include])
        hi = max([self.answer_at(1 - coverage), *include])
        if hi <= lo:
            hi = lo + self.step
        x = np.linspace(lo, hi, points)
        return np.unique(np.round(x)) if self.integer else x
