"""Accuracy by mechanism id: the (α, β) bound of a run, and a Monte-Carlo estimate of the empirical α.

The formulas, and what "(α, β)-accurate" means, are in :mod:`svtgui.core.bounds` (re-exported
here); each mechanism answers its own bound (``Mechanism.accuracy_bound``) from its own scales,
so this module only builds the mechanism for an id and asks it. The dependency runs one way —
accuracy → mechanisms → bounds — so a mechanism (PMW's free-answer bound uses Sparse's) never
imports this module.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from svtgui.core import mechanisms, validation
from svtgui.core.bounds import (  # noqa: F401 - the public formulas, re-exported
    EM_STATEMENT,
    RETRAVERSAL_STATEMENT,
    STATEMENT,
    UNION_SOURCE,
    Accuracy,
    above_threshold,
    em_top_c,
    lecture_2011,
    numeric_sparse,
    on_lattice,
    sparse,
    tail_factor,
    union_bound,
)
from svtgui.core.noise import ScaleProbe


def bound(mechanism_id: str, params: dict[str, Any], k: int, beta: float) -> Accuracy:
    """The (α, β) guarantee of a run of ``mechanism_id`` with ``params`` over ``k`` queries.

    The mechanism is built with the same parameters (on a source that draws no noise and never
    sees data) and answers from its own scales, so the bound always matches what a run adds. For
    every SVT mechanism it is the union bound: tighter than the book theorems in every case we
    know of, and — unlike D&R Theorem 3.28 with δ > 0 — it holds for every k (see
    :mod:`svtgui.core.bounds`). ``ValueError`` when the mechanism has no closed-form bound.
    """
    k = validation.count("k", k)
    beta = validation.probability("beta", beta, allow_zero=False)
    mech = mechanisms.create(mechanism_id, rng=ScaleProbe(), allow_non_private=True, **params)
    return mech.accuracy_bound(k, beta)


# ---- Monte-Carlo estimate -------------------------------------------------------------------------

@dataclass(frozen=True)
class Empirical:
    """Per-trial worst errors of simulated runs, and the empirical α at level β (their 1 − β quantile)."""

    alpha: float
    beta: float
    errors: np.ndarray

    def failure_rate(self, alpha: float) -> float:
        """Fraction of trials whose worst error exceeded ``alpha``."""
        return float(np.mean(self.errors > alpha))


def run_error(mechanism_id: str, params: dict[str, Any], answers: np.ndarray, thresholds: np.ndarray,
              rng) -> float:
    """Worst accuracy error of one simulated run (0 when every condition of the definition holds)."""
    mech = mechanisms.create(mechanism_id, rng=rng, allow_non_private=True, **params)
    if not mech.info.interactive:
        return _selection_error(mech, answers, thresholds)
    batch = mech.submit_many(answers, thresholds)
    n = batch.consumed
    q, t, above = answers[:n], thresholds[:n], batch.above[:n]
    worst = 0.0
    if above.any():
        worst = max(worst, float(np.max(t[above] - q[above])))
        released = ~np.isnan(batch.values[:n])
        if released.any():
            worst = max(worst, float(np.max(np.abs(batch.values[:n][released] - q[released]))))
    if (~above).any():
        worst = max(worst, float(np.max(q[~above] - t[~above])))
    return max(worst, 0.0)


def _selection_error(mech, answers: np.ndarray, thresholds: np.ndarray) -> float:
    if getattr(mech, "raised_threshold", None) is None:  # a top-c selection (EM): no threshold
        remaining = np.ones(len(answers), dtype=bool)
        worst = 0.0
        for i in mech.select(answers).indices:
            worst = max(worst, float(np.max(answers[remaining]) - answers[i]))
            remaining[i] = False
        return worst
    chosen = np.array(mech.select(answers, thresholds).indices, dtype=np.int64)
    raised = thresholds + (mech.raised_threshold - mech.threshold)
    worst = float(np.max(raised[chosen] - answers[chosen])) if chosen.size else 0.0
    if chosen.size < mech.cutoff:  # every query was ⊥ in the last pass
        left = np.ones(len(answers), dtype=bool)
        left[chosen] = False
        if left.any():
            worst = max(worst, float(np.max(answers[left] - raised[left])))
    return max(worst, 0.0)


def empirical_alpha(mechanism_id: str, params: dict[str, Any], answers: Sequence[float] | np.ndarray, *,
                    beta: float = 0.05, trials: int = 1000, seed: int = 0,
                    thresholds: Sequence[float] | np.ndarray | None = None) -> Empirical:
    """Simulate ``trials`` runs on ``answers`` (seeded, reproducible) and measure the worst error.

    For previews and teaching on public or synthetic answer vectors only: the result depends on
    the true answers, so running it on private data and showing the outcome would leak them. The
    GUI must never call this on a private dataset; that is the caller's responsibility.
    """
    q = np.asarray(answers, dtype=np.float64)
    if q.ndim != 1 or q.size == 0 or not np.all(np.isfinite(q)):
        raise ValueError("answers must be a non-empty 1-D vector of finite numbers")
    beta = validation.probability("beta", beta, allow_zero=False)
    trials = validation.count("trials", trials)
    if thresholds is None:
        t = np.full(q.size, validation.finite("threshold", params.get("threshold", 0.0)))
    else:
        t = np.asarray(thresholds, dtype=np.float64)
    errors = np.array([run_error(mechanism_id, params, q, t, mechanisms.seeded(seed + i))
                       for i in range(trials)])
    return Empirical(float(np.quantile(errors, 1 - beta)), beta, errors)
