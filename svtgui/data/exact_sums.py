"""Clipped sums computed exactly: the one rule every engine (pandas, DuckDB, Spark) follows.

Why
---
A clipped sum's sensitivity Δ (``max(|l|, |u|)`` under add/remove, ``u − l`` under replace) holds for
the *real* sum. A floating-point sum is not the real sum, and its error depends on the order of the
additions: with values like 1e16, 1 and subnormals, or a clip difference at a large bound b with a
small step s (prefix sums of values near b, then a subtraction), two neighbouring datasets can
come out further apart than Δ. The mechanisms' noise lattice absorbs one step of rounding, not
an unbounded floating-point error. So the sum is computed in integers, where order cannot matter.

The rule (:func:`sum_grid`, :func:`exact_clipped_sum`)
-----------------------------------------------------
For clip bounds ``l ≤ u`` (public numbers: the query's or the declared ones):

1. **Grid.** ``m = max(|l|, |u|)``; ``e`` is ``math.frexp(m)[1]`` (so m < 2^e, and e = 0 when
   m = 0); the grid step is ``q = 2^k`` with ``k = max(e − 60, −1074)``. It depends only on the
   public bounds, never on the data. Every double of magnitude ≥ 2^(e−8) is a multiple of q.
2. **Integer bounds.** ``L = ceil(l / q)``, ``U = floor(u / q)`` (exact: q is a power of two, so
   l/q is an exact double; |L|, |U| ≤ 2^60). ``L ≤ U`` because the larger-magnitude bound is on the grid.
3. **Each row** (missing values are skipped): ``v = clip(rint(x / q), L, U)``, ``rint`` rounding
   half to even (numpy ``rint``, DuckDB ``round_even``, Spark ``bround``). ``x / q`` is exact in
   double arithmetic; if it overflows to ±∞ the clip maps it to L or U, which is the right value.
4. **Sum** the integers exactly: Python ints, DuckDB HUGEINT / DECIMAL(38, 0), Spark DECIMAL(38, 0),
   or numpy int64 after splitting each v into ``v >> 30`` and ``v & (2^30 − 1)`` as here. Never
   floating point.
5. **Answer** ``N·q`` rounded once to the nearest double (ties to even), ±∞ if it overflows.

Clip differences ``Σclip(x, 0, b+s) − Σclip(x, 0, b)`` (:func:`exact_clip_diff`) clip to [b, t]
where t is b + s rounded *down* to a double (t ≤ b + s exactly, found with an error-free TwoSum),
on the grid of t: ``B = ceil(b/q)``, ``U = max(B, floor(t/q))``, and add ``clip(rint(x/q), B, U) − B``
per row; ``normalised`` divides the exact N·q by s before the single rounding. Engines take (k, L, U)
from :func:`sum_grids` / :func:`clip_diff_grids` and implement only steps 3–5 per row.

What is guaranteed
------------------
* **Order independence:** integer addition is associative; the answer is a function of the
  multiset of values only.
* **Sensitivity, exactly:** each row's integer lies in [L, U], so neighbouring datasets' integers
  differ by at most max(|L|, |U|) ≤ max(|l|, |u|)/q (add/remove) or U − L ≤ (u − l)/q (replace);
  for clip differences by at most U − B ≤ s/q. The exact values N·q therefore differ by at most the
  declared Δ, with no slack at all.
* **One rounding at the end:** the returned double is N·q correctly rounded, so two neighbours'
  answers differ by at most Δ plus half a unit in the last place of each. The mechanisms' lattice
  (:class:`svtgui.core.noise.Lattice`, step g, refusing |answer| > 2^52·g) keeps every lattice
  multiple exactly representable, so a correctly rounded answer never crosses a lattice point
  the exact value does not cross: its lattice integer lies between ⌊N·q/g⌋ and ⌈N·q/g⌉, and
  neighbours differ by at most ⌈Δ/g⌉ + 1 lattice units, the documented ``Lattice.units``.
* **Accuracy:** each row moves by at most q ≤ 2^-59·max(|l|, |u|) (rounding to the grid, plus the
  inward rounding of a bound that is off the grid), so the answer is within n·q of the real sum —
  below 10^-11 of the bound for a million rows.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

GRID_BITS = 60
_LOW_BITS = 30
_LOW_MASK = (1 << _LOW_BITS) - 1
_INT_LIMIT = float(2**GRID_BITS)  # |L|, |U| ≤ 2^60, so clamping snapped values to ±2^60 changes no clip
_KEPT_GRIDS = 2


def to_float(units: int, exponent: int) -> float:
    """``units·2**exponent`` correctly rounded to a double (±inf on overflow): rule step 5."""
    try:
        if exponent >= 0:
            return float(units << exponent)
        return units / (1 << -exponent)  # int / int: correctly rounded in CPython
    except OverflowError:
        return math.copysign(math.inf, units)


@dataclass(frozen=True)
class SumGrid:
    """The grid of one clipped sum: step ``2**exponent`` and the integer clip bounds ``[low, high]``."""

    exponent: int
    low: int
    high: int

    @property
    def step(self) -> float:
        return math.ldexp(1.0, self.exponent)


def grid_exponents(magnitudes: np.ndarray) -> np.ndarray:
    """k (int64) with step q = 2^k for clip bounds of largest magnitude m (rule step 1)."""
    return np.maximum(np.frexp(np.asarray(magnitudes, dtype=np.float64))[1].astype(np.int64) - GRID_BITS,
                      -1074)


def sum_grids(lowers: np.ndarray, uppers: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(k, L, U) as int64 arrays for clip bounds (lower, upper) (rule steps 1–2, vectorised)."""
    lo, hi = np.asarray(lowers, dtype=np.float64), np.asarray(uppers, dtype=np.float64)
    if not (np.all(np.isfinite(lo)) and np.all(np.isfinite(hi)) and np.all(lo <= hi)):
        raise ValueError("clip bounds must be finite with lower <= upper")
    k = grid_exponents(np.maximum(np.abs(lo), np.abs(hi)))
    return k, np.ceil(np.ldexp(lo, -k)).astype(np.int64), np.floor(np.ldexp(hi, -k)).astype(np.int64)


def sum_grid(lower: float, upper: float) -> SumGrid:
    """The grid and integer bounds of Σclip(x, lower, upper) (rule steps 1–2)."""
    k, lo, hi = sum_grids(np.array([lower]), np.array([upper]))
    return SumGrid(int(k[0]), int(lo[0]), int(hi[0]))


def clip_diff_grids(bounds: np.ndarray, steps: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(k, B, U) for Σclip(x, 0, b+s) − Σclip(x, 0, b): b + s rounded down (exact TwoSum), then as a sum."""
    b, s = np.asarray(bounds, dtype=np.float64), np.asarray(steps, dtype=np.float64)
    top = b + s
    virtual = top - b
    error = (b - (top - virtual)) + (s - virtual)  # b + s == top + error exactly (Knuth's TwoSum)
    top = np.where(error < 0, np.nextafter(top, -np.inf), top)  # now top <= b + s
    k, low, high = sum_grids(b, top)
    return k, low, np.maximum(low, high)


def clip_diff_grid(bound: float, step: float) -> SumGrid:
    """The grid of one clip difference (see :func:`clip_diff_grids`)."""
    k, low, high = clip_diff_grids(np.array([bound]), np.array([step]))
    return SumGrid(int(k[0]), int(low[0]), int(high[0]))


def snap(values: np.ndarray, exponent: int) -> np.ndarray:
    """Rule step 3 without the clip: rint(x/2^k) as int64, clamped to ±2^60 (outside every [L, U])."""
    with np.errstate(over="ignore", under="ignore"):
        scaled = np.ldexp(np.asarray(values, dtype=np.float64), -exponent)
    return np.clip(np.rint(scaled), -_INT_LIMIT, _INT_LIMIT).astype(np.int64)


def exact_int_sum(units: np.ndarray) -> int:
    """Σ of int64 values with |v| ≤ 2^60, exactly (high and low 30-bit parts; fits for n < 2^32)."""
    units = np.asarray(units, dtype=np.int64)
    high = int(np.sum(units >> _LOW_BITS, dtype=np.int64))
    low = int(np.sum(units & _LOW_MASK, dtype=np.int64))
    return (high << _LOW_BITS) + low


def _present(values: np.ndarray) -> np.ndarray:
    x = np.asarray(values, dtype=np.float64)
    return x[~np.isnan(x)]


def clipped_units(values: np.ndarray, grid: SumGrid) -> int:
    """N = Σ clip(rint(x/q), L, U) over the non-missing values (rule steps 3–4)."""
    return exact_int_sum(np.clip(snap(_present(values), grid.exponent), grid.low, grid.high))


def exact_clipped_sum(values: np.ndarray, lower: float, upper: float) -> float:
    """Σclip(x, lower, upper) over non-missing ``values`` by the exact rule (module docstring).

    The reference implementation: every engine must return the same double for the same multiset.
    """
    grid = sum_grid(lower, upper)
    return to_float(clipped_units(values, grid), grid.exponent)


def exact_clip_diff(values: np.ndarray, bound: float, step: float, normalised: bool = False) -> float:
    """Σclip(x, 0, b+s) − Σclip(x, 0, b) by the exact rule; divided by s (exactly) when normalised."""
    grid = clip_diff_grid(bound, step)
    x = _present(values)
    return clip_diff_value(grid.exponent, clipped_units(x, grid) - grid.low * len(x), float(step), normalised)


def clip_diff_value(exponent: int, units: int, step: float, normalised: bool) -> float:
    """The clip difference's answer from its exact integer N: N·q, or N·q/s, rounded once."""
    if not normalised:
        return to_float(units, exponent)
    num, den = step.as_integer_ratio()  # s = num/den, den a power of two
    top, bottom = units * den, num
    if exponent >= 0:
        top <<= exponent
    else:
        bottom <<= -exponent
    try:
        return top / bottom  # int / int: correctly rounded in CPython
    except OverflowError:
        return math.copysign(math.inf, units)


class SortedColumn:
    """Exact clipped sums of one column for many bounds: O(n) per grid, then O(log n) per query.

    The snapped integers rint(x/q) of sorted values are sorted too (rint is monotone), so the rows
    clipped to L are a prefix, those clipped to U a suffix, and the middle is a difference of exact
    integer prefix sums (kept as high and low int64 parts). Same answers as :func:`clipped_units`.

    ``counts`` makes it a weighted histogram (sorted distinct values, rows per value), which is how
    an engine that aggregates in the database can reuse it and answer bit for bit as the memory
    engine does. Exact for fewer than 2^32 rows.
    """

    def __init__(self, sorted_values: np.ndarray, counts: np.ndarray | None = None) -> None:
        x = np.asarray(sorted_values, dtype=np.float64)
        w = np.ones(len(x), dtype=np.int64) if counts is None else np.asarray(counts, dtype=np.int64)
        present = ~np.isnan(x)
        self.values, self.counts = x[present], w[present]
        self.rows = np.concatenate((np.zeros(1, dtype=np.int64), np.cumsum(self.counts)))  # rows before i
        self.n = int(self.rows[-1])
        self._grids: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}

    def _prefix(self, exponent: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Snapped values and their exact prefix sums on grid 2^exponent (the last few grids are kept)."""
        if exponent not in self._grids:
            if len(self._grids) >= _KEPT_GRIDS:  # 24 bytes per value each: keep memory bounded
                del self._grids[next(iter(self._grids))]
            units = snap(self.values, exponent)
            zero = np.zeros(1, dtype=np.int64)
            high = np.cumsum((units >> _LOW_BITS) * self.counts)  # |·| ≤ 2^30·n < 2^62
            low = np.cumsum((units & _LOW_MASK) * self.counts)
            self._grids[exponent] = (units, np.concatenate((zero, high)), np.concatenate((zero, low)))
        return self._grids[exponent]

    def units(self, exponents: np.ndarray, lows: np.ndarray, highs: np.ndarray) -> np.ndarray:
        """N = Σ clip(rint(x/2^k), L, U) for each (k, L, U), exactly (an object array of Python ints)."""
        exponents = np.asarray(exponents, dtype=np.int64)
        lows, highs = np.asarray(lows, dtype=np.int64), np.asarray(highs, dtype=np.int64)
        out = np.empty(len(exponents), dtype=object)
        for k in np.unique(exponents):
            rows = np.flatnonzero(exponents == k)
            snapped, high, low = self._prefix(int(k))
            lo, hi = lows[rows], highs[rows]
            i = np.searchsorted(snapped, lo, "left")  # values clipped up to L
            j = np.maximum(i, np.searchsorted(snapped, hi, "right"))  # values from j on are clipped to U
            below, above = self.rows[i], self.n - self.rows[j]  # rows clipped to L, rows clipped to U
            exact = (lo.astype(object) * below.astype(object)
                     + (high[j] - high[i]).astype(object) * (1 << _LOW_BITS)
                     + (low[j] - low[i]).astype(object) + hi.astype(object) * above.astype(object))
            out[rows] = exact
        return out

    def clipped_sums(self, lowers: np.ndarray, uppers: np.ndarray) -> np.ndarray:
        """Exact Σclip(x, l, u) for each pair (l, u)."""
        k, lo, hi = sum_grids(lowers, uppers)
        units = self.units(k, lo, hi)
        return np.array([to_float(u, e) for u, e in zip(units, k.tolist(), strict=True)], dtype=np.float64)

    def clip_diffs(self, bounds: np.ndarray, steps: np.ndarray, normalised: np.ndarray) -> np.ndarray:
        """Exact Σclip(x, 0, b+s) − Σclip(x, 0, b) (divided by s where ``normalised``) per query."""
        k, low, high = clip_diff_grids(bounds, steps)
        units = self.units(k, low, high) - low.astype(object) * self.n
        return np.array([clip_diff_value(e, u, s, norm) for e, u, s, norm in
                         zip(k.tolist(), units, np.asarray(steps, dtype=np.float64).tolist(),
                             np.asarray(normalised, dtype=bool).tolist(), strict=True)], dtype=np.float64)
