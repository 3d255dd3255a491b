"""Numbers the window shows in full: in an editable field (exactly what was set, so reading the field
back gives the same number) and in a label (the same, thousands grouped).

Why not ``f"{v:g}"``: it keeps six significant digits and switches to exponents, so a declared upper
bound of 1,234,567 came back in its field as "1.23457e+06" — another number, in a notation a curator
does not type — and δ = 10⁻⁵ read "1e-05". Rounded display ("α = 278.5") is
:func:`svtgui.core.wording.plain`'s job.
"""

from __future__ import annotations

import math
from decimal import Decimal, localcontext
from fractions import Fraction

from svtgui.core.wording import plain


def field_text(value: float | int) -> str:
    """``value`` exactly, positional, no grouping: "1234567", "0.000001", "21000", "2.5"."""
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    v = float(value)
    if not math.isfinite(v):
        return repr(v)
    return _trimmed(format(Decimal(repr(v)), "f"))  # repr: the shortest text that reads back as v


def exact(value: float | int) -> str:
    """``value`` exactly, thousands grouped, for reading: "1,234,567", "0.000001", "1,161,408.8125"."""
    return _grouped(field_text(value))


def amount(x: Fraction, grouped: bool = True) -> str:
    """An exact budget amount (ε, δ): all its decimals when it has finitely many ("0.00001"), else
    about six digits and the fraction itself ("0.333333 (1/3)"). ``grouped=False`` for a field."""
    rest = x.denominator
    for p in (2, 5):
        while rest % p == 0:
            rest //= p
    if rest != 1:
        return f"{plain(float(x), 6)} ({x})"
    with localcontext() as ctx:
        ctx.prec = len(str(x.numerator)) + 3 * len(str(x.denominator)) + 2  # every digit: n·5^a/10^a
        text = _trimmed(format(Decimal(x.numerator) / Decimal(x.denominator), "f"))
    return _grouped(text) if grouped else text


def _trimmed(text: str) -> str:
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def _grouped(text: str) -> str:
    if not text.lstrip("-")[:1].isdigit():
        return text  # inf, nan
    sign, digits = ("−", text[1:]) if text.startswith("-") else ("", text)
    whole, dot, fraction = digits.partition(".")
    return f"{sign}{int(whole):,}{dot}{fraction}"
