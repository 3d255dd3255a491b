"""Query definitions: data, not code. Each knows its sensitivity, monotonicity and JSON form.

Kinds (JSON ``"kind"``):

=================  =================================================  ===================  =========
kind               answer                                             sensitivity          monotonic
=================  =================================================  ===================  =========
``count``          rows satisfying ``where`` (all rows if absent)     1                    yes
``range``          rows with ``low ≤ x < high`` (``closed`` changes)  1                    yes
``clip_diff``      Σclip(x, 0, b+s) − Σclip(x, 0, b)                   s (1 if normalised)  yes
``sum``            Σclip(x, lower, upper) (declared bounds default)   max(|l|,|u|) / u − l  if l ≥ 0 (given
                                                                                             or declared)
``item_support``   baskets containing every item of ``items``         1                    yes
``mean``           fraction of rows satisfying ``where``              1/n (replace only)   no
=================  =================================================  ===================  =========

Sensitivities are for the schema's neighbouring relation (``sum`` uses max(|l|, |u|) under
add/remove and u − l under replace; ``mean`` exists only under replace, where n is public).
"Monotonic" is Lyu, Su & Li's sense: on neighbouring datasets all answers move the same way.
Every monotonic kind here only grows when a row is added, so any list of them is monotonic under
add/remove; under replace-one nothing is (use :func:`monotonic_under`).

``describe()`` returns a short text built only from the query's own parameters: never from data.
"""

from __future__ import annotations

import json
import math
import sys
from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from svtgui.core.keys import key_path, unknown_key
from svtgui.core.validation import beyond_double
from svtgui.data import textio
from svtgui.data.errors import DatasetError
from svtgui.data.predicates import Predicate, QueryError, predicate_from_json
from svtgui.data.schema import ColumnKind, Neighbouring, Schema, SchemaError

QUERIES_FORMAT = "svtgui-queries"
QUERIES_VERSION = 1
# A list that depends on a domain read off the data is written as version 2 with the field
# "domains_from_data": a build that predates the field refuses the file instead of dropping it.
QUERIES_VERSION_FROM_DATA = 2
QUERIES_KEYS = ("format", "version", "domains_from_data", "queries")  # the keys a query file may hold
CLOSED = ("left", "right", "both", "neither")


class Query(ABC):
    """Common interface of every query kind."""

    kind: ClassVar[str]
    monotonic: ClassVar[bool] = True
    integer: ClassVar[bool] = True

    @abstractmethod
    def sensitivity(self, schema: Schema) -> float:
        """Largest change of the answer between neighbouring datasets (from definitions and bounds)."""

    @abstractmethod
    def magnitude(self, schema: Schema, n: int) -> float:
        """The largest |answer| on any dataset of at most ``n`` rows within the declared bounds.

        Public (definitions, declared bounds and a public n only): the plan refuses a query whose
        answer could leave the noise lattice before anything is charged, so whether a run releases
        or is refused never depends on the private rows (issue 21 §8)."""

    @abstractmethod
    def describe(self) -> str:
        """Short human-readable text; contains only the query's own parameters."""

    def monotonic_for(self, schema: Schema) -> bool:
        """Whether adding a row can only raise the answer, given the schema's declared bounds (a sum
        over the declared bounds is when the declared lower bound is ≥ 0)."""
        return self.monotonic

    @abstractmethod
    def _fields(self) -> dict[str, Any]: ...

    @abstractmethod
    def columns(self) -> set[str]:
        """The columns the query reads."""

    def validate(self, schema: Schema) -> None:
        """``QueryError`` if the query does not fit the schema (unknown column, wrong kind)."""
        for name in self.columns():
            try:
                schema.column(name)
            except SchemaError as e:
                raise QueryError(f"{self.kind}: field 'column': {e}") from None

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, **self._fields()}

    def __str__(self) -> str:
        return self.describe()


def _needs(schema: Schema, column: str, kinds: tuple[ColumnKind, ...], query: str) -> None:
    try:
        kind = schema.column(column).kind
    except SchemaError as e:
        raise QueryError(f"{query}: field 'column': {e}") from None
    if kind not in kinds:
        names = " or ".join(k.value for k in kinds)
        raise QueryError(f"{query}: column {column!r} is {kind.value}; this query needs a {names} column")


@dataclass(frozen=True)
class Count(Query):
    """Number of rows satisfying a predicate."""

    where: Predicate | None = None
    kind: ClassVar[str] = "count"

    def sensitivity(self, schema: Schema) -> float:
        return 1.0

    def magnitude(self, schema: Schema, n: int) -> float:
        return float(n)

    def describe(self) -> str:
        return f"count of rows where {self.where.describe()}" if self.where else "count of all rows"

    def columns(self) -> set[str]:
        return self.where.columns() if self.where else set()

    def validate(self, schema: Schema) -> None:
        super().validate(schema)
        if self.where is not None:
            self.where.validate(schema)

    def _fields(self) -> dict[str, Any]:
        return {"where": self.where.to_json()} if self.where else {}


@dataclass(frozen=True)
class RangeCount(Query):
    """Rows whose ``column`` lies in a range; ``closed`` says which ends are included."""

    column: str
    low: float
    high: float
    closed: str = "left"
    kind: ClassVar[str] = "range"

    def __post_init__(self) -> None:
        _column_name(self.column, self.kind)
        lo, hi = _number(self.low, "low", self.kind), _number(self.high, "high", self.kind)
        if lo > hi:
            raise QueryError(f"range: field 'low' ({lo:g}) exceeds field 'high' ({hi:g})")
        if self.closed not in CLOSED:
            raise QueryError(f"range: field 'closed' must be one of {', '.join(CLOSED)}, got {self.closed!r}")

    def sensitivity(self, schema: Schema) -> float:
        return 1.0

    def magnitude(self, schema: Schema, n: int) -> float:
        return float(n)

    def describe(self) -> str:
        left = "≤" if self.closed in ("left", "both") else "<"
        right = "≤" if self.closed in ("right", "both") else "<"
        return f"count of rows with {self.low:g} {left} {self.column} {right} {self.high:g}"

    def columns(self) -> set[str]:
        return {self.column}

    def validate(self, schema: Schema) -> None:
        _needs(schema, self.column, (ColumnKind.NUMERIC,), self.kind)

    def _fields(self) -> dict[str, Any]:
        d = {"column": self.column, "low": self.low, "high": self.high}
        return d if self.closed == "left" else {**d, "closed": self.closed}


@dataclass(frozen=True)
class ClipDiff(Query):
    """Σclip(x, 0, b+s) − Σclip(x, 0, b): how much clipping at b instead of b+s loses.

    Each row contributes clip(x, 0, b+s) − clip(x, 0, b) ∈ [0, s], so the sensitivity is s and the
    answer only grows when a row is added (monotonic). As b passes the bulk of the data the answer
    falls towards 0, which is what the clipping-bound search detects. ``normalised`` divides by s
    (sensitivity 1), so a geometric sweep with growing steps keeps one threshold meaningful.
    """

    column: str
    bound: float
    step: float = 1.0
    normalised: bool = False
    kind: ClassVar[str] = "clip_diff"
    integer: ClassVar[bool] = False

    def __post_init__(self) -> None:
        _column_name(self.column, self.kind)
        if _number(self.bound, "bound", self.kind) < 0:
            raise QueryError(f"clip_diff: field 'bound' must be >= 0, got {self.bound!r}")
        if _number(self.step, "step", self.kind) <= 0:
            raise QueryError(f"clip_diff: field 'step' must be > 0, got {self.step!r}")
        if not isinstance(self.normalised, bool):
            raise QueryError(f"clip_diff: field 'normalised' must be true or false, got {self.normalised!r}")

    def sensitivity(self, schema: Schema) -> float:
        return 1.0 if self.normalised else float(self.step)

    def magnitude(self, schema: Schema, n: int) -> float:
        return float(n) * self.sensitivity(schema)  # each row adds a value in [0, s] (in [0, 1] normalised)

    def describe(self) -> str:
        b, s = self.bound, self.step
        text = f"Σclip({self.column}, 0, {b + s:g}) − Σclip({self.column}, 0, {b:g})"
        return f"({text}) / {s:g}" if self.normalised else text

    def columns(self) -> set[str]:
        return {self.column}

    def validate(self, schema: Schema) -> None:
        _needs(schema, self.column, (ColumnKind.NUMERIC,), self.kind)

    def _fields(self) -> dict[str, Any]:
        d = {"column": self.column, "bound": self.bound, "step": self.step}
        return {**d, "normalised": True} if self.normalised else d


@dataclass(frozen=True)
class ClipStall(Query):
    """−(Σclip(x, 0, b+s) − Σclip(x, 0, b)): "has the clipped sum stopped growing at b?"

    The clip-bound search asks AboveThreshold for the *first* b where clipping loses (almost)
    nothing, i.e. where the difference falls to a threshold T. AboveThreshold reports the first
    query *above* its threshold, so it is fed the negated difference against −T (the notebook's
    ``auto_avg``): a ``ClipStall`` sweep with threshold 0 comes back ⊤ at the first bound past the
    data. Same sensitivity as :class:`ClipDiff`; the answer only falls when a row is added, so it is
    not monotonic in the SVT sense. Evaluated as its difference, negated (:func:`evaluate`).
    """

    column: str
    bound: float
    step: float = 1.0
    normalised: bool = False
    kind: ClassVar[str] = "clip_stall"
    integer: ClassVar[bool] = False
    monotonic: ClassVar[bool] = False

    def __post_init__(self) -> None:
        self.diff()  # the same checks, named after this kind's fields

    def diff(self) -> ClipDiff:
        """The difference this query negates."""
        return ClipDiff(self.column, self.bound, self.step, self.normalised)

    def sensitivity(self, schema: Schema) -> float:
        return self.diff().sensitivity(schema)

    def magnitude(self, schema: Schema, n: int) -> float:
        return self.diff().magnitude(schema, n)

    def describe(self) -> str:
        return f"−[{self.diff().describe()}] (stopped growing at {self.bound:g}?)"

    def columns(self) -> set[str]:
        return {self.column}

    def validate(self, schema: Schema) -> None:
        _needs(schema, self.column, (ColumnKind.NUMERIC,), self.kind)

    def _fields(self) -> dict[str, Any]:
        return self.diff()._fields()


@dataclass(frozen=True)
class ClippedSum(Query):
    """Σclip(x, lower, upper) over non-missing values; bounds default to the declared ones."""

    column: str
    lower: float | None = None
    upper: float | None = None
    kind: ClassVar[str] = "sum"
    integer: ClassVar[bool] = False

    def __post_init__(self) -> None:
        _column_name(self.column, self.kind)
        if (self.lower is None) != (self.upper is None):
            raise QueryError("sum: give both 'lower' and 'upper', or neither (to use the declared bounds)")
        if self.lower is not None:
            lo, hi = _number(self.lower, "lower", self.kind), _number(self.upper, "upper", self.kind)
            if lo > hi:
                raise QueryError(f"sum: field 'lower' ({lo:g}) exceeds field 'upper' ({hi:g})")

    @property
    def monotonic(self) -> bool:  # type: ignore[override]
        return self.lower is not None and self.lower >= 0

    def monotonic_for(self, schema: Schema) -> bool:
        """Every clipped value is ≥ 0 when the lower bound (given, else declared) is: adding a row can
        only raise the sum. It said "not monotonic" for every sum over declared bounds."""
        try:
            return self.bounds(schema)[0] >= 0
        except QueryError:
            return False

    def bounds(self, schema: Schema) -> tuple[float, float]:
        if self.lower is not None:
            return float(self.lower), float(self.upper)
        try:
            return schema.column(self.column).bounds()
        except SchemaError as e:
            raise QueryError(f"sum: {e}") from None

    def sensitivity(self, schema: Schema) -> float:
        lo, hi = self.bounds(schema)
        if schema.neighbouring == Neighbouring.REPLACE:
            return hi - lo
        return max(abs(lo), abs(hi))

    def magnitude(self, schema: Schema, n: int) -> float:
        lo, hi = self.bounds(schema)
        return float(n) * max(abs(lo), abs(hi))

    def describe(self) -> str:
        if self.lower is None:
            return f"sum of {self.column} clipped to its declared bounds"
        return f"Σclip({self.column}, {self.lower:g}, {self.upper:g})"

    def columns(self) -> set[str]:
        return {self.column}

    def validate(self, schema: Schema) -> None:
        _needs(schema, self.column, (ColumnKind.NUMERIC,), self.kind)
        self.bounds(schema)

    def _fields(self) -> dict[str, Any]:
        d: dict[str, Any] = {"column": self.column}
        return d if self.lower is None else {**d, "lower": self.lower, "upper": self.upper}


@dataclass(frozen=True)
class ItemSupport(Query):
    """Number of baskets containing every item of ``items`` (an item or an itemset)."""

    items: tuple[Any, ...]
    column: str = "items"
    kind: ClassVar[str] = "item_support"

    def __post_init__(self) -> None:
        _column_name(self.column, self.kind)
        items = self.items
        if isinstance(items, str | int) and not isinstance(items, bool):
            items = (items,)
        if not isinstance(items, list | tuple | set | frozenset) or not items:
            raise QueryError(f"item_support: field 'items' must be a non-empty list, got {self.items!r}")
        for it in items:
            if isinstance(it, bool) or not isinstance(it, int | str):
                raise QueryError(f"item_support: field 'items' holds {it!r}; items are integers or texts")
        object.__setattr__(self, "items", tuple(sorted(set(items), key=lambda v: (isinstance(v, str), v))))

    def sensitivity(self, schema: Schema) -> float:
        return 1.0

    def magnitude(self, schema: Schema, n: int) -> float:
        return float(n)

    def describe(self) -> str:
        if len(self.items) == 1:
            return f"baskets containing item {self.items[0]}"
        return f"baskets containing all of {{{', '.join(map(str, self.items))}}}"

    def columns(self) -> set[str]:
        return {self.column}

    def validate(self, schema: Schema) -> None:
        _needs(schema, self.column, (ColumnKind.ITEMSET,), self.kind)

    def _fields(self) -> dict[str, Any]:
        d: dict[str, Any] = {"items": list(self.items)}
        return d if self.column == "items" else {**d, "column": self.column}


@dataclass(frozen=True)
class Mean(Count):
    """Normalised linear query: the fraction of rows satisfying ``where`` ((1/n)·Σ 1[pred]).

    With n public (replace-one neighbours) its sensitivity is 1/n; under add/remove n is private
    and this query is refused (use a ``count`` instead).
    """

    kind: ClassVar[str] = "mean"
    monotonic: ClassVar[bool] = False
    integer: ClassVar[bool] = False

    def sensitivity(self, schema: Schema) -> float:
        try:
            return 1.0 / schema.public_n
        except SchemaError as e:
            raise QueryError(f"mean: {e}") from None

    def magnitude(self, schema: Schema, n: int) -> float:
        return 1.0  # a fraction of the rows

    def validate(self, schema: Schema) -> None:
        super().validate(schema)
        self.sensitivity(schema)

    def describe(self) -> str:
        return f"fraction of rows where {self.where.describe()}" if self.where else "fraction of rows (1)"


QUERY_KINDS: dict[str, type[Query]] = {
    q.kind: q for q in (Count, RangeCount, ClipDiff, ClipStall, ClippedSum, ItemSupport, Mean)
}
_FIELDS = {
    "count": {"where"},
    "mean": {"where"},
    "range": {"column", "low", "high", "closed"},
    "clip_diff": {"column", "bound", "step", "normalised"},
    "clip_stall": {"column", "bound", "step", "normalised"},
    "sum": {"column", "lower", "upper"},
    "item_support": {"items", "column"},
}
_ALLOWED = {kind: frozenset({"kind", *names}) for kind, names in _FIELDS.items()}
"""Each kind's keys, with ``kind``: a file of 11,000 queries is checked by a set comparison each."""
_REQUIRED = {
    "range": ("column", "low", "high"),
    "clip_diff": ("column", "bound"),
    "clip_stall": ("column", "bound"),
    "sum": ("column",),
    "item_support": ("items",),
}


def query_from_json(obj: Any, where: str = "") -> Query:
    """One query from its JSON object; ``QueryError`` naming the field otherwise (no eval, ever).
    ``where`` is the query's path in its document (``queries[3]``), for an unknown key's path."""
    if isinstance(obj, str):
        obj = _parse_text(obj)
    if not isinstance(obj, dict):
        raise QueryError(f"a query must be a JSON object, got {obj!r}")
    kind = obj.get("kind")
    if not isinstance(kind, str) or kind not in QUERY_KINDS:
        raise QueryError(f"field 'kind': unknown query kind {kind!r}; kinds: {', '.join(QUERY_KINDS)}")
    fields = dict(obj)
    del fields["kind"]
    allowed = _ALLOWED[kind]
    if not obj.keys() <= allowed and (unknown := unknown_key(obj, allowed, where)):
        raise QueryError(f"{kind}: {unknown}")
    for name in _REQUIRED.get(kind, ()):
        if name not in fields:
            raise QueryError(f"{kind}: field {name!r} is missing")
    if "where" in fields:
        fields["where"] = (predicate_from_json(fields["where"], key_path(where, "where"))
                           if fields["where"] is not None else None)
    if kind == "item_support" and isinstance(fields["items"], list):
        fields["items"] = tuple(fields["items"])
    try:
        return QUERY_KINDS[kind](**fields)
    except (TypeError, AttributeError, OverflowError, RecursionError) as e:
        # a field of the wrong JSON type that a query's own checks did not name
        raise QueryError(f"{kind}: a field has the wrong type ({e})") from None


@dataclass(frozen=True)
class QueryList:
    """A query list and its provenance: ``from_data`` names each domain it was built from that was read
    off the private data ("the values of column 'country'"); empty when every domain was declared.

    Why it travels with the list: such a list reveals which values occur, so a release that uses it
    is refused unless the curator overrides, and is then NOT differentially private
    (:mod:`svtgui.app.domains`). A file, a session or a queue that forgot this would forget the warning.
    """

    queries: list[Query]
    from_data: tuple[str, ...] = ()


def queries_to_json(queries: Iterable[Query], from_data: Sequence[str] = ()) -> dict[str, Any]:
    """A query list as a JSON-able document (``{"format": ..., "queries": [...]}``), with the domains
    read off the data when there are any (then as version 2, which older builds refuse)."""
    doc: dict[str, Any] = {"format": QUERIES_FORMAT, "version": QUERIES_VERSION}
    if from_data:
        doc.update(version=QUERIES_VERSION_FROM_DATA, domains_from_data=list(from_data))
    return {**doc, "queries": [q.to_json() for q in queries]}


def domains_from_data(value: Any, where: str = "domains_from_data") -> tuple[str, ...]:
    """The field ``domains_from_data`` (of a query file or a session) checked: a list of texts."""
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise QueryError(f"field {where!r} must be a list of texts naming the domains read from the data, "
                         f"got {value!r}")
    return tuple(dict.fromkeys(value))


def query_list_from_json(doc: Any, where: str = "") -> QueryList:
    """Parse a document from :func:`queries_to_json` (or a bare list, or JSON text), provenance included.

    Errors name the query's position: ``query 3: range: field 'low' is missing``. A file without
    ``domains_from_data`` (every version-1 file) declared its domains. An unknown key is named by its
    path from the document's root, which is ``where`` inside a larger document (a session).
    """
    if isinstance(doc, str | bytes):
        doc = _parse_text(doc)
    from_data: tuple[str, ...] = ()
    if isinstance(doc, dict):
        if doc.get("format", QUERIES_FORMAT) != QUERIES_FORMAT:
            raise QueryError(f"not a query file (format {doc.get('format')!r})")
        version = doc.get("version", QUERIES_VERSION)
        if type(version) is not int or version not in (QUERIES_VERSION, QUERIES_VERSION_FROM_DATA):
            raise QueryError(f"unsupported query file version {doc.get('version')!r}")  # true is not 1
        if "domains_from_data" in doc:
            from_data = domains_from_data(doc["domains_from_data"])
        if unknown := unknown_key(doc, QUERIES_KEYS, where):
            raise QueryError(unknown)
        doc, where = doc.get("queries"), key_path(where, "queries")
    if not isinstance(doc, list):
        raise QueryError("field 'queries' must be a list of query objects")
    out = []
    for i, obj in enumerate(doc, start=1):
        try:
            out.append(query_from_json(obj, f"{where}[{i - 1}]"))
        except QueryError as e:
            raise QueryError(f"query {i}: {e}") from None
    return QueryList(out, from_data)


def queries_from_json(doc: Any, where: str = "") -> list[Query]:
    """The queries of a JSON list or of a session's ``queries`` field (a bare list: its provenance
    is kept beside it; ``where`` is its path there). A query *file* is read with
    :func:`query_list_from_json`."""
    return query_list_from_json(doc, where).queries


def dumps(queries: Iterable[Query]) -> str:
    return json.dumps(queries_to_json(queries), ensure_ascii=False, separators=(",", ":"))


def batch_sensitivity(queries: Sequence[Query], schema: Schema) -> float:
    """The largest sensitivity in a list (what a mechanism run over the list must be calibrated to)."""
    if not queries:
        raise QueryError("the query list is empty")
    return max(q.sensitivity(schema) for q in queries)


def monotonic_under(queries: Sequence[Query], schema: Schema) -> bool:
    """True when the whole list is monotonic for the schema's relation (never under replace-one)."""
    return schema.neighbouring == Neighbouring.ADD_REMOVE and all(q.monotonic_for(schema) for q in queries)


def all_integer(queries: Sequence[Query]) -> bool:
    """True when every answer is an integer (counts): mechanisms then use ``integer=True``."""
    return all(q.integer for q in queries)


def _parse_text(text: str | bytes) -> Any:
    return textio.loads_json(text, QueryError)


def read_queries(path: str | Path) -> QueryList:
    """A query file through the guarded reader, with its provenance; any problem is one
    ``QueryError`` naming the file."""
    try:
        text = textio.read_text(path, what="query file")
    except DatasetError as e:
        raise QueryError(str(e)) from None
    try:
        return query_list_from_json(text)
    except QueryError as e:
        raise QueryError(f"{path}: {e}") from None


def _column_name(column: Any, kind: str) -> None:
    if not isinstance(column, str) or not column:
        raise QueryError(f"{kind}: field 'column' must be a non-empty string, got {column!r}")


_DOUBLE_MAX = int(sys.float_info.max)


def _number(v: Any, name: str, kind: str) -> float:
    # the common cases first (a query file holds thousands of bounds): a finite double, an integer a
    # double holds; ``type(v) is`` leaves out booleans, which the checks below refuse
    if type(v) is float and v - v == 0.0:  # inf - inf and nan - nan are nan
        return v
    if type(v) is int and -_DOUBLE_MAX <= v <= _DOUBLE_MAX:
        return float(v)
    if beyond_double(v):  # math.isfinite(10**400) is an OverflowError, reported as "the wrong type"
        raise QueryError(f"{kind}: field {name!r} is a number beyond the range of a double (±1.8e308)")
    if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
        raise QueryError(f"{kind}: field {name!r} must be a finite number, got {v!r}")
    return float(v)
