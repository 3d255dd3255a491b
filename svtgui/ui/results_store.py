"""The released rows of a run, kept compactly in growable numpy arrays (≈ 25 bytes per row).

A million-query stream therefore costs ~25 MB, not a million Python objects. Only public
outcomes are stored: the mechanism's query index, where the query came from (``ref``: its
position in the planned queue, or ``-1 - k`` for the k-th adaptive query), ⊤/⊥, the released
value (NaN when nothing was released, always for ⊥) and the release time. Descriptions are
looked up lazily from the query list when a row is painted.
"""

from __future__ import annotations

import numpy as np


class ResultStore:
    """Append-only columns of released rows plus the positions of the ⊤ rows (for "only ⊤")."""

    def __init__(self, capacity: int = 4096) -> None:
        self._cap = capacity
        self.n = 0
        self.index = np.empty(capacity, dtype=np.int64)
        self.ref = np.empty(capacity, dtype=np.int64)
        self.above = np.empty(capacity, dtype=bool)
        self.value = np.empty(capacity, dtype=np.float64)
        self.time = np.empty(capacity, dtype=np.float64)
        self._tops = np.empty(256, dtype=np.int64)
        self.n_tops = 0

    def _grow(self, need: int) -> None:
        cap = self._cap
        while cap < need:
            cap *= 2
        if cap != self._cap:
            for name in ("index", "ref", "above", "value", "time"):
                old = getattr(self, name)
                new = np.empty(cap, dtype=old.dtype)
                new[: self.n] = old[: self.n]
                setattr(self, name, new)
            self._cap = cap

    def reserve(self, n: int) -> None:
        """Room for ``n`` rows up front (the planned queries), so a long stream never stops to copy
        its columns while the window waits; ``np.empty`` only commits memory as rows arrive."""
        self._grow(n)

    def append(
        self,
        index: np.ndarray,
        ref: np.ndarray,
        above: np.ndarray,
        value: np.ndarray,
        time: float | np.ndarray,
    ) -> None:
        """Add a batch of released rows (arrays of equal length)."""
        k = len(index)
        if k == 0:
            return
        start = self.n
        self._grow(start + k)
        self.index[start : start + k] = index
        self.ref[start : start + k] = ref
        self.above[start : start + k] = above
        self.value[start : start + k] = np.where(above, value, np.nan)  # ⊥ never carries a value
        self.time[start : start + k] = time
        tops = start + np.flatnonzero(above)
        if len(tops):
            need = self.n_tops + len(tops)
            if need > len(self._tops):
                grown = np.empty(max(need, 2 * len(self._tops)), dtype=np.int64)
                grown[: self.n_tops] = self._tops[: self.n_tops]
                self._tops = grown
            self._tops[self.n_tops : need] = tops
            self.n_tops = need
        self.n = start + k

    @property
    def tops(self) -> np.ndarray:
        """Row positions of the ⊤ answers."""
        return self._tops[: self.n_tops]

    @property
    def n_bottoms(self) -> int:
        return self.n - self.n_tops

    def top_points(self) -> tuple[np.ndarray, np.ndarray]:
        """(query index, released value) of every ⊤ row (value NaN when none was released)."""
        t = self.tops
        return self.index[t], self.value[t]

    def clear(self) -> None:
        self.n = 0
        self.n_tops = 0

    @property
    def nbytes(self) -> int:
        return sum(a.nbytes for a in (self.index, self.ref, self.above, self.value, self.time, self._tops))
