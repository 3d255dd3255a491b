"""What the curator declares about a dataset: column kinds, public bounds, the neighbouring relation.

Why bounds are declared, never inferred
---------------------------------------
The sensitivity of a sum or mean depends on how far one row can move it, i.e. on the range of a
column. Taking that range from the data (``min``/``max``) leaks the extreme rows, so a
:class:`Column` starts *without* bounds and only the curator (the GUI's schema editor, a sidecar
``*.schema.json`` file, or a DP recipe such as ``recipes.auto_avg``) sets them. Queries that need
bounds refuse to compute a sensitivity until they are declared.

The neighbouring relation
-------------------------
``add_remove`` (the default): neighbours differ by one row added or removed, n is private.
``replace``: neighbours differ by one row replaced, n is public (``Schema.n``). Counting queries have
sensitivity 1 under both; a clipped sum on [l, u] has max(|l|, |u|) under add/remove but u − l under
replace; a normalised (mean) query has 1/n and exists only under replace.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from svtgui.core.keys import key_path, unknown_key
from svtgui.core.validation import beyond_double
from svtgui.data import textio
from svtgui.data.errors import DatasetError

if TYPE_CHECKING:  # only inference from a loaded frame reads pandas dtypes
    import pandas as pd

SCHEMA_FORMAT = "svtgui-schema"
SCHEMA_VERSION = 1
# The keys a schema file (and a session's dataset.schema) may hold, and those of each column.
SCHEMA_KEYS = ("format", "version", "neighbouring", "columns", "n")
COLUMN_KEYS = ("name", "kind", "lower", "upper", "categories", "levels_from_data")


class SchemaError(ValueError):
    """A schema (or a sidecar schema file) that is malformed; the message names the field."""


class ColumnKind(StrEnum):
    NUMERIC = "numeric"
    CATEGORICAL = "categorical"
    BOOLEAN = "boolean"
    DATETIME = "datetime"
    ITEMSET = "itemset"


class Neighbouring(StrEnum):
    ADD_REMOVE = "add_remove"
    REPLACE = "replace"


@dataclass(frozen=True)
class Column:
    """One column: its kind and, for numeric columns, the curator-declared public bounds.

    ``categories`` is an optional curator-declared public domain for categorical columns (used by
    generators such as ``every_value`` so that query lists do not have to be read off the data).
    ``levels_from_data`` is its provenance: True when the levels were read off the private data (the
    window's "read the levels that occur") rather than declared from public knowledge. Such levels
    are not public, and a release that depends on them is refused unless the curator overrides
    (:mod:`svtgui.app.domains`). A file without the field declared its levels.
    """

    name: str
    kind: ColumnKind
    lower: float | None = None
    upper: float | None = None
    categories: tuple[str, ...] | None = None
    levels_from_data: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise SchemaError(f"column name must be a non-empty string, got {self.name!r}")
        object.__setattr__(self, "kind", _kind(self.kind, self.name))
        if (self.lower is None) != (self.upper is None):
            raise SchemaError(f"column {self.name!r}: declare both bounds (lower and upper) or neither")
        if self.lower is not None:
            if self.kind != ColumnKind.NUMERIC:
                raise SchemaError(
                    f"column {self.name!r}: bounds apply only to numeric columns, not {self.kind.value}"
                )
            lo, hi = _finite(self.name, "lower", self.lower), _finite(self.name, "upper", self.upper)
            if lo > hi:
                raise SchemaError(f"column {self.name!r}: lower bound {lo:g} exceeds upper bound {hi:g}")
            object.__setattr__(self, "lower", lo)
            object.__setattr__(self, "upper", hi)
        if self.categories is not None:
            for c in self.categories:  # str(None) or str({}) would declare the category "None" or "{}"
                if isinstance(c, bool) or not isinstance(c, str | int | float) or (
                        isinstance(c, float) and not math.isfinite(c)):
                    raise SchemaError(f"column {self.name!r}: a category must be a text or a finite number, "
                                      f"got {c!r}")
            object.__setattr__(self, "categories", tuple(str(c) for c in self.categories))
        if not isinstance(self.levels_from_data, bool):
            raise SchemaError(f"column {self.name!r}: 'levels_from_data' must be true or false, "
                              f"got {self.levels_from_data!r}")
        if self.categories is None:  # no levels, nothing read from the data
            object.__setattr__(self, "levels_from_data", False)

    @property
    def bounded(self) -> bool:
        return self.lower is not None

    def bounds(self) -> tuple[float, float]:
        """The declared bounds, or a ``SchemaError`` telling the curator to declare them."""
        if self.lower is None or self.upper is None:
            raise SchemaError(
                f"column {self.name!r} has no declared bounds; declare public lower and upper "
                "bounds (never taken from the data) before using it in sums or means"
            )
        return self.lower, self.upper

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"name": self.name, "kind": self.kind.value}
        if self.lower is not None:
            d["lower"], d["upper"] = self.lower, self.upper
        if self.categories is not None:
            d["categories"] = list(self.categories)
        if self.levels_from_data:
            d["levels_from_data"] = True
        return d

    @classmethod
    def from_json(cls, obj: Any, where: str = "") -> Column:
        """A column from its JSON object; ``where`` is its path in the document (``columns[2]``)."""
        if not isinstance(obj, dict):
            raise SchemaError(f"a column must be a JSON object, got {obj!r}")
        if unknown := unknown_key(obj, COLUMN_KEYS, where):
            raise SchemaError(f"column {obj.get('name')!r}: {unknown}")
        if "name" not in obj or "kind" not in obj:
            raise SchemaError(f"column needs fields 'name' and 'kind', got {sorted(obj)}")
        cats = obj.get("categories")
        if cats is not None and not isinstance(cats, list):
            raise SchemaError(f"column {obj['name']!r}: 'categories' must be a list")
        return cls(
            obj["name"],
            obj["kind"],
            obj.get("lower"),
            obj.get("upper"),
            tuple(cats) if cats is not None else None,
            obj.get("levels_from_data", False),
        )


@dataclass(frozen=True)
class Schema:
    """The columns of a dataset plus the neighbouring relation (and the public n under ``replace``)."""

    columns: tuple[Column, ...]
    neighbouring: Neighbouring = Neighbouring.ADD_REMOVE
    n: int | None = None
    _by_name: dict[str, Column] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        cols = tuple(self.columns)
        object.__setattr__(self, "columns", cols)
        by_name: dict[str, Column] = {}
        for c in cols:
            if c.name in by_name:
                raise SchemaError(f"duplicate column {c.name!r}")
            by_name[c.name] = c
        object.__setattr__(self, "_by_name", by_name)
        try:
            object.__setattr__(self, "neighbouring", Neighbouring(self.neighbouring))
        except ValueError:
            raise SchemaError(
                f"neighbouring must be 'add_remove' or 'replace', got {self.neighbouring!r}"
            ) from None
        if self.n is not None and (
            isinstance(self.n, bool) or not isinstance(self.n, int | np.integer) or self.n < 1
        ):
            raise SchemaError(f"n must be a positive integer, got {self.n!r}")

    # -- lookup -------------------------------------------------------------------------------
    @property
    def names(self) -> list[str]:
        return [c.name for c in self.columns]

    def __contains__(self, name: object) -> bool:
        return name in self._by_name

    def column(self, name: str) -> Column:
        """The column called ``name`` (``SchemaError`` listing the known names otherwise)."""
        try:
            return self._by_name[name]
        except (KeyError, TypeError):
            raise SchemaError(f"no column {name!r}; columns: {', '.join(self.names)}") from None

    def of_kind(self, kind: ColumnKind | str) -> list[Column]:
        k = ColumnKind(kind)
        return [c for c in self.columns if c.kind == k]

    @property
    def public_n(self) -> int:
        """n under ``replace`` (public by assumption); a ``SchemaError`` under add/remove."""
        if self.neighbouring != Neighbouring.REPLACE or self.n is None:
            raise SchemaError(
                "this needs the 'replace one row' neighbouring relation with a public n; "
                "under 'add/remove one row' the number of rows is private"
            )
        return int(self.n)

    # -- edits (schemas are immutable; each edit returns a new one) --------------------------------
    def with_bounds(self, name: str, lower: float | None, upper: float | None) -> Schema:
        """Declare (or clear, with ``None``) the public bounds of a numeric column."""
        col = self.column(name)
        return self._with(replace(col, lower=lower, upper=upper))

    def with_kind(self, name: str, kind: ColumnKind | str) -> Schema:
        """Change a column's kind; bounds survive only on numeric columns."""
        col = self.column(name)
        numeric = _kind(kind, name) == ColumnKind.NUMERIC
        lower, upper = (col.lower, col.upper) if numeric else (None, None)
        return self._with(Column(col.name, kind, lower, upper, col.categories, col.levels_from_data))

    def with_categories(self, name: str, categories: list[str] | tuple[str, ...] | None, *,
                        from_data: bool = False) -> Schema:
        """Declare a column's levels; ``from_data`` when they were read off the data (not public)."""
        levels = None if categories is None else tuple(categories)
        return self._with(replace(self.column(name), categories=levels,
                                  levels_from_data=from_data and levels is not None))

    def levels_from_data(self, columns: Iterable[str] | None = None) -> list[str]:
        """The columns (of ``columns``, default all) whose declared levels were read off the data."""
        wanted = None if columns is None else set(columns)
        return [c.name for c in self.columns if c.levels_from_data and (wanted is None or c.name in wanted)]

    def with_neighbouring(self, neighbouring: Neighbouring | str, n: int | None = None) -> Schema:
        """Switch the relation; ``replace`` needs the public n."""
        rel = Neighbouring(neighbouring)
        if rel == Neighbouring.REPLACE and n is None:
            raise SchemaError("the 'replace one row' relation needs the public number of rows n")
        return Schema(self.columns, rel, n if rel == Neighbouring.REPLACE else None)

    def _with(self, col: Column) -> Schema:
        return Schema(
            tuple(col if c.name == col.name else c for c in self.columns), self.neighbouring, self.n
        )

    def merged(self, declared: Schema) -> Schema:
        """This (inferred) schema overridden by the curator's ``declared`` one, column by column.

        Declared columns missing from the data are an error: a sidecar written for another file.
        """
        missing = [c.name for c in declared.columns if c.name not in self]
        if missing:
            raise SchemaError(
                f"declared column {missing[0]!r} is not in the data; columns: {', '.join(self.names)}"
            )
        for c in declared.columns:
            found = self.column(c.name).kind
            if c.kind not in _READABLE_AS[found]:
                raise SchemaError(
                    f"column {c.name!r} is declared {c.kind.value} but the data holds {found.value} values; "
                    "its queries would silently match nothing. Fix the kind in the schema"
                )
        cols = tuple(declared.column(c.name) if c.name in declared else c for c in self.columns)
        return Schema(cols, declared.neighbouring, declared.n)

    def check_rows(self, n_rows: int) -> None:
        """Under ``replace`` the declared public n must be the data's number of rows: a mean's
        sensitivity is 1/n, and a run whose n is wrong would be charged, then fail (or be
        miscalibrated). The message does not repeat the data's count."""
        if self.neighbouring == Neighbouring.REPLACE and self.n is not None and int(self.n) != n_rows:
            raise SchemaError(f"the declared public n ({int(self.n):,}, 'replace one row' neighbours) is not "
                              "the number of rows of the data; declare the right n")

    # -- JSON -------------------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "format": SCHEMA_FORMAT,
            "version": SCHEMA_VERSION,
            "neighbouring": self.neighbouring.value,
            "columns": [c.to_json() for c in self.columns],
        }
        if self.n is not None:
            d["n"] = int(self.n)
        return d

    def dumps(self) -> str:
        return json.dumps(self.to_json(), indent=2, ensure_ascii=False)

    @classmethod
    def from_json(cls, obj: Any, where: str = "") -> Schema:
        """A schema from its JSON (object or text); ``where`` is its path inside a larger document
        (``dataset.schema`` in a session), so that an unknown key is named from that root."""
        if isinstance(obj, str):
            obj = textio.loads_json(obj, SchemaError, "schema is not valid JSON")
        if not isinstance(obj, dict):
            raise SchemaError("a schema must be a JSON object with a 'columns' list")
        if unknown := unknown_key(obj, SCHEMA_KEYS, where):
            raise SchemaError(unknown)
        if obj.get("format", SCHEMA_FORMAT) != SCHEMA_FORMAT:
            raise SchemaError(f"not a schema file (format {obj.get('format')!r})")
        version = obj.get("version", SCHEMA_VERSION)
        if type(version) is not int or version != SCHEMA_VERSION:  # true == 1 in Python, not in JSON
            raise SchemaError(f"unsupported schema version {obj.get('version')!r}")
        cols = obj.get("columns")
        if not isinstance(cols, list):
            raise SchemaError("schema field 'columns' must be a list")
        try:
            return cls(
                tuple(Column.from_json(c, key_path(where, f"columns[{i}]")) for i, c in enumerate(cols)),
                obj.get("neighbouring", "add_remove"), obj.get("n")
            )
        except (TypeError, AttributeError, OverflowError, RecursionError) as e:
            # a field of the wrong JSON type that the checks above did not name
            raise SchemaError(f"a schema field has the wrong type ({e})") from None

    @classmethod
    def read(cls, path: str | Path) -> Schema:
        """A schema file through the guarded reader; any problem is one ``SchemaError`` naming it."""
        try:
            text = textio.read_text(path, what="schema file")
        except DatasetError as e:
            raise SchemaError(str(e)) from None
        try:
            return cls.from_json(text)
        except SchemaError as e:
            raise SchemaError(f"{path}: {e}") from None


# The kinds a column may be declared, by the kind its values have: numbers may be declared codes
# (categorical) or 0/1 flags, dates may be declared categories; text is only ever categorical and
# item sets only item sets (a declared numeric column of text would compare nothing with nothing).
_READABLE_AS = {
    ColumnKind.NUMERIC: {ColumnKind.NUMERIC, ColumnKind.CATEGORICAL, ColumnKind.BOOLEAN},
    ColumnKind.BOOLEAN: {ColumnKind.BOOLEAN, ColumnKind.CATEGORICAL, ColumnKind.NUMERIC},
    ColumnKind.DATETIME: {ColumnKind.DATETIME, ColumnKind.CATEGORICAL},
    ColumnKind.CATEGORICAL: {ColumnKind.CATEGORICAL},
    ColumnKind.ITEMSET: {ColumnKind.ITEMSET},
}


def infer_schema(frame: pd.DataFrame) -> Schema:
    """Column kinds from dtypes; **no bounds** (those are declared by the curator)."""
    return Schema(tuple(Column(str(name), _kind_of(frame[name])) for name in frame.columns))


def _kind_of(series: pd.Series) -> ColumnKind:
    import pandas as pd

    dtype = series.dtype
    if pd.api.types.is_bool_dtype(dtype):
        return ColumnKind.BOOLEAN
    if pd.api.types.is_datetime64_any_dtype(dtype):
        return ColumnKind.DATETIME
    if pd.api.types.is_numeric_dtype(dtype):
        return ColumnKind.NUMERIC
    if pd.api.types.is_object_dtype(dtype):
        first = series.dropna()
        if len(first) and isinstance(first.iloc[0], tuple | frozenset | list):
            return ColumnKind.ITEMSET
    return ColumnKind.CATEGORICAL


def _kind(value: Any, name: str) -> ColumnKind:
    try:
        return ColumnKind(value)
    except ValueError:
        known = ", ".join(k.value for k in ColumnKind)
        raise SchemaError(f"column {name!r}: unknown kind {value!r}; kinds: {known}") from None


def _finite(col: str, field_name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise SchemaError(f"column {col!r}: {field_name} bound must be a number, got {value!r}")
    if isinstance(value, int) and beyond_double(value):  # float() of it: OverflowError, named no column
        raise SchemaError(f"column {col!r}: {field_name} bound is a number beyond the range of a double "
                          "(±1.8e308)")
    x = float(value)
    if not math.isfinite(x):
        raise SchemaError(f"column {col!r}: {field_name} bound must be finite, got {value!r}")
    return x
