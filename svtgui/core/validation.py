"""Parameter checks shared by every mechanism.

Each check raises :class:`ParamError` (a ``ValueError``) whose message names the parameter and
the bad value, and whose ``param`` says which one: the GUI shows it next to that field and the
CLI prints it verbatim, without parsing the text.
"""

from __future__ import annotations

import math
import sys
from numbers import Real


def beyond_double(v: object) -> bool:
    """Whether ``v`` is a number no double holds: JSON's ``1e400`` (read as ±inf) or an integer past
    ±1.8e308 (``float()`` of it is an OverflowError: it ended a run in exit 70)."""
    if isinstance(v, bool):
        return False
    if isinstance(v, float):
        return v in (math.inf, -math.inf)
    return isinstance(v, int) and abs(v) > int(sys.float_info.max)


class ParamError(ValueError):
    """A refused parameter; ``param`` is its name (the field the message belongs to)."""

    def __init__(self, param: str, message: str) -> None:
        super().__init__(message)
        self.param = param


def finite(name: str, value: object) -> float:
    """Return ``value`` as a float, refusing non-numbers, NaN and infinities."""
    if isinstance(value, bool) or not isinstance(value, Real):
        raise ParamError(name, f"{name} must be a number, got {value!r}")
    x = float(value)
    if not math.isfinite(x):
        raise ParamError(name, f"{name} must be finite, got {value!r}")
    return x


def positive(name: str, value: object) -> float:
    """A finite number strictly greater than zero (ε, Δ, scales)."""
    x = finite(name, value)
    if x <= 0:
        raise ParamError(name, f"{name} must be > 0, got {value!r}")
    return x


def probability(name: str, value: object, *, allow_zero: bool = True) -> float:
    """δ or β: a finite number in [0, 1) (or (0, 1) when zero is not allowed)."""
    x = finite(name, value)
    if x < 0 or x >= 1 or (x == 0 and not allow_zero):
        interval = "[0, 1)" if allow_zero else "(0, 1)"
        raise ParamError(name, f"{name} must be in {interval}, got {value!r}")
    return x


def fraction_open(name: str, value: object) -> float:
    """A share of a budget, strictly between 0 and 1."""
    x = finite(name, value)
    if not 0 < x < 1:
        raise ParamError(name, f"{name} must be strictly between 0 and 1, got {value!r}")
    return x


def count(name: str, value: object, *, minimum: int = 1) -> int:
    """An integer (cutoff c, number of queries) of at least ``minimum``."""
    if (isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(value)
            or int(value) != value):
        raise ParamError(name, f"{name} must be an integer, got {value!r}")
    if value < minimum:
        raise ParamError(name, f"{name} must be >= {minimum}, got {value!r}")
    return int(value)
