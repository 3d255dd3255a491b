"""Candidate neighbouring inputs for the auditor: the standard adversarial answer-vector pairs.

A pair ``(d1, d2)`` stands for two neighbouring datasets through the answers they give: every query
differs by at most Δ (here exactly 0 or ±Δ). The patterns are StatDP's (Ding et al., CCS 2018)
plus the long runs of ⊥ before a ⊤ that expose Lyu et al.'s Algorithms 3 and 4: the leak of
those variants grows with the number of ⊥ answers the run survives. Every pattern sits at the
public threshold T, where the ⊤/⊥ decisions are most sensitive to a change of Δ (placing them a
noise scale below T as well was tried: it never won and halved the search sample per pattern).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class InputPair:
    """Two neighbouring answer vectors (|d1_i − d2_i| ≤ Δ for every i) and a readable name."""

    name: str
    d1: np.ndarray
    d2: np.ndarray

    def swapped(self) -> InputPair:
        return InputPair(self.name + " (swapped)", self.d2, self.d1)

    def to_dict(self) -> dict:
        return {"name": self.name, "d1": self.d1.tolist(), "d2": self.d2.tolist()}

    def plain(self) -> list[str]:
        """The pair for a non-programmer: runs of questions and their two true answers."""
        return plain_runs(self.d1, self.d2)

    def describe(self) -> list[str]:
        """Lines for a human reader: the two answer vectors."""
        return [f"{name} = [{', '.join(f'{x:g}' for x in d)}]"
                for name, d in (("d1", self.d1), ("d2", self.d2))]


def number(x: float) -> str:
    """A number as people write it: 3, −2.5, 176,000 (never 1.76e+05)."""
    if float(x).is_integer():
        return f"{int(x):,}".replace("-", "−")
    return f"{x:,.6f}".rstrip("0").rstrip(".").replace("-", "−")


def plain_runs(d1: np.ndarray, d2: np.ndarray) -> list[str]:
    """The two answer lists in runs of equal pairs: "questions 1 to 29: 0 on the first, 1 on the second"."""
    lines: list[str] = []
    start = 0
    for i in range(1, len(d1) + 1):
        if i == len(d1) or d1[i] != d1[start] or d2[i] != d2[start]:
            where = f"question {start + 1}" if i == start + 1 else f"questions {start + 1} to {i}"
            lines.append(f"{where}: {number(d1[start])} on the first list, {number(d2[start])} on the second")
            start = i
    return lines


def _pair(name: str, low_high: list[tuple[int, int]], level: float, step: float) -> InputPair:
    """Build a pair from per-query (d1, d2) offsets in units of Δ, placed at ``level``."""
    d1 = np.array([level + a * step for a, _ in low_high], dtype=np.float64)
    d2 = np.array([level + b * step for _, b in low_high], dtype=np.float64)
    return InputPair(name, d1, d2)


def staircase(threshold: float, sensitivity: float, half_width: float) -> InputPair:
    """Answers that rise in steps of 2Δ, each step twice on d1 and offset by one on d2.

    d1 = a, a+2Δ, a+2Δ, a+4Δ, a+4Δ, …; d2 = a+Δ, a+Δ, a+3Δ, a+3Δ, … (a = T − ``half_width``). Without
    query noise the first ⊤ is the first answer at or above the noisy threshold: on d2 that is never
    the second of two equal answers, on d1 it is whenever T + ρ falls in a step, so the event
    "first ⊤ at an even position" has probability about P[|ρ| ≤ half_width] on d1 and 0 on d2.
    """
    steps = max(1, math.ceil(half_width / sensitivity))
    j = np.arange(2 * steps + 1)
    d1 = threshold - steps * sensitivity + 2 * sensitivity * np.ceil(j / 2)
    d2 = d1 + np.where(j % 2 == 0, sensitivity, -sensitivity)
    return InputPair(f"staircase of {len(j)} answers", d1, d2)


def candidates(threshold: float, sensitivity: float, *, queries: int = 10,
               long_run: int = 30, wide: int = 200, stairs: float = 0.0) -> list[InputPair]:
    """The candidate pairs the search tries (see the module docstring).

    ``queries`` is the length of the fixed-length patterns, ``long_run`` of the longest ⊥ run and
    of the longest all-shifted input (the lecture notes' leak grows with the ⊥ a run survives),
    ``wide`` of the long half-half input that exposes mechanisms without a cutoff (whose leak
    grows with the number of ⊤ answers). ``stairs`` > 0 adds a :func:`staircase` of that half-width
    (for mechanisms without query noise: the auditor passes a few threshold-noise scales).
    """
    if min(queries, long_run, wide) < 2:
        raise ValueError(f"the audit needs at least 2 queries per input, got {min(queries, long_run, wide)}")
    half = queries // 2
    below = (0, 1)  # d1 lower: the query is "harder to pass" on d2
    above = (1, 0)
    patterns: list[tuple[str, list[tuple[int, int]]]] = [
        (f"{queries - 1} ⊥ then ⊤", [below] * (queries - 1) + [above]),
        (f"{long_run - 1} ⊥ then ⊤", [below] * (long_run - 1) + [above]),
        ("one above, rest below", [above] + [below] * (queries - 1)),
        ("all shifted up vs. down", [below] * queries),
        (f"all shifted, {long_run} queries", [below] * long_run),
        ("half-half", [below] * half + [above] * (queries - half)),
        ("alternating", [below, above] * half),
        (f"half-half, {wide} queries", [below] * (wide // 2) + [above] * (wide - wide // 2)),
    ]
    pairs = [_pair(name, offsets, threshold, sensitivity) for name, offsets in patterns]
    return pairs + ([staircase(threshold, sensitivity, stairs)] if stairs > 0 else [])
