"""Sums over a weighted histogram computed exactly, then rounded once.

A histogram gives each distinct value v with its count n. Every float64 is an integer times a power
of two, so at the scale 2^k of the finest value every v·n is an integer and prefix sums of them are
exact Python integers. A clipped sum l·#{x < l} + Σ_{l ≤ x ≤ u} x + u·#{x > u} is then one integer
at a common scale, and ``int / 2**K`` rounds it once, correctly (Python's integer division is
correctly rounded). The answer is therefore the exact sum of the clipped values rounded to the
nearest float64, whatever the order of the rows or the partitioning of the data: every engine
that produces the same histogram produces the same answer, bit for bit.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import accumulate

import numpy as np


def _scaled(x: float) -> tuple[int, int]:
    """(m, k) with x = m / 2**k exactly (k ≥ 0)."""
    num, den = float(x).as_integer_ratio()
    return num, den.bit_length() - 1


@dataclass(frozen=True)
class WeightedColumn:
    """Sorted distinct non-missing values of a column with their counts, and exact prefix sums."""

    values: np.ndarray  # float64, strictly increasing
    cum: np.ndarray  # int64, cum[i] = rows with value < values[i]  (len = len(values) + 1)
    prefix: list[int]  # prefix[i] = Σ_{j<i} values[j]·counts[j] · 2**k, exactly
    k: int

    @classmethod
    def of(cls, values: np.ndarray, counts: np.ndarray) -> WeightedColumn:
        order = np.argsort(values, kind="stable")
        values = np.asarray(values, dtype=np.float64)[order]
        counts = np.asarray(counts, dtype=np.int64)[order]
        cum = np.concatenate(([0], np.cumsum(counts)))
        if len(values) and np.all(values == np.rint(values)) and np.abs(values).max() < 2.0**53:
            k, terms = 0, (values.astype(np.int64).astype(object) * counts.astype(object)).tolist()
        else:
            pairs = [_scaled(v) for v in values.tolist()]
            k = max((p[1] for p in pairs), default=0)
            terms = [(m << (k - e)) * int(c) for (m, e), c in zip(pairs, counts.tolist(), strict=True)]
        return cls(values, cum, [0, *accumulate(terms)], k)

    @property
    def n(self) -> int:
        return int(self.cum[-1])

    def below(self, x: np.ndarray, inclusive: bool) -> np.ndarray:
        """Index i such that values[:i] are < x (≤ x if inclusive); cum[i] counts those rows."""
        return np.searchsorted(self.values, x, "right" if inclusive else "left")

    def clipped_sums(self, lower: np.ndarray, upper: np.ndarray) -> np.ndarray:
        """Σclip(x, l, u) for each (l, u), exact then rounded once."""
        i = self.below(lower, inclusive=False)
        j = np.maximum(i, self.below(upper, inclusive=True))
        n, cum = self.n, self.cum.tolist()
        out = np.empty(len(lower))
        for q, (lo, hi, a, b) in enumerate(zip(lower.tolist(), upper.tolist(), i.tolist(), j.tolist(),
                                               strict=True)):
            out[q] = self._combine(((lo, cum[a]), (hi, n - cum[b])), self.prefix[b] - self.prefix[a])
        return out

    def clip_diffs(self, bound: np.ndarray, step: np.ndarray) -> np.ndarray:
        """Σ_{b < x ≤ b+s} (x − b) + s·#{x > b+s} for each (b, s), exact then rounded once."""
        top = bound + step  # the memory engine clips at the float b + s too
        i = self.below(bound, inclusive=True)
        j = self.below(top, inclusive=True)
        n, cum = self.n, self.cum.tolist()
        out = np.empty(len(bound))
        for q, (b, s, a, c) in enumerate(zip(bound.tolist(), step.tolist(), i.tolist(), j.tolist(),
                                             strict=True)):
            out[q] = self._combine(((-b, cum[c] - cum[a]), (s, n - cum[c])), self.prefix[c] - self.prefix[a])
        return out

    def _combine(self, terms: tuple[tuple[float, int], ...], middle: int) -> float:
        """(Σ x·count over ``terms``) + middle / 2**k, as one correctly rounded float."""
        scaled = [(*_scaled(x), c) for x, c in terms]
        big = max(self.k, *(e for _, e, _ in scaled))
        total = middle << (big - self.k)
        for m, e, c in scaled:
            total += (m << (big - e)) * c
        return total / (1 << big)
