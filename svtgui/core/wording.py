"""Counts in words: "1 query", "2 queries", never "1 queries" or "run(s)".

One helper for every layer (it imports nothing), so a window label, a report and a CLI line say a
count the same way.
"""

from __future__ import annotations

import math

_IRREGULAR = {"is": "are", "was": "were"}


def plural(noun: str, n: int) -> str:
    """``noun`` for ``n`` of it: the noun itself for exactly one, its plural otherwise."""
    if n == 1:
        return noun
    head, _, last = noun.rpartition(" ")  # "planned query": the last word takes the plural
    if last in _IRREGULAR:
        word = _IRREGULAR[last]
    elif last.endswith("y") and last[-2:-1] not in ("a", "e", "i", "o", "u"):  # category → categories
        word = last[:-1] + "ies"
    else:
        word = last + ("es" if last.endswith(("s", "x", "ch", "sh")) else "s")
    return f"{head} {word}" if head else word


def count(n: int, noun: str) -> str:
    """``n`` with its noun, thousands separated: "1 query", "10,001 queries", "0 runs"."""
    return f"{n:,} {plural(noun, n)}"


_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def plain(x: float, digits: int = 4) -> str:
    """A number as a curator reads it: thousands grouped, about ``digits`` significant digits, never
    an exponent ("695,187", "21.35", "0.001234"; not "6.952e+05")."""
    v = float(x)
    if not math.isfinite(v):
        return "∞" if v > 0 else "−∞" if v < 0 else "not a number"
    if v == 0:
        return "0"
    if abs(v) >= 1e15 or abs(v) < 1e-9:  # beyond any count a curator types, or below any share: a power
        # of ten, still no "e+20" (T = 5e-324 was written out as 323 zeros and 12 digits)
        mantissa, exponent = f"{v:.2e}".split("e")  # not v / 10**e: 10**-324 is 0.0
        return f"{plain(float(mantissa), 3)} × 10{str(int(exponent)).translate(_SUPERSCRIPT)}"
    decimals = max(0, digits - 1 - math.floor(math.log10(abs(v))))
    text = f"{round(v, decimals):,.{decimals}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text.replace("-", "−")
