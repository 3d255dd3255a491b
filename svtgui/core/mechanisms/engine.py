"""One engine for the whole threshold-SVT family.

AboveThreshold, Sparse, NumericSparse, Lyu et al.'s Standard SVT, the free-gap SVT and the
(broken) lecture-notes variant differ only in four public choices, so they share this engine:

* the scale of the threshold noise ρ and of the per-query noise ν_i;
* whether ρ is redrawn after each ⊤ (Dwork & Roth's Sparse restarts AboveThreshold) or drawn
  once (Lyu et al.);
* what a ⊤ releases: nothing, a *fresh* noisy answer, the noisy gap, or (lecture notes, not
  private) the very noisy answer that passed the test;
* the cutoff c.

Everything runs on the integer lattice of :mod:`svtgui.core.noise`, so the comparison
``q_i + ν_i ≥ T_i + ρ`` and every release are exact integer arithmetic.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import Enum

import numpy as np

from svtgui.core import validation
from svtgui.core.mechanisms.base import (
    Batch,
    Guarantee,
    Response,
    Scales,
    StreamingMechanism,
    TraceStep,
)
from svtgui.core.noise import Lattice, NoiseSource


class Release(Enum):
    NONE = "none"  # ⊤/⊥ only
    FRESH = "fresh"  # q_i + fresh noise (NumericSparse, Standard SVT's numeric option)
    GAP = "gap"  # noisy gap q_i + ν_i − (T_i + ρ), and T_i + gap as the answer estimate
    SAME_NOISE = "same_noise"  # q_i + ν_i: NOT private, lecture-notes teaching variant only


class ThresholdSVT(StreamingMechanism):
    """Streaming SVT on the noise lattice; see the module docstring for what varies."""

    def __init__(self, *, guarantee: Guarantee, rng: NoiseSource, params: dict, sensitivity: float,
                 threshold: float, cutoff: int, lattice: Lattice, scales: Scales,
                 refresh_threshold: bool, release: Release, trace: bool = False) -> None:
        super().__init__(guarantee=guarantee, rng=rng, params=params, sensitivity=sensitivity, trace=trace)
        self.lattice = lattice
        self.threshold = validation.finite("threshold", threshold)
        self._t_units = int(lattice.to_units(self.threshold, "threshold"))
        self.cutoff = cutoff
        self.scales = scales
        self.refresh_threshold = refresh_threshold
        self.release = release
        self.above_count = 0
        self.answered = 0
        self._rho_scale = lattice.scale_units(scales.threshold)
        self._nu_scale = lattice.scale_units(scales.query)
        self._num_scale = None if scales.numeric is None else lattice.scale_units(scales.numeric)
        self.__rho = self._draw_rho()

    @property
    def releases_numbers(self) -> bool:
        return self.release is not Release.NONE

    def _draw_rho(self) -> int:
        return int(self._rng.discrete_laplace(self._rho_scale, 1)[0])

    def _thresholds(self, thresholds, n: int) -> np.ndarray:
        if thresholds is None:
            return np.full(n, self._t_units, dtype=np.int64)
        t = np.asarray(thresholds, dtype=np.float64)
        if t.shape != (n,):
            raise ValueError(f"thresholds must have one entry per answer ({n}), got shape {t.shape}")
        return self.lattice.to_units(t, "threshold")

    def _released(self, q: int, noisy: int, t: int) -> tuple[float | int | None, float | None]:
        """(value, gap) released for a ⊤, in value units."""
        lat = self.lattice
        if self.release is Release.FRESH:
            fresh = int(self._rng.discrete_laplace(self._num_scale, 1)[0])
            return lat.to_value(q + fresh), None
        if self.release is Release.GAP:
            gap_units = noisy - (t + self.__rho)
            return lat.to_value(t + gap_units), float(gap_units * lat.step)
        if self.release is Release.SAME_NOISE:
            return lat.to_value(noisy), None
        return None, None

    def _after_above(self) -> None:
        self.above_count += 1
        if self.above_count >= self.cutoff:
            self.halted = True
        elif self.refresh_threshold:
            self.__rho = self._draw_rho()

    def submit(self, answer: float, threshold: float | None = None,
               sensitivity: float | None = None) -> Response:
        """Answer one query given its true answer (and optionally its own public threshold T_i)."""
        self._check_open()
        self._check_sensitivity(sensitivity)
        q = int(self.lattice.to_units(validation.finite("answer", answer)))
        t = self._t_units if threshold is None else int(
            self.lattice.to_units(validation.finite("threshold", threshold), "threshold"))
        noisy = q + int(self._rng.discrete_laplace(self._nu_scale, 1)[0])
        above = noisy >= t + self.__rho
        value, gap = self._released(q, noisy, t) if above else (None, None)
        index = self.answered
        if self.traced:
            step = self.lattice.step
            self._trace.append(TraceStep(index, float(answer), t * step, noisy * step,
                                         (t + self.__rho) * step, above,
                                         None if value is None else float(value)))
        self.answered += 1
        if above:
            self._after_above()
        return Response(index, above, value, gap)

    def submit_many(self, answers: Sequence[float] | np.ndarray,
                    thresholds: Sequence[float] | np.ndarray | None = None) -> Batch:
        """Process a batch with vectorised noise until the batch ends or the mechanism halts.

        Equivalent in distribution to calling :meth:`submit` on each answer in turn: query
        noise ν_j drawn for answers after a ⊤ is independent of the redrawn threshold, so
        drawing the block up front changes nothing.
        """
        self._check_open()
        q = self.lattice.to_units(np.asarray(answers, dtype=np.float64).reshape(-1))
        n = len(q)
        t = self._thresholds(thresholds, n)
        start = self.answered
        above = np.zeros(n, dtype=bool)
        values = np.full(n, np.nan)
        gaps = np.full(n, np.nan) if self.release is Release.GAP else None
        if self.traced:
            for k in range(n):
                r = self.submit(float(answers[k]), None if thresholds is None else float(thresholds[k]))
                above[k], values[k] = r.above, np.nan if r.value is None else r.value
                if self.halted:
                    return Batch(above, values, k + 1, start, gaps)
            return Batch(above, values, n, start, gaps)
        noisy = q + self._rng.discrete_laplace(self._nu_scale, n)
        pos = 0
        consumed = n
        while pos < n:
            hits = np.flatnonzero(noisy[pos:] >= t[pos:] + self.__rho)
            if hits.size == 0:
                break
            i = pos + int(hits[0])
            above[i] = True
            value, gap = self._released(int(q[i]), int(noisy[i]), int(t[i]))
            if value is not None:
                values[i] = value
            if gaps is not None:
                gaps[i] = gap
            self._after_above()
            if self.halted:
                consumed = i + 1
                break
            pos = i + 1
        self.answered += consumed
        return Batch(above, values, consumed, start, gaps)
