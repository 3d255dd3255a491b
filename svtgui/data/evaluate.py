"""True answers of many queries at once, without a Python loop over rows or (mostly) over queries.

* range counts: the column is sorted once; each query is two ``searchsorted`` lookups.
* clipped sums and clip differences: computed EXACTLY by the rule of :mod:`svtgui.data.exact_sums`
  (values snapped to a power-of-two grid fixed by the public bounds, summed as integers), so no
  order of floating-point additions can move neighbouring answers apart by more than Δ. Sorted
  snapped values plus exact integer prefix sums make each query O(log n) (the rows clipped to L
  are a prefix, those clipped to U a suffix).
* item supports: one pass builds item → sorted basket-id postings; single items are one vectorised
  lookup, itemsets intersect postings.
* predicates: one vectorised mask per distinct condition (cached within the call); conjunctions of
  equalities (marginal cells) are answered from one ``groupby`` per column combination.

Missing values never match a comparison (see ``predicates``); sums skip them, as pandas does.
Results equal the naive per-query pandas evaluation (property-tested in ``tests/data``; clipped sums to
within n·2^-59 of their bounds, the price of exactness).
The returned answers are secrets: hand them to a mechanism, never to a view.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from operator import attrgetter
from typing import TYPE_CHECKING, Any

import numpy as np

from svtgui.data.cells import category_matches, category_text, storage_of
from svtgui.data.dataset import Dataset
from svtgui.data.exact_sums import SortedColumn
from svtgui.data.predicates import FLAG_TEXTS, Condition, Junction, Predicate, QueryError
from svtgui.data.queries import ClipDiff, ClippedSum, ClipStall, Count, ItemSupport, Mean, Query, RangeCount
from svtgui.data.schema import ColumnKind, Neighbouring, Schema

if TYPE_CHECKING:  # imported where a frame is read: the engines' numeric plans never need it
    import pandas as pd


def evaluate(ds: Dataset, queries: Sequence[Query]) -> np.ndarray:
    """True answers (float64) of ``queries`` on ``ds``, in order. ``QueryError`` if one does not fit."""
    stalls = [i for i, q in enumerate(queries) if isinstance(q, ClipStall)]
    if stalls:  # evaluated as their differences on every engine, then negated here, in one place
        out = evaluate(ds, [q.diff() if isinstance(q, ClipStall) else q for q in queries])
        out[stalls] = -out[stalls]
        return out
    if ds.engine != "memory":  # rows held by DuckDB/Spark: their planner (svtgui.data.engines.plan)
        return ds.evaluate(queries)
    queries = list(queries)
    out = np.empty(len(queries), dtype=np.float64)
    groups: dict[tuple[type, str | None], list[int]] = defaultdict(list)
    for i, q in enumerate(queries):
        groups[(type(q), getattr(q, "column", None))].append(i)
    counts = _Counts(ds)
    for (cls, column), idx in groups.items():
        if cls not in _BATCH and cls not in (Count, Mean):
            raise QueryError(f"query {idx[0] + 1}: not a query object ({cls.__name__})")
        batch = [queries[i] for i in idx]
        _validate(ds.schema, batch, idx, per_query=cls in (Count, Mean, ClippedSum))
        if cls is Count:
            out[idx] = [counts.count(q.where) for q in batch]
        elif cls is Mean:
            out[idx] = np.array([counts.count(q.where) for q in batch], dtype=np.float64) / _public_n(ds)
        else:
            out[idx] = _BATCH[cls](ds, column, batch)
    return out


def _validate(schema: Schema, batch: list[Query], idx: list[int], *, per_query: bool) -> None:
    """Validate each query, or (same kind on the same column: same verdict) only the first."""
    for q, i in zip(batch if per_query else batch[:1], idx, strict=False):
        try:
            q.validate(schema)
        except QueryError as e:
            raise QueryError(f"query {i + 1}: {e}") from None


def _public_n(ds: Dataset) -> int:
    n = ds.schema.public_n
    if ds.schema.neighbouring == Neighbouring.REPLACE and n != ds.n_rows:
        raise QueryError(f"mean: the declared public n ({n}) is not the number of rows of this dataset")
    return n


# -- numeric columns ---------------------------------------------------------------------------------


def sorted_values(ds: Dataset, column: str) -> np.ndarray:
    """Non-missing values of a numeric column, sorted (cached on the dataset)."""
    key = ("sorted", column)
    if key not in ds._cache:
        x = ds.frame[column].to_numpy(dtype=np.float64, na_value=np.nan)
        ds._cache[key] = np.sort(x[~np.isnan(x)])
    return ds._cache[key]


def _exact(ds: Dataset, column: str) -> SortedColumn:
    """The column's exact clipped-sum evaluator (integer prefix sums; see ``exact_sums``)."""
    key = ("exact", column)
    if key not in ds._cache:
        ds._cache[key] = SortedColumn(sorted_values(ds, column))
    return ds._cache[key]


def _floats(batch: list[Any], name: str) -> np.ndarray:
    return np.fromiter(map(attrgetter(name), batch), dtype=np.float64, count=len(batch))


def _ranges(ds: Dataset, column: str, batch: list[RangeCount]) -> np.ndarray:
    xs = sorted_values(ds, column)
    low, high = _floats(batch, "low"), _floats(batch, "high")
    closed = np.array([q.closed for q in batch])
    incl_low = (closed == "left") | (closed == "both")
    incl_high = (closed == "right") | (closed == "both")
    below_low = np.where(incl_low, np.searchsorted(xs, low, "left"), np.searchsorted(xs, low, "right"))
    upto_high = np.where(incl_high, np.searchsorted(xs, high, "right"), np.searchsorted(xs, high, "left"))
    return np.maximum(upto_high - below_low, 0)


def _clipped_sums(ds: Dataset, column: str, batch: list[ClippedSum]) -> np.ndarray:
    bounds = np.array([q.bounds(ds.schema) for q in batch], dtype=np.float64)
    return _exact(ds, column).clipped_sums(bounds[:, 0], bounds[:, 1])


def _clip_diffs(ds: Dataset, column: str, batch: list[ClipDiff]) -> np.ndarray:
    norm = np.fromiter(map(attrgetter("normalised"), batch), dtype=bool, count=len(batch))
    return _exact(ds, column).clip_diffs(_floats(batch, "bound"), _floats(batch, "step"), norm)


# -- item sets ---------------------------------------------------------------------------------------


class _Postings:
    """item → sorted basket ids, from one pass over the exploded item-set column."""

    def __init__(self, column: pd.Series) -> None:
        import pandas as pd

        lengths = column.map(
            lambda b: len(b) if isinstance(b, tuple | list | frozenset | set) else 0
        ).to_numpy()
        flat = [it for b in column if isinstance(b, tuple | list | frozenset | set) for it in b]
        baskets = np.repeat(np.arange(len(column)), lengths)
        self.numeric = all(isinstance(it, int | np.integer) for it in flat[:1000])
        items = np.asarray(flat, dtype=np.int64 if self.numeric else object)
        if not self.numeric:
            items = items.astype(str)
        pairs = pd.DataFrame({"i": items, "b": baskets}).drop_duplicates()
        pairs = pairs.sort_values(["i", "b"], kind="stable")
        self.baskets = pairs["b"].to_numpy()
        self.items, self.starts, self.counts = np.unique(
            pairs["i"].to_numpy(), return_index=True, return_counts=True
        )

    def coerce(self, item: Any) -> Any:
        if self.numeric:
            try:
                return int(item)
            except (TypeError, ValueError):
                return None
        return str(item)

    def support(self, items: np.ndarray) -> np.ndarray:
        pos = np.searchsorted(self.items, items)
        pos = np.minimum(pos, len(self.items) - 1)
        found = self.items[pos] == items
        return np.where(found, self.counts[pos], 0)

    def posting(self, item: Any) -> np.ndarray:
        pos = int(np.searchsorted(self.items, item))
        if pos >= len(self.items) or self.items[pos] != item:
            return np.empty(0, dtype=self.baskets.dtype)
        return self.baskets[self.starts[pos] : self.starts[pos] + self.counts[pos]]


def postings(ds: Dataset, column: str) -> _Postings:
    key = ("postings", column)
    if key not in ds._cache:
        ds._cache[key] = _Postings(ds.frame[column])
    return ds._cache[key]


def _supports(ds: Dataset, column: str, batch: list[ItemSupport]) -> np.ndarray:
    out = np.zeros(len(batch))
    post = postings(ds, column)
    singles = [k for k, q in enumerate(batch) if len(q.items) == 1]
    coerced = [post.coerce(batch[k].items[0]) for k in singles]
    known = [(k, c) for k, c in zip(singles, coerced, strict=True) if c is not None]
    if known and len(post.items):
        keys = np.array([c for _, c in known], dtype=post.items.dtype)
        out[[k for k, _ in known]] = post.support(keys)
    for k, q in enumerate(batch):
        if len(q.items) > 1:
            items = [post.coerce(it) for it in q.items]
            if any(c is None for c in items):
                continue  # an item of the wrong type cannot occur
            common = post.posting(items[0])
            for c in items[1:]:
                common = np.intersect1d(common, post.posting(c), assume_unique=True)
            out[k] = len(common)
    return out


# -- predicates --------------------------------------------------------------------------------------


class _Counts:
    """Counts of predicates over one dataset, sharing masks and group counts within a call."""

    def __init__(self, ds: Dataset) -> None:
        self.ds = ds
        self.frame = ds.frame
        self.masks: dict[Condition, np.ndarray] = {}
        self.groups: dict[tuple[str, ...], dict[Any, int]] = {}

    def count(self, where: Predicate | None) -> int:
        if where is None:
            return len(self.frame)
        cells = _equality_cell(where)
        if cells is not None:
            return self._cell_count(cells)
        return int(self.mask(where).sum())

    def _cell_count(self, cells: dict[str, Any]) -> int:
        cols = tuple(sorted(cells))
        values = []
        for c in cols:
            series = self.frame[c]
            if series.dtype == object:  # raw objects (a frame built in code): cell by cell, by mask
                return int(self.mask(Junction("and", tuple(Condition(k, "=", cells[k]) for k in cols))).sum())
            matches = match_values(storage_of(series), self.ds.schema.column(c).kind, (cells[c],), c)
            if not matches:
                return 0
            values.append(matches[0])
        if cols not in self.groups:
            sizes = self.frame.groupby(list(cols), observed=True, dropna=True).size()
            self.groups[cols] = {(k if isinstance(k, tuple) else (k,)): int(v) for k, v in sizes.items()}
        return self.groups[cols].get(tuple(values), 0)

    def mask(self, where: Predicate) -> np.ndarray:
        if isinstance(where, Junction):
            masks = [self.mask(c) for c in where.children]
            return np.logical_and.reduce(masks) if where.op == "and" else np.logical_or.reduce(masks)
        if where not in self.masks:
            self.masks[where] = condition_mask(
                self.frame[where.column], self.ds.schema.column(where.column).kind, where
            )
        return self.masks[where]


def _equality_cell(where: Predicate) -> dict[str, Any] | None:
    """{column: value} if ``where`` is an AND of '=' on distinct columns (a marginal cell)."""
    conds = [where] if isinstance(where, Condition) else list(where.children) if where.op == "and" else None
    if conds is None or not all(isinstance(c, Condition) and c.op == "=" for c in conds):
        return None
    cells = {c.column: c.value for c in conds}
    return cells if len(cells) == len(conds) else None


class _NoMatch:
    """A value that cannot occur in the column (e.g. text compared with a numeric column)."""


_NO_MATCH = _NoMatch()


def coerce_value(kind: ColumnKind, value: Any, column: str) -> Any:
    """The query's value in the column's own type: a number for a numeric column (``"13"`` is 13; a
    text that is not a number is ``_NO_MATCH``), true/false for a boolean one, a timestamp for dates."""
    if kind == ColumnKind.NUMERIC:
        if isinstance(value, bool):
            return _NO_MATCH
        if isinstance(value, str):
            try:
                return float(value)
            except ValueError:
                return _NO_MATCH
        return value
    if kind == ColumnKind.BOOLEAN:
        if isinstance(value, bool):
            return value
        text = str(value).strip().lower()
        return FLAG_TEXTS.get(text, _NO_MATCH)
    if kind == ColumnKind.DATETIME:
        import pandas as pd

        try:
            return pd.Timestamp(value)
        except (ValueError, TypeError):
            raise QueryError(f"column {column!r} holds dates; {value!r} is not a date") from None
    return value


def match_values(storage: str, kind: ColumnKind, raw: Sequence[Any], column: str) -> list[Any]:
    """The stored values that ``=`` / ``in`` with ``raw`` match, for a column of the declared ``kind``
    stored as ``storage`` (:func:`svtgui.data.cells.storage_of`). A categorical column matches by
    category text (:mod:`svtgui.data.cells`), whatever its storage; the SQL path uses this too."""
    if kind == ColumnKind.CATEGORICAL:
        return category_matches(storage, raw)
    return [v for v in (coerce_value(kind, x, column) for x in raw) if v is not _NO_MATCH]


def condition_mask(series: pd.Series, kind: ColumnKind, cond: Condition) -> np.ndarray:
    """Boolean mask of one condition; comparisons are false on missing cells."""
    valid = series.notna().to_numpy()
    op = cond.op
    if op == "is_missing":
        return ~valid
    if op in ("=", "!=", "in"):
        raw = cond.value if op == "in" else (cond.value,)
        values = match_values(storage_of(series), kind, raw, cond.column)
        if series.dtype == object and kind == ColumnKind.CATEGORICAL:  # raw objects: by their text
            series = series.map(category_text, na_action="ignore")
        hit = series.isin(values).to_numpy(dtype=bool) & valid if values else np.zeros(len(series), bool)
        return valid & ~hit if op == "!=" else hit
    bounds = cond.value if op == "between" else (cond.value,)
    coerced = [coerce_value(kind, b, cond.column) for b in bounds]
    if kind == ColumnKind.DATETIME:  # compare as int64 nanoseconds; missing cells are masked below
        import pandas as pd

        x = pd.to_datetime(series).astype("datetime64[ns]").to_numpy().astype(np.int64)
        coerced = [pd.Timestamp(c).as_unit("ns").value for c in coerced]
    else:
        x = series.to_numpy(dtype=np.float64, na_value=np.nan)
    if any(c is _NO_MATCH for c in coerced):
        raise QueryError(f"column {cond.column!r}: operator {op!r} needs a number, got {cond.value!r}")
    with np.errstate(invalid="ignore"):
        if op == "between":
            m = (x >= coerced[0]) & (x <= coerced[1])
        else:
            m = {"<": np.less, "<=": np.less_equal, ">": np.greater, ">=": np.greater_equal}[op](
                x, coerced[0]
            )
    return np.asarray(m, dtype=bool) & valid


_BATCH: dict[type, Callable[[Dataset, Any, list[Any]], np.ndarray]] = {
    RangeCount: _ranges,
    ClipDiff: _clip_diffs,
    ClippedSum: _clipped_sums,
    ItemSupport: _supports,
}
