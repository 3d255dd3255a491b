"""Batches of queries as few passes over an engine's table: grouped histograms, then local evaluation.

The plans, chosen per batch (``docs/scale.md`` has the table):

* **numeric histogram** (range counts, clipped sums, clip differences on one column): one
  ``SELECT x, count(*) … GROUP BY x`` of the column's distinct values, then the memory engine's own
  exact evaluator (``exact_sums.SortedColumn`` on the weighted histogram): sums bit for bit equal.
* **grouped histogram** (counts and means with conditions): one ``GROUP BY`` of every column the
  batch's conditions read; each condition is evaluated on the histogram's rows by the memory
  engine's own ``condition_mask`` and the counts of the matching rows are added.
* **item histogram** (supports of single items): one ``GROUP BY item`` of the distinct items of
  each basket. Itemsets of two or more items use aggregates per scan.
* **aggregates per scan** (when a histogram would exceed ``HISTOGRAM_LIMIT`` rows, and the first
  time a batch of at most ``FEW_QUERIES`` counts or range counts reads columns no cached histogram
  covers — an adaptive query costs one scan, not two; the next small batch on those columns builds
  the histogram): up to ``AGGREGATES_PER_SCAN`` queries become one
  ``SELECT SUM(CASE WHEN … THEN 1 ELSE 0 END), …``.

No pass is spent on estimating a histogram's size (two ``approx_count_distinct`` passes cost 22 % of
a batch): the histogram's own ``GROUP BY`` is *bounded* — it returns at most ``limit + 1`` groups,
and one group more than the limit means "too large", answered by aggregates instead (the column
set is remembered and never grouped again). Declarations cannot bound it (data may lie outside
declared bounds or categories), but the declared integer range of a numeric column tells DuckDB to
group it through a perfect hash table (``TableEngine.group_hint``: 3x faster on 200,000 values).

Histograms are cached on the dataset, so the next batch of a run (and an adaptive query) costs no
scan when the columns were seen before; a cached histogram over more columns answers conditions on
fewer. The answers are secrets, like the memory engine's.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from svtgui.core.linear import SparseHistogram
from svtgui.data.engines.base import AGGREGATES_PER_SCAN, HISTOGRAM_LIMIT, TableEngine
from svtgui.data.engines.sql import predicate_sql
from svtgui.data.evaluate import _public_n, _validate, condition_mask
from svtgui.data.exact_sums import SortedColumn, clip_diff_grid, clip_diff_value, sum_grid, to_float
from svtgui.data.predicates import Junction, Predicate, QueryError
from svtgui.data.queries import ClipDiff, ClippedSum, Count, ItemSupport, Mean, Query, RangeCount
from svtgui.data.schema import ColumnKind, Schema

if TYPE_CHECKING:  # grouped and item histograms are frames; the numeric one is numpy arrays (no pandas)
    import pandas as pd

_N = "__svt_n"
FEW_QUERIES = 4
"""A batch this small, on columns read for the first time, is one aggregate scan: every row then
evaluates each query's condition, so the cost grows with the batch, while a histogram costs about
two scans whatever the batch (measured: 256 range counts as aggregates over 10^8 rows take minutes)."""
_NUMERIC = (RangeCount, ClipDiff, ClippedSum)


class Planner:
    """Evaluates query batches on one engine's table; caches histograms between batches."""

    def __init__(self, table: TableEngine, limit: int = HISTOGRAM_LIMIT) -> None:
        self.table = table
        self.limit = limit
        self.too_large: set[frozenset[str]] = set()  # column sets whose bounded GROUP BY overflowed
        self.numeric: dict[str, SortedColumn | None] = {}
        self.grouped: dict[frozenset[str], pd.DataFrame] = {}
        self.items: dict[str, pd.DataFrame | None] = {}
        self.scans = 0  # SQL statements run (for tests and the bench: "few passes")
        self.scanned: set[frozenset[str]] = set()  # column sets answered once by an aggregate scan

    # -- entry point -------------------------------------------------------------------------
    def evaluate(self, ds: Any, queries: Sequence[Query]) -> np.ndarray:
        """True answers of ``queries`` on ``ds`` (a dataset held by this planner's engine)."""
        queries = list(queries)
        schema: Schema = ds.schema
        out = np.empty(len(queries), dtype=np.float64)
        groups: dict[tuple[type, str | None], list[int]] = defaultdict(list)
        for i, q in enumerate(queries):
            if not isinstance(q, Query):
                raise QueryError(f"query {i + 1}: not a query object ({type(q).__name__})")
            groups[(type(q), getattr(q, "column", None))].append(i)
        for (cls, _), idx in groups.items():
            _validate(schema, [queries[i] for i in idx], idx, per_query=cls in (Count, Mean, ClippedSum))
        counting = [i for (cls, _), idx in groups.items() if cls in (Count, Mean) for i in idx]
        if counting:
            counts = self._counts([queries[i].where for i in counting], schema)
            for i, c in zip(counting, counts, strict=True):
                out[i] = c / _public_n(ds) if isinstance(queries[i], Mean) else c
        for (cls, column), idx in groups.items():
            batch = [queries[i] for i in idx]
            if cls in _NUMERIC:
                out[idx] = self._numeric_batch(cls, column, batch, schema)
            elif cls is ItemSupport:
                out[idx] = self._supports(column, batch, schema)
        return out

    # -- histogram sizes, from the declarations or a bounded GROUP BY (never a pre-scan) -------
    def _histogram(self, columns: frozenset[str], schema: Schema, select: str, group: str,
                   where: str = "", source: str | None = None, *, arrays: bool = False) -> Any:
        """``SELECT {select}, count(*) FROM {source} {where} GROUP BY {group}``, bounded to
        ``limit + 1`` groups: None when it has more than ``limit`` (remembered: never tried again).
        A frame, or with ``arrays`` (numbers without NULLs only) numpy arrays by column name."""
        if columns in self.too_large:
            return None
        self.table.group_hint(_hash_bits(columns, schema))
        text = (f"SELECT {select}, count(*) AS {_N} FROM {source or self.table.relation}{where} "
                f"GROUP BY {group} LIMIT {self.limit + 1}")
        hist = self._sql(text, arrays=arrays)
        if len(hist[_N]) > self.limit:
            self.too_large.add(columns)
            return None
        return hist

    def _first(self, columns: frozenset[str]) -> bool:
        """True the first time a small batch reads ``columns`` (answer it by one aggregate scan);
        the next time (a run's next batch, another adaptive query) a cached histogram pays off."""
        first = columns not in self.scanned
        self.scanned.add(columns)
        return first

    def _sql(self, text: str, *, arrays: bool = False) -> Any:
        """One statement's small result: a frame, or with ``arrays`` numpy arrays by column name."""
        self.scans += 1
        return self.table.sql_arrays(text) if arrays else self.table.sql(text)

    # -- range counts, clipped sums, clip differences ----------------------------------------
    def weighted(self, column: str, schema: Schema) -> SortedColumn | None:
        """The column's weighted histogram (sorted distinct values, rows per value) as the memory
        engine's exact evaluator (``exact_sums.SortedColumn``), or None when it would be too large."""
        if column not in self.numeric:
            c = self.table.dialect.ident(column)
            hist = self._histogram(frozenset([column]), schema, f"CAST({c} AS DOUBLE) AS v", c,
                                   f" WHERE {c} IS NOT NULL", arrays=True)
            if hist is None:
                self.numeric[column] = None
            else:
                values, rows = np.asarray(hist["v"], np.float64), np.asarray(hist[_N], np.int64)
                order = np.argsort(values, kind="stable")
                self.numeric[column] = SortedColumn(values[order], rows[order])
        return self.numeric[column]

    def _numeric_batch(self, cls: type, column: str, batch: list[Any], schema: Schema) -> np.ndarray:
        small = (cls is RangeCount and len(batch) <= FEW_QUERIES and column not in self.numeric
                 and self._first(frozenset([column])))
        w = None if small else self.weighted(column, schema)  # a few counts, first time: one scan beats two
        if w is None:
            raw = self._aggregates([_numeric_sql(q, schema, self.table) for q in batch])
            return np.array([_finish(q, schema, v) for q, v in zip(batch, raw, strict=True)])
        if cls is RangeCount:
            low, high = _floats(batch, "low"), _floats(batch, "high")
            closed = np.array([q.closed for q in batch])
            with_low, with_high = np.isin(closed, ("left", "both")), np.isin(closed, ("right", "both"))
            v = w.values
            lo = w.rows[np.where(with_low, np.searchsorted(v, low, "left"),
                                 np.searchsorted(v, low, "right"))]
            hi = w.rows[np.where(with_high, np.searchsorted(v, high, "right"),
                                 np.searchsorted(v, high, "left"))]
            return np.maximum(hi - lo, 0).astype(np.float64)
        if cls is ClippedSum:
            bounds = np.array([q.bounds(schema) for q in batch], dtype=np.float64).reshape(-1, 2)
            return w.clipped_sums(bounds[:, 0], bounds[:, 1])
        norm = np.array([q.normalised for q in batch], dtype=bool)
        return w.clip_diffs(_floats(batch, "bound"), _floats(batch, "step"), norm)

    # -- counts with conditions ----------------------------------------------------------------
    def _counts(self, wheres: list[Predicate | None], schema: Schema) -> np.ndarray:
        need = frozenset().union(*(w.columns() for w in wheres if w is not None))
        sets = {frozenset(w.columns()) for w in wheres if w is not None}
        fresh = {c for c in sets if self._first(c)} if len(wheres) <= FEW_QUERIES else set()
        out = np.empty(len(wheres))
        pending: list[int] = []
        for k, where in enumerate(wheres):
            if where is None:
                out[k] = self.table.row_count()
                continue
            cols = frozenset(where.columns())
            hist = self._grouped(cols, need, schema, few=cols in fresh)
            if hist is None:
                pending.append(k)
            else:
                out[k] = int(hist[_N].to_numpy()[_mask(hist, where, schema)].sum())
        if pending:
            d = self.table.dialect
            storage = {c.name: c.kind for c in self.table.columns()}
            counted = self._aggregates([predicate_sql(wheres[k], schema, d, storage) for k in pending])
            out[pending] = np.asarray(counted, dtype=np.float64)
        return out

    def _grouped(self, columns: frozenset[str], batch_columns: frozenset[str], schema: Schema,
                 few: bool = False) -> pd.DataFrame | None:
        """A cached histogram over a superset of ``columns``; else a new one (the batch's, if it fits),
        unless the batch is ``few`` queries: one aggregate scan answers them faster than a histogram."""
        for cols, hist in self.grouped.items():
            if columns <= cols:
                return hist
        if few:
            return None
        for cols in dict.fromkeys((batch_columns, columns)):
            if columns <= cols:
                names = ", ".join(self.table.dialect.ident(c) for c in sorted(cols))
                hist = self._histogram(cols, schema, names, names)
                if hist is not None:
                    self.grouped[cols] = hist
                    return hist
        return None

    # -- item supports ---------------------------------------------------------------------------
    def _supports(self, column: str, batch: list[ItemSupport], schema: Schema) -> np.ndarray:
        d = self.table.dialect
        element = _element_kind(self.table, column)
        hist = self._item_histogram(column, schema) if any(len(q.items) == 1 for q in batch) else None
        out = np.zeros(len(batch))
        pending: list[int] = []
        exprs: list[str] = []
        for k, q in enumerate(batch):
            items = [_coerce_item(it, element) for it in q.items]
            if any(it is None for it in items):
                continue  # an item of the wrong type cannot occur
            if len(items) == 1 and hist is not None:
                out[k] = int(hist.get(items[0], 0))
            else:
                pending.append(k)
                exprs.append(d.has_all.format(c=d.ident(column), items=d.items(items)))
        if pending:
            out[pending] = np.asarray(self._aggregates(exprs), dtype=np.float64)
        return out

    def _item_histogram(self, column: str, schema: Schema) -> dict[Any, int] | None:
        if column not in self.items:
            d, rel = self.table.dialect, self.table.relation
            self.items[column] = None
            items = f"(SELECT {d.distinct_items.format(c=d.ident(column))} AS item FROM {rel}) s"
            hist = self._histogram(frozenset([column]), schema, "item", "item", " WHERE item IS NOT NULL",
                                   source=items)
            if hist is not None:
                self.items[column] = dict(zip(hist["item"].tolist(), hist[_N].tolist(), strict=True))
        return self.items[column]

    # -- the fallback: many aggregates per scan --------------------------------------------------
    def _aggregates(self, expressions: list[str]) -> list[int]:
        """Each expression is a boolean condition (counted) or ``sum:<SQL>`` (an exact integer sum);
        the results as Python integers (no rounding on the way back)."""
        out: list[int] = []
        for start in range(0, len(expressions), AGGREGATES_PER_SCAN):
            part = expressions[start:start + AGGREGATES_PER_SCAN]
            cols = [f"SUM({e[4:]}) AS a{k}" if e.startswith("sum:") else
                    f"SUM(CASE WHEN {e} THEN 1 ELSE 0 END) AS a{k}" for k, e in enumerate(part)]
            row = self._sql(f"SELECT {', '.join(cols)} FROM {self.table.relation}")
            out.extend(0 if v is None or (isinstance(v, float) and math.isnan(v)) else int(v)
                       for v in row.astype(object).iloc[0].tolist())
        return out

    # -- universes (PMW, SparseProject) and observed values -------------------------------------
    def universe_histogram(self, universe: Any) -> SparseHistogram:
        """D over the universe: one GROUP BY of the axes (numeric axes binned in SQL)."""
        import pandas as pd

        d, rel = self.table.dialect, self.table.relation
        exprs = []
        for k, axis in enumerate(universe.axes):
            c = d.ident(axis.column)
            if axis.edges is None:
                exprs.append(f"{c} AS a{k}")
            else:  # the memory engine's searchsorted(inner edges, x, 'right')
                whens = " ".join(f"WHEN {c} < {d.literal(float(e))} THEN {i}"
                                 for i, e in enumerate(axis.edges[1:-1]))
                exprs.append(f"CASE WHEN {c} IS NULL THEN -1 {whens} ELSE {len(axis.edges) - 2} END AS a{k}")
        names = ", ".join(f"a{k}" for k in range(len(exprs)))
        hist = self._sql(f"SELECT {names}, count(*) AS {_N} FROM (SELECT {', '.join(exprs)} FROM {rel}) s "
                         f"GROUP BY {names}")
        codes = []
        for k, axis in enumerate(universe.axes):
            if axis.edges is None:
                codes.append(axis.codes(hist[f"a{k}"].astype(object)))
            else:
                raw = hist[f"a{k}"].to_numpy(np.int64)
                codes.append(np.where(raw < 0, axis.levels.index("(missing)"), raw))
        cells = np.ravel_multi_index(codes, universe.shape).astype(np.int64)
        order = np.argsort(cells)
        merged = pd.Series(hist[_N].to_numpy(np.int64)[order]).groupby(cells[order]).sum()
        return SparseHistogram(merged.index.to_numpy(np.int64), merged.to_numpy(np.int64), universe.size)

    def distinct_values(self, column: str, limit: int = 100_000) -> list[Any]:
        """The column's distinct non-missing values (for universe levels read off the data)."""
        c = self.table.dialect.ident(column)
        rows = self._sql(f"SELECT DISTINCT {c} AS v FROM {self.table.relation} WHERE {c} IS NOT NULL "
                         f"LIMIT {limit + 1}")
        if len(rows) > limit:
            raise QueryError(f"column {column!r} has more than {limit} distinct values; declare its levels")
        return rows["v"].tolist()


def _hash_bits(columns: frozenset[str], schema: Schema) -> int | None:
    """Bits of the perfect hash table that groups ``columns`` by their declared integer ranges (one
    more value each for NULL), or None when a column has no declared range (text, undeclared)."""
    bits = 0
    for name in columns:
        if name not in schema:
            return None
        col = schema.column(name)
        if col.kind != ColumnKind.NUMERIC or col.lower is None or col.upper is None:
            return None
        span = math.floor(col.upper) - math.ceil(col.lower) + 2
        bits += max(1, math.ceil(math.log2(max(span, 2))))
    return bits


def _floats(batch: list[Any], name: str) -> np.ndarray:
    return np.array([getattr(q, name) for q in batch], dtype=np.float64)


def _mask(hist: pd.DataFrame, where: Predicate, schema: Schema) -> np.ndarray:
    if isinstance(where, Junction):
        masks = [_mask(hist, c, schema) for c in where.children]
        return np.logical_and.reduce(masks) if where.op == "and" else np.logical_or.reduce(masks)
    return condition_mask(hist[where.column], schema.column(where.column).kind, where)


def _numeric_sql(q: Query, schema: Schema, table: TableEngine) -> str:
    """One numeric query as an aggregate expression (the fallback plan). Sums follow
    ``exact_sums``' rule in SQL — each value snapped to the grid of the public bounds, clipped to
    the integer bounds, summed as exact integers — and are finished by :func:`_finish`."""
    d = table.dialect
    c = d.ident(q.column)
    if isinstance(q, RangeCount):
        lo = ">=" if q.closed in ("left", "both") else ">"
        hi = "<=" if q.closed in ("right", "both") else "<"
        return f"({c} {lo} {d.literal(float(q.low))} AND {c} {hi} {d.literal(float(q.high))})"
    grid = sum_grid(*q.bounds(schema)) if isinstance(q, ClippedSum) else clip_diff_grid(q.bound, q.step)
    scaled = f"CAST({c} AS DOUBLE)"
    for part in _power_steps(-grid.exponent):  # x / 2^k, exactly (powers of two, each a finite double)
        scaled = f"({scaled} * {d.literal(math.ldexp(1.0, part))})"
    units = (f"LEAST(GREATEST({d.round_even.format(x=scaled)}, {d.literal(float(grid.low))}), "
             f"{d.literal(float(grid.high))})")
    if isinstance(q, ClipDiff):
        units = f"({units} - {d.literal(float(grid.low))})"
    # GREATEST/LEAST skip NULLs in DuckDB and Spark: a missing cell must add nothing
    return f"sum:CASE WHEN {c} IS NOT NULL THEN CAST({units} AS {d.exact_int}) END"


def _power_steps(exponent: int) -> list[int]:
    """Split 2^exponent into factors each representable as a double (|e| ≤ 1000)."""
    steps, left = [], exponent
    while left:
        step = max(-1000, min(1000, left))
        steps.append(step)
        left -= step
    return steps


def _finish(q: Query, schema: Schema, units: Any) -> float:
    """A numeric query's answer from its aggregate: a count, or exact integer units rounded once."""
    if isinstance(q, RangeCount):
        return float(units)
    n = int(units)
    if isinstance(q, ClippedSum):
        return to_float(n, sum_grid(*q.bounds(schema)).exponent)
    return clip_diff_value(clip_diff_grid(q.bound, q.step).exponent, n, float(q.step), q.normalised)


def _element_kind(table: TableEngine, column: str) -> str:
    for col in table.columns():
        if col.name == column:
            integer = any(t in col.type_name.upper() for t in ("INT", "LONG", "SHORT", "BYTE"))
            return "int" if integer else "str"
    raise QueryError(f"column {column!r} is not in the data")


def _coerce_item(item: Any, element: str) -> Any:
    """The memory engine's item coercion: integers for integer baskets, texts otherwise."""
    if element == "int":
        try:
            return int(item)
        except (TypeError, ValueError):
            return None
    return str(item)

