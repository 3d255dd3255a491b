"""Output events for the auditor: views of an output, and the event search (DP-Sniper style).

An *event* is a set of outputs; the auditor compares its probability under two neighbouring
inputs. Outputs are summarised by a *view*, a deterministic function from one run's output to an
integer key, and an event is a set of keys of one view. Any such set is a legitimate event
(coarsening an output is post-processing), so views are free to be lossy. The views:

* ``pattern``: the whole ⊤/⊥/halted pattern (catches Algorithm 5's impossible patterns);
* ``first ⊤ and value``: where the first ⊤ came, and which bin its released value fell in (the
  lecture-notes leak lives in the released value);
* ``score``: #⊤ on queries that are higher in d1 minus #⊤ on queries that are higher in d2
  (catches leaks that grow with many ⊤ answers, Algorithm 6);
* ``count``: the number of ⊤ answers.

The search ranks the keys of a view by their estimated likelihood ratio and considers every
prefix of that ranking, which is the optimal form of event for a known ratio (Neyman–Pearson;
DP-Sniper's threshold attack). It picks the event with the best *predicted* lower bound at the
final sample size. All of this happens on a search sample; the final test uses fresh runs.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from svtgui.core.audit.inputs import InputPair
from svtgui.core.audit.outputs import Outputs

Z_99 = 2.576  # one-sided normal quantile for α/2 = 0.005, used only to *predict* power
Z_SEARCH = 1.0  # margin for the search estimates' own noise
MAX_PATTERN_QUERIES = 16  # longer patterns are too many keys to rank on a search sample
VALUE_BINS = 24
MIN_EVENT_COUNT = 30  # an event seen fewer times on the selection half is too noisy to judge


@dataclass
class View:
    """A named function from outputs to integer keys, with a decoder for explanations.

    ``families`` are extra candidate events (key sets) of a simple shape, tried besides the
    likelihood-ratio prefixes: few and structured, they are hard to overfit.
    """

    name: str
    keys: Callable[[Outputs], np.ndarray]
    describe: Callable[[int], str]
    families: list[np.ndarray] = field(default_factory=list)


def _symbols(row: np.ndarray) -> str:
    return "".join({1: "⊤", 0: "⊥", -1: "·"}[int(v)] for v in row)


def pattern_view(n: int) -> View | None:
    if n > MAX_PATTERN_QUERIES:
        return None
    powers = 3 ** np.arange(n, dtype=np.int64)

    def keys(o: Outputs) -> np.ndarray:
        return (o.above.astype(np.int64) + 1) @ powers

    def describe(key: int) -> str:
        digits = [(key // 3**i) % 3 - 1 for i in range(n)]
        return _symbols(np.array(digits))

    return View("⊤/⊥ pattern", keys, describe)


def _first_above(o: Outputs) -> np.ndarray:
    hit = o.above == 1
    first = np.argmax(hit, axis=1)
    return np.where(hit.any(axis=1), first, o.above.shape[1])


def first_value_view(sample: Outputs) -> View | None:
    """First ⊤ position × released-value bin; bin edges are quantiles of ``sample`` (search data)."""
    if sample.values is None:
        return None
    n = sample.above.shape[1]
    first = _first_above(sample)
    has = first < n
    vals = sample.values[np.flatnonzero(has), first[has]]
    vals = vals[np.isfinite(vals)]
    if vals.size == 0:
        return None
    edges = np.unique(np.quantile(vals, np.linspace(0, 1, VALUE_BINS + 1)[1:-1]))
    width = len(edges) + 2

    def keys(o: Outputs) -> np.ndarray:
        f = _first_above(o)
        v = np.full(len(f), np.nan)
        ok = f < o.above.shape[1]
        v[ok] = o.values[np.flatnonzero(ok), f[ok]]
        b = np.where(np.isfinite(v), np.searchsorted(edges, np.nan_to_num(v), side="right") + 1, 0)
        return f.astype(np.int64) * width + b

    def describe(key: int) -> str:
        f, b = divmod(int(key), width)
        if f >= n:
            return "no ⊤"
        if b == 0:
            return f"first ⊤ at query {f + 1}"
        lo = "−∞" if b == 1 else f"{edges[b - 2]:g}"
        hi = "∞" if b - 1 >= len(edges) else f"{edges[b - 1]:g}"
        return f"first ⊤ at query {f + 1} with released value in [{lo}, {hi})"

    # "the first ⊤ came late and its value was low (or high)": the shape of the lecture-notes leak
    grid_f, grid_b = np.meshgrid(np.arange(n), np.arange(1, width), indexing="ij")
    families = []
    for m in range(n):
        for b in range(1, width):
            late = grid_f >= m
            families.append((grid_f * width + grid_b)[late & (grid_b <= b)])
            families.append((grid_f * width + grid_b)[late & (grid_b >= b)])
    return View("first ⊤ and value", keys, describe, families)


def score_view(pair: InputPair) -> View:
    sign = np.sign(pair.d1 - pair.d2).astype(np.int64)

    def keys(o: Outputs) -> np.ndarray:
        return (o.above == 1).astype(np.int64) @ sign

    return View("#⊤ where d1 is higher − #⊤ where d2 is higher", keys, lambda k: f"{k}")


def count_view() -> View:
    return View("number of ⊤ answers", lambda o: (o.above == 1).sum(axis=1).astype(np.int64),
                lambda k: f"{k}")


def views_for(pair: InputPair, sample: Outputs) -> list[View]:
    """Every view that applies to this pair and these (search-sample) outputs."""
    views = [pattern_view(len(pair.d1)), first_value_view(sample), score_view(pair), count_view()]
    return [v for v in views if v is not None]


@dataclass
class Event:
    """A set of keys of one view, found on the search sample for one (ordered) input pair."""

    pair: InputPair
    view: View
    keys: np.ndarray
    predicted_lcb: float
    search_counts: tuple[int, int] = (0, 0)
    extra: dict = field(default_factory=dict)

    def contains(self, outputs: Outputs) -> np.ndarray:
        return np.isin(self.view.keys(outputs), self.keys)

    def describe(self, limit: int = 4) -> str:
        ordered = sorted(int(k) for k in self.keys)
        shown = "; ".join(self.view.describe(k) for k in ordered[:limit])
        more = f" (and {len(ordered) - limit} more)" if len(ordered) > limit else ""
        return f"{self.view.name} ∈ {{{shown}{more}}}"


def _relative_error(p1: np.ndarray, p2: np.ndarray, runs: int) -> np.ndarray:
    return np.sqrt((1 - p1) / (runs * p1)) + np.sqrt((1 - p2) / (runs * p2))


def predicted_lcb(p1: np.ndarray, p2: np.ndarray, runs: int, judged_on: int) -> np.ndarray:
    """A cautious guess of the ε_lcb a final test of ``runs`` runs would give for these estimates.

    ln(p1/p2), less the final test's own error margin, less a margin for the uncertainty of the
    estimates themselves (from ``judged_on`` runs): among thousands of candidate events, the one
    whose estimate looks best by luck would otherwise win (the winner's curse).
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        err = Z_99 * _relative_error(p1, p2, runs) + Z_SEARCH * _relative_error(p1, p2, judged_on)
        out = np.log(p1 / p2) - err
    return np.where((p1 > 0) & (p2 > 0), out, -np.inf)


def halves(o: Outputs) -> tuple[Outputs, Outputs]:
    """The first and second half of the runs (independent samples of the same distribution)."""
    h = o.runs // 2
    return o.part(slice(None, h)), o.part(slice(h, None))


def _counts(keys: np.ndarray, inverse: np.ndarray, size: int) -> np.ndarray:
    return np.bincount(inverse, minlength=size) if inverse.size else np.zeros(size, dtype=np.int64)


def best_event(pair: InputPair, out1: Outputs, out2: Outputs, final_runs: int,
               views: Callable[[InputPair, Outputs], list[View]] | None = None) -> Event | None:
    """The event (over all views, prefixes of the ratio ranking) most likely to show a large ε_lcb.

    ``out1``/``out2`` are search-sample outputs on ``pair.d1``/``pair.d2``. Each is split in two:
    keys are ranked by likelihood ratio on the first half and the prefix is chosen on the second,
    so the choice is not fooled by keys that look extreme by chance. A prefix never seen under d2
    counts as seen once there, so impossible-looking events are not over-trusted. ``views``
    gives the views to try (default: :func:`views_for`, the answer-vector views).
    """
    (rank_1, judge_1), (rank_2, judge_2) = halves(out1), halves(out2)
    best: Event | None = None
    for view in (views or views_for)(pair, out1.concat(out2)):
        ka1, ka2 = view.keys(rank_1), view.keys(rank_2)
        kb1, kb2 = view.keys(judge_1), view.keys(judge_2)
        keys = np.unique(np.concatenate([ka1, ka2, kb1, kb2]))
        rank1 = _counts(keys, np.searchsorted(keys, ka1), len(keys))
        rank2 = _counts(keys, np.searchsorted(keys, ka2), len(keys))
        order = np.argsort(-(rank1 + 0.5) / (rank2 + 0.5), kind="stable")
        b1 = _counts(keys, np.searchsorted(keys, kb1), len(keys))
        b2 = _counts(keys, np.searchsorted(keys, kb2), len(keys))
        sets = [keys[order[: j + 1]] for j in range(len(keys))]
        cum1, cum2 = np.cumsum(b1[order]), np.cumsum(b2[order])
        for family in view.families:
            inside = np.isin(keys, family)
            sets.append(keys[inside])
            cum1 = np.append(cum1, b1[inside].sum())
            cum2 = np.append(cum2, b2[inside].sum())
        score = predicted_lcb(cum1 / len(kb1), np.maximum(cum2, 1) / len(kb2), final_runs, len(kb1))
        score[cum1 < MIN_EVENT_COUNT] = -np.inf
        j = int(np.argmax(score))
        if math.isfinite(score[j]) and (best is None or score[j] > best.predicted_lcb):
            best = Event(pair, view, sets[j], float(score[j]), (int(cum1[j]), int(cum2[j])))
    return best
