"""What every mechanism shares: its catalogue entry, its guarantee, its responses.

The secrets of a run (the noisy threshold, every noise draw, the true answers) live only inside
the mechanism object, in name-mangled attributes that no ``repr``, response or public property
exposes. The one deliberate window onto them is ``trace=True``, which the teaching mode uses on
toy data; a traced mechanism says so (``traced``) and the release layers refuse it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from svtgui.core import validation
from svtgui.core.noise import Lattice, NoiseSource

PRIVATE = "private"
KNOWN_NON_PRIVATE = "known-non-private"
# What a mechanism works on (``MechanismInfo.input``): the kinds that every layer above asks about,
# instead of testing mechanism ids.
ANSWERS = "answers"  # fed the true answer of each query (every threshold mechanism, EM)
HISTOGRAM = "histogram"  # bound to a histogram over a universe, answers linear queries (PMW)
RELEASE = "release"  # builds a release file from a histogram; a run answers no query (SparseProject)


@dataclass(frozen=True)
class Param:
    """One entry of a mechanism's parameter schema (drives the GUI form and the CLI)."""

    name: str
    kind: str  # "float", "int", "bool"
    description: str
    default: Any = None
    required: bool = False
    minimum: float | None = None
    maximum: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Guarantee:
    """The privacy guarantee a run is charged: (ε, δ)-DP, pure when δ = 0."""

    epsilon: float
    delta: float = 0.0

    @property
    def pure(self) -> bool:
        return self.delta == 0

    def __str__(self) -> str:
        return f"ε = {self.epsilon:g}" if self.pure else f"(ε = {self.epsilon:g}, δ = {self.delta:g})"


@dataclass(frozen=True)
class MechanismInfo:
    """Catalogue metadata: everything a user interface needs to present a mechanism."""

    id: str
    name: str
    summary: str  # one plain-language line
    citation: str
    guarantee: str  # "ε-DP" or "(ε, δ)-DP"
    interactive: bool
    releases_numbers: bool
    status: str  # PRIVATE or KNOWN_NON_PRIVATE
    params: tuple[Param, ...]
    why_not_private: str | None = None
    notes: str = ""
    input: str = ANSWERS  # ANSWERS, HISTOGRAM or RELEASE

    @property
    def linear(self) -> bool:
        """Works on a histogram over a universe (linear queries): needs a universe to run."""
        return self.input in (HISTOGRAM, RELEASE)

    @property
    def needs_queries(self) -> bool:
        """A run needs the query list up front (non-interactive, and not a release file)."""
        return not self.interactive and self.input != RELEASE

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["params"] = [p.to_dict() for p in self.params]
        return d


@dataclass(frozen=True)
class Response:
    """The public answer to one query: ⊤ or ⊥, and a released number when the mechanism has one.

    ``gap`` is set by mechanisms that release the noisy gap above the threshold (``gap_svt``);
    ``answered_from_simulation`` by the multiplicative-weights mechanism.
    """

    index: int
    above: bool
    value: float | int | None = None
    gap: float | None = None
    answered_from_simulation: bool | None = None

    @property
    def symbol(self) -> str:
        return "⊤" if self.above else "⊥"


@dataclass
class Batch:
    """Responses to a batch of answers as arrays (the fast path for long non-adaptive streams).

    Only the first ``consumed`` answers were processed; the rest arrived after the halt.
    ``values`` is NaN where nothing numeric was released.
    """

    above: np.ndarray
    values: np.ndarray
    consumed: int
    start_index: int
    gaps: np.ndarray | None = None

    def responses(self) -> list[Response]:
        """The same outcomes as :class:`Response` objects (for tables and reports)."""
        out = []
        for k in range(self.consumed):
            v = self.values[k]
            g = None if self.gaps is None or np.isnan(self.gaps[k]) else float(self.gaps[k])
            out.append(
                Response(self.start_index + k, bool(self.above[k]), None if np.isnan(v) else _number(v), g)
            )
        return out


def _number(v: float) -> float | int:
    return int(v) if float(v).is_integer() and abs(v) < 2**53 else float(v)


@dataclass(frozen=True)
class Selection:
    """Output of a non-interactive mechanism: the chosen query indices (and values if released)."""

    indices: tuple[int, ...]
    values: tuple[float, ...] | None = None


@dataclass
class TraceStep:
    """Internals of one step, recorded only for ``trace=True`` (teaching mode on toy data)."""

    index: int
    answer: float
    threshold: float
    noisy_answer: float
    noisy_threshold: float
    above: bool
    released: float | None


class MechanismHalted(RuntimeError):
    """``submit`` after the cutoff was reached (or a non-interactive mechanism used twice)."""


class Mechanism:
    """Common state: catalogue entry, guarantee, noise source, public parameters."""

    info: MechanismInfo
    #: Names of :meth:`noise_scales` that are deliberately (almost) zero: the very flaw of a
    #: known-non-private teaching variant. Every other scale must lie in the sampler's usable range.
    noiseless: tuple[str, ...] = ()

    def __init__(self, *, guarantee: Guarantee, rng: NoiseSource, params: dict[str, Any],
                 sensitivity: float, trace: bool = False) -> None:
        self.guarantee = guarantee
        self._rng = rng
        self.params = dict(params)
        self.sensitivity = sensitivity
        self.traced = trace
        self._trace: list[TraceStep] = []
        self.halted = False

    @property
    def secure(self) -> bool:
        """True when the noise came from the OS CSPRNG (False for seeded, reproducible runs)."""
        return self._rng.secure

    @property
    def noise_description(self) -> str:
        return self._rng.description

    def internals(self) -> list[TraceStep]:
        """The recorded internals. Only for mechanisms created with ``trace=True``."""
        if not self.traced:
            raise PermissionError("internals are recorded only for trace=True (teaching mode on toy data)")
        return list(self._trace)

    def noise_scales(self) -> dict[str, float]:
        """Every noise scale this mechanism draws from, in units of its lattice step (public).

        ``mechanisms.create`` checks each against the exact sampler's usable range, so a run whose
        noise could not be drawn exactly, or would almost always be 0, is refused before any charge.
        """
        return {}

    def accuracy_bound(self, k: int, beta: float) -> Any:
        """The (α, β) guarantee (a :class:`svtgui.core.bounds.Accuracy`) of a run over ``k`` queries.

        Each mechanism answers from its own scales; ``ValueError`` when it has no closed form.
        """
        raise ValueError(f"no closed-form (α, β) bound for {self.info.name}")

    def _check_sensitivity(self, sensitivity: float | None) -> None:
        if sensitivity is None:
            return
        s = validation.positive("sensitivity", sensitivity)
        if s > self.sensitivity:
            raise ValueError(
                f"sensitivity {s:g} of this query exceeds the declared sensitivity Δ = {self.sensitivity:g}"
            )

    def __repr__(self) -> str:
        shown = ", ".join(f"{k}={v!r}" for k, v in self.params.items())
        return f"<{type(self).__name__} {self.info.id} {shown} halted={self.halted}>"

    def __reduce__(self):  # pragma: no cover - exercised by a test that expects the error
        raise TypeError("mechanisms hold secrets and cannot be pickled")


class StreamingMechanism(Mechanism):
    """An interactive mechanism: fed one true answer at a time, it answers and eventually halts."""

    cutoff: int
    above_count: int
    answered: int

    def submit(self, answer: float, threshold: float | None = None,
               sensitivity: float | None = None) -> Response:
        raise NotImplementedError

    def submit_many(self, answers: Sequence[float] | np.ndarray,
                    thresholds: Sequence[float] | np.ndarray | None = None) -> Batch:
        raise NotImplementedError

    def _check_open(self) -> None:
        if self.halted:
            raise MechanismHalted(
                f"{self.info.id} has halted after {self.above_count} ⊤ answers (cutoff c = {self.cutoff})"
            )


class SelectionMechanism(Mechanism):
    """A non-interactive mechanism: takes the whole answer vector once, returns a selection."""

    def select(self, answers: Sequence[float] | np.ndarray,
               thresholds: Sequence[float] | np.ndarray | None = None) -> Selection:
        raise NotImplementedError

    def _begin(self, answers: Sequence[float] | np.ndarray, lattice: Lattice | None = None) -> np.ndarray:
        if self.halted:
            raise MechanismHalted(f"{self.info.id} is single-use: select() was already called")
        arr = np.asarray(answers, dtype=np.float64)
        if arr.ndim != 1 or arr.size == 0:
            raise ValueError(f"answers must be a non-empty 1-D vector, got shape {arr.shape}")
        if not np.all(np.isfinite(arr)):
            raise ValueError(f"answers must be finite, got {arr[~np.isfinite(arr)][0]!r}")
        self.halted = True
        return arr


Factory = Callable[..., Mechanism]
REGISTRY: dict[str, tuple[MechanismInfo, Factory]] = {}

# Parameters shared by most entries, so every schema uses the same words.
EPSILON = Param("epsilon", "float", "Total privacy budget ε of the run", required=True, minimum=0.0)
DELTA = Param("delta", "float", "δ of an (ε, δ) guarantee; 0 for pure ε-DP", default=0.0, minimum=0.0,
              maximum=1.0)
THRESHOLD = Param("threshold", "float", "Public threshold T", required=True)
CUTOFF = Param("cutoff", "int", "Cutoff c: the run halts after c ⊤ answers", default=1, minimum=1)
SENSITIVITY = Param("sensitivity", "float", "Sensitivity Δ of every query (from the query definitions)",
                    default=1.0, minimum=0.0)
INTEGER = Param("integer", "bool", "Answers are integers (counts): noise and releases are integers",
                default=False)
MONOTONIC = Param("monotonic", "bool",
                  "Queries are monotonic (on neighbours all answers move the same way): halves query noise",
                  default=False)


def register(info: MechanismInfo) -> Callable[[Factory], Factory]:
    """Add a mechanism to the catalogue (ids are unique)."""

    def deco(factory: Factory) -> Factory:
        if info.id in REGISTRY:
            raise RuntimeError(f"duplicate mechanism id {info.id}")
        REGISTRY[info.id] = (info, factory)
        return factory

    return deco


@dataclass
class Scales:
    """The public noise scales of a threshold-SVT run (in value units), for tests and accuracy."""

    threshold: float
    query: float
    numeric: float | None = None
    extra: dict[str, float] = field(default_factory=dict)

    def in_units(self, lattice: Lattice) -> dict[str, float]:
        """The scales in lattice steps, by name (what :meth:`Mechanism.noise_scales` reports)."""
        named = {"threshold": self.threshold, "query": self.query, "numeric": self.numeric}
        return {name: lattice.scale_units(v) for name, v in named.items() if v is not None}
