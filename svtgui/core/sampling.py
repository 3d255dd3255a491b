"""Exact integer samplers: every noise value in SVT Studio comes from here.

What "exact" means
------------------
Given uniform random words, each function returns values whose law is *exactly* the one stated,
with no floating-point step anywhere: probabilities are never rounded, only compared with random
bits through integer arithmetic that is certified (interval bounds that always contain the true
value). There is no "close to" and no unaccounted δ.

Building blocks (Canonne, Kamath & Steinke 2020, the algorithms OpenDP uses)
----------------------------------------------------------------------------
* :func:`uniform_below` — uniform on ``[0, n)`` by rejection on ``n.bit_length()`` random bits;
* :func:`bernoulli` — Bernoulli(num/den) as ``uniform_below(den) < num``;
* :func:`bernoulli_exp` — Bernoulli(exp(−γ)) for rational γ (CKS Algorithm 1: for γ ≤ 1, draw
  Bernoulli(γ/k) for k = 1, 2, … until one fails, and return whether the number of draws K is odd,
  since P[K > k] = γ^k/k!; for γ > 1, ⌊γ⌋ Bernoulli(e^-1) and one Bernoulli(e^-(γ-⌊γ⌋)));
* :func:`discrete_gaussian` — ``P[Y = y] ∝ exp(−y²/(2σ²))`` (CKS Algorithm 3: a discrete Laplace
  of scale t = ⌊σ⌋+1 accepted with probability exp(−(|Y| − σ²/t)²/(2σ²)), a rational exponent).

The geometric and the discrete Laplace (the hot path)
-----------------------------------------------------
CKS's geometric costs about nine Bernoulli trials per draw, too slow for the million-answer
streams SVT serves. We sample the same law by exact inversion in base B = 256, using the fact that
the base-B digits of a geometric variable are independent: if ``P[G = g] ∝ r^g`` with r = e^(−1/t),
then ``G = D_0 + D_1·B + … + D_(J−1)·B^(J−1) + Q·B^J`` with independent digits
``P[D_j = b] ∝ r_j^b`` on ``[0, B)`` (r_j = r^(B^j)) and ``P[Q = q] ∝ r_J^q`` on all q ≥ 0
(because r^g factorises over the digits of g). J is the smallest level with r_J ≤ e^-1.

Each digit is ``#{b ≥ 1 : U < P[D ≥ b]}`` for a uniform real U, which is an exact inversion as long
as every comparison of U with a threshold ``P[D ≥ b]`` is decided correctly. U's binary expansion
is read lazily: 16 bits decide the digit unless a threshold lies in that 2^-16 interval (a
precomputed table says which); then 48 more bits; if U's 64-bit prefix equals ``⌊P·2^64⌋`` the
comparison continues bit by bit against ever more precise bounds (:func:`_refine`). The thresholds
come from :func:`exp_neg_bounds`, which brackets e^(−γ) for rational γ with integer arithmetic
only (an alternating Taylor series on exact fractions, then repeated squaring with outward
rounding), and a threshold's integer part ``⌊P·2^64⌋`` is used only when its bracket certifies it.
So the law of G is exactly geometric: this is not an approximation with a small error, it is the
distribution itself, at any scale.

The discrete Laplace is CKS Algorithm 2 on top: a fair sign and a geometric, rejecting "−0" so
that 0 is not counted twice: ``P[Z = z] ∝ exp(−|z|/t)``.

Scales are exact rationals (a double is a rational, and ``Fraction(t)`` is exactly it). Values
that exceed int64 (possible only on the bit-by-bit path, below e^-1000 per draw at the scales the
mechanisms accept) are returned exactly as Python ints in an ``object`` array.

Randomness
----------
``words(n)`` is any callable returning ``n`` independent uniform uint64 words; in SVT Studio it is
:meth:`svtgui.core.noise.NoiseSource.words` (the OS CSPRNG, or the seeded source of tests). Every
bit is used once.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import numpy as np

Words = Callable[[int], np.ndarray]

BASE = 256
_PREFIX = 16
_PREC = 128
_MAX_I64 = (1 << 63) - 1


class Bits:
    """Uniform 8-, 16- or 64-bit integers and Python ints cut from a buffer of uniform 64-bit words."""

    __slots__ = ("_words", "_buffer")

    def __init__(self, words: Words) -> None:
        self._words = words
        self._buffer = np.empty(0, dtype=np.uint8)

    def take(self, n: int, width: int) -> np.ndarray:
        """``n`` uniform ``width``-bit integers (width 8, 16 or 64): a uint8/uint16/uint64 view."""
        need = n * (width // 8)
        if need > self._buffer.size:
            fresh = self._words(-(-(need - self._buffer.size) // 8) + 512).view(np.uint8)
            self._buffer = np.concatenate([self._buffer, fresh]) if self._buffer.size else fresh
        raw, self._buffer = self._buffer[:need], self._buffer[need:]
        return raw.view({8: np.uint8, 16: np.uint16, 64: np.uint64}[width])

    def python_int(self, bits: int) -> int:
        """One uniform integer of ``bits`` bits (any size) as a Python int."""
        if bits <= 0:
            return 0
        words = -(-bits // 64)
        value = int.from_bytes(self.take(words, 64).tobytes(), "little")
        return value >> (64 * words - bits)

    def signs(self, n: int) -> np.ndarray:
        """``n`` fair coin flips (True = negative), eight per byte."""
        return np.unpackbits(self.take(-(-n // 8), 8))[:n].view(bool)


# -- CKS building blocks on Python ints ----------------------------------------------------------
def uniform_below(bits: Bits, bound: int) -> int:
    """Uniform on ``[0, bound)`` by rejection: draw ``(bound−1).bit_length()`` bits until below bound."""
    if bound < 1:
        raise ValueError(f"bound must be >= 1, got {bound}")
    length = (bound - 1).bit_length()
    while True:
        value = bits.python_int(length)
        if value < bound:
            return value


def bernoulli(bits: Bits, p: Fraction) -> bool:
    """Bernoulli(p) for a rational p in [0, 1]."""
    return uniform_below(bits, p.denominator) < p.numerator


def _bernoulli_exp_unit(bits: Bits, gamma: Fraction) -> bool:
    """CKS Algorithm 1 for γ ∈ [0, 1]: K = first k with Bernoulli(γ/k) = 0; return K odd."""
    k = 1
    while bernoulli(bits, gamma / k):
        k += 1
    return k % 2 == 1


def bernoulli_exp(bits: Bits, gamma: Fraction) -> bool:
    """Bernoulli(exp(−γ)) for a rational γ ≥ 0 (CKS Algorithm 1 and its extension to γ > 1)."""
    if gamma < 0:
        raise ValueError(f"gamma must be >= 0, got {gamma}")
    for _ in range(gamma.numerator // gamma.denominator):
        if not _bernoulli_exp_unit(bits, Fraction(1)):
            return False
    return _bernoulli_exp_unit(bits, gamma - gamma.numerator // gamma.denominator)


# -- certified bounds on exp(-γ) ------------------------------------------------------------------
def exp_neg_bounds(gamma: Fraction, prec: int) -> tuple[int, int]:
    """Integers ``lo ≤ e^(−γ)·2^prec ≤ hi`` for a rational γ ≥ 0, with ``hi − lo`` a few units.

    e^(−z) for z = γ/2^s ≤ 1/2 is an alternating series with decreasing terms, so a partial sum
    is within its next term of the limit; squaring s times with floor (lower) and ceiling (upper)
    rounding keeps the bracket. Only exact fractions and integers are involved.
    """
    if gamma == 0:
        return 1 << prec, 1 << prec
    if gamma > prec:  # e^(-γ) < 2^-prec
        return 0, 1
    s = max(0, (gamma.numerator // gamma.denominator).bit_length() + 1)
    z = gamma / (1 << s)
    work = prec + s + 16
    total, term, k = Fraction(1), Fraction(1), 0
    while True:
        k += 1
        term = -term * z / k
        if abs(term) * (1 << (work + 2)) < 1:
            break
        total += term
    lo = ((total - abs(term)) * (1 << work)).__floor__()
    hi = ((total + abs(term)) * (1 << work)).__ceil__()
    for _ in range(s):
        lo, hi = (lo * lo) >> work, -((-hi * hi) >> work)
    shift = work - prec
    return lo >> shift, -((-hi) >> shift)


# -- exact inversion of one digit -----------------------------------------------------------------
@dataclass(frozen=True)
class _Digit:
    """One digit of the base-B decomposition: ``P[D = b] ∝ e^(−b·y)`` on [0, B) (truncated) or on all b ≥ 0.

    ``cuts[b−1] = ⌊P[D ≥ b]·2^64⌋`` (certified; decreasing); for the untruncated top digit the
    thresholds below 2^-64 are represented by one extra cut 0 (its tail, resolved by :func:`_refine`).
    ``table[p]`` is the digit decided by the 16-bit prefix p, or −1 when a threshold falls inside.
    """

    y: Fraction
    truncated: bool
    cuts: np.ndarray  # uint64, decreasing
    table: np.ndarray  # int16, −1 = undecided

    def threshold_bounds(self, b: int, prec: int) -> tuple[int, int]:
        """``lo ≤ P[D ≥ b]·2^prec ≤ hi`` (certified)."""
        return _threshold_bounds(self.y, self.truncated, b, prec)


@lru_cache(maxsize=4096)
def _threshold_bounds(y: Fraction, truncated: bool, b: int, prec: int) -> tuple[int, int]:
    """:meth:`_Digit.threshold_bounds`, cached: the bit-by-bit path asks for the same few again."""
    guard = prec + 32
    lo_b, hi_b = exp_neg_bounds(b * y, guard)
    if not truncated:
        return lo_b >> 32, -((-hi_b) >> 32)
    lo_B, hi_B = exp_neg_bounds(BASE * y, guard)
    one = 1 << guard
    num_lo, num_hi = max(lo_b - hi_B, 0), hi_b - lo_B
    den_lo, den_hi = one - hi_B, one - lo_B
    return (num_lo << prec) // den_hi, -((-(num_hi << prec)) // den_lo)


def _certified_cuts(y: Fraction, truncated: bool) -> list[int]:
    """``⌊P[D ≥ b]·2^64⌋`` for b = 1, 2, … (all of [1, B) or, untruncated, until below 2^-64).

    Powers r^b come from one bracket of r = e^(−y) multiplied with outward rounding, so the
    brackets stay certified; a cut is taken only when its bracket fixes the integer part (else the
    whole table is recomputed at twice the precision).
    """
    prec = _PREC
    while True:
        r_lo, r_hi = exp_neg_bounds(y, prec)
        one = 1 << prec
        lo, hi = [one], [one]
        cuts: list[int] = []
        certified = True
        b = 1
        while (b < BASE) if truncated else True:
            lo.append(lo[-1] * r_lo >> prec)
            hi.append(-((-hi[-1] * r_hi) >> prec))
            b += 1
            if not truncated and hi[-1] >> (prec - 64) == 0:
                break
        if truncated:
            lo.append(lo[-1] * r_lo >> prec)
            hi.append(-((-hi[-1] * r_hi) >> prec))
            top_lo, top_hi = lo[BASE], hi[BASE]
            bounds = [((max(lo[b] - top_hi, 0) << prec) // (one - top_lo),
                       -((-((hi[b] - top_lo) << prec)) // (one - top_hi))) for b in range(1, BASE)]
        else:  # the last power is below 2^-64: it and all later ones form the tail cut 0
            bounds = list(zip(lo[1:-1], hi[1:-1], strict=True))
        for b_lo, b_hi in bounds:
            if b_lo >> (prec - 64) != b_hi >> (prec - 64):
                certified = False
                break
            cuts.append(b_lo >> (prec - 64))
        if certified:
            if not truncated:
                cuts.append(0)  # the tail: every later threshold is below 2^-64 too
            return cuts
        prec *= 2


@lru_cache(maxsize=64)
def _digit(y: Fraction, truncated: bool) -> _Digit:
    cuts = np.array(_certified_cuts(y, truncated), dtype=np.uint64)
    ascending = cuts[::-1]
    step = np.uint64(1 << (64 - _PREFIX))
    prefixes = np.arange(1 << _PREFIX, dtype=np.uint64)
    # thresholds P with P·2^64 ≥ (p+1)·2^48 are certainly above U; those ≥ p·2^48 may be inside.
    above = cuts.size - np.searchsorted(ascending, (prefixes + np.uint64(1)) * step - np.uint64(1), "right")
    above[-1] = cuts.size - np.searchsorted(ascending, np.uint64((1 << 64) - 1), "right")
    maybe = cuts.size - np.searchsorted(ascending, prefixes * step, "left")
    table = np.where(maybe == above, above, -1).astype(np.int16)  # 128 KiB: digits and −1 fit
    return _Digit(y, truncated, cuts, table)


def _refine(bits: Bits, digit: _Digit, word: int) -> int:
    """The digit for a U whose 64-bit prefix ``word`` equals some cut: read more bits until decided."""
    count = int(np.count_nonzero(digit.cuts > np.uint64(word)))
    b = count + 1
    prefix, known = word, 64
    while digit.truncated is False or b < BASE:
        # Is U < P[D ≥ b]?  U ∈ [prefix, prefix + 1)/2^known.
        while True:
            lo, hi = digit.threshold_bounds(b, known)
            if prefix + 1 <= lo:
                below = True
                break
            if prefix >= hi:
                below = False
                break
            prefix, known = (prefix << 64) | bits.python_int(64), known + 64
        if not below:
            return b - 1
        b += 1
    return BASE - 1


def _sample_digit(bits: Bits, digit: _Digit, n: int) -> np.ndarray:
    """``n`` independent digits (int64, or object if the top digit overflowed int64)."""
    prefix = bits.take(n, _PREFIX)
    out = digit.table[prefix].astype(np.int64)
    open_ = np.flatnonzero(out < 0)
    if open_.size == 0:
        return out
    low = bits.take(open_.size, 64) >> np.uint64(_PREFIX)  # 48 more bits of U
    words = (prefix[open_].astype(np.uint64) << np.uint64(64 - _PREFIX)) | low
    ascending = digit.cuts[::-1]
    out[open_] = digit.cuts.size - np.searchsorted(ascending, words, "right")
    tied = np.isin(words, digit.cuts)
    if tied.any():
        out = out.astype(object)
        for i, w in zip(open_[tied], words[tied], strict=True):
            out[i] = _refine(bits, digit, int(w))
    return out


# -- geometric and discrete Laplace ---------------------------------------------------------------
@lru_cache(maxsize=16)
def _levels(scale: Fraction) -> tuple[_Digit, ...]:
    """The digits of Geom(e^(−1/t)): truncated levels j < J, then the untruncated top (r_J ≤ e^-1)."""
    y = 1 / scale
    levels = []
    while y < 1:
        levels.append(_digit(y, True))
        y *= BASE
    levels.append(_digit(y, False))
    return tuple(levels)


def geometric(bits: Bits, scale: Fraction, size: int) -> np.ndarray:
    """``size`` draws with ``P[G = g] = (1 − e^(−1/t))·e^(−g/t)`` for g ≥ 0, t = ``scale`` > 0."""
    if scale <= 0:
        raise ValueError(f"scale must be > 0, got {scale}")
    out: np.ndarray | None = None
    weight = 1
    for digit in _levels(scale):
        d = _sample_digit(bits, digit, size)
        if out is None:
            out = d
        elif out.dtype == object or d.dtype == object or weight * (BASE - 1) > _MAX_I64 // 2:
            out = out.astype(object) + d.astype(object) * weight
        else:
            d *= weight
            out += d
        weight *= BASE
    assert out is not None
    return _narrowed(out) if out.dtype == object else out


def _narrowed(values: np.ndarray) -> np.ndarray:
    """int64 when every (Python int) value fits, else the object array (exact either way)."""
    if all(-_MAX_I64 - 1 <= int(x) <= _MAX_I64 for x in values):
        return values.astype(np.int64)
    return values


def discrete_laplace(bits: Bits, scale: Fraction, size: int) -> np.ndarray:
    """``size`` draws with ``P[Z = z] ∝ exp(−|z|/t)`` on the integers (CKS Algorithm 2).

    Each entry is a fair sign and a geometric; an entry that came out "−0" is drawn again (sign
    and magnitude), entry by entry, which is exactly CKS's rejection step.
    """
    z = geometric(bits, scale, size)
    negative = bits.signs(size)
    again = np.flatnonzero(negative & (z == 0))
    if z.dtype == object:
        z[negative] = -z[negative]
    else:
        np.negative(z, out=z, where=negative)
    if again.size:
        redraw = discrete_laplace(bits, scale, again.size)
        if redraw.dtype == object and z.dtype != object:
            z = z.astype(object)
        z[again] = redraw
    return z


def discrete_gaussian(bits: Bits, sigma: Fraction, size: int) -> np.ndarray:
    """``size`` draws with ``P[Y = y] ∝ exp(−y²/(2σ²))`` on the integers (CKS Algorithm 3).

    The acceptance exponent (|Y| − σ²/t)²/(2σ²) is a rational with large terms, so it runs on
    Python ints (SparseProject draws a few thousand values per release).
    """
    t = Fraction(sigma.numerator // sigma.denominator + 1)
    sigma2 = sigma * sigma
    out: list[int] = []
    while len(out) < size:
        for y in discrete_laplace(bits, t, max(16, 2 * (size - len(out)))).tolist():
            if bernoulli_exp(bits, (abs(y) - sigma2 / t) ** 2 / (2 * sigma2)):
                out.append(int(y))
                if len(out) == size:
                    break
    return _narrowed(np.array(out, dtype=object)) if out else np.zeros(0, dtype=np.int64)
