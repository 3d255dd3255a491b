"""Output views for auditing PMW and SparseProject (see :mod:`svtgui.core.audit.events`).

A view maps one run's output to an integer key; the event search ranks a view's keys by
likelihood ratio. Bin edges are quantiles of the *search* sample, so they are fixed before the
final test. The views:

* PMW (``extra["n_hat"]``, ⊤ = paid): the free/paid pattern, the first paid answer's position
  with its value bin, the position with the bin of the *paid count* value·n̂ (the Laplace answer
  in rows: an answer paid without noise shows up here), the position with the bin of n̂, and n̂;
* SparseProject (``extra["w"]``, ``extra["n_hat"]``): the noisy projection's coordinate along the
  changed cell's direction ``A·(D1 − D2)`` (for Gaussian noise the likelihood ratio is a function of
  this coordinate alone, so its half-spaces are the optimal events), the statistic
  ``Σ_i |w_i − (A·D2)_i| − |w_i − (A·D1)_i|`` (the log-likelihood ratio for Laplace noise, up to the
  scale: the optimal events there), the projection jointly with n̂, n̂ alone, and the first
  coordinate by itself (a miscalibrated single coordinate).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from svtgui.core.audit.events import VALUE_BINS, View, count_view, first_value_view, pattern_view
from svtgui.core.audit.linear import HistogramPair
from svtgui.core.audit.outputs import Outputs

COARSE_BINS = 8  # bins per axis of the joint views
PROJECTION_BINS = 48


def _edges(values: np.ndarray, bins: int) -> np.ndarray:
    values = values[np.isfinite(values)]
    if values.size == 0:
        return np.array([])
    return np.unique(np.quantile(values, np.linspace(0, 1, bins + 1)[1:-1]))


Binner = tuple[Callable[[np.ndarray], np.ndarray], Callable[[int], str], int]


def _binner(values: np.ndarray, bins: int) -> Binner:
    """(value → bin 0…width−1, bin → "[lo, hi)" text, width) from quantiles of search-sample values."""
    edges = _edges(values, bins)

    def bin_of(v: np.ndarray) -> np.ndarray:
        return np.searchsorted(edges, v, side="right").astype(np.int64)

    def describe(b: int) -> str:
        lo = "−∞" if b == 0 else f"{edges[b - 1]:g}"
        hi = "∞" if b >= len(edges) else f"{edges[b]:g}"
        return f"[{lo}, {hi})"

    return bin_of, describe, len(edges) + 1


def scalar_view(name: str, of: Callable[[Outputs], np.ndarray], sample: Outputs, bins: int) -> View:
    """Bins of one number per run (quantile edges from ``sample``)."""
    bin_of, describe, _ = _binner(of(sample).astype(np.float64), bins)
    return View(name, lambda o: bin_of(of(o).astype(np.float64)), lambda k: f"{name} in {describe(k)}")


def joint_view(name: str, first: Callable[[Outputs], np.ndarray], second: Callable[[Outputs], np.ndarray],
               sample: Outputs, bins: int) -> View:
    """Pairs of bins of two numbers per run."""
    a_bin, a_text, _ = _binner(first(sample).astype(np.float64), bins)
    b_bin, b_text, width = _binner(second(sample).astype(np.float64), bins)

    def keys(o: Outputs) -> np.ndarray:
        return a_bin(first(o).astype(np.float64)) * width + b_bin(second(o).astype(np.float64))

    def describe(k: int) -> str:
        a, b = divmod(int(k), width)
        return f"{a_text(a)} × {b_text(b)}"

    return View(name, keys, describe)


def _first_paid(o: Outputs) -> tuple[np.ndarray, np.ndarray]:
    """(position of the first paid answer or n, its value or NaN) per run."""
    hit = o.above == 1
    n = o.above.shape[1]
    first = np.where(hit.any(axis=1), np.argmax(hit, axis=1), n)
    value = np.full(first.size, np.nan)
    ok = first < n
    value[ok] = o.values[np.flatnonzero(ok), first[ok]]
    return first, value


def _position_and(name: str, of: Callable[[Outputs], np.ndarray], sample: Outputs, bins: int) -> View:
    """First paid position × bin of a per-run number (NaN: its own bin)."""
    n = sample.above.shape[1]
    bin_of, describe, width = _binner(of(sample), bins)
    width += 1

    def keys(o: Outputs) -> np.ndarray:
        v = of(o)
        b = np.where(np.isfinite(v), bin_of(np.nan_to_num(v)) + 1, 0)
        return _first_paid(o)[0].astype(np.int64) * width + b

    def text(k: int) -> str:
        f, b = divmod(int(k), width)
        where = "nothing paid" if f >= n else f"first paid answer at query {f + 1}"
        return where if b == 0 else f"{where}, {name} in {describe(b - 1)}"

    return View(f"first paid answer and {name}", keys, text)


def _n_hat(o: Outputs) -> np.ndarray:
    return o.extra["n_hat"].astype(np.float64)


def _paid_count(o: Outputs) -> np.ndarray:
    return np.rint(_first_paid(o)[1] * o.extra["n_hat"])


def pmw_views(pair: HistogramPair, sample: Outputs) -> list[View]:
    """The PMW views (module docstring) for ``sample`` (search-sample outputs)."""
    n = sample.above.shape[1]
    views = [pattern_view(n), first_value_view(sample), count_view(),
             _position_and("paid count (value·n̂)", _paid_count, sample, VALUE_BINS),
             _position_and("n̂", _n_hat, sample, COARSE_BINS),
             scalar_view("n̂", _n_hat, sample, VALUE_BINS)]
    return [v for v in views if v is not None]


def sparse_project_views(pair: HistogramPair, sample: Outputs, signs: np.ndarray) -> list[View]:
    """The SparseProject views for ``pair`` given the public sign matrix √T·A (T × |X|)."""
    direction = signs.astype(np.float64) @ pair.difference

    def along(o: Outputs) -> np.ndarray:
        return o.extra["w"].astype(np.float64) @ direction

    def first(o: Outputs) -> np.ndarray:
        return o.extra["w"][:, 0]

    exact1 = signs.astype(np.float64) @ pair.d1.histogram.dense()
    exact2 = signs.astype(np.float64) @ pair.d2.histogram.dense()

    def laplace_ratio(o: Outputs) -> np.ndarray:
        w = o.extra["w"].astype(np.float64)
        return (np.abs(w - exact2) - np.abs(w - exact1)).sum(axis=1)

    return [scalar_view("projection on A·(D1 − D2)", along, sample, PROJECTION_BINS),
            scalar_view("Σ|w − A·D2| − |w − A·D1|", laplace_ratio, sample, PROJECTION_BINS),
            joint_view("projection on A·(D1 − D2) × n̂", along, _n_hat, sample, COARSE_BINS),
            scalar_view("n̂", _n_hat, sample, VALUE_BINS),
            scalar_view("first coordinate", first, sample, VALUE_BINS)]
