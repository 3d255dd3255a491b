"""The simulated accuracy preview: how often a query at distance d from T comes back ⊤.

Runs the chosen mechanism, with the chosen public parameters, on *synthetic* answers T + d only —
never on the private data — with a seeded (reproducible, not secure) noise source, which is fine
because nothing here is released. Qt-free so it can be tested and timed on its own, and run as a
background task (:func:`curve_task`): a curve builds about two thousand mechanisms (~100 ms), far
too long for the GUI thread on every parameter edit.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from svtgui.core import mechanisms

REPS = 60  # one-query runs per point of the curve


def offsets_for(scale: float, integer: bool, points: int = 31) -> np.ndarray:
    """Distances from T spanning ±1.5·scale, denser near T where the curve turns (whole numbers
    for integer queries)."""
    span = max(scale, 1.0 if integer else 1e-9) * 1.5
    u = np.linspace(-1.0, 1.0, points)
    d = span * np.sign(u) * u**2
    return np.unique(np.round(d)) if integer else d


def top_probability(
    mechanism_id: str, params: dict[str, Any], offsets: np.ndarray, reps: int = REPS, seed: int = 20170301,
    state: Any = None,
) -> np.ndarray:
    """Estimated P[⊤] of a first query whose true answer is T + d, for each d (synthetic numbers only).

    ``state`` (a task's :class:`svtgui.app.tasks.TaskState`) is asked between points whether a
    newer edit has cancelled this curve."""
    rng = mechanisms.seeded(seed)
    threshold = float(params["threshold"])
    out = np.empty(len(offsets))
    for i, d in enumerate(offsets):
        if state is not None:
            state.check_cancelled()
        hits = 0
        for _ in range(reps):
            m = mechanisms.create(mechanism_id, rng=rng, **params)
            hits += m.submit(threshold + float(d)).above
        out[i] = hits / reps
    return out


def curve_task(state: Any, mechanism_id: str, params: dict[str, Any], offsets: np.ndarray) -> np.ndarray:
    """:func:`top_probability` as a background task (cancelled when the curator edits again)."""
    return top_probability(mechanism_id, params, offsets, state=state)
