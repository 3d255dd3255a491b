"""Strict keys: every object a file format reads may hold only the keys it knows, at every level.

A misspelled key used to be ignored below the top level of a session (``dataset.dataset_Id``
switched off the check that the rows are the saved dataset, issue 22 §3). Readers of sessions,
configs, schemas, query lists and release files refuse an unknown key with its path from the
document's root, ``dataset.schema.columns[2].lowr``, so the curator can find it.
"""

from __future__ import annotations

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
