"""Strict keys: every object a file format reads may hold only the keys it knows, at every level.

A misspelled key used to be ignored below the top level of a session (``dataset.dataset_Id``
switched off the check that the rows are the saved dataset, issue 22 §3). Readers of sessions,
configs, schemas, query lists and release files refuse an unknown key with its path from the
document's root, ``dataset.schema.columns[2].lowr``, so the curator can find it.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from typing import Any


def key_path(where: str, key: Any) -> str:
    """``where.key`` (or ``key`` at the root): the path of a key inside a document."""
    return f"{where}.{key}" if where else str(key)


def unknown_key(obj: Mapping[Any, Any], allowed: Collection[str], where: str = "") -> str | None:
    """A message naming the first unknown key of ``obj`` by its path (``unknown key 'a.b'; keys
    there: …``), or None when every key is one of ``allowed``."""
    extra = sorted(str(k) for k in obj if k not in allowed)
    if not extra:
        return None
    return f"unknown key '{key_path(where, extra[0])}'; keys there: {', '.join(sorted(allowed))}"


class RepeatedKey(ValueError):
    """A key given twice in one JSON object (named by its path from the document's root)."""


class _Repeated(dict):  # type: ignore[type-arg] - an object parsed with a key given twice
    key: str


def parse_json(text: str | bytes) -> Any:
    """``json.loads`` that refuses a key repeated in one object with :class:`RepeatedKey` naming its
    path (``queries[0].column``).

    Why: JSON keeps the last of two equal keys without a word, so ``{"column": "age", "column":
    "sex"}`` counted ``sex`` and a session's second ``dataset_id`` silently replaced the first; TOML
    already refuses a repeated key. The walk that finds the path runs only when a key was repeated.
    """
    repeated = False

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        nonlocal repeated
        obj = dict(items)
        if len(obj) == len(items):
            return obj
        repeated = True
        marked = _Repeated(obj)
        seen: set[str] = set()
        marked.key = next(k for k, _ in items if k in seen or seen.add(k))  # type: ignore[func-returns-value]
        return marked

    doc = json.loads(text, object_pairs_hook=pairs)
    if repeated:
        where, key = _first_repeated(doc, "")  # type: ignore[misc]
        raise RepeatedKey(f"key '{key_path(where, key)}' is given twice; keep one")
    return doc


def _first_repeated(doc: Any, where: str) -> tuple[str, str] | None:
    """Where (in document order) the first object with a repeated key is, and that key."""
    if isinstance(doc, _Repeated):
        return where, doc.key
    items = doc.items() if isinstance(doc, dict) else enumerate(doc) if isinstance(doc, list) else ()
    for k, v in items:
        found = _first_repeated(v, key_path(where, k) if isinstance(doc, dict) else f"{where}[{k}]")
        if found is not None:
            return found
    return None
