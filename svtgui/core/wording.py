"""Counts in words: "1 query", "2 queries", never "1 queries" or "run(s)".

One helper for every layer (it imports nothing), so a window label, a report and a CLI line say a
count the same way.
"""

from __future__ import annotations

_IRREGULAR = {"query": "queries", "is": "are", "was": "were", "entry": "entries"}


def plural(noun: str, n: int) -> str:
    """``noun`` for ``n`` of it: the noun itself for exactly one, its plural otherwise."""
    if n == 1:
        return noun
    head, _, last = noun.rpartition(" ")  # "planned query": the last word takes the plural
    word = _IRREGULAR.get(last, last + ("es" if last.endswith(("s", "x", "ch", "sh")) else "s"))
    return f"{head} {word}" if head else word


def count(n: int, noun: str) -> str:
    """``n`` with its noun, thousands separated: "1 query", "10,001 queries", "0 runs"."""
    return f"{n:,} {plural(noun, n)}"
