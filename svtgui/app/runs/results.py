"""The released rows of a run, kept compactly in growable numpy arrays (≈ 26 bytes per row).

A million-query stream therefore costs ~26 MB, not a million Python objects. Only public
outcomes are stored: the mechanism's query index, where the query came from (``ref``: its
position in the planned queue, or ``-1 - k`` for the k-th adaptive query), ⊤/⊥, whether a ⊥ was
a PMW *free* answer (from the public synthetic histogram: released, so it has a value), the
released value (NaN when nothing was released: every ⊥ that is not a free answer) and the
release time. Descriptions are looked up lazily from the query list when a row is painted.
The rows arrive as the run process's columnar :class:`ReleasedBatch` and are copied in unchanged.
"""

from __future__ import annotations

import numpy as np

from svtgui.app.runs.process import ReleasedBatch

COLUMNS = ("index", "ref", "above", "free", "value", "time")


class Positions:
    """A growable list of row positions (the ⊤ rows, the free rows), amortised O(1) appends."""

    def __init__(self) -> None:
        self._data = np.empty(256, dtype=np.int64)
        self.n = 0

    def add(self, positions: np.ndarray) -> None:
        need = self.n + len(positions)
        if need > len(self._data):
            grown = np.empty(max(need, 2 * len(self._data)), dtype=np.int64)
            grown[: self.n] = self._data[: self.n]
            self._data = grown
        self._data[self.n : need] = positions
        self.n = need

    @property
    def array(self) -> np.ndarray:
        return self._data[: self.n]

    @property
    def nbytes(self) -> int:
        return self._data.nbytes


class ResultStore:
    """Append-only columns of released rows plus the positions of the ⊤ rows (for "only ⊤") and of
    PMW's free answers (for the chart)."""

    def __init__(self, capacity: int = 4096) -> None:
        self._cap = capacity
        self.n = 0
        self.index = np.empty(capacity, dtype=np.int64)
        self.ref = np.empty(capacity, dtype=np.int64)
        self.above = np.empty(capacity, dtype=bool)
        self.free = np.empty(capacity, dtype=bool)
        self.value = np.empty(capacity, dtype=np.float64)
        self.time = np.empty(capacity, dtype=np.float64)
        self._tops = Positions()
        self._frees = Positions()

    def _grow(self, need: int) -> None:
        cap = self._cap
        while cap < need:
            cap *= 2
        if cap != self._cap:
            for name in COLUMNS:
                old = getattr(self, name)
                new = np.empty(cap, dtype=old.dtype)
                new[: self.n] = old[: self.n]
                setattr(self, name, new)
            self._cap = cap

    def reserve(self, n: int) -> None:
        """Room for ``n`` rows up front (the planned queries), so a long stream never stops to copy
        its columns while the window waits; ``np.empty`` only commits memory as rows arrive."""
        self._grow(n)

    def append_batch(self, batch: ReleasedBatch) -> None:
        """Add one committed batch as the run process sent it: its ⊥ values are already blanked
        (by :class:`svtgui.ledger.ResponseBatch` as the runner made it, the one place the ⊥ mask is
        applied)."""
        k = len(batch)
        if k == 0:
            return
        start = self.n
        self._grow(start + k)
        free = np.zeros(k, dtype=bool) if batch.free is None else batch.free
        rows = slice(start, start + k)
        self.index[rows] = batch.index
        self.ref[rows] = batch.ref
        self.above[rows] = batch.above
        self.free[rows] = free
        self.value[rows] = batch.value
        self.time[rows] = batch.time
        self._tops.add(start + np.flatnonzero(batch.above))
        if batch.free is not None and free.any():
            self._frees.add(start + np.flatnonzero(free))
        self.n = start + k

    @property
    def tops(self) -> np.ndarray:
        """Row positions of the ⊤ answers."""
        return self._tops.array

    @property
    def n_tops(self) -> int:
        return self._tops.n

    @property
    def n_free(self) -> int:
        return self._frees.n

    @property
    def n_bottoms(self) -> int:
        return self.n - self.n_tops

    def top_points(self) -> tuple[np.ndarray, np.ndarray]:
        """(query index, released value) of every ⊤ row (value NaN when none was released)."""
        t = self.tops
        return self.index[t], self.value[t]

    def free_points(self) -> tuple[np.ndarray, np.ndarray]:
        """(query index, released value) of every free answer (PMW; empty otherwise)."""
        f = self._frees.array
        return self.index[f], self.value[f]

    def clear(self) -> None:
        self.n = 0
        self._tops.n = 0
        self._frees.n = 0

    @property
    def nbytes(self) -> int:
        return sum(getattr(self, name).nbytes for name in COLUMNS) + self._tops.nbytes + self._frees.nbytes
