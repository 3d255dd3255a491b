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
lattice of step ``g`` (a power of two, so that ``k·g`` is an exact double for every ``|k| ≤ 2^53``):

1. the true answer is rounded to the lattice, ``k = rint(x / g)``;
2. noise is *discrete* Laplace (the two-sided geometric distribution) on the integers,
   ``P[Z = z] ∝ exp(-|z| / t)``, sampled exactly from uniform words (next section);
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

Public thresholds are *not* rounded to the nearest lattice point: a comparison of the lattice
integer ``k + Z − R`` (answer, query noise, threshold noise) with a public threshold ``T`` is
decided exactly by comparing it with ``ceil(T / g)`` (``Lattice.threshold_units``), so the test is
``(k + Z − R)·g ≥ T`` with no rounding of ``T`` at all, and integer-valued queries accept
fractional thresholds (100.5 behaves as 101).

Exact noise, and what that means
--------------------------------
The integers themselves are sampled exactly: :mod:`svtgui.core.sampling` draws discrete Laplace
(and discrete Gaussian) values whose law is *exactly* ``P[Z = z] ∝ exp(−|z|/t)``, by exact
inversion against thresholds bracketed with integer arithmetic, reading random bits lazily until
every comparison is decided (and CKS 2020's Bernoulli(exp(−γ)) for the Gaussian). There is no
approximation error to bound and no unaccounted δ (the floating-point inversion used before this
was off by about 2.4e-12 in total variation per draw at scale 4100): a guarantee computed for
discrete Laplace of scale t is the guarantee of what is drawn.

Two public facts complete the statement:

* the scale is a double computed from ε, c and Δ by a few float operations (each correctly
  rounded, so within a few units of 2^-53 of the real formula). The sampler uses the exact
  rational ``Fraction(t)·(1 + 2^-40)``: rounded *up* by far more than that error, so the noise is
  never smaller than the formula asks and ``D/t ≤ ε`` holds for the noise actually drawn;
* scales are refused outside ``[MIN_SCALE, MAX_SCALE] = [1/8, 2^40]`` lattice steps (a discrete
  Gaussian's σ below ``MIN_GAUSSIAN_SIGMA = 0.26``)
  (:func:`check_scale`, called when a mechanism is created, before any budget is charged). The floor
  does not make noise visible: at exactly 1/8 step P[Z = 0] = (1 − e^−8)/(1 + e^−8) ≈ 99.93 %, and
  below it more still, so such a release is the exact answer in practice (and an ε that large
  protects nothing); the floor only refuses the scales where that is the rule.
  Within the range, ``|Z| ≤ 2^52`` except with probability below e^-4096, so
  ``(k + Z)·g`` is an exact double; and the sampler is exact at every scale anyway: values beyond
  int64 (only its bit-by-bit path can produce them) come back as exact Python ints, and a released
  value is always a function of the exact integer ``k + Z`` alone (post-processing: even the
  rounding of a double in that event costs no privacy).

Streaming
---------
A streaming mechanism draws its noise through :class:`NoisePool`, which pre-draws blocks of
discrete-Laplace integers per scale from the same source and hands them out as plain Python ints
(one query) or numpy slices (a step over k queries). The pool is private to one mechanism object
and each value is used once, so this is the same distribution as drawing on demand, without a
sampler call per answer or per step.
"""

from __future__ import annotations

import itertools
import math
import os
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from svtgui.core import em_sampling, sampling, validation

_POOL_MIN = 64
_POOL_MAX = 1 << 18  # 2 MB of int64: the sampler's per-call cost is under 2 % from here on
_TWO_52 = float(2**52)

#: Smallest noise scale a mechanism may use, in lattice steps (below it the noise is almost always 0).
MIN_SCALE = 0.125
#: Suffix of a ``noise_scales()`` name whose value is a discrete Gaussian's σ (its own floor below).
GAUSSIAN = "(Gaussian σ)"
#: The same floor for a discrete Gaussian's σ: below it P[Y ≠ 0] ≈ 2·e^(−1/(2σ²)) < 10^-3.
MIN_GAUSSIAN_SIGMA = 0.26
#: Largest noise scale a mechanism may use, in lattice steps (keeps ``k + Z`` an exact double).
MAX_SCALE = 2.0**40
#: Real-valued sensitivities the lattice can carry: step Δ/2^10 above 2^-1010, 2^53 steps below 2^1024.
_MIN_SENSITIVITY = 2.0**-1000
_MAX_SENSITIVITY = 2.0**980
#: Every scale is rounded up by this factor before sampling (absorbs the float rounding of formulas).
_ROUND_UP = Fraction(2**40 + 1, 2**40)


class NoiseRangeError(ValueError):
    """A noise scale outside ``[MIN_SCALE, MAX_SCALE]``; ``mechanisms.create`` turns it into a
    message naming the parameters at fault and their usable ranges."""

    def __init__(self, what: str, scale: float, minimum: float = MIN_SCALE) -> None:
        name = f"{what} noise scale" if what else "noise scale"
        if math.isfinite(scale) and 0 < scale < minimum:
            why = (f"below {minimum:g} lattice step, where the noise is 0 in more than 99.9 % of draws "
                   "(the release would be the exact answer)")
        else:
            why = f"outside (0, 2^40 ≈ {MAX_SCALE:.3g}] lattice steps, the exact sampler's range"
        super().__init__(f"the {name} would be {scale:.3g} lattice steps, {why}")
        self.what = what
        self.scale = scale


def check_scale(scale: float, what: str = "", *, minimum: float = MIN_SCALE) -> float:
    """``scale`` (lattice steps) if it is within ``[minimum, MAX_SCALE]``, else :class:`NoiseRangeError`.

    ``minimum`` is lowered only by known-non-private teaching variants whose flaw *is* missing
    noise; the sampler's own limit is ``0 < scale ≤ MAX_SCALE``.
    """
    t = float(scale)
    if not (math.isfinite(t) and t > 0 and minimum <= t <= MAX_SCALE):
        raise NoiseRangeError(what, t, minimum)
    return t


def exact_scale(scale: float) -> Fraction:
    """The exact rational scale the sampler uses for a public float scale: ``Fraction(t)·(1 + 2^-40)``."""
    return Fraction(scale) * _ROUND_UP


class NoiseSource:
    """Turns raw 64-bit words into the distributions the mechanisms need.

    Subclasses implement :meth:`words` only. Sampling is vectorised (:mod:`svtgui.core.sampling`):
    one call can return a million values. Random bits are buffered, so a small call does not cost
    a system call, and every bit is used once.
    """

    secure: bool = False
    description: str = ""

    def __init__(self) -> None:
        self._bits = sampling.Bits(self.words)

    def words(self, n: int) -> np.ndarray:
        """``n`` independent uniform 64-bit words (uint64)."""
        raise NotImplementedError

    def discrete_laplace(self, scale: float, size: int) -> np.ndarray:
        """Exact two-sided geometric noise, ``P[Z = z] ∝ exp(-|z| / scale)`` (int64; exact Python ints
        in an object array in the astronomically rare event that one exceeds int64)."""
        t = check_scale(scale, minimum=0.0)
        return sampling.discrete_laplace(self._bits, exact_scale(t), size)

    def discrete_gaussian(self, sigma: float, size: int) -> np.ndarray:
        """Exact discrete Gaussian noise, ``P[Y = y] ∝ exp(-y² / (2σ²))`` (CKS 2020 Algorithm 3)."""
        s = check_scale(sigma, "Gaussian", minimum=0.0)
        return sampling.discrete_gaussian(self._bits, exact_scale(s), size)

    def exponential_top_c(self, answers: np.ndarray, gamma: Fraction, c: int) -> tuple[int, ...]:
        """Exact c rounds of the exponential mechanism without replacement, ``P[i] ∝ exp(γ·u_i)`` for a
        rational γ (:mod:`svtgui.core.em_sampling`)."""
        return em_sampling.exponential_top_c(self._bits, answers, gamma, c)

    def choice_bits(self, size: int) -> np.ndarray:
        """Fair coin flips as booleans."""
        return self._bits.signs(size).copy()


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
        # never the seed itself: a description is copied into ledgers and release files
        self.description = "seeded test noise: reproducible, NOT secure, NOT differentially private"
        self._gen = np.random.Generator(np.random.PCG64(self.seed))

    def words(self, n: int) -> np.ndarray:
        return self._gen.integers(0, 2**64, size=n, dtype=np.uint64, endpoint=False)


class ScaleProbe(NoiseSource):
    """A source that draws nothing: it checks each requested scale against the sampler's limit and
    returns zeros. ``mechanisms.create`` builds mechanisms on it to find usable parameter ranges,
    and PMW to learn its test's scales before it has data; never used for a release."""

    secure = False
    description = "scale probe (draws no noise; never used for a release)"

    def words(self, n: int) -> np.ndarray:
        return np.zeros(n, dtype=np.uint64)

    def discrete_laplace(self, scale: float, size: int) -> np.ndarray:
        check_scale(scale, minimum=0.0)
        return np.zeros(size, dtype=np.int64)

    def discrete_gaussian(self, sigma: float, size: int) -> np.ndarray:
        check_scale(sigma, "Gaussian", minimum=0.0)
        return np.zeros(size, dtype=np.int64)

    def exponential_top_c(self, answers: np.ndarray, gamma: Fraction, c: int) -> tuple[int, ...]:
        # all-zero words would make the exact rejection sampler propose one item for ever
        raise RuntimeError("a scale probe draws no noise: it cannot run a selection")


def secure() -> SecureNoise:
    """A fresh CSPRNG-backed source."""
    return SecureNoise()


def seeded(seed: int) -> SeededNoise:
    """A reproducible, explicitly not-secure source."""
    return SeededNoise(seed)


class NoisePool:
    """Discrete-Laplace integers of one scale, pre-drawn in blocks, handed out one at a time or as
    numpy slices.

    Why: a streamed ``submit`` needs one or two noise values, and a run's step over k queries needs
    k; asking the sampler for each costs more than the SVT step itself. The pool draws blocks from
    the mechanism's own source (secure or seeded: the same words and the same sampler as
    :meth:`NoiseSource.discrete_laplace`), each block twice the last up to :data:`_POOL_MAX` (a short
    run does not pre-draw much) and handed out from its end (the order seeded runs have always
    replayed). The pool belongs to one mechanism and holds the same kind of secret as its noisy
    threshold. **Each value is used once**: a cursor moves past every value handed out.

    * :meth:`draw`, one value: the ``__next__`` of one chained iterator over segments of the pool (a
      single C-level call, no Python frame; a segment is every value not yet handed out, which the
      iterator then owns alone, and a refill happens inside it).
    * :meth:`peek` / :meth:`skip`, a step over k queries (``ThresholdSVT.submit_many``): the next k
      values as a read-only numpy view, compared vectorised; ``skip`` then moves the cursor past the
      values actually used (up to the first ⊤) and the rest stay for the next step. Their comparisons
      are discarded, and they are independent of what was released: where the first ⊤ falls depends
      on the values before it only.
    """

    __slots__ = ("_source", "_scale", "_block", "_values", "_at", "_peeked", "draw")

    def __init__(self, source: NoiseSource, scale: float, what: str = "") -> None:
        self._source = source
        self._scale = check_scale(scale, what, minimum=0.0)
        self._block = _POOL_MIN
        self._values = np.zeros(0, dtype=np.int64)  # in hand-out order; [_at:] not handed out yet
        self._at = 0
        self._peeked = 0  # values the last peek handed out, not yet marked used
        segments = iter(self._segment, None)  # never None: the pool never runs dry
        self.draw: Callable[[], int] = itertools.chain.from_iterable(segments).__next__

    def peek(self, k: int) -> np.ndarray:
        """The next ``k`` values, not yet marked used (read-only); :meth:`skip` marks those used."""
        if len(self._values) - self._at < k:
            self._refill(k)
        view = self._values[self._at:self._at + k]
        view.flags.writeable = False
        self._peeked = k
        return view

    def skip(self, k: int) -> None:
        """Mark the next ``k`` values used: at most as many as the last :meth:`peek` returned."""
        if not 0 <= k <= self._peeked:
            raise ValueError(f"cannot mark {k} values used: {self._peeked} were peeked")
        self._at += k
        self._peeked = 0

    def _segment(self) -> list[int]:
        """Every value not yet handed out (a fresh block when there is none), as plain ints: from now
        on :meth:`draw`'s alone."""
        if self._at == len(self._values):
            self._refill(1)
        rest = self._values[self._at:].tolist()
        self._at, self._peeked = len(self._values), 0
        return rest

    def _refill(self, need: int) -> None:
        """At least ``need`` values not handed out: those left, then fresh blocks, each reversed."""
        parts = [self._values[self._at:]]
        have = len(parts[0])
        while have < need:
            size = max(self._block, need - have)  # a step larger than a block: one sampler call
            parts.append(self._source.discrete_laplace(self._scale, size)[::-1])
            self._block = min(2 * size, _POOL_MAX)
            have += size
        self._values = np.concatenate(parts)
        self._at = 0


@dataclass(frozen=True)
class Lattice:
    """The integer grid a mechanism computes on (see the module docstring).

    ``step`` is a power of two; ``units`` is the sensitivity in lattice steps after rounding.
    Answers are rounded to the nearest lattice point (``to_units``/``unit``); public thresholds are
    mapped with ``ceil`` (``threshold_units``/``threshold_unit``) so comparisons with them are exact.
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
        if not _MIN_SENSITIVITY <= delta <= _MAX_SENSITIVITY:
            # The step must stay a double ≥ 2^-1010 and 2^53 steps (answer plus noise) must stay finite.
            raise validation.ParamError(
                "sensitivity", f"sensitivity must be in [2^-1000 ≈ {_MIN_SENSITIVITY:.3g}, 2^980 ≈ "
                               f"{_MAX_SENSITIVITY:.3g}] for real-valued queries, got {sensitivity!r}")
        step = 2.0 ** (math.floor(math.log2(delta)) - 10)
        return cls(step=step, units=math.ceil(delta / step) + 1, integer=False)

    @property
    def limit(self) -> float:
        """The largest |answer| (and |threshold|) the lattice carries: 2^52 steps."""
        return _TWO_52 * self.step

    @property
    def effective_sensitivity(self) -> float:
        """The sensitivity all noise scales are calibrated to: ``units·step`` (≥ Δ)."""
        return self.units * self.step

    def _scaled(self, x: object, name: str) -> float:
        """``x / step`` for one finite value that fits the lattice (pure Python: the hot path)."""
        v = x if type(x) is float or type(x) is int else validation.finite(name, x)
        if not math.isfinite(v):
            raise ValueError(f"{name} must be finite, got {x!r}")
        scaled = v / self.step
        if abs(scaled) > _TWO_52:
            raise validation.ParamError(name, self._too_large(name))
        return scaled

    def _scaled_array(self, x: float | np.ndarray, name: str) -> tuple[np.ndarray, np.ndarray]:
        arr = np.asarray(x, dtype=np.float64)
        if not np.all(np.isfinite(arr)):
            raise ValueError(f"{name} must be finite, got {arr[~np.isfinite(arr)].flat[0]!r}")
        with np.errstate(over="ignore"):  # an overflow is inf, refused just below
            scaled = arr / self.step
        if np.any(np.abs(scaled) > _TWO_52):
            raise validation.ParamError(name, self._too_large(name))
        return arr, scaled

    def _too_large(self, name: str) -> str:
        return f"{name} is too large for the noise lattice (|{name}| > {self.limit:g})"

    def unit(self, x: object, name: str = "answer") -> int:
        """One answer rounded to its lattice point (refusing non-finite, and non-integers in integer mode)."""
        scaled = self._scaled(x, name)
        if self.integer and scaled != int(scaled):
            raise ValueError(f"{name} must be an integer for integer-valued queries, got {x!r}")
        return round(scaled)

    def to_units(self, x: float | np.ndarray, name: str = "answer") -> np.ndarray:
        """Vector form of :meth:`unit` (int64); validates every entry before returning any."""
        arr, scaled = self._scaled_array(x, name)
        rounded = np.rint(scaled)
        if self.integer and np.any(scaled != rounded):
            raise ValueError(f"{name} must be an integer for integer-valued queries, "
                             f"got {arr[scaled != rounded].flat[0]!r}")
        return rounded.astype(np.int64)

    def threshold_unit(self, t: object, name: str = "threshold") -> int:
        """``ceil(T / g)``: a lattice integer z has ``z ≥ ceil(T/g)`` iff ``z·g ≥ T`` (T is not rounded)."""
        return math.ceil(self._scaled(t, name))

    def threshold_units(self, t: float | np.ndarray, name: str = "threshold") -> np.ndarray:
        """Vector form of :meth:`threshold_unit` (int64)."""
        return np.ceil(self._scaled_array(t, name)[1]).astype(np.int64)

    def to_value(self, units: np.ndarray | int) -> np.ndarray | float | int:
        """Lattice units back to released numbers (exact: step is a power of two)."""
        if self.integer:
            return units if isinstance(units, np.ndarray) else int(units)
        return units * self.step if isinstance(units, np.ndarray) else float(units) * self.step

    def scale_units(self, scale: float) -> float:
        """A noise scale in value units (b) expressed in lattice units (b / step)."""
        return scale / self.step
