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
from dataclasses import dataclass

import numpy as np

from svtgui.core.audit.first_hit import FirstHits
from svtgui.core.audit.inputs import InputPair
from svtgui.core.audit.outputs import Outputs

Z_99 = 2.576  # one-sided normal quantile for α/2 = 0.005, used only to *predict* power
Z_SEARCH = 2.0  # margin for the search estimates' own noise: keys ranked on an estimated ratio
Z_ORDERED = 1.0  # ... for an ordered view, whose only choice is a threshold (nested events)
MAX_PATTERN_QUERIES = 16  # longer patterns are too many keys to rank on a search sample
VALUE_BINS = 24
MIN_EVENT_COUNT = 30  # an event seen fewer times on the selection half is too noisy to judge


@dataclass
class View:
    """A named function from outputs to integer keys, with a decoder for explanations.

    ``ordered`` views have keys that grow with the likelihood ratio P1/P2 (an exact ratio, or a
    statistic known to order outputs that way): their events are ``key ≥ threshold``, so the search
    only picks the threshold. Other views rank their keys by the ratio estimated on half the search
    sample. ``hit_keys`` computes the same keys from :class:`FirstHits` alone (a view of a threshold
    mechanism's first ⊤), so the final test can use the simulator's fast first-⊤ sampler.
    """

    name: str
    keys: Callable[[Outputs], np.ndarray]
    describe: Callable[[int], str]
    ordered: bool = False
    hit_keys: Callable[[FirstHits], np.ndarray] | None = None
    plain: Callable[[np.ndarray], str] | None = None  # an event (set of keys) in plain words


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

    return View("first ⊤ and value", keys, describe)


def score_view(pair: InputPair) -> View:
    sign = np.sign(pair.d1 - pair.d2).astype(np.int64)

    def keys(o: Outputs) -> np.ndarray:
        return (o.above == 1).astype(np.int64) @ sign

    def plain(event_keys: np.ndarray) -> str:
        least = int(np.min(event_keys))
        return (f"the questions whose answer is higher on the first list got at least {least} more ⊤ "
                "than the questions whose answer is higher on the second list")

    return View("#⊤ where d1 is higher − #⊤ where d2 is higher", keys, lambda k: f"{k}", ordered=True,
                plain=plain)


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
    estimates: tuple[float, float] = (0.5, 0.5)  # P1[E], P2[E] as the search saw them (exact or estimated)

    def contains(self, outputs: Outputs | FirstHits) -> np.ndarray:
        keys = self.view.hit_keys(outputs) if isinstance(outputs, FirstHits) else self.view.keys(outputs)
        if self.view.ordered:  # the event is "key ≥ threshold", also for keys the search never saw
            return keys >= self.keys.min()
        return np.isin(keys, self.keys)

    def plain(self) -> str:
        """The event in words a non-programmer follows (no set notation)."""
        if self.view.plain is not None:
            return self.view.plain(self.keys)
        shown = [self.view.describe(int(k)) for k in sorted(int(k) for k in self.keys)[:3]]
        more = f", and {len(self.keys) - 3} more outcomes of this kind" if len(self.keys) > 3 else ""
        return f"the output's {self.view.name} was one of: {'; '.join(shown)}{more}"

    def describe(self, limit: int = 4) -> str:
        ordered = sorted(int(k) for k in self.keys)
        shown = "; ".join(self.view.describe(k) for k in ordered[:limit])
        more = f" (and {len(ordered) - limit} more)" if len(ordered) > limit else ""
        return f"{self.view.name} ∈ {{{shown}{more}}}"


def predicted_lcb(k1: np.ndarray, k2: np.ndarray, judged_on: int, runs: int,
                  margin: float = Z_SEARCH) -> np.ndarray:
    """A cautious guess of the ε_lcb a final test of ``runs`` runs per input would give.

    From search counts ``k1``, ``k2`` out of ``judged_on`` runs: the lower bound of p1 and the upper
    bound of p2 a final test would find (normal approximation, and about ln(2/α)/runs for an
    event never seen under d2, as Clopper–Pearson gives), less a ``margin`` of standard
    errors of the search estimate itself: among hundreds of candidate events, the one whose
    estimate looks best by luck would otherwise win (the winner's curse).
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        p1 = k1 / judged_on
        search_error = np.sqrt((1 - p1) / np.maximum(k1, 1)) + np.sqrt(1 / np.maximum(k2, 1))
        return expected_lcb(p1, k2 / judged_on, runs) - margin * search_error


def expected_lcb(p1: np.ndarray, p2: np.ndarray, runs: int) -> np.ndarray:
    """About the ε_lcb a final test of ``runs`` runs per input gives for events of these probabilities.

    The lower bound of p1 and the upper bound of p2 (normal approximation, and about ln(2/α)/runs
    for an event of probability 0 under d2, as Clopper–Pearson gives); −∞ when p1's bound is 0.
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        lower1 = p1 - Z_99 * np.sqrt(p1 * (1 - p1) / runs)
        upper2 = p2 + Z_99 * np.sqrt(p2 * (1 - p2) / runs) + Z_99**2 / runs
        out = np.log(lower1 / upper2)
    return np.where(lower1 > 0, out, -np.inf)


def halves(o: Outputs) -> tuple[Outputs, Outputs]:
    """The first and second half of the runs (independent samples of the same distribution)."""
    h = o.runs // 2
    return o.part(slice(None, h)), o.part(slice(h, None))


def _counts(keys: np.ndarray, inverse: np.ndarray, size: int) -> np.ndarray:
    return np.bincount(inverse, minlength=size) if inverse.size else np.zeros(size, dtype=np.int64)


def best_event(pair: InputPair, out1: Outputs, out2: Outputs, final_runs: int | Callable[[View], int],
               views: Callable[[InputPair, Outputs], list[View]] | None = None) -> Event | None:
    """The event (over all views, prefixes of the ratio ranking) most likely to show a large ε_lcb.

    ``out1``/``out2`` are search-sample outputs on ``pair.d1``/``pair.d2``. For a view whose order
    is not known, each is split in two: keys are ranked by estimated likelihood ratio on the first
    half and the prefix is chosen on the second, so the choice is not fooled by keys that look
    extreme by chance; an ordered view's thresholds are judged on the whole sample. ``final_runs``
    is the final test's size, or a function of the view (some views are cheaper to evaluate).
    ``views`` gives the views to try (default: :func:`views_for`, the answer-vector views).
    """
    best: Event | None = None
    for view in (views or views_for)(pair, out1.concat(out2)):
        if view.ordered:  # the order is known: judge thresholds on the whole search sample
            kb1, kb2 = view.keys(out1), view.keys(out2)
            keys = np.unique(np.concatenate([kb1, kb2]))
            order = np.arange(len(keys))[::-1]
        else:  # rank keys on one half, judge the prefixes on the other
            (rank_1, judge_1), (rank_2, judge_2) = halves(out1), halves(out2)
            ka1, ka2 = view.keys(rank_1), view.keys(rank_2)
            kb1, kb2 = view.keys(judge_1), view.keys(judge_2)
            keys = np.unique(np.concatenate([ka1, ka2, kb1, kb2]))
            rank1 = _counts(keys, np.searchsorted(keys, ka1), len(keys))
            rank2 = _counts(keys, np.searchsorted(keys, ka2), len(keys))
            order = np.argsort(-(rank1 + 0.5) / (rank2 + 0.5), kind="stable")
        b1 = _counts(keys, np.searchsorted(keys, kb1), len(keys))
        b2 = _counts(keys, np.searchsorted(keys, kb2), len(keys))
        cum1, cum2 = np.cumsum(b1[order]), np.cumsum(b2[order])
        runs = final_runs(view) if callable(final_runs) else final_runs
        score = predicted_lcb(cum1, cum2, len(kb1), runs, Z_ORDERED if view.ordered else Z_SEARCH)
        score[cum1 < MIN_EVENT_COUNT] = -np.inf
        j = int(np.argmax(score))
        if math.isfinite(score[j]) and (best is None or score[j] > best.predicted_lcb):
            best = Event(pair, view, keys[order[: j + 1]], float(score[j]),
                         (max(int(cum1[j]), 1) / len(kb1), max(int(cum2[j]), 1) / len(kb2)))
    return best
