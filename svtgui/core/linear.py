"""Histograms over a universe and linear queries on them (numpy only).

The data layer (``svtgui.data.universe``) turns a dataset into a :class:`SparseHistogram`; the
SparseProject and PMW mechanisms only ever see these arrays, never a table.

* A universe X is the cross product of a few columns' levels; cells are numbered 0 … |X|−1.
* ``D[x]`` is the number of rows falling in cell x; |X| may be 10^6 or more, so only the
  non-zero cells are held (sorted cell indices + counts).
* A linear query Q: X → [0, 1] has value ``(1/n)·Σ_x Q(x)·D[x]``; it is m-sparse when it is
  non-zero on at most m cells, and is held as (indices, weights) over those cells.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from svtgui.core import validation


@dataclass(frozen=True)
class SparseHistogram:
    """Non-zero cells of D (strictly increasing int64 indices) with their counts (int64 > 0)."""

    cells: np.ndarray
    counts: np.ndarray
    size: int  # |X|

    def __post_init__(self) -> None:
        size = validation.count("universe size", self.size)
        cells = np.asarray(self.cells, dtype=np.int64).reshape(-1)
        counts = np.asarray(self.counts).reshape(-1)
        if cells.shape != counts.shape:
            raise ValueError(f"histogram has {cells.size} cells but {counts.size} counts")
        if counts.size and (not np.issubdtype(counts.dtype, np.integer) and
                            np.any(counts != np.rint(counts))):
            raise ValueError("histogram counts must be integers")
        counts = counts.astype(np.int64)
        if counts.size and counts.min() <= 0:
            raise ValueError(f"histogram counts must be > 0 (only non-zero cells), got {counts.min()}")
        if cells.size and (cells.min() < 0 or cells.max() >= size):
            raise ValueError(f"histogram cell {int(cells.max() if cells.max() >= size else cells.min())} "
                             f"is outside the universe 0…{size - 1}")
        if cells.size > 1 and np.any(np.diff(cells) <= 0):
            raise ValueError("histogram cells must be strictly increasing (each cell once)")
        object.__setattr__(self, "cells", cells)
        object.__setattr__(self, "counts", counts)
        object.__setattr__(self, "size", size)

    @classmethod
    def from_cells(cls, row_cells: np.ndarray, size: int) -> SparseHistogram:
        """Count one cell index per row (the data layer's output) into a histogram."""
        cells, counts = np.unique(np.asarray(row_cells, dtype=np.int64), return_counts=True)
        return cls(cells, counts, size)

    @property
    def n(self) -> int:
        """Number of rows (Σ D[x])."""
        return int(self.counts.sum())

    def dense(self) -> np.ndarray:
        """D as a dense float vector (only for universes small enough to hold densely)."""
        out = np.zeros(self.size, dtype=np.float64)
        out[self.cells] = self.counts
        return out


@dataclass(frozen=True)
class LinearQuery:
    """Q as (indices, weights): weights in (0, 1] on the listed cells, 0 elsewhere."""

    indices: np.ndarray
    weights: np.ndarray
    size: int  # |X|
    label: str = ""

    def __post_init__(self) -> None:
        size = validation.count("universe size", self.size)
        idx = np.asarray(self.indices, dtype=np.int64).reshape(-1)
        w = np.asarray(self.weights, dtype=np.float64).reshape(-1)
        if idx.shape != w.shape:
            raise ValueError(f"query has {idx.size} indices but {w.size} weights")
        if w.size and (not np.all(np.isfinite(w)) or w.min() < 0 or w.max() > 1):
            raise ValueError("query weights must be in [0, 1] (a linear query maps X to [0, 1])")
        if idx.size and (idx.min() < 0 or idx.max() >= size):
            raise ValueError(f"query cell {int(idx.max() if idx.max() >= size else idx.min())} "
                             f"is outside the universe 0…{size - 1}")
        order = np.argsort(idx, kind="stable")
        idx, w = idx[order], w[order]
        if idx.size > 1 and np.any(np.diff(idx) == 0):
            raise ValueError("query lists a cell more than once")
        keep = w > 0
        object.__setattr__(self, "indices", idx[keep])
        object.__setattr__(self, "weights", w[keep])
        object.__setattr__(self, "size", size)

    @classmethod
    def from_vector(cls, vector: np.ndarray, label: str = "") -> LinearQuery:
        """A query given densely as Q[x] for every cell."""
        v = np.asarray(vector, dtype=np.float64).reshape(-1)
        nz = np.flatnonzero(v)
        return cls(nz, v[nz], v.size, label)

    @classmethod
    def counting(cls, cells: np.ndarray, size: int, label: str = "") -> LinearQuery:
        """The 0/1 query that counts the rows in the given cells."""
        idx = np.unique(np.asarray(cells, dtype=np.int64))
        return cls(idx, np.ones(idx.size), size, label)

    @property
    def sparsity(self) -> int:
        """m: the number of cells where Q(x) > 0."""
        return int(self.indices.size)

    def count(self, hist: SparseHistogram) -> float:
        """Σ_x Q(x)·D[x] (exact; a secret when ``hist`` is private)."""
        self._same_universe(hist.size)
        pos = np.searchsorted(hist.cells, self.indices)
        pos = np.minimum(pos, max(hist.cells.size - 1, 0))
        hit = hist.cells.size > 0
        match = (hist.cells[pos] == self.indices) if hit else np.zeros(self.indices.size, dtype=bool)
        return float(np.dot(self.weights[match], hist.counts[pos[match]]))

    def value(self, hist: SparseHistogram) -> float:
        """(1/n)·Σ_x Q(x)·D[x]."""
        n = hist.n
        if n == 0:
            raise ValueError("the histogram is empty (n = 0): a normalised linear query is undefined")
        return self.count(hist) / n

    def _same_universe(self, size: int) -> None:
        if size != self.size:
            raise ValueError(f"query is over a universe of {self.size} cells, the histogram over {size}")


def as_query(query: LinearQuery | np.ndarray | tuple[np.ndarray, np.ndarray], size: int) -> LinearQuery:
    """Accept a :class:`LinearQuery`, a dense vector over X, or an m-sparse (indices, weights) pair."""
    if isinstance(query, LinearQuery):
        q = query
    elif isinstance(query, tuple):
        if len(query) != 2:
            raise ValueError("a sparse query is an (indices, weights) pair")
        q = LinearQuery(query[0], query[1], size)
    else:
        q = LinearQuery.from_vector(query)
    q._same_universe(size)
    return q
