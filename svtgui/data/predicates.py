"""Row predicates: AND/OR trees of (column, operator, value) conditions, as data, never as code.

JSON form::

    {"column": "age", "op": ">=", "value": 30}
    {"column": "education", "op": "in", "value": ["Bachelors", "Masters"]}
    {"column": "age", "op": "between", "value": [30, 39]}          # inclusive at both ends
    {"column": "occupation", "op": "is_missing"}
    {"and": [ ... ]}   {"or": [ ... ]}

Missing values: every comparison is false on a missing cell (SQL's rule), so ``!=`` does not
count missing rows; use ``is_missing`` to count them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from svtgui.core.keys import unknown_key
from svtgui.core.validation import beyond_double
from svtgui.data.schema import ColumnKind, Schema, SchemaError

OPS = ("=", "!=", "<", "<=", ">", ">=", "in", "between", "is_missing")
_ALIASES = {
    "==": "=",
    "eq": "=",
    "≠": "!=",
    "<>": "!=",
    "ne": "!=",
    "lt": "<",
    "≤": "<=",
    "le": "<=",
    "gt": ">",
    "≥": ">=",
    "ge": ">=",
    "is missing": "is_missing",
    "missing": "is_missing",
    "isna": "is_missing",
}
_SYMBOL = {"=": "=", "!=": "≠", "<": "<", "<=": "≤", ">": ">", ">=": "≥"}
ORDERED_KINDS = (ColumnKind.NUMERIC, ColumnKind.DATETIME)


class QueryError(ValueError):
    """A malformed query, or one that does not fit the schema; the message names the field."""


@dataclass(frozen=True)
class Condition:
    column: str
    op: str
    value: Any = None

    def __post_init__(self) -> None:
        if not isinstance(self.column, str) or not self.column:
            raise QueryError(f"field 'column' must be a non-empty string, got {self.column!r}")
        op = _ALIASES.get(self.op, self.op) if isinstance(self.op, str) else self.op
        if op not in OPS:
            raise QueryError(f"field 'op': unknown operator {self.op!r}; operators: {', '.join(OPS)}")
        object.__setattr__(self, "op", op)
        value = self.value
        if op == "is_missing":
            if value is not None:
                raise QueryError("field 'value': 'is_missing' takes no value")
        elif op == "in":
            if not isinstance(value, list | tuple | set | frozenset) or not value:
                raise QueryError(f"field 'value': 'in' needs a non-empty list, got {value!r}")
            for v in value:
                _scalar(v)
            value = tuple(value)
        elif op == "between":
            if not isinstance(value, list | tuple) or len(value) != 2:
                raise QueryError(f"field 'value': 'between' needs [low, high], got {value!r}")
            lo, hi = (_bound(op, v) for v in value)
            if _comparable(lo, hi) and lo > hi:
                raise QueryError(f"field 'value': 'between' low {lo!r} exceeds high {hi!r}")
            value = (lo, hi)
        elif op in ("<", "<=", ">", ">="):
            value = _bound(op, value)
        else:
            value = _scalar(value)
        object.__setattr__(self, "value", value)

    def columns(self) -> set[str]:
        return {self.column}

    def validate(self, schema: Schema) -> None:
        try:
            col = schema.column(self.column)
        except SchemaError as e:
            raise QueryError(f"field 'column': {e}") from None
        if col.kind == ColumnKind.ITEMSET:
            raise QueryError(f"column {self.column!r} holds item sets; use an item-support query")
        if self.op in ("<", "<=", ">", ">=", "between") and col.kind not in ORDERED_KINDS:
            raise QueryError(
                f"operator {self.op!r} needs a numeric or datetime column; "
                f"{self.column!r} is {col.kind.value}"
            )
        for v in _values(self):
            _check_value(self.column, col.kind, v)
        if col.kind == ColumnKind.CATEGORICAL and col.categories is not None and self.op in ("=", "!=", "in"):
            # a typo ('female' for 'Female') would count nothing and still spend budget
            given = tuple(self.value) if self.op == "in" else (self.value,)
            outside = [v for v in given if str(v) not in col.categories]
            if outside:
                shown = ", ".join(col.categories[:20]) + (", …" if len(col.categories) > 20 else "")
                raise QueryError(f"value {outside[0]!r} is not a declared level of column {self.column!r} "
                                 f"(levels: {shown}); a value outside them matches nothing")

    def describe(self) -> str:
        if self.op == "is_missing":
            return f"{self.column} is missing"
        if self.op == "in":
            return f"{self.column} in {{{', '.join(_show(v) for v in self.value)}}}"
        if self.op == "between":
            return f"{_show(self.value[0])} ≤ {self.column} ≤ {_show(self.value[1])}"
        return f"{self.column} {_SYMBOL[self.op]} {_show(self.value)}"

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"column": self.column, "op": self.op}
        if self.op != "is_missing":
            d["value"] = list(self.value) if isinstance(self.value, tuple) else self.value
        return d


@dataclass(frozen=True)
class Junction:
    """``and`` / ``or`` of child predicates."""

    op: str
    children: tuple[Predicate, ...]

    def __post_init__(self) -> None:
        if self.op not in ("and", "or"):
            raise QueryError(f"unknown junction {self.op!r}; use 'and' or 'or'")
        if not self.children:
            raise QueryError(f"field '{self.op}' needs at least one condition")
        object.__setattr__(self, "children", tuple(self.children))

    def columns(self) -> set[str]:
        return set().union(*(c.columns() for c in self.children))

    def validate(self, schema: Schema) -> None:
        for c in self.children:
            c.validate(schema)

    def describe(self) -> str:
        parts = [
            c.describe() if isinstance(c, Condition) or len(self.children) == 1 else f"({c.describe()})"
            for c in self.children
        ]
        return f" {self.op} ".join(parts)

    def to_json(self) -> dict[str, Any]:
        return {self.op: [c.to_json() for c in self.children]}


Predicate = Condition | Junction


def predicate_from_json(obj: Any, where: str = "where") -> Predicate:
    """Parse the JSON form (see the module docstring); errors name the offending field path."""
    if not isinstance(obj, dict):
        raise QueryError(f"field '{where}' must be a JSON object, got {obj!r}")
    junctions = [k for k in ("and", "or") if k in obj]
    if junctions:
        key = junctions[0]
        if unknown := unknown_key(obj, (key,), where):
            raise QueryError(f"{unknown} (an '{key}' object has no other keys)")
        children = obj[key]
        if not isinstance(children, list) or not children:
            raise QueryError(f"field '{where}.{key}' must be a non-empty list")
        return Junction(
            key, tuple(predicate_from_json(c, f"{where}.{key}[{i}]") for i, c in enumerate(children))
        )
    if unknown := unknown_key(obj, ("column", "op", "value"), where):
        raise QueryError(unknown)
    for required in ("column", "op"):
        if required not in obj:
            raise QueryError(f"field '{where}.{required}' is missing")
    try:
        return Condition(obj["column"], obj["op"], obj.get("value"))
    except QueryError as e:
        raise QueryError(f"{where}: {e}") from None


def _scalar(v: Any) -> Any:
    if v is None or isinstance(v, bool | int | float | str):
        if isinstance(v, float) and v != v:
            raise QueryError("field 'value': NaN is not a value; use 'is_missing'")
        if beyond_double(v):
            # JSON's 1e400 reads as inf: it failed later as "Out of range float values are not JSON compliant"
            raise QueryError("field 'value' is a number beyond the range of a double (±1.8e308)")
        return v
    raise QueryError(f"field 'value' must be a number, text or true/false, got {v!r}")


def _bound(op: str, v: Any) -> Any:
    """A bound of an ordering comparison: a value, never null (nothing is ordered against a missing
    value, and a null bound would only fail once the run is charged)."""
    if v is None:
        raise QueryError(f"field 'value': {op!r} needs a number or date, got null")
    return _scalar(v)


def _values(cond: Condition) -> tuple[Any, ...]:
    """Every value a condition compares the column with: bounds, the value of ``=``/``≠``, the
    members of ``in`` (``age = 'thirty'`` on a numeric column matched nothing and was charged, while
    ``age >= 'abc'`` was refused: both are refused now)."""
    if cond.op == "is_missing":
        return ()
    return tuple(cond.value) if cond.op in ("between", "in") else (cond.value,)


FLAG_TEXTS = {"true": True, "false": False, "1": True, "0": False}  # what a flag may be compared with


def _check_value(column: str, kind: ColumnKind, v: Any) -> None:
    """A value the column can hold, checked before any budget is spent: a numeric column against
    text, a flag against 'maybe' never match (or, for dates, fail mid-run)."""
    if kind == ColumnKind.NUMERIC:
        if isinstance(v, bool) or not isinstance(v, int | float | str):
            raise QueryError(f"column {column!r} is numeric; {v!r} is not a number")
        if isinstance(v, str):
            try:
                number = float(v)
            except ValueError:
                raise QueryError(f"column {column!r} is numeric; {v!r} is not a number") from None
            if not math.isfinite(number):  # 'nan', 'inf', '1e400': as 'thirty', '= nan' matched no row
                raise QueryError(f"column {column!r} is numeric; {v!r} is not a finite number (values "
                                 "and bounds are finite; a missing value is 'is_missing')")
    elif kind == ColumnKind.DATETIME:
        import pandas as pd  # the data layer's own dependency; only date columns need it

        if isinstance(v, int | float) and not isinstance(v, bool):  # pandas reads 2020 as 2020 ns after 1970
            raise QueryError(f"column {column!r} holds dates; {v!r} is a number, not a date (write a "
                             "date as text: '2020-01-01')")
        try:
            pd.Timestamp(v)
        except (ValueError, TypeError):
            raise QueryError(f"column {column!r} holds dates; {v!r} is not a date") from None
    elif kind == ColumnKind.BOOLEAN and not isinstance(v, bool) and str(v).strip().lower() not in FLAG_TEXTS:
        raise QueryError(f"column {column!r} holds true/false; {v!r} is not one of them")


def _comparable(a: Any, b: Any) -> bool:
    numeric = (int, float)
    return (isinstance(a, numeric) and isinstance(b, numeric)) or (isinstance(a, str) and isinstance(b, str))


def _show(v: Any) -> str:
    return repr(v) if isinstance(v, str) else f"{v:g}" if isinstance(v, float) else str(v)
