"""Which values of ε, c, Δ (and T) give noise the exact sampler can draw, for the refusal message.

When a mechanism's noise scale falls outside ``[MIN_SCALE, MAX_SCALE]`` lattice steps
(:func:`svtgui.core.noise.check_scale`), ``mechanisms.create`` refuses it. A bare "scale out of
range" would leave the curator guessing which field to change, so this module finds, for each
numeric parameter on its own (the others held fixed), the interval of values that the mechanism
accepts, by building the mechanism on a source that draws nothing: a log-spaced scan, then
bisection on both edges. Every noise scale is monotone in each of these parameters, so the
accepted values form one interval. Printed bounds are rounded *inwards* (three significant
digits), so a printed bound is itself accepted.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from svtgui.core.mechanisms.base import MechanismInfo, Param
from svtgui.core.noise import NoiseRangeError
from svtgui.core.validation import ParamError

#: The parameters a noise scale depends on, in the order the message names them.
RANGED = ("epsilon", "cutoff", "sensitivity", "projection_size", "delta", "beta")
#: Of those, the ones whose 0 means "not used" (pure ε-DP): a 0 is never the value at fault.
ZERO_MEANS_UNUSED = ("delta",)

Probe = Callable[[str, dict[str, Any]], None]


def refusal(entry: MechanismInfo, params: dict[str, Any], error: ValueError, probe: Probe) -> ParamError:
    """The one-line refusal: what is out of range, and the usable range of each parameter at fault."""
    parts = []
    for p in entry.params:
        value = params.get(p.name, p.default)
        if (p.name not in RANGED or value is None or p.kind not in ("float", "int")
                or (p.name in ZERO_MEANS_UNUSED and value == 0)):
            continue
        usable = usable_range(entry.id, params, p, probe)
        if usable is None or usable[0] <= value <= usable[1]:
            continue
        low, high = _shown(usable[0], up=True), _shown(usable[1], up=False)
        if float(low) > float(high):  # a sliver narrower than the digits shown ([1.01e+300, 1e+300]):
            continue  # no value anyone would type, so no advice (the other parameters' ranges remain)
        parts.append((p.name, f"{p.name} must be in [{low}, {high}] with the other settings "
                              f"(got {_typed(value)})"))
    if not parts:
        return ParamError("epsilon", f"{entry.id}: {error}; no single change of "
                                     f"{', '.join(n for n in RANGED if entry_has(entry, n))} makes it usable")
    return ParamError(parts[0][0], f"{entry.id}: {error}: " + "; or ".join(text for _, text in parts))


def entry_has(entry: MechanismInfo, name: str) -> bool:
    return any(p.name == name for p in entry.params)


def usable_range(mechanism_id: str, params: dict[str, Any], param: Param,
                 probe: Probe) -> tuple[float, float] | None:
    """The interval of values of ``param`` (others fixed) that ``probe`` accepts, or None if none."""
    integer = param.kind == "int"
    low_end = 1 if integer else 1e-300
    high_end = param.maximum if integer and param.maximum is not None else (2**62 if integer else 1e300)

    def ok(v: float) -> bool:
        try:
            probe(mechanism_id, {**params, param.name: int(v) if integer else v})
        except (NoiseRangeError, ValueError, ArithmeticError):
            return False
        return True

    grid = ([2**k for k in range(int(math.log2(high_end)) + 1)] if integer
            else [10.0**k for k in range(-300, 301, 4)])
    accepted = [v for v in grid if ok(v)]
    if not accepted:
        return None
    lo, hi = accepted[0], accepted[-1]
    below = grid[grid.index(lo) - 1] if lo != grid[0] else None
    above = grid[grid.index(hi) + 1] if hi != grid[-1] else None
    lo = low_end if below is None else _edge(below, lo, ok, integer)
    hi = high_end if above is None else _edge(above, hi, ok, integer)
    return lo, hi


def _edge(bad: float, good: float, ok: Callable[[float], bool], integer: bool) -> float:
    """The accepted value closest to the refused ``bad`` (bisection; geometric for floats)."""
    for _ in range(200):
        if integer:
            if abs(good - bad) <= 1:
                return good
            mid = (good + bad) // 2
        else:
            mid = math.sqrt(good * bad)
            if abs(good - bad) <= 1e-12 * abs(good) or mid in (good, bad):
                return good
        if ok(mid):
            good = mid
        else:
            bad = mid
    return good


def _typed(value: float) -> str:
    """The value as typed, short: ``1e+308``, and ``1.00e+400`` for an integer beyond any double
    (``f"{10**400:g}"`` is an OverflowError: a typed --cutoff of 401 digits ended in exit 70)."""
    try:
        return f"{value:g}"
    except OverflowError:
        return f"{Decimal(value):.3g}"


def _shown(x: float, *, up: bool) -> str:
    """``x`` with three significant digits, rounded towards the inside of the usable range."""
    if isinstance(x, int) or float(x).is_integer() and abs(x) < 2**53:
        return f"{int(x)}"
    exponent = math.floor(math.log10(abs(x))) - 2
    scaled = x / 10.0**exponent
    digits = math.ceil(scaled) if up else math.floor(scaled)
    return f"{digits * 10.0**exponent:.3g}"
