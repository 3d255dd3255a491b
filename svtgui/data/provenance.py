"""Where a domain came from: declared by the curator, or read off the private data.

A domain — the values of a categorical column, the items of a transaction file, the levels of a
universe axis — is *public* only when the curator declares it from knowledge that does not come
from these rows (a codebook, a product catalogue). Read off the data, it reveals which values
occur: a country held by one person in the census names that person's row, and the number of
distinct items is itself a count of the data. Such a domain is recorded by a short *note* that
names it ("the values of column 'native-country'"), and the note travels with whatever was built
from it: a query list (:class:`svtgui.data.queries.QueryList`, its file and a session), a schema
column (``Column.levels_from_data``), a universe axis (``Axis.declared``). The application layer
(:mod:`svtgui.app.domains`) refuses a release that depends on one unless the curator overrides,
and then records and reports the release as NOT differentially private.

What is missing is declared: files written before provenance was recorded declared their domains.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


def values_note(column: str) -> str:
    """The note of a column's values read off the data (every-value, marginals, a universe axis)."""
    return f"the values of column {column!r}"


def items_note(column: str) -> str:
    """The note of the items that occur in a transaction column (every-item, frequent items)."""
    return f"the items of column {column!r}"


def levels_note(column: str) -> str:
    """The note of a schema column whose declared levels were read off the data."""
    return f"the levels of column {column!r} in the schema"


def schema_notes(schema: Any, columns: Iterable[str]) -> list[str]:
    """Notes for the ``columns`` whose schema levels were read off the data."""
    return [levels_note(c) for c in schema.levels_from_data(columns)]


def merge(*groups: Iterable[str]) -> tuple[str, ...]:
    """Notes of several sources, each once, in the order first seen."""
    return tuple(dict.fromkeys(note for group in groups for note in group))
