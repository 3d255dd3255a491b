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

from svtgui.core import bounds, validation
from svtgui.core.mechanisms.base import (
    Batch,
    Guarantee,
    Response,
    Scales,
    StreamingMechanism,
    TraceStep,
)
from svtgui.core.noise import Lattice, NoisePool, NoiseSource

#: Answers compared per step of submit_many's scan for the next ⊤ (doubles while none is found).
_FIRST_WINDOW = 4096


class Release(Enum):
    NONE = "none"  # ⊤/⊥ only
    FRESH = "fresh"  # q_i + fresh noise (NumericSparse, Standard SVT's numeric option)
    GAP = "gap"  # value = q_i + ν_i − ρ (lattice), gap = value − T_i (Ding et al.'s noisy gap)
    SAME_NOISE = "same_noise"  # q_i + ν_i: NOT private, lecture-notes teaching variant only


class ThresholdSVT(StreamingMechanism):
    """Streaming SVT on the noise lattice; see the module docstring for what varies.

    The test for query i is the integer comparison ``q_i + ν_i ≥ ceil(T_i/g) + ρ`` (all in lattice
    units), which is exactly ``(q_i + ν_i − ρ)·g ≥ T_i``: the public threshold is never rounded.
    ``submit`` is pure Python on plain ints (noise from one :class:`NoisePool` per scale);
    ``submit_many`` is the vectorised equivalent.
    """

    def __init__(self, *, guarantee: Guarantee, rng: NoiseSource, params: dict, sensitivity: float,
                 threshold: float, cutoff: int, lattice: Lattice, scales: Scales,
                 refresh_threshold: bool, release: Release, trace: bool = False) -> None:
        super().__init__(guarantee=guarantee, rng=rng, params=params, sensitivity=sensitivity, trace=trace)
        self.lattice = lattice
        self.threshold = validation.finite("threshold", threshold)
        self._t_units = lattice.threshold_unit(self.threshold)
        self.cutoff = cutoff
        self.scales = scales
        self.refresh_threshold = refresh_threshold
        self.release = release
        self.above_count = 0
        self.answered = 0
        self._nu_scale = lattice.scale_units(scales.query)
        self.__rho_pool = NoisePool(rng, lattice.scale_units(scales.threshold))
        self.__nu_pool = NoisePool(rng, self._nu_scale)
        self.__num_pool = (None if scales.numeric is None
                           else NoisePool(rng, lattice.scale_units(scales.numeric)))
        self.__rho = self.__rho_pool.draw()

    def noise_scales(self) -> dict[str, float]:
        return self.scales.in_units(self.lattice)

    @property
    def releases_numbers(self) -> bool:
        return self.release is not Release.NONE

    def accuracy_bound(self, k: int, beta: float) -> bounds.Accuracy:
        """Union bound with this run's scales: r = c threshold draws when ρ is redrawn after each ⊤."""
        return bounds.on_lattice(self.lattice, self.scales, k, beta,
                                 threshold_draws=self.cutoff if self.refresh_threshold else 1,
                                 releases=min(self.cutoff, k))

    def _thresholds(self, thresholds, n: int) -> np.ndarray:
        if thresholds is None:
            return np.full(n, self._t_units, dtype=np.int64)
        t = np.asarray(thresholds, dtype=np.float64)
        if t.shape != (n,):
            raise ValueError(f"thresholds must have one entry per answer ({n}), got shape {t.shape}")
        return self.lattice.threshold_units(t)

    def _released(self, q: int, noisy: int, threshold: float) -> tuple[float | int | None, float | None]:
        """(value, gap) released for a ⊤, in value units; ``threshold`` is the public T_i."""
        release = self.release
        if release is Release.NONE:
            return None, None
        lat = self.lattice
        if release is Release.FRESH:
            return lat.to_value(q + self.__num_pool.draw()), None
        if release is Release.GAP:
            value = lat.to_value(noisy - self.__rho)
            return value, float(value) - threshold
        return lat.to_value(noisy), None  # SAME_NOISE

    def _after_above(self) -> None:
        self.above_count += 1
        if self.above_count >= self.cutoff:
            self.halted = True
        elif self.refresh_threshold:
            self.__rho = self.__rho_pool.draw()

    def submit(self, answer: float, threshold: float | None = None,
               sensitivity: float | None = None) -> Response:
        """Answer one query given its true answer (and optionally its own public threshold T_i).

        Every input is validated before any noise is drawn, so a refused call changes nothing.
        """
        if self.halted:
            self._check_open()
        if sensitivity is not None:
            self._check_sensitivity(sensitivity)
        q = self.lattice.unit(answer)
        if threshold is None:
            t, t_value = self._t_units, self.threshold
        else:
            t, t_value = self.lattice.threshold_unit(threshold), float(threshold)
        noisy = q + self.__nu_pool.draw()
        index = self.answered
        self.answered = index + 1
        if noisy < t + self.__rho:
            if self.traced:
                self._record(index, answer, t_value, noisy, False, None)
            return Response(index, False)
        value, gap = self._released(q, noisy, t_value)
        if self.traced:
            self._record(index, answer, t_value, noisy, True, value)
        self._after_above()
        return Response(index, True, value, gap)

    def _record(self, index: int, answer: float, threshold: float, noisy: int, above: bool,
                value: float | int | None) -> None:
        step = self.lattice.step
        self._trace.append(TraceStep(index, float(answer), threshold, noisy * step,
                                     threshold + self.__rho * step, above,
                                     None if value is None else float(value)))

    def submit_many(self, answers: Sequence[float] | np.ndarray,
                    thresholds: Sequence[float] | np.ndarray | None = None) -> Batch:
        """Process a batch with vectorised noise until the batch ends or the mechanism halts.

        Equivalent in distribution to calling :meth:`submit` on each answer in turn: both take the
        query noise ν_j from the same pool, a window of answers at a time here; a ν_j looked at past
        a ⊤ is independent of that ⊤ (and of the redrawn threshold), so it stays in the pool for the
        next answer. The whole batch is validated first.
        """
        self._check_open()
        flat = np.asarray(answers, dtype=np.float64).reshape(-1)
        q = self.lattice.to_units(flat)
        n = len(q)
        t = self._thresholds(thresholds, n)
        t_values = (np.full(n, self.threshold) if thresholds is None
                    else np.asarray(thresholds, dtype=np.float64))
        start = self.answered
        above = np.zeros(n, dtype=bool)
        values = np.full(n, np.nan)
        gaps = np.full(n, np.nan) if self.release is Release.GAP else None
        if self.traced:
            return self._submit_each(flat, t_values, above, values, gaps)
        pool = self.__nu_pool
        pos = 0
        consumed = n
        window = _FIRST_WINDOW
        while pos < n:
            # Compare a growing window, not the whole tail: after each ⊤ only the answers up to the
            # next ⊤ are looked at, so a batch with c ⊤ costs O(n + c·window), not O(c·n). The query
            # noise comes from the pool: the values past a ⊤ stay there for the next answers.
            end = min(n, pos + window)
            noisy = q[pos:end] + pool.peek(end - pos)
            hits = np.flatnonzero(noisy >= t[pos:end] + self.__rho)
            if hits.size == 0:
                pool.skip(end - pos)
                pos, window = end, window * 2
                continue
            window = _FIRST_WINDOW
            k = int(hits[0])
            pool.skip(k + 1)
            i = pos + k
            above[i] = True
            value, gap = self._released(int(q[i]), int(noisy[k]), float(t_values[i]))
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

    def _submit_each(self, answers: np.ndarray, thresholds: np.ndarray, above: np.ndarray,
                     values: np.ndarray, gaps: np.ndarray | None) -> Batch:
        """The traced batch path: one :meth:`submit` per answer, so every step is recorded."""
        start = self.answered
        for k in range(len(answers)):
            r = self.submit(float(answers[k]), float(thresholds[k]))
            above[k] = r.above
            values[k] = np.nan if r.value is None else r.value
            if gaps is not None and r.gap is not None:
                gaps[k] = r.gap
            if self.halted:
                return Batch(above, values, k + 1, start, gaps)
        return Batch(above, values, len(answers), start, gaps)
