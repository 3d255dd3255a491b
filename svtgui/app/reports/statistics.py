"""The statistics table of a release: what was asked, the released value, its interval, the ε it cost.

What a curator delivers is a table of statistics, not a ⊤/⊥ stream. Each released number gets an
interval at a stated confidence computed exactly from the noise that was really added
(:mod:`svtgui.core.intervals`: discrete Laplace on the noise lattice, for the mechanisms' fresh answers
and the recipes' Laplace releases); a mean is the ratio of two such releases, and its interval holds
when both of theirs do (each taken at half the failure probability). Where no exact interval exists
the entry says why and gives the accuracy statement instead:

* ⊤/⊥-only and selection mechanisms release no number: one entry, "none released", with α;
* a noisy gap (Ding et al.) is chosen by the very noise that set it, so the unconditional noise law
  does not describe a released gap: no interval, the accuracy statement;
* PMW's free answers come from a synthetic histogram, bounded by its accuracy statement, not by one
  draw (its paid answers to counts are fresh Laplace releases: they get their exact interval).

Everything is computed from the ledger's public record of the run (parameters, released rows and
facts); nothing here sees data, a true answer or a noise value.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from svtgui.app.reports.document import Document
from svtgui.app.run_plans import PLAN_FACT
from svtgui.core import intervals, mechanisms
from svtgui.core.budget import fmt
from svtgui.core.noise import ScaleProbe
from svtgui.core.wording import count, plain
from svtgui.ledger import ResponseRecord, RunRecord

CONFIDENCE = 0.95
NONE_RELEASED = "none released"
SCREENED_METHOD = "found by Sparse, answered with fresh Laplace noise on the noise lattice; exact interval"
COUNT_METHOD = "Laplace on the integers, sensitivity 1; exact interval"


@dataclass(frozen=True)
class Statistic:
    """One line of the table. ``value``: a number, a list (the chosen items) or None (none released)."""

    name: str
    value: float | int | list[str | int | float] | None
    interval: tuple[float, float] | None
    confidence: float | None
    epsilon: str  # ε charged for the run that released it (a run's statistics share its ε)
    run: int
    method: str  # how the value was released and its interval computed, in plain words

    def to_json(self) -> Document:
        return {"name": self.name, "value": self.value,
                "interval": None if self.interval is None else list(self.interval),
                "confidence": self.confidence, "epsilon": self.epsilon, "run": self.run,
                "method": self.method}


def decimals(half_width: float) -> int:
    """Decimal places that show an interval of this half-width to two significant figures."""
    if half_width <= 0 or not math.isfinite(half_width):
        return 0
    return max(0, 1 - math.floor(math.log10(half_width)))


Interval = tuple[float, float]


def rounded(value: float, interval: Interval, *, integer: bool) -> tuple[float, Interval]:
    """The value rounded to its interval's precision, the interval rounded outwards (never narrower)."""
    if integer:
        return int(value), (int(interval[0]), int(interval[1]))
    places = decimals((interval[1] - interval[0]) / 2)
    scale = 10.0 ** places
    low, high = math.floor(interval[0] * scale) / scale, math.ceil(interval[1] * scale) / scale
    if places == 0:
        return int(round(value)), (int(low), int(high))
    return round(value, places), (round(low, places), round(high, places))


def _laplace_statistic(run: RunRecord, name: str, value: float, sensitivity: float, epsilon: float, *,
                       integer: bool, confidence: float = CONFIDENCE, method: str) -> Statistic:
    """A value released by :func:`svtgui.core.laplace.laplace_release`, with its exact interval."""
    interval = intervals.laplace_interval(value, sensitivity, epsilon, confidence, integer=integer)
    v, iv = rounded(value, interval, integer=integer)
    return Statistic(name, v, iv, confidence, fmt(run.epsilon), run.id, method)


def _none_released(run: RunRecord, name: str, accuracy: str) -> Statistic:
    return Statistic(name, None, None, None, fmt(run.epsilon), run.id, f"{NONE_RELEASED}; {accuracy}")


def run_statistics(run: RunRecord, tops: list[ResponseRecord], facts: Document,
                   accuracy: str) -> list[Statistic]:
    """The statistics a run released. ``tops``: its ⊤ rows (PMW: every answer); ``accuracy``: the
    run's accuracy statement in words, quoted where no exact interval exists."""
    recipe = {"recipe_auto_mean": _auto_mean, "recipe_screen_ranges": _screened,
              "recipe_frequent_items": _frequent_items}.get(run.mechanism_id)
    if recipe is not None:
        return recipe(run, tops, facts, accuracy)
    return _mechanism(run, tops, facts, accuracy)


def _auto_mean(run: RunRecord, _tops: list[ResponseRecord], facts: Document,
               _accuracy: str) -> list[Statistic]:
    column, bound = run.params["column"], float(facts["bound"])
    _e_svt, e_sum, e_count = facts["epsilon_split"]
    # each part at 1 − (1 − γ)/2: both hold together with probability ≥ γ (union bound), and so does the mean
    each = 1 - (1 - CONFIDENCE) / 2
    s_lo, s_hi = intervals.laplace_interval(facts["noisy_sum"], bound, e_sum, each, integer=False)
    n_lo, n_hi = intervals.laplace_interval(facts["noisy_count"], 1.0, e_count, each, integer=True)
    clip = f"{column} clipped to [0, {plain(bound, 6)}]"
    how = ("the ratio of a Laplace-noised clipped sum and a Laplace-noised count; the clipping bound was "
           "chosen by AboveThreshold. Interval: where the ratio lies when both releases lie in their exact "
           f"{each:.1%} intervals")
    stats = []
    if n_lo > 0:
        ratios = [s / n for s in (s_lo, s_hi) for n in (n_lo, n_hi)]
        v, iv = rounded(facts["mean"], (min(ratios), max(ratios)), integer=False)
        stats.append(Statistic(f"mean of {clip}", v, iv, CONFIDENCE, fmt(run.epsilon), run.id, how))
    else:
        stats.append(Statistic(f"mean of {clip}", facts["mean"], None, None, fmt(run.epsilon), run.id,
                               how + "; none here: the count's interval reaches 0"))
    stats.append(_laplace_statistic(
        run, f"sum of {clip}", facts["noisy_sum"], bound, e_sum, integer=False,
        method="Laplace on the noise lattice, sensitivity = the clipping bound; exact interval"))
    stats.append(_laplace_statistic(run, "number of records", facts["noisy_count"], 1.0, e_count,
                                    integer=True, method=COUNT_METHOD))
    return stats


def _screened(run: RunRecord, tops: list[ResponseRecord], facts: Document,
              accuracy: str) -> list[Statistic]:
    if not tops:
        return [_none_released(run, f"ranges above T = {plain(run.params['threshold'], 12)}", accuracy)]
    e_answer = float(facts["epsilon_per_answer"])
    by_query = {a["query"]: a for a in facts.get("answers", [])}
    stats = []
    for r in tops:
        answer = by_query.get(r.description, {})
        if "sensitivity" in answer:  # each answer's own Δ and lattice: recorded since this table exists
            stats.append(_laplace_statistic(
                run, r.description, float(r.value), float(answer["sensitivity"]), e_answer,
                integer=bool(answer["integer"]),
                method=SCREENED_METHOD))
        else:  # an older run: the 95 % accuracy it recorded (the widest of its answers'), a bound
            alpha = float(facts["answer_alpha_95"])
            stats.append(Statistic(r.description, r.value, (r.value - alpha, r.value + alpha), CONFIDENCE,
                                   fmt(run.epsilon), run.id, "found by Sparse, answered with fresh Laplace "
                                   "noise; interval: the run's recorded 95 % accuracy (a bound)"))
    return stats


def _frequent_items(run: RunRecord, _tops: list[ResponseRecord], facts: Document,
                    accuracy: str) -> list[Statistic]:
    c = run.params.get("cutoff")
    name = f"the {count(c, 'most frequent item')} of '{run.params.get('column', 'items')}'"
    return [Statistic(name, list(facts.get("items", [])), None, None, fmt(run.epsilon), run.id,
                      f"a selection (which items), no counts released; {accuracy}")]


def _mechanism(run: RunRecord, tops: list[ResponseRecord], facts: Document,
               accuracy: str) -> list[Statistic]:
    info = mechanisms.info(run.mechanism_id)
    stats = _released_count(run, facts)
    mech = _probe(run)
    numeric = getattr(getattr(mech, "scales", None), "numeric", None)
    fresh = numeric is not None and getattr(getattr(mech, "release", None), "value", "") == "fresh"
    if run.mechanism_id == "sparse_project":
        return stats + [Statistic("the projected histogram (the release file)", None, None, None,
                                  fmt(run.epsilon), run.id, "anyone answers count queries from the file "
                                  f"(`svtgui-cli sparse-project answer`); {accuracy}")]
    numbers = [r for r in tops if r.value is not None]
    if not numbers:
        asked = count(run.queries_planned, "query") if run.queries_planned else "the queries"
        what = (f"the top {run.params.get('cutoff')} of {asked}" if run.params.get("threshold") is None
                else f"which of {asked} {'lies' if run.queries_planned == 1 else 'lie'} above "
                     f"T = {plain(run.params['threshold'], 12)}")
        return stats + [_none_released(run, f"{what} ({info.name})", accuracy)]
    if fresh:
        lattice = mech.lattice
        t = lattice.scale_units(numeric)
        for r in numbers:
            interval = intervals.lattice_interval(float(r.value), lattice.step, t, CONFIDENCE,
                                                  integer=lattice.integer)
            v, iv = rounded(float(r.value), interval, integer=lattice.integer)
            stats.append(Statistic(r.description, v, iv, CONFIDENCE, fmt(run.epsilon), run.id,
                                   f"{info.name}: a ⊤ answer with fresh Laplace noise on the noise lattice; "
                                   "exact interval"))
        return stats
    why = ("the noisy gap is chosen by the same noise that set it, so no exact interval exists"
           if run.mechanism_id == "gap_svt" else "answered from a noisy synthetic histogram")
    counts = _planned_counts(facts)
    for r in numbers:
        paid = r.answered_from_simulation is False and r.index in counts and hasattr(mech, "answer_epsilon")
        if paid:  # PMW's paid answer to a count: fresh Laplace on the integers, Δ = 1, ε_answer/c
            stats.append(_laplace_statistic(
                run, r.description, round(float(r.value)), 1.0, mech.answer_epsilon / mech.cutoff,
                integer=True, method=f"{info.name}: a paid answer, fresh Laplace noise on the integers; "
                                     "exact interval"))
        else:
            stats.append(Statistic(r.description, float(r.value), None, None, fmt(run.epsilon), run.id,
                                   f"{info.name}: {why}; {accuracy}"))
    return stats


def _planned_counts(facts: Document) -> set[int]:
    """Indices of the run's planned queries that are plain counts (integer answers), from its plan."""
    queries = (facts.get(PLAN_FACT) or {}).get("queries") or []
    return {i for i, q in enumerate(queries) if isinstance(q, dict) and q.get("kind") in ("count", "range")}


def _released_count(run: RunRecord, facts: Document) -> list[Statistic]:
    """PMW's and SparseProject's released number of records n̂ (discrete Laplace, or exact and public)."""
    if "n_released" not in facts:
        return []
    n = int(facts["n_released"])
    mech = _probe(run)
    count_epsilon = getattr(mech, "count_epsilon", None)
    if count_epsilon is None:  # parameters this version cannot read back: no interval rather than a wrong one
        return [Statistic("number of records", n, None, None, fmt(run.epsilon), run.id, "released count")]
    if count_epsilon == 0:
        return [Statistic("number of records", n, (n, n), 1.0, fmt(run.epsilon), run.id,
                          "public under replace-one neighbours: released exactly")]
    return [_laplace_statistic(run, "number of records", n, 1.0, float(count_epsilon), integer=True,
                               method=COUNT_METHOD)]


def _probe(run: RunRecord) -> mechanisms.Mechanism | None:
    """The run's mechanism rebuilt from its public parameters with a noise source that draws nothing
    (only its scales are read), or None when this version cannot rebuild it."""
    info = mechanisms.info(run.mechanism_id)
    names = {p.name for p in info.params}
    try:
        return mechanisms.create(run.mechanism_id, rng=ScaleProbe(), allow_non_private=True,
                                 **{k: v for k, v in run.params.items() if k in names})
    except Exception:  # noqa: BLE001 - an old ledger's parameters: no interval rather than no report
        return None


STATISTICS_HEADER = ("statistic", "value", "interval", "confidence", "ε of its run", "run")


def _number(v: object) -> str:
    return f"{v:,}" if isinstance(v, int | float) and not isinstance(v, bool) else str(v)


def cells(st: Document) -> tuple[str, str, str, str, str, str]:
    """One statistic (its JSON form) as the words of a table row, for every human-readable format."""
    if st["value"] is None:
        value = NONE_RELEASED
    elif isinstance(st["value"], list):
        value = ", ".join(map(str, st["value"])) or "none found"
    else:
        value = _number(st["value"])
    iv = st["interval"]
    interval = "—" if iv is None else f"{_number(iv[0])} to {_number(iv[1])}"
    confidence = "—" if st["confidence"] is None else f"{st['confidence']:.0%}".replace("%", " %")
    return st["name"], value, interval, confidence, st["epsilon"], str(st["run"])


def statistics_text(statistics: list[Document]) -> str:
    """The table as aligned plain text (the CLI prints it after a run or a recipe)."""
    table = [STATISTICS_HEADER[:5], *(cells(st)[:5] for st in statistics)]
    widths = [max(len(row[i]) for row in table) for i in range(5)]
    lines = []
    for row in table:
        padded = [cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(row, widths,
                                                                                               strict=True))]
        lines.append("  ".join(padded).rstrip())
    return "\n".join(lines)


def headline(statistics: list[Document], total: int | None = None) -> str:
    """A run's statistics in one line (History's column): the first one, and how many more (``total``:
    how many there are when ``statistics`` holds only the first few)."""
    if not statistics:
        return ""
    name, value, interval, confidence, _eps, _run = cells(statistics[0])
    first = (f"{name}: {value}" if statistics[0]["interval"] is None
             else f"{name}: {value} ({interval}, {confidence})")
    more = max(total if total is not None else 0, len(statistics)) - 1
    return first + (f"; {count(more, 'more statistic')}" if more else "")
