"""Noise sources and the floating-point-safe sampling scheme.

Two sources, one code path
--------------------------
``SecureNoise`` reads the operating system's CSPRNG (``os.urandom``) and is the default
everywhere. ``SeededNoise`` (``seeded(s)``) reproduces a run for tests and replays; everything
produced with it carries ``secure = False`` and reports print "reproducible, NOT secure".
Both only supply raw 64-bit words; every distribution below is built from those words by the same
code, so the seeded path exercises exactly the code the secure path runs.

Why discrete noise on a power-of-two grid (Mironov 2012)
--------------------------------------------------------
Textbook Laplace noise computed in floating point leaks: the set of doubles ``x + Lap(b)`` can
reach depends on ``x``, so the low-order bits of a release can identify the true answer
(Mironov, "On significance of the least significant bits for differential privacy", CCS 2012).
We never add floating-point noise to a secret. Instead every mechanism works on an integer
lattice of step ``g`` (a power of two, so that ``k·g`` is an exact double for every int64 ``k``):

1. the true answer is rounded to the lattice, ``k = rint(x / g)``;
2. noise is *discrete* Laplace (the two-sided geometric distribution) on the integers,
   ``P[Z = z] ∝ exp(-|z| / t)``, sampled from uniform words as the difference of two geometric
   variables (``floor(-t·ln U)``, U uniform on (0, 1] with 53 random bits);
3. a released value is ``(k + Z)·g``: a lattice point whose distribution depends on ``x`` only
   through ``k``; no low-order bits carry anything.

Rounding moves neighbouring answers apart by at most one more step, so the sensitivity in
lattice units is ``D = ceil(Δ / g) + 1`` (for integer-valued queries, ``g = 1`` and no rounding
happens, so ``D = ceil(Δ)``). All noise scales are computed from the *effective* sensitivity
``D·g``; with ``g = 2^(floor(log2 Δ) − 10)`` the inflation is below 0.2%. This is the
"snap to a power-of-two grid and inflate the sensitivity" approach of OpenDP and Google's
library, with the snapping done before, not after, the noise (so the noise itself is exact
integers). Discrete Laplace with scale t on sensitivity-D integer queries is (D/t)-DP, exactly as
its continuous counterpart, so every SVT proof carries over with shifts by integer multiples of D.

The inversion ``floor(-t·ln U)`` is exact up to the 2^-53 resolution of U; the resulting
deviation from the ideal geometric law is below 2^-50 in total variation for scales used here and
is documented as such rather than hidden.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass

import numpy as np

from svtgui.core import validation

_BLOCK_WORDS = 8192
_TWO_53 = float(2**53)


class NoiseSource:
    """Turns raw 64-bit words into the distributions the mechanisms need.

    Subclasses implement :meth:`words` only. Sampling is vectorised: one call can return a
    million values, and scalar calls are served from a buffered block so a streamed
    ``submit`` does not cost a system call.
    """

    secure: bool = False
    description: str = ""

    def __init__(self) -> None:
        self._buffer = np.empty(0, dtype=np.uint64)

    def words(self, n: int) -> np.ndarray:
        """``n`` independent uniform 64-bit words (uint64)."""
        raise NotImplementedError

    def _take(self, n: int) -> np.ndarray:
        if n > len(self._buffer):
            if n >= _BLOCK_WORDS:
                return self.words(n)
            self._buffer = np.concatenate([self._buffer, self.words(_BLOCK_WORDS)])
        out, self._buffer = self._buffer[:n], self._buffer[n:]
        return out

    def uniform(self, size: int) -> np.ndarray:
        """Uniform floats on (0, 1] with 53 random bits each (never exactly 0, so log is safe)."""
        w = self._take(size) >> np.uint64(11)
        return (w.astype(np.float64) + 1.0) / _TWO_53

    def geometric(self, scale: float, size: int) -> np.ndarray:
        """Failures before success with ``P[G = g] ∝ exp(-g / scale)`` (int64)."""
        return np.floor(-scale * np.log(self.uniform(size))).astype(np.int64)

    def discrete_laplace(self, scale: float, size: int) -> np.ndarray:
        """Two-sided geometric noise, ``P[Z = z] ∝ exp(-|z| / scale)``, as int64."""
        validation.positive("noise scale", scale)
        return self.geometric(scale, size) - self.geometric(scale, size)

    def gumbel(self, size: int) -> np.ndarray:
        """Standard Gumbel variables, for the exponential mechanism's Gumbel-max form."""
        return -np.log(-np.log(self.uniform(size) * (1 - 2**-53)))

    def choice_bits(self, size: int) -> np.ndarray:
        """Fair coin flips as booleans."""
        return (self._take(size) & np.uint64(1)).astype(bool)


class SecureNoise(NoiseSource):
    """The operating system's CSPRNG. The default for every mechanism."""

    secure = True
    description = "secure (operating-system CSPRNG)"

    def words(self, n: int) -> np.ndarray:
        return np.frombuffer(os.urandom(8 * n), dtype=np.uint64).copy()


class SeededNoise(NoiseSource):
    """A reproducible source for tests and replays. Never secure; reports say so."""

    secure = False

    def __init__(self, seed: int) -> None:
        super().__init__()
        self.seed = validation.count("seed", seed, minimum=0)
        self.description = f"seeded (seed {self.seed}): reproducible, NOT secure"
        self._gen = np.random.Generator(np.random.PCG64(self.seed))

    def words(self, n: int) -> np.ndarray:
        return self._gen.integers(0, 2**64, size=n, dtype=np.uint64, endpoint=False)


def secure() -> SecureNoise:
    """A fresh CSPRNG-backed source."""
    return SecureNoise()


def seeded(seed: int) -> SeededNoise:
    """A reproducible, explicitly not-secure source."""
    return SeededNoise(seed)


@dataclass(frozen=True)
class Lattice:
    """The integer grid a mechanism computes on (see the module docstring).

    ``step`` is a power of two; ``units`` is the sensitivity in lattice steps after rounding.
    """

    step: float
    units: int
    integer: bool

    @classmethod
    def for_sensitivity(cls, sensitivity: float, *, integer: bool) -> Lattice:
        """Choose the grid for queries of sensitivity Δ (integer queries live on step 1)."""
        delta = validation.positive("sensitivity", sensitivity)
        if integer:
            return cls(step=1.0, units=math.ceil(delta), integer=True)
        step = 2.0 ** (math.floor(math.log2(delta)) - 10)
        return cls(step=step, units=math.ceil(delta / step) + 1, integer=False)

    @property
    def effective_sensitivity(self) -> float:
        """The sensitivity all noise scales are calibrated to: ``units·step`` (≥ Δ)."""
        return self.units * self.step

    def to_units(self, x: float | np.ndarray, name: str = "answer") -> np.ndarray:
        """Round values to lattice points (int64), refusing non-finite or non-integer input."""
        arr = np.asarray(x, dtype=np.float64)
        if not np.all(np.isfinite(arr)):
            bad = arr[~np.isfinite(arr)].flat[0]
            raise ValueError(f"{name} must be finite, got {bad!r}")
        scaled = arr / self.step
        if np.any(np.abs(scaled) > 2.0**52):
            raise ValueError(f"{name} is too large for the noise lattice (|{name}| > {2.0**52 * self.step:g})")
        if self.integer and np.any(scaled != np.rint(scaled)):
            bad = arr[scaled != np.rint(scaled)].flat[0]
            raise ValueError(f"{name} must be an integer for integer-valued queries, got {bad!r}")
        return np.rint(scaled).astype(np.int64)

    def to_value(self, units: np.ndarray | int) -> np.ndarray | float | int:
        """Lattice units back to released numbers (exact: step is a power of two)."""
        if self.integer:
            return units if isinstance(units, np.ndarray) else int(units)
        return units * self.step if isinstance(units, np.ndarray) else float(units) * self.step

    def scale_units(self, scale: float) -> float:
        """A noise scale in value units (b) expressed in lattice units (b / step)."""
        return scale / self.step
