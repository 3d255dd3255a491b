"""Grammar-aware mutation fuzzing for the parsers, driven (and shrunk) by hypothesis.

Each hypothesis example draws a batch of small integer tuples — cheap to generate, so a batch of
:data:`BATCH` inputs costs about what one generated JSON tree would — and each tuple mutates one
valid seed document in one of two ways:

* structurally: a node reached by the tuple's path numbers is replaced by a value from
  :data:`NASTY` (wrong types, huge numbers, deep nesting, unknown keys), or deleted, or gains an
  unknown key; the document is then serialised again;
* byte-wise: the serialised seed gets a byte flipped, inserted or deleted, or is truncated.

Every input the target sees is counted in ``Fuzzer.inputs``; the suite asserts the count.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

BATCH = 10
DEEP = "\u2063deep\u2063"  # stands for a list nested deeper than any parser's recursion limit
_DEEP_TEXT = "[" * 3000 + "1" + "]" * 3000
NASTY: tuple[Any, ...] = (
    None, True, False, 0, -1, 1, 2**63, -(2**64), 10**400, 1e308, -1e-308, 0.5, "", " ", "x", "age",
    "\u0000", "é\u202e", [], [None], [[1]], [1, "a"], {}, {"kind": ["range"]}, {"": None}, ["range"],
    "range", "count", "=", "between", "add_remove", "numeric", "categorical",
)
_NASTY_TEXT = ('"', "\\", "{", "[", "]", "}", ",", ":", "\n", "\x00", "\xff", "-", "e9999", "NaN", "[" * 50)

Tuple = tuple[int, int, int, int]
TUPLES = st.lists(
    st.tuples(st.integers(0, 2**16), st.integers(0, 2**16), st.integers(0, 255), st.integers(0, 9)),
    min_size=BATCH, max_size=BATCH,
)


def _nodes(doc: Any, path: tuple = ()) -> list[tuple]:
    """Every path into a JSON document (the root included)."""
    out = [path]
    if isinstance(doc, dict):
        for k, v in doc.items():
            out += _nodes(v, (*path, k))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            out += _nodes(v, (*path, i))
    return out


def mutate_document(doc: Any, t: Tuple) -> Any:
    """``doc`` with one node replaced, removed or given an unknown key (``t`` picks which and how)."""
    doc = copy.deepcopy(doc)
    where, what, byte, how = t
    paths = _nodes(doc)
    path = paths[where % len(paths)]
    if how == 0:  # very deep nesting at that node (written by serialise: json cannot)
        replacement = DEEP
    else:
        replacement = NASTY[what % len(NASTY)]
    if not path:
        return replacement if how != 9 else doc
    parent = doc
    for key in path[:-1]:
        parent = parent[key]
    key = path[-1]
    if how == 8 and isinstance(parent, dict):
        del parent[key]
    elif how == 9 and isinstance(parent, dict):
        parent[f"unknown_{byte}"] = replacement
    else:
        parent[key] = replacement
    return doc


def mutate_bytes(data: bytes, t: Tuple) -> bytes:
    """``data`` with one byte-level edit: flip, insert text, delete, truncate, or duplicate a slice."""
    where, what, byte, how = t
    if not data:
        return bytes([byte])
    i = where % len(data)
    if how <= 2:
        return data[:i] + bytes([data[i] ^ (byte or 1)]) + data[i + 1:]
    if how <= 4:
        return data[:i] + _NASTY_TEXT[what % len(_NASTY_TEXT)].encode("utf-8", "surrogatepass") + data[i:]
    if how <= 6:
        return data[:i] + data[i + 1 + what % 8:]
    if how == 7:
        return data[:i]
    j = min(len(data), i + 1 + what % 64)
    return data[:j] + data[i:j] + data[j:]


class Fuzzer:
    """Runs ``target`` on mutated seeds; anything but ``allowed`` exceptions fails the test."""

    def __init__(self, target: Callable[[bytes], object], allowed: tuple[type[BaseException], ...]) -> None:
        self.target = target
        self.allowed = allowed
        self.inputs = 0
        self.refused = 0

    def feed(self, data: bytes) -> None:
        self.inputs += 1
        try:
            self.target(data)
        except self.allowed:
            self.refused += 1

    def run(self, seeds: list[Any], examples: int, *, structured: bool = True) -> int:
        """``examples`` hypothesis examples of BATCH inputs each; returns the inputs fed.

        ``seeds`` are JSON-able documents (structured and byte-wise mutations) or bytes
        (byte-wise only).
        """

        @settings(max_examples=examples, derandomize=True, database=None, deadline=None,
                  suppress_health_check=list(HealthCheck))
        @given(st.integers(0, len(seeds) - 1), TUPLES)
        def fuzz(pick: int, batch: list[Tuple]) -> None:
            seed = seeds[pick]
            for t in batch:
                if isinstance(seed, bytes):
                    self.feed(mutate_bytes(seed, t))
                elif structured and t[3] % 2 == 0:
                    self.feed(serialise(mutate_document(seed, t)))
                else:
                    self.feed(mutate_bytes(serialise(seed), t))

        fuzz()
        return self.inputs


def serialise(doc: Any) -> bytes:
    text = json.dumps(doc, ensure_ascii=False)
    return text.replace(json.dumps(DEEP, ensure_ascii=False), _DEEP_TEXT).encode("utf-8")
