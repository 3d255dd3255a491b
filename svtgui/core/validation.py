"""Parameter checks shared by every mechanism.

Each check raises ``ValueError`` whose message names the parameter and the bad value, so the
GUI can show it next to the field at fault and the CLI can print it verbatim.
"""

from __future__ import annotations

import math
from numbers import Real


def finite(name: str, value: object) -> float:
    """Return ``value`` as a float, refusing non-numbers, NaN and infinities."""
    if isinstance(value, bool) or not isinstance(value, Real):
        raise ValueError(f"{name} must be a number, got {value!r}")
    x = float(value)
    if not math.isfinite(x):
        raise ValueError(f"{name} must be finite, got {value!r}")
    return x


def positive(name: str, value: object) -> float:
    """A finite number strictly greater than zero (ε, Δ, scales)."""
    x = finite(name, value)
    if x <= 0:
        raise ValueError(f"{name} must be > 0, got {value!r}")
    return x


def probability(name: str, value: object, *, allow_zero: bool = True) -> float:
    """δ or β: a finite number in [0, 1) (or (0, 1) when zero is not allowed)."""
    x = finite(name, value)
    if x < 0 or x >= 1 or (x == 0 and not allow_zero):
        interval = "[0, 1)" if allow_zero else "(0, 1)"
        raise ValueError(f"{name} must be in {interval}, got {value!r}")
    return x


def fraction_open(name: str, value: object) -> float:
    """A share of a budget, strictly between 0 and 1."""
    x = finite(name, value)
    if not 0 < x < 1:
        raise ValueError(f"{name} must be strictly between 0 and 1, got {value!r}")
    return x


def count(name: str, value: object, *, minimum: int = 1) -> int:
    """An integer (cutoff c, number of queries) of at least ``minimum``."""
    if (isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(value)
            or int(value) != value):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value!r}")
    return int(value)
