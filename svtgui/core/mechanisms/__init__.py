"""The public mechanism API (kept stable: the GUI, the CLI and outside checks use it).

>>> from svtgui.core import mechanisms
>>> m = mechanisms.create("sparse", epsilon=1.0, delta=0.0, threshold=100.0, cutoff=3,
...                       sensitivity=1.0, rng=mechanisms.seeded(7))   # rng omitted -> OS CSPRNG
>>> r = m.submit(40.0)          # optional per-query threshold: m.submit(answer, threshold=t)
>>> r.above, r.value, m.halted
(False, None, False)

Interactive mechanisms stream (``submit`` one answer, ``submit_many`` for a batch);
non-interactive ones (``catalog()`` entry ``interactive=False``) take the whole answer vector
once with ``select(answers)``.
"""

from __future__ import annotations

from typing import Any

# Importing the definition modules fills the registry. One module per line, alphabetical: add yours.
from svtgui.core.mechanisms import (
    broken,  # noqa: F401
    ding,  # noqa: F401
    dwork_roth,  # noqa: F401
    lyu,  # noqa: F401
    lyu_broken,  # noqa: F401
    pmw,  # noqa: F401  (issue 4: linear queries)
    sparse_project,  # noqa: F401  (issue 4: linear queries)
)
from svtgui.core.mechanisms.base import (
    ANSWERS,
    HISTOGRAM,
    KNOWN_NON_PRIVATE,
    PRIVATE,
    REGISTRY,
    RELEASE,
    Batch,
    Guarantee,
    Mechanism,
    MechanismHalted,
    MechanismInfo,
    Param,
    Response,
    Selection,
    SelectionMechanism,
    StreamingMechanism,
    TraceStep,
)
from svtgui.core.mechanisms.usable_ranges import refusal
from svtgui.core.noise import (
    GAUSSIAN,
    MIN_GAUSSIAN_SIGMA,
    MIN_SCALE,
    NoiseRangeError,
    NoiseSource,
    ScaleProbe,
    check_scale,
    secure,
    seeded,
)
from svtgui.core.validation import ParamError

__all__ = [
    "ANSWERS", "HISTOGRAM", "KNOWN_NON_PRIVATE", "RELEASE",
    "PRIVATE", "Batch", "Guarantee", "Mechanism", "MechanismHalted", "MechanismInfo",
    "NoiseSource", "Param", "Response", "Selection", "SelectionMechanism", "StreamingMechanism", "TraceStep",
    "catalog", "create", "info", "secure", "seeded",
]


def catalog() -> list[MechanismInfo]:
    """Metadata for every mechanism id, private ones first."""
    return sorted((i for i, _ in REGISTRY.values()), key=lambda i: (i.status != PRIVATE, i.id))


def info(mechanism_id: str) -> MechanismInfo:
    """The catalogue entry of one id (``ValueError`` naming the unknown id otherwise)."""
    try:
        return REGISTRY[mechanism_id][0]
    except KeyError:
        known = ", ".join(sorted(REGISTRY))
        raise ValueError(f"unknown mechanism {mechanism_id!r}; known: {known}") from None


def create(mechanism_id: str, *, rng: NoiseSource | None = None, allow_non_private: bool = False,
           trace: bool = False, **params: Any) -> Mechanism:
    """Build a mechanism from its id and the parameters its catalogue entry declares.

    ``rng`` defaults to the OS CSPRNG; pass ``seeded(s)`` only for tests and replays.
    Known-non-private variants are refused unless ``allow_non_private=True``.
    ``trace=True`` records internals for the teaching mode (toy data only).
    """
    entry = info(mechanism_id)
    if entry.status == KNOWN_NON_PRIVATE and not allow_non_private:
        raise ValueError(
            f"{mechanism_id} is known not to be differentially private ({entry.why_not_private}) "
            "It exists only as a teaching example; pass allow_non_private=True to use it.")
    names = {p.name for p in entry.params}
    unknown = sorted(set(params) - names)
    if unknown:
        raise ValueError(f"{mechanism_id} has no parameter {unknown[0]!r}; "
                         f"its parameters: {', '.join(sorted(names))}")
    missing = [p.name for p in entry.params if p.required and params.get(p.name) is None]
    if missing:
        raise ValueError(f"{mechanism_id} needs parameter {missing[0]!r}")
    factory = REGISTRY[mechanism_id][1]
    try:
        return _noise_checked(factory(rng=rng if rng is not None else secure(), trace=trace, **params))
    except ParamError as exc:
        if exc.param in names:
            raise
        # a quantity derived from the parameters (a noise scale) is out of range: say which to change
        raise refusal(entry, params, exc, _probe) from None
    except NoiseRangeError as exc:
        raise refusal(entry, params, exc, _probe) from None
    except ArithmeticError as exc:
        # a derived quantity (a budget share, a scale, a bound) left the range of a double: ε/(1 + split)
        # underflowing to 0 divides by zero, a huge ratio overflows; say which parameter to change
        raise refusal(entry, params, ValueError(f"a derived quantity leaves the range of a double ({exc})"),
                      _probe) from None


def _noise_checked(mech: Mechanism) -> Mechanism:
    """``mech`` if every noise scale it draws from is in the exact sampler's usable range."""
    for name, units in mech.noise_scales().items():
        if name not in mech.noiseless:
            check_scale(units, name, minimum=MIN_GAUSSIAN_SIGMA if name.endswith(GAUSSIAN) else MIN_SCALE)
    return mech


def _probe(mechanism_id: str, params: dict[str, Any]) -> None:
    """Build ``mechanism_id`` on a source that draws nothing; raises what ``create`` would."""
    _noise_checked(REGISTRY[mechanism_id][1](rng=ScaleProbe(), trace=False, **params))
