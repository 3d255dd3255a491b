"""Candidate neighbouring inputs for auditing the mechanisms on histograms (PMW, SparseProject).

These mechanisms take a histogram D over a data universe, not an answer vector, so a neighbouring
pair is two histograms that differ by one row:

* **add/remove** (``neighbouring="add_remove"``): ``d1 = d2`` plus one row in one cell;
* **replace** (``neighbouring="replace"``, n fixed and public): one row moved from one cell to
  another.

The audit universe is small (16 cells) so that every run is cheap; nothing in the mechanisms'
privacy arguments depends on the universe size. The pairs are chosen adversarially:

* for PMW, the SVT test compares the error ``|Σ_x Q(x)D[x] − n̂·⟨Q, p⟩|`` of the public
  simulation with a threshold, so the data put that error *at* the threshold (where a one-row
  change most moves the ⊤/⊥ decisions), with the changed cell inside the queries' support (its
  error goes up, or down) or outside it (only n moves), plus data where the simulation is right
  (uniform: every answer free) and where it is badly wrong (skewed: the first query is paid, so
  the paid value and its noise are exposed);
* for SparseProject the output is ``A·D`` plus noise whatever D is, so only the *difference*
  matters: the changed cell's sign column (add/remove), or the two cells whose columns differ in
  the most coordinates (replace: the largest shift of the projection), on skewed, uniform and
  one-row data (the last exercises the clamp ``n̂ ≥ 1``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from svtgui.core.linear import LinearQuery, SparseHistogram
from svtgui.core.mechanisms.sparse_project_theory import ADD_REMOVE, REPLACE

UNIVERSE = 16  # audit universe |X|: cell 0 is the changed cell
ROWS = 200  # rows of the audit datasets (n of d2)
INSIDE = np.arange(0, 8)  # "U": contains cell 0; the data make its error positive
ACROSS = np.concatenate([[0], np.arange(8, 15)])  # "V": contains cell 0; error negative
OUTSIDE = np.arange(8, 16)  # "W": does not contain cell 0
MOVED_FROM = 15  # replace-one pairs move a row from this cell (outside U and V) to cell 0


@dataclass(frozen=True)
class LinearInput:
    """One input of a mechanism on histograms: the histogram and (PMW) the queries asked, in order."""

    histogram: SparseHistogram
    queries: tuple[LinearQuery, ...] = ()

    def to_dict(self) -> dict:
        h = self.histogram
        return {"universe_size": h.size, "cells": h.cells.tolist(), "counts": h.counts.tolist(),
                "queries": [q.indices.tolist() for q in self.queries]}


@dataclass(frozen=True)
class HistogramPair:
    """Two neighbouring histograms (one row apart) with the same queries, and a readable name."""

    name: str
    d1: LinearInput
    d2: LinearInput
    change: str = field(default="")  # e.g. "d1 = d2 + one row in cell 0"

    def swapped(self) -> HistogramPair:
        return HistogramPair(self.name + " (swapped)", self.d2, self.d1, _swap_words(self.change))

    @property
    def difference(self) -> np.ndarray:
        """D1 − D2 as a dense vector over the universe (±1 entries)."""
        return self.d1.histogram.dense() - self.d2.histogram.dense()

    def to_dict(self) -> dict:
        return {"name": self.name, "change": self.change, "d1": self.d1.to_dict(), "d2": self.d2.to_dict()}

    def describe(self) -> list[str]:
        """Lines for a human reader: the change, d2's counts, the query supports."""
        h = self.d2.histogram
        lines = [self.change, f"d2 = {dict(zip(h.cells.tolist(), h.counts.tolist(), strict=True))} "
                              f"(cell: rows; universe of {h.size} cells, n = {h.n})"]
        if self.d1.queries:
            names = {tuple(q.indices.tolist()): q.label for q in self.d1.queries}
            lines.append("queries: " + " ".join(q.label for q in self.d1.queries))
            lines += [f"  {label} counts cells {list(cells)}" for cells, label in names.items()]
        return lines


def _swap_words(change: str) -> str:
    return change.replace("d1", "\0").replace("d2", "d1").replace("\0", "d2")


def _histogram(counts: np.ndarray) -> SparseHistogram:
    nz = np.flatnonzero(counts)
    return SparseHistogram(nz, counts[nz].astype(np.int64), counts.size)


def _neighbour(base: np.ndarray, neighbouring: str, to_cell: int = 0,
               from_cell: int = MOVED_FROM) -> tuple[np.ndarray, str]:
    """d1 from d2 = ``base``: one more row in ``to_cell`` (add/remove) or one row moved there."""
    d1 = base.copy()
    d1[to_cell] += 1
    if neighbouring == REPLACE:
        if d1[from_cell] == 0:
            raise ValueError(f"cell {from_cell} is empty: no row to move")
        d1[from_cell] -= 1
        return d1, f"d1 = d2 with one row moved from cell {from_cell} to cell {to_cell}"
    return d1, f"d1 = d2 + one row in cell {to_cell}"


def _spread(total: int, cells: int) -> np.ndarray:
    """``total`` rows over ``cells`` cells as evenly as integers allow."""
    out = np.full(cells, total // cells)
    out[: total % cells] += 1
    return out


def at_threshold_counts(error: float, rows: int = ROWS) -> np.ndarray:
    """Counts of d2 where U's, V's and W's simulated answers (uniform p: n/2) err by ``error`` rows.

    U = cells 0–7 holds n/2 + e rows, V = {0, 8–14} and W = 8–15 hold n/2 − e each (so cells 0 and
    15 hold the same number). ``error`` is clipped so every count stays ≥ 1.
    """
    edge = max(1, round(0.05 * rows))
    e = int(np.clip(round(error), 0, rows // 2 - edge - 7))
    counts = np.empty(UNIVERSE, dtype=np.int64)
    counts[0] = counts[15] = edge
    counts[1:8] = _spread(rows // 2 + e - edge, 7)
    counts[8:15] = _spread(rows - rows // 2 - e - edge, 7)
    return counts


def pmw_candidates(threshold_rows: float, neighbouring: str = ADD_REMOVE, *, queries: int = 10,
                   long_run: int = 30) -> list[HistogramPair]:
    """The PMW pairs (module docstring); ``threshold_rows`` is the SVT test's threshold α·n in rows."""
    if min(queries, long_run) < 2:
        raise ValueError(f"the audit needs at least 2 queries per input, got {min(queries, long_run)}")
    U = LinearQuery.counting(INSIDE, UNIVERSE, "U")
    V = LinearQuery.counting(ACROSS, UNIVERSE, "V")
    W = LinearQuery.counting(OUTSIDE, UNIVERSE, "W")
    at = at_threshold_counts(threshold_rows)
    uniform = np.full(UNIVERSE, ROWS // UNIVERSE, dtype=np.int64)
    skewed = np.zeros(UNIVERSE, dtype=np.int64)
    skewed[[0, MOVED_FROM]] = [ROWS - 10, 10]
    half = queries // 2
    plans: list[tuple[str, np.ndarray, list[LinearQuery]]] = [
        (f"errors at the threshold: {queries - 1}×U then V", at, [U] * (queries - 1) + [V]),
        (f"errors at the threshold: {long_run - 1}×U then V", at, [U] * (long_run - 1) + [V]),
        ("errors at the threshold: U and V alternating", at, [U, V] * half),
        ("changed cell outside the queries: W only", at, [W] * queries),
        ("changed cell inside half the queries: U then W", at, [U] * half + [W] * (queries - half)),
        ("uniform data (the simulation is right)", uniform, [U, V, W] * (queries // 3) + [U] * (queries % 3)),
        ("skewed data (the simulation is wrong: paid at once)", skewed, [U] * queries),
    ]
    pairs = []
    for name, base, qs in plans:
        d1, change = _neighbour(base, neighbouring)
        pairs.append(HistogramPair(name, LinearInput(_histogram(d1), tuple(qs)),
                                   LinearInput(_histogram(base), tuple(qs)), change))
    return pairs


def sparse_project_candidates(signs: np.ndarray, neighbouring: str = ADD_REMOVE) -> list[HistogramPair]:
    """The SparseProject pairs for the public sign matrix ``signs`` (T × |X|, entries ±1)."""
    size = signs.shape[1]
    if size != UNIVERSE:
        raise ValueError(f"the sign matrix covers {size} cells, the audit universe has {UNIVERSE}")
    uniform = np.full(size, ROWS // size, dtype=np.int64)
    skewed = np.zeros(size, dtype=np.int64)
    skewed[[1, MOVED_FROM]] = [ROWS - 10, 10]
    single = np.zeros(size, dtype=np.int64)  # add/remove: no row vs one row (n̂ at its clamp at 1)
    to_cell, from_cell = 0, MOVED_FROM
    if neighbouring == REPLACE:  # the two columns that differ in the most coordinates
        differ = (signs[:, :, None] != signs[:, None, :]).sum(axis=0)
        if differ.max() > 0:
            to_cell, from_cell = np.unravel_index(int(np.argmax(differ)), differ.shape)
        for base in (uniform, skewed, single):
            base[from_cell] = max(base[from_cell], 1)
    plans = [("uniform data", uniform), ("skewed data", skewed),
             ("smallest data (one row at most)", single)]
    pairs = []
    for name, base in plans:
        d1, change = _neighbour(base, neighbouring, int(to_cell), int(from_cell))
        pairs.append(HistogramPair(name, LinearInput(_histogram(d1)), LinearInput(_histogram(base)), change))
    return pairs
