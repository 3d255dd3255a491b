"""The toy dataset and the walk-through script (plain Python: no Qt, so tests can read it directly).

Twelve invented people and the cups of coffee each drinks a day. The questions are counts,
"how many people drink at least k cups?", asked from k = 7 down to k = 1, so the answers grow
and eventually cross the threshold. A count changes by at most one when one person is added or
removed (sensitivity 1).
"""

from __future__ import annotations

from dataclasses import dataclass

from svtgui.core import mechanisms

PEOPLE: list[tuple[str, int]] = [
    ("Ada", 0), ("Ben", 1), ("Chloé", 1), ("Dev", 2), ("Eva", 2), ("Finn", 2),
    ("Grace", 3), ("Hugo", 3), ("Ines", 4), ("Jon", 5), ("Kai", 6), ("Lena", 7),
]
CUPS = list(range(7, 0, -1))  # question i asks "at least CUPS[i] cups?"
THRESHOLD = 5.0
CUTOFF = 2
EPSILON = 2.0
MECHANISM = "standard_svt"  # threshold noised once, as in the captions
LEFT_OUT = "Ines"  # the person removed in the neighbour experiment


def answers(people: list[tuple[str, int]] = PEOPLE) -> list[int]:
    """True answers: how many of ``people`` drink at least k cups, for each k of :data:`CUPS`."""
    return [sum(1 for _, c in people if c >= k) for k in CUPS]


def without(name: str) -> list[tuple[str, int]]:
    """The neighbouring dataset: everyone but ``name``."""
    if name not in {n for n, _ in PEOPLE}:
        raise ValueError(f"no person called {name!r} in the toy dataset")
    return [(n, c) for n, c in PEOPLE if n != name]


def question(i: int) -> str:
    return f"How many people drink at least {CUPS[i]} cup{'s' if CUPS[i] > 1 else ''} of coffee a day?"


@dataclass(frozen=True)
class Step:
    """One frame of the walk-through: what is visible after it, and the caption explaining it."""

    caption: str
    shown: int  # how many questions have been answered so far (0 before the first)
    threshold_drawn: bool  # has the noisy threshold been revealed yet?
    above_count: int
    finished: bool = False


@dataclass(frozen=True)
class Walkthrough:
    """A full traced run on the toy data and the steps that reveal it."""

    trace: list[mechanisms.TraceStep]
    noisy_threshold: float
    threshold_scale: float  # typical size of the threshold's nudge (public)
    steps: list[Step]


def walkthrough(seed: int) -> Walkthrough:
    """Run Standard SVT on the toy data with internals recorded (``trace=True``: toy data only)."""
    m = mechanisms.create(MECHANISM, epsilon=EPSILON, threshold=THRESHOLD, cutoff=CUTOFF, integer=True,
                          rng=mechanisms.seeded(seed), trace=True)
    for a in answers():
        m.submit(a)
        if m.halted:
            break
    trace = m.internals()
    noisy_t = trace[0].noisy_threshold
    steps = [
        Step(f"Our toy table has {len(PEOPLE)} people. We will ask {len(CUPS)} questions and only learn, "
             f"for each, whether the answer is above or below the threshold T = {THRESHOLD:g} people. SVT "
             f"will stop after {CUTOFF} 'above' answers (the cutoff c).", 0, False, 0),
        Step(f"First, the threshold gets a random nudge, once: T = {THRESHOLD:g} becomes {noisy_t:g}. This "
             f"noisy threshold stays secret; it will most likely land inside the shaded band.", 0, True, 0),
    ]
    tops = 0
    for i, s in enumerate(trace):
        verdict = ("ABOVE the noisy threshold, so the answer is ⊤ (above)" if s.above
                   else "below the noisy threshold, so the answer is ⊥ (below)")
        tops += s.above
        cost = (f"⊤ answers are what cost privacy: {tops} of {CUTOFF} used." if s.above
                else "⊥ answers cost nothing extra: that is why SVT can afford many questions.")
        surprise = ""
        if s.above != (s.answer >= THRESHOLD):
            side = "above" if s.answer >= THRESHOLD else "below"
            surprise = (f" Notice: the true answer is {side} T = {THRESHOLD:g}, yet the noise flipped the "
                        f"outcome. Noise is what protects each person, and this is its price in accuracy.")
        steps.append(Step(f"Question {i + 1}: {question(i)} The true answer is {s.answer:g}. SVT adds fresh "
                          f"random noise to it: {s.answer:g} becomes {s.noisy_answer:g}. That is {verdict}. "
                          f"{cost}{surprise}", i + 1, True, tops))
    if m.halted:
        end = (f"The cutoff c = {CUTOFF} is reached, so SVT stops here. The whole run cost ε = {EPSILON:g}, "
               f"however many ⊥ answers came before. The world only learns the ⊤/⊥ pattern.")
    else:
        end = (f"All questions are answered with fewer than {CUTOFF} ⊤ answers. The run cost at most "
               f"ε = {EPSILON:g}, and the world only learns the ⊤/⊥ pattern.")
    steps.append(Step(end, len(trace), True, tops, finished=True))
    scale = m.scales.threshold
    return Walkthrough(trace, noisy_t, scale, steps)
