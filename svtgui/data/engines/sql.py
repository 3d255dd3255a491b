"""Query conditions as SQL, with exactly the memory engine's semantics (``evaluate.condition_mask``).

The same rules as the pandas path: a comparison is false on a missing cell, ``!=`` does not count
missing rows, a value is first coerced to the column's type (``evaluate.match_values`` and
``coerce_value``: 13 matches the number 13, a text that is not a number never matches a numeric
column, a categorical column matches by category text whatever its storage — ``svtgui.data.cells``),
and NaN is missing (the engines' views turn NaN into NULL). Values are rendered as literals by the
dialect; nothing the user typed is ever spliced into SQL unquoted.
"""

from __future__ import annotations

from svtgui.data.cells import is_timestamp
from svtgui.data.engines.base import Dialect
from svtgui.data.evaluate import _NO_MATCH, coerce_value, match_values
from svtgui.data.predicates import Condition, Junction, Predicate, QueryError
from svtgui.data.schema import ColumnKind, Schema

_ORDERED = {"<": "<", "<=": "<=", ">": ">", ">=": ">="}
STORAGE = {"numeric": "numeric", "boolean": "boolean", "datetime": "datetime"}
"""An engine column's kind (``ColumnType.kind``) as the storage ``match_values`` expects; others are text."""


def predicate_sql(where: Predicate | None, schema: Schema, dialect: Dialect, storage: dict[str, str]) -> str:
    """A SQL boolean expression that is TRUE exactly on the rows ``condition_mask`` selects
    (``storage``: each column's kind as the engine holds it, before any declaration)."""
    if where is None:
        return "TRUE"
    if isinstance(where, Junction):
        joiner = " AND " if where.op == "and" else " OR "
        return "(" + joiner.join(predicate_sql(c, schema, dialect, storage) for c in where.children) + ")"
    return _condition_sql(where, schema.column(where.column).kind, STORAGE.get(storage[where.column], "text"),
                          dialect)


def _condition_sql(cond: Condition, kind: ColumnKind, storage: str, dialect: Dialect) -> str:
    col = dialect.ident(cond.column)
    op = cond.op
    if op == "is_missing":
        return f"({col} IS NULL)"
    if op in ("=", "!=", "in"):
        values = match_values(storage, kind, cond.value if op == "in" else (cond.value,), cond.column)
        hit = f"{col} IN ({', '.join(dialect.literal(_plain(v)) for v in values)})" if values else "FALSE"
        return f"({col} IS NOT NULL AND NOT ({hit}))" if op == "!=" else f"({col} IS NOT NULL AND {hit})"
    bounds = cond.value if op == "between" else (cond.value,)
    coerced = [coerce_value(kind, b, cond.column) for b in bounds]
    if any(c is _NO_MATCH for c in coerced):
        raise QueryError(f"column {cond.column!r}: operator {op!r} needs a number, got {cond.value!r}")
    lits = [dialect.literal(_plain(c)) for c in coerced]
    if op == "between":
        return f"({col} >= {lits[0]} AND {col} <= {lits[1]})"
    return f"({col} {_ORDERED[op]} {lits[0]})"


def _plain(value: object) -> object:
    """numpy scalars as Python numbers (the dialect renders int/float/bool/str/Timestamp)."""
    return value.item() if hasattr(value, "item") and not is_timestamp(value) else value
