"""Measure the privacy loss between two *given* neighbouring inputs (the teaching mode's experiment).

:func:`svtgui.core.audit.audit` searches for the worst inputs; here the inputs are fixed (a toy
dataset with and without one person) and the question is "how different are the two output
distributions, and what ε does that demonstrate?". The runs are split in two halves: the first
picks the most telling event (:func:`svtgui.core.audit.events.best_event`), the second measures
it with the exact test, so the measured ε is an honest lower bound, not the best of many looks.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from svtgui.core import validation
from svtgui.core.audit import audit
from svtgui.core.audit.events import best_event, halves
from svtgui.core.audit.inputs import InputPair
from svtgui.core.audit.sim import Outputs, audit_params, on_histograms, simulator_for
from svtgui.core.audit.stats import ratio_test


@dataclass(frozen=True)
class Comparison:
    """Output distributions on two inputs and the ε their difference demonstrates."""

    labels: list[str]  # one per outcome, e.g. "first ⊤ at question 3", "no ⊤"
    freq1: np.ndarray  # share of runs with each outcome on d1
    freq2: np.ndarray  # ... on d2
    epsilon_lcb: float  # 99% lower confidence bound from the held-out half
    event: str  # in plain words
    runs: int
    witness: list[str] = field(default_factory=list)  # the auditor's pair in plain words, when used
    shares: tuple[float, float] = (0.0, 0.0)  # share of held-out runs in the event on d1 and on d2


def first_above_outcomes(o: Outputs) -> np.ndarray:
    """Index of the first ⊤ of each run, or n when there was none."""
    hit = o.above == 1
    return np.where(hit.any(axis=1), np.argmax(hit, axis=1), o.above.shape[1])


def compare(mechanism_id: str, epsilon: float, d1, d2, *, runs: int = 20_000, seed: int = 0,
            params: Mapping[str, Any] | None = None) -> Comparison:
    """Run the mechanism ``runs`` times on each input; histogram the first ⊤ and measure ε."""
    a = np.asarray(d1, dtype=np.float64)
    b = np.asarray(d2, dtype=np.float64)
    if a.shape != b.shape or a.ndim != 1 or a.size == 0:
        raise ValueError(f"d1 and d2 must be answer vectors of the same length, got {a.shape} and {b.shape}")
    runs = validation.count("runs", runs, minimum=200)
    if on_histograms(mechanism_id):
        raise ValueError(f"{mechanism_id} takes a histogram, not answer vectors; audit it with audit()")
    sim = simulator_for(mechanism_id, audit_params(mechanism_id, epsilon, params))
    gen = np.random.Generator(np.random.SFC64(validation.count("seed", seed, minimum=0)))
    out1, out2 = sim.run(a, runs, gen), sim.run(b, runs, gen)
    n = a.size
    f1 = np.bincount(first_above_outcomes(out1), minlength=n + 1) / runs
    f2 = np.bincount(first_above_outcomes(out2), minlength=n + 1) / runs
    labels = [f"first ⊤ at question {i + 1}" for i in range(n)] + ["no ⊤"]
    (pick1, test1), (pick2, test2) = halves(out1), halves(out2)
    half = runs // 2
    pair = InputPair("toy data with / without one person", a, b)
    found = [e for e in (best_event(pair, pick1, pick2, half), best_event(pair.swapped(), pick2, pick1, half))
             if e is not None]
    if not found:
        return Comparison(labels, f1, f2, 0.0, "no output was seen often enough to compare", runs)
    event = max(found, key=lambda e: e.predicted_lcb)
    held1, held2 = (test1, test2) if event.pair.d1 is a else (test2, test1)
    k1, k2 = int(event.contains(held1).sum()), int(event.contains(held2).sum())
    test = ratio_test(k1, runs - half, k2, runs - half, epsilon, 0.01)
    return Comparison(labels, f1, f2, test.epsilon_lcb, event.plain(), runs,
                      shares=(k1 / (runs - half), k2 / (runs - half)))


def witness_comparison(mechanism_id: str, epsilon: float, *, runs: int = 20_000, seed: int = 0,
                       params: Mapping[str, Any] | None = None) -> Comparison:
    """The comparison on the auditor's witness: the neighbouring answers and event that show the leak.

    A small toy dataset may not show a variant's leak at all; the auditor searches for two answer
    lists that removing one person could produce (each answer moves by at most Δ) and an event
    whose probabilities differ most. Its final test (``runs`` fresh runs, independent of the
    search) gives the measured ε; the chart shows where the first ⊤ came on the witness lists.
    """
    runs = validation.count("runs", runs, minimum=200)
    result = audit(mechanism_id, epsilon, seed=seed, params=params, search_runs=2000, final_runs=runs)
    pair = result.witness
    if not isinstance(pair, InputPair):
        raise ValueError(f"{mechanism_id} takes a histogram, not answer vectors")
    sim = simulator_for(mechanism_id, audit_params(mechanism_id, epsilon, params))
    gen = np.random.Generator(np.random.SFC64(validation.count("seed", seed, minimum=0) + 1))
    n = pair.d1.size
    f1, f2 = (np.bincount(first_above_outcomes(sim.run(d, runs, gen)), minlength=n + 1) / runs
              for d in (pair.d1, pair.d2))
    labels = [f"first ⊤ at question {i + 1}" for i in range(n)] + ["no ⊤"]
    return Comparison(labels, f1, f2, result.epsilon_lcb, result.event_plain, runs, pair.plain(),
                      (result.counts[0] / result.runs, result.counts[1] / result.runs_d2))

