"""A black-box statistical test of a mechanism's claimed ε (in the spirit of StatDP and DP-Sniper).

    >>> from svtgui.core.audit import audit
    >>> r = audit("lecture_sparse_2011", epsilon=0.1, seconds=20, seed=1)
    >>> r.verdict, r.epsilon_lcb, r.p_value        # doctest: +SKIP
    ('violation', 0.27..., 1e-30...)

How it works
------------
ε-DP promises ``P[M(d1) ∈ E] ≤ e^ε·P[M(d2) ∈ E]`` for every event E and every neighbouring pair
(d1, d2). The auditor looks for a pair and an event that break this, in two phases with
*independent* samples, so that the final p-value is honest:

1. **Search** (at most 30% of the time): every candidate pair of neighbouring answer vectors
   (:mod:`svtgui.core.audit.inputs`), or of neighbouring histograms for PMW and SparseProject
   (:mod:`svtgui.core.audit.linear`), in both directions. For a threshold mechanism with cutoff 1 the
   event is ``ln(P1/P2) ≥ t`` on the first ⊤ and its value, with P1, P2 computed exactly from the
   public noise scales (:mod:`svtgui.core.audit.first_hit`), and the pair and t are chosen on those
   exact probabilities: no search sample, no winner's curse. Otherwise each pair is run a few
   thousand times each way and, for every view of the output (:mod:`svtgui.core.audit.events`,
   :mod:`svtgui.core.audit.linear_events`), the event with the best predicted lower bound is kept.
2. **Final test**: the chosen pair is run again with fresh noise, as often as the remaining time
   allows, split between d1 and d2 by the search's odds; the event's counts give the exact
   union-bound Clopper–Pearson test of ``H0: P1[E] ≤ e^ε·P2[E] + δ`` and the lower confidence
   bound ε_lcb (:mod:`svtgui.core.audit.stats`). The event is fixed before these runs and their
   number depends on time only, so the p-value is valid for the event reported.

A *violation* is reported when the p-value is below α (0.01 by default); then ε_lcb > ε at
confidence 1 − α. "No violation found in this audit" is not a proof of privacy: it says that this search,
with this many runs, did not find evidence against the claim.

Runs are simulated by the vectorised simulators of :mod:`svtgui.core.audit.sim` and
:mod:`svtgui.core.audit.linear_sim`, built from the mechanism the catalogue factory creates.
Noise comes from a seeded numpy generator: fine for an audit, whose results are statistics,
never releases.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from svtgui.core import mechanisms, validation
from svtgui.core.audit.defaults import DEFAULT_SECONDS
from svtgui.core.audit.events import Event, View, best_event
from svtgui.core.audit.inputs import InputPair, candidates
from svtgui.core.audit.linear import HistogramPair, pmw_candidates, sparse_project_candidates
from svtgui.core.audit.linear_sim import PMWSim, SparseProjectSim
from svtgui.core.audit.sim import Outputs, Simulator, ThresholdSim, audit_params, on_histograms, simulator_for
from svtgui.core.audit.stats import ratio_test
from svtgui.core.progress import NO_PROGRESS, ProgressState

VIOLATION = "violation"
NO_VIOLATION = "no violation found in this audit"
SEARCH_SHARE = 0.3  # of the time budget spent choosing the input pair and the event
CHUNK = 1 << 17  # runs simulated at once in the final phase (bounds memory)
MIN_SEARCH_RUNS = 2000
TIMING_RUNS = CHUNK  # runs timed to plan the final test of an exactly chosen event (one final chunk)
# The planned final sample is this many times smaller than the timing promises: a shared machine
# may run the final test slower than the timing ran, and an event planned for too many runs is seen
# too rarely to bound anything, while one planned for too few loses little.
PLAN_MARGIN = 2.0
SEARCH_OVERHEAD = 2.5  # search time per simulated run, relative to simulating it (event ranking)
MAX_SEARCH_RUNS = 2_000_000  # per pair and input
MAX_SEARCH_CELLS = 20_000_000  # runs × queries of one search sample (bounds memory: about 200 MB)


@dataclass(frozen=True)
class AuditResult:
    """What an audit found. ``witness`` is the input pair and ``event`` the output event used."""

    mechanism_id: str
    epsilon: float
    delta: float
    verdict: str
    epsilon_lcb: float
    p_value: float
    alpha: float
    witness: InputPair | HistogramPair
    event: str
    counts: tuple[int, int]
    runs: int  # fresh runs on d1 in the final test
    runs_d2: int  # ... and on d2 (more when the event is rare on d2)
    search_runs: int
    seconds: float
    params: dict
    event_plain: str = ""  # the event in plain words (teaching pages, reports)

    @property
    def violation(self) -> bool:
        return self.verdict == VIOLATION

    def to_dict(self) -> dict[str, Any]:
        return {
            "mechanism": self.mechanism_id, "epsilon": self.epsilon, "delta": self.delta,
            "verdict": self.verdict, "epsilon_lcb": self.epsilon_lcb, "p_value": self.p_value,
            "alpha": self.alpha, "witness": self.witness.to_dict(), "event": self.event,
            "counts": {"d1": self.counts[0], "d2": self.counts[1]},
            "runs": {"d1": self.runs, "d2": self.runs_d2},
            "search_runs_per_input": self.search_runs, "seconds": self.seconds, "params": self.params,
        }

    @property
    def confidence(self) -> str:
        """1 − α in per cent with every digit that matters: 99%, 97.5%, 99.9999999% (never a
        rounded "100%", which would claim certainty)."""
        digits = max(2, math.ceil(-math.log10(self.alpha)) + 2) if 0 < self.alpha < 1 else 3
        return f"{100 * (1 - self.alpha):.{digits}g}%"

    def summary(self) -> str:
        head = (f"{self.mechanism_id}: {self.verdict} at claimed ε = {self.epsilon:g}"
                f"{'' if self.delta == 0 else f', δ = {self.delta:g}'}; "
                f"ε_lcb = {self.epsilon_lcb:.3f} ({self.confidence} confidence), "
                f"p = {self.p_value:.3g}, {self.runs:,} + {self.runs_d2:,} runs, {self.seconds:.1f} s")
        return head


Progress = Callable[[str, float], None]  # the search's report(message, fraction)


def auditable(mechanism_id: str) -> bool:
    """True when the auditor has a model of the mechanism's inputs: answer vectors or histograms."""
    try:
        mech = mechanisms.create(mechanism_id, rng=mechanisms.seeded(0), allow_non_private=True,
                                 **audit_params(mechanism_id, 1.0))
    except ValueError:
        return False
    return on_histograms(mechanism_id) or isinstance(
        mech, mechanisms.StreamingMechanism | mechanisms.SelectionMechanism)


def candidate_pairs(sim: Simulator, params: Mapping[str, Any], queries: int,
                    long_run: int) -> list[InputPair] | list[HistogramPair]:
    """The neighbouring inputs the search tries for this simulator's kind of mechanism."""
    if isinstance(sim, PMWSim):
        return pmw_candidates(sim.threshold_rows, sim.neighbouring, queries=queries, long_run=long_run)
    if isinstance(sim, SparseProjectSim):
        return sparse_project_candidates(sim.signs, sim.neighbouring)
    stairs = 3 * sim.rho_scale * sim.lattice.step if isinstance(sim, ThresholdSim) and sim.noiseless else 0.0
    return candidates(float(params.get("threshold", 0.0)), float(params.get("sensitivity", 1.0)),
                      queries=queries, long_run=long_run, stairs=stairs)


def audit(mechanism_id: str, epsilon: float, *, seconds: float = DEFAULT_SECONDS, seed: int | None = None,
          alpha: float = 0.01, params: Mapping[str, Any] | None = None, queries: int = 10,
          long_run: int = 30, search_runs: int | None = None, final_runs: int | None = None,
          progress: ProgressState | None = None,
          simulator: Simulator | None = None) -> AuditResult:
    """Audit ``mechanism_id`` at its claimed ``epsilon`` within about ``seconds`` (see module docs).

    ``params`` overrides the audit's public parameters (T = 0, c = 1, Δ = 1, integer answers).
    ``search_runs``/``final_runs`` fix the sample sizes instead of deriving them from ``seconds``
    (with a seed, the result is then reproducible on any machine: what the tests use).
    ``progress`` (a :class:`~svtgui.core.progress.ProgressState`: the window's audit task) hears
    what is being done; once it says cancelled, the search and then the final test end early, and
    the runs made so far are tested (GUI cancel).
    ``simulator`` audits that model instead of the catalogue's (tests audit deliberately broken
    variants this way: a simulator built from a tampered mechanism object).
    """
    eps = validation.positive("epsilon", epsilon)
    budget = validation.positive("seconds", seconds)
    alpha = validation.fraction_open("alpha", alpha)
    entry = mechanisms.info(mechanism_id)
    full = audit_params(mechanism_id, eps, params)
    if not auditable(mechanism_id):
        raise ValueError(f"{mechanism_id} takes neither a vector of query answers nor a histogram, so it "
                         "cannot be audited on neighbouring inputs")
    delta = float(full.get("delta", 0.0) or 0.0)
    sim = simulator or simulator_for(entry.id, full)
    seed = int.from_bytes(os.urandom(8), "little") >> 1 if seed is None else validation.count(
        "seed", seed, minimum=0)
    search_gen, final_gen = (np.random.Generator(np.random.SFC64(s))
                             for s in np.random.SeedSequence(seed).spawn(2))
    state = progress or NO_PROGRESS
    stop = state.is_cancelled

    def report(message: str, fraction: float) -> None:
        state.set_progress(fraction, message)

    start = time.perf_counter()

    pairs = candidate_pairs(sim, full, queries, long_run)
    final_budget = (1 - SEARCH_SHARE) * budget

    def planned(per_run: float) -> float:
        """Final runs judged at: fixed, or what the final budget buys at ``per_run`` seconds (NaN
        for a NaN speed: the caller then has to time the draws)."""
        if final_runs is not None:
            return final_runs
        return math.nan if math.isnan(per_run) else int(final_budget / per_run)

    if search_runs is not None:
        fixed_search = validation.count("search_runs", search_runs, minimum=100)

        def runs_for(_pair: InputPair, _left: int) -> int:
            return fixed_search
    else:
        search_deadline = start + SEARCH_SHARE * budget

        def runs_for(pair: InputPair, left: int) -> int:
            """An equal share of the search time left, at this pair's measured speed."""
            t0 = time.perf_counter()
            sim.search_draw(pair.d1, MIN_SEARCH_RUNS, search_gen)
            per_run = 2 * SEARCH_OVERHEAD * (time.perf_counter() - t0) / MIN_SEARCH_RUNS
            share = max(0.0, search_deadline - time.perf_counter()) / left
            width = len(pair.d1) if isinstance(pair, InputPair) else 1
            most = max(MIN_SEARCH_RUNS, min(MAX_SEARCH_RUNS, MAX_SEARCH_CELLS // width))
            return int(np.clip(share / per_run, MIN_SEARCH_RUNS, most))
    if final_runs is not None:
        final_runs = validation.count("final_runs", final_runs, minimum=100)
    event, used = _search(sim, pairs, runs_for, planned, search_gen, report, stop)
    (k1, n1), (k2, n2) = _final_counts(sim, event, start + budget, final_runs, final_gen, report, stop)
    test = ratio_test(k1, n1, k2, n2, eps, alpha, delta)
    verdict = VIOLATION if test.p_value < alpha else NO_VIOLATION
    report("done", 1.0)
    return AuditResult(entry.id, eps, delta, verdict, test.epsilon_lcb, test.p_value, alpha, event.pair,
                       event.describe(), (k1, k2), n1, n2, used, time.perf_counter() - start, full,
                       event.plain())


def _timed_search(sim: Simulator, pair: InputPair, runs: int, planned: Callable[[float], int],
                  gen: np.random.Generator) -> tuple[Event | None, float]:
    """The best event for one pair (both directions) and the seconds the search took.

    Each event is judged at the final sample size ``planned(seconds per run)`` of its view: a run
    simulated in full plus evaluating the event, or, for views of the first ⊤, a draw of the fast
    first-⊤ sampler plus the likelihood lookup.
    """
    t0 = time.perf_counter()
    if isinstance(sim, ThresholdSim) and sim.cutoff == 1:  # exact probabilities: no search sample
        final = planned(math.nan)  # a fixed final size ignores the speed
        if math.isnan(final):
            view = sim.ratio_view(pair)
            view.hit_keys(sim.first_hits(pair.d1, 100, gen))  # builds the view's ratio table: not per run
            t1 = time.perf_counter()  # time what the final test does per run: draw, then compute the key
            view.hit_keys(sim.first_hits(pair.d1, TIMING_RUNS, gen))
            final = max(MIN_SEARCH_RUNS, planned(PLAN_MARGIN * (time.perf_counter() - t1) / TIMING_RUNS))
        exact = [e for e in (sim.exact_event(pair, final), sim.exact_event(pair.swapped(), final)) if e]
        if exact:
            return max(exact, key=lambda e: e.predicted_lcb), time.perf_counter() - t0
    out1, out2 = sim.search_draw(pair.d1, runs, gen), sim.search_draw(pair.d2, runs, gen)
    full = max(runs, planned(1.5 * (time.perf_counter() - t0) / runs))  # +50% for evaluating the event
    compact = full
    if isinstance(sim, ThresholdSim):
        t1 = time.perf_counter()
        sim.first_hits(pair.d1, runs, gen)
        compact = max(runs, planned(3.0 * (time.perf_counter() - t1) / runs))

    def final_runs(view: View) -> int:
        return compact if view.hit_keys is not None else full

    found = [e for e in (best_event(pair, out1, out2, final_runs, sim.views),
                         best_event(pair.swapped(), out2, out1, final_runs, sim.views)) if e is not None]
    best = max(found, key=lambda e: e.predicted_lcb, default=None)
    return best, time.perf_counter() - t0


def _search(sim: Simulator, pairs: list[InputPair] | list[HistogramPair],
            runs_for: Callable[[InputPair, int], int], planned: Callable[[float], int],
            gen: np.random.Generator, report: Progress, stop: Callable[[], bool]) -> tuple[Event, int]:
    """The best event over all candidate pairs, both directions, and the search runs per input used."""
    best: Event | None = None
    used = 0
    for i, pair in enumerate(pairs):
        report(f"searching: {pair.name}", SEARCH_SHARE * i / len(pairs))
        runs = runs_for(pair, len(pairs) - i)
        used += runs
        candidate, _ = _timed_search(sim, pair, runs, planned, gen)
        if candidate is not None and (best is None or candidate.predicted_lcb > best.predicted_lcb):
            best = candidate
        if stop() and best is not None:
            break
    if best is None:  # nothing ever happened on d1 in any view: fall back to "some output"
        return Event(pairs[0], _everything_view(), np.array([0]), -math.inf), used
    return best, used


def _everything_view() -> View:
    return View("any output", lambda o: np.zeros(o.runs, dtype=np.int64), lambda _k: "any output")


def share_on_d1(event: Event) -> float:
    """The share of the final runs spent on d1, from the *search* estimates of the event's odds.

    Var(ln p̂) is about (1 − p)/(n·p) on each side; their sum over n1 + n2 runs is smallest with
    n1/n2 = √((1 − p1)/p1) / √((1 − p2)/p2). An event never seen under d2 (Algorithm 5) thus gets
    most runs there, where its bound grows with the log of the sample size. Clipped to [5%, 95%];
    it depends only on the search sample, so the final test stays exact.
    """
    p1, p2 = (min(max(p, 1e-12), 1 - 1e-12) for p in event.estimates)
    w1, w2 = math.sqrt((1 - p1) / p1), math.sqrt((1 - p2) / p2)
    return float(np.clip(w1 / (w1 + w2), 0.05, 0.95))


def _final_counts(sim: Simulator, event: Event, deadline: float, fixed: int | None,
                  gen: np.random.Generator, report: Progress,
                  stop: Callable[[], bool]) -> tuple[tuple[int, int], tuple[int, int]]:
    """``((k1, n1), (k2, n2))``: the event's count on n1 fresh runs on d1 and n2 on d2, in chunks.

    The total is ``2·fixed``, or else re-planned after every chunk from the elapsed time and the
    time left, and cut short on cancellation; the split follows :func:`share_on_d1`. Neither ever
    depends on the counts (a count-dependent stopping rule would bias the p-value). Events of a
    threshold mechanism's first ⊤ are counted from the fast first-⊤ sampler.
    """
    compact = event.view.hit_keys is not None and isinstance(sim, ThresholdSim)
    draw = sim.first_hits if compact else sim.run
    width = len(event.pair.d1) if isinstance(event.pair, InputPair) and not compact else 16
    chunk = max(500, min(CHUNK, CHUNK * 16 // width)) if sim.vectorised else 500  # bounded memory/latency
    share = share_on_d1(event)
    k = [0, 0]
    done = [0, 0]
    total = 2 * (chunk if fixed is None else fixed)
    t0 = time.perf_counter()
    while True:
        targets = (math.ceil(share * total), math.ceil((1 - share) * total))
        side = 0 if done[0] / targets[0] <= done[1] / targets[1] else 1
        size = min(chunk, targets[side] - done[side])
        if size <= 0:
            break
        inp = event.pair.d1 if side == 0 else event.pair.d2
        k[side] += int(event.contains(draw(inp, size, gen)).sum())
        done[side] += size
        if fixed is None:  # re-planned from elapsed time only, never from the counts
            per_run = (time.perf_counter() - t0) / sum(done)
            left = max(0.0, deadline - time.perf_counter())
            total = max(2 * MIN_SEARCH_RUNS, sum(done) + chunk * int(left / per_run / chunk))
            if left <= 0 and min(done) > 0:
                break
        report(f"final test: {sum(done):,} of {total:,} runs", SEARCH_SHARE + (1 - SEARCH_SHARE) * min(
            1.0, sum(done) / total))
        if stop():  # cancelled: test what was run so far (a stop never depends on the counts)
            break
    return (k[0], done[0]), (k[1], done[1])


__all__ = ["NO_VIOLATION", "VIOLATION", "AuditResult", "Outputs", "audit", "auditable"]
