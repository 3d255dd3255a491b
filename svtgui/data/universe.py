"""The universe view of a dataset: its histogram over the cross product of a few columns.

SparseProject and PMW answer *linear queries over a universe* X: X is the cross product of the
levels of a few chosen columns (categorical columns by their categories, numeric columns cut into
bins), D[x] counts the rows in cell x, and a query Q: X → [0, 1] has value (1/n)·Σ_x Q(x)·D[x].

Spec strings (the CLI and the GUI use the same form)::

    "sex"                 categorical: the schema's declared categories, else the observed values
    "education=Bachelors,Masters,Doctorate"   categorical with the levels given explicitly
    "age:8"               numeric: 8 equal-width bins between the column's declared bounds
    "age@17,25,35,50,65,91"  numeric: explicit bin edges

Every axis also has a "(missing)" level, and an axis whose levels were *declared* (schema
categories or spec) gets an "(other)" level for values outside them, so no row is ever dropped
and n is the dataset's row count. Numeric values outside the edges fall into the first or last bin.

What is public: the universe's description (columns, levels, edges) goes into releases. Levels
read off the data — observed values, or schema levels marked ``levels_from_data`` — are *not*
public: :attr:`Universe.levels_from_data` names the axes where that happened, and a release over
them is refused unless the curator overrides (:mod:`svtgui.app.domains`).

Cells are numbered row-major (first axis most significant), as ``numpy.ravel_multi_index``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from svtgui.core.keys import unknown_key
from svtgui.core.linear import LinearQuery, SparseHistogram
from svtgui.data.dataset import Dataset
from svtgui.data.predicates import Condition, Junction, Predicate, QueryError
from svtgui.data.queries import Count
from svtgui.data.schema import ColumnKind, SchemaError

MISSING = "(missing)"
OTHER = "(other)"
MAX_UNIVERSE = 10**8  # cells; dense query masks of this size still fit in memory


AXIS_KEYS = ("column", "levels", "edges", "levels_from_data")  # the keys of an axis in a release header


@dataclass(frozen=True)
class Axis:
    """One column of the universe: its level labels and, for numeric columns, the bin edges."""

    column: str
    levels: tuple[str, ...]  # labels, including MISSING (and OTHER when levels were declared)
    edges: tuple[float, ...] | None = None  # numeric: bins [e0, e1), …, [e_{k-1}, e_k]
    declared: bool = True  # False when categorical levels were read off the data

    @property
    def size(self) -> int:
        return len(self.levels)

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"column": self.column, "levels": list(self.levels)}
        if self.edges is not None:
            d["edges"] = list(self.edges)
        if not self.declared:
            d["levels_from_data"] = True
        return d

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> Axis:
        try:
            edges = obj.get("edges")
            return cls(str(obj["column"]), tuple(str(v) for v in obj["levels"]),
                       None if edges is None else tuple(float(e) for e in edges),
                       not obj.get("levels_from_data", False))
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"malformed universe axis {obj!r} ({exc})") from None

    # -- row → level index ------------------------------------------------------------------
    def codes(self, series: pd.Series) -> np.ndarray:
        """Level index of every row (int64)."""
        missing = series.isna().to_numpy()
        if self.edges is not None:
            x = pd.to_numeric(series, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
            inner = np.asarray(self.edges[1:-1])
            codes = np.searchsorted(inner, np.nan_to_num(x), side="right").astype(np.int64)
        else:
            lookup = {v: i for i, v in enumerate(self.levels) if v not in (MISSING, OTHER)}
            other = self.levels.index(OTHER) if OTHER in self.levels else -1
            codes = np.fromiter((lookup.get(str(v), other) for v in series.to_numpy()), dtype=np.int64,
                                count=len(series))
            if np.any((codes < 0) & ~missing):
                bad = series[(codes < 0) & ~missing].iloc[0]
                raise QueryError(f"column {self.column!r}: value {bad!r} is not a level of the universe")
        codes[missing] = self.levels.index(MISSING)
        return codes

    # -- condition → which levels satisfy it -------------------------------------------------
    def satisfies(self, cond: Condition) -> np.ndarray:
        """Boolean per level; ``QueryError`` when the condition splits a level (a numeric bin)."""
        is_missing = np.array([lv == MISSING for lv in self.levels])
        if cond.op == "is_missing":
            return is_missing
        if self.edges is None:
            return self._categorical(cond) & ~is_missing
        return self._numeric(cond) & ~is_missing

    def _categorical(self, cond: Condition) -> np.ndarray:
        if cond.op not in ("=", "!=", "in"):
            raise QueryError(f"operator {cond.op!r} needs an ordered column; {self.column!r} is categorical")
        values = {str(v) for v in (cond.value if cond.op == "in" else (cond.value,))}
        hit = np.array([lv in values for lv in self.levels])
        if OTHER in self.levels and (values - set(self.levels)):
            raise QueryError(f"column {self.column!r}: {sorted(values - set(self.levels))[0]!r} is not a "
                             f"declared level; it would fall in {OTHER!r} with other values")
        if cond.op == "!=":
            if OTHER in self.levels:
                raise QueryError(f"column {self.column!r}: '!=' would include {OTHER!r}; use 'in'")
            return ~hit
        return hit

    def _numeric(self, cond: Condition) -> np.ndarray:
        e = np.asarray(self.edges, dtype=np.float64)
        lo, hi = e[:-1].copy(), e[1:].copy()
        lo[0], hi[-1] = -math.inf, math.inf  # outer bins take the clamped values
        if cond.op == "between":
            a, b = (float(v) for v in cond.value)
            return (self._numeric(Condition(cond.column, ">=", a))
                    & self._numeric(Condition(cond.column, "<=", b)))
        if cond.op not in ("<", "<=", ">", ">="):
            raise QueryError(f"column {self.column!r} is binned; use <, <=, >, >= or between at bin edges "
                             f"({', '.join(f'{x:g}' for x in self.edges)})")
        v = float(cond.value)
        # bin [lo, hi): all / none of its values satisfy the comparison
        rules = {"<": (hi <= v, lo >= v), "<=": (hi <= v, lo > v),
                 ">=": (lo >= v, hi <= v), ">": (lo > v, hi <= v)}
        every, none = rules[cond.op]
        if np.any(~every & ~none):
            raise QueryError(f"column {self.column!r}: '{cond.op} {v:g}' cuts a bin; use a bin edge "
                             f"({', '.join(f'{x:g}' for x in self.edges)}) or finer bins")
        out = np.zeros(self.size, dtype=bool)
        out[:len(every)] = every
        return out


def parse_axis(spec: str, ds: Dataset) -> Axis:
    """One axis from its spec string (see the module docstring); errors name the spec."""
    if not isinstance(spec, str) or not spec.strip():
        raise QueryError(f"universe column spec must be a non-empty string, got {spec!r}")
    text = spec.strip()
    for sep in ("=", "@", ":"):
        if sep in text:
            name, arg = (p.strip() for p in text.split(sep, 1))
            break
    else:
        name, sep, arg = text, "", ""
    try:
        col = ds.schema.column(name)
    except SchemaError as exc:
        raise QueryError(f"universe column {spec!r}: {exc}") from None
    if col.kind == ColumnKind.NUMERIC:
        edges = _edges(spec, sep, arg, col.lower, col.upper)
        labels = [f"[{a:g}, {b:g})" for a, b in zip(edges[:-1], edges[1:], strict=True)]
        labels[-1] = labels[-1][:-1] + "]"
        return Axis(name, tuple(labels) + (MISSING,), tuple(edges))
    if col.kind not in (ColumnKind.CATEGORICAL, ColumnKind.BOOLEAN):
        raise QueryError(f"universe column {spec!r}: {col.kind.value} columns cannot be a universe axis")
    if sep == "=":
        levels = [v.strip() for v in arg.split(",") if v.strip()]
        if not levels:
            raise QueryError(f"universe column {spec!r}: list at least one level after '='")
        return Axis(name, tuple(dict.fromkeys(levels)) + (OTHER, MISSING))
    if sep:
        raise QueryError(f"universe column {spec!r}: bins (':' or '@') need a numeric column; "
                         f"{name!r} is {col.kind.value}")
    if col.categories:  # declared levels, unless the schema says they were read off the data
        return Axis(name, tuple(col.categories) + (OTHER, MISSING), declared=not col.levels_from_data)
    values = ds.distinct_values(name) if ds.engine != "memory" else ds.frame[name].dropna().unique()
    observed = sorted({str(v) for v in values})
    return Axis(name, tuple(observed) + (MISSING,), declared=False)


def _edges(spec: str, sep: str, arg: str, lower: float | None, upper: float | None) -> list[float]:
    if sep == "@":
        try:
            edges = [float(v) for v in arg.split(",")]
        except ValueError:
            raise QueryError(f"universe column {spec!r}: edges must be numbers separated by commas") from None
        if len(edges) < 2 or any(b <= a for a, b in zip(edges[:-1], edges[1:], strict=True)) \
                or not all(math.isfinite(e) for e in edges):
            raise QueryError(f"universe column {spec!r}: give at least two finite, increasing edges")
        return edges
    if sep != ":":
        raise QueryError(f"universe column {spec!r}: a numeric column needs bins, e.g. '{spec}:8' or "
                         f"'{spec}@0,10,20'")
    try:
        bins = int(arg)
    except ValueError:
        raise QueryError(f"universe column {spec!r}: the number of bins must be an integer") from None
    if not 1 <= bins <= MAX_UNIVERSE:  # checked before the edges are built (they would fill memory)
        raise QueryError(f"universe column {spec!r}: the number of bins must be between 1 and "
                         f"{MAX_UNIVERSE:,} (the most cells a universe may have)")
    if lower is None or upper is None:
        raise QueryError(f"universe column {spec!r}: declare the column's bounds or give edges with '@'")
    return [float(x) for x in np.linspace(lower, upper, bins + 1)]


@dataclass(frozen=True)
class Universe:
    """The cross product of the axes; public description, row → cell map, queries → LinearQuery."""

    axes: tuple[Axis, ...]

    def __post_init__(self) -> None:
        if not self.axes:
            raise QueryError("a universe needs at least one column")
        names = [a.column for a in self.axes]
        if len(set(names)) != len(names):
            raise QueryError(f"universe lists a column twice: {names}")
        if self.size > MAX_UNIVERSE:
            raise QueryError(f"universe has {self.size} cells; at most {MAX_UNIVERSE} are supported")

    @classmethod
    def of(cls, ds: Dataset, specs: Sequence[str]) -> Universe:
        return cls(tuple(parse_axis(s, ds) for s in specs))

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(a.size for a in self.axes)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def levels_from_data(self) -> list[str]:
        return [a.column for a in self.axes if not a.declared]

    def to_json(self) -> dict[str, Any]:
        return {"axes": [a.to_json() for a in self.axes], "size": self.size}

    @classmethod
    def from_json(cls, obj: Any, where: str = "metadata.universe") -> Universe:
        """A universe as a release header describes it (``where`` is its path there, for an
        unknown key's message)."""
        if not isinstance(obj, dict) or not isinstance(obj.get("axes"), list):
            raise ValueError("malformed universe description: expected {'axes': [...]}")
        if unknown := unknown_key(obj, ("axes", "size"), where):
            raise ValueError(unknown)
        for i, axis in enumerate(obj["axes"]):
            if isinstance(axis, dict) and (unknown := unknown_key(axis, AXIS_KEYS, f"{where}.axes[{i}]")):
                raise ValueError(unknown)
        return cls(tuple(Axis.from_json(a) for a in obj["axes"]))

    def axis(self, column: str) -> Axis:
        for a in self.axes:
            if a.column == column:
                return a
        names = ", ".join(a.column for a in self.axes)
        raise QueryError(f"column {column!r} is not in the universe ({names})")

    def cells(self, frame: pd.DataFrame) -> np.ndarray:
        """The cell index of every row."""
        codes = [a.codes(frame[a.column]) for a in self.axes]
        return np.ravel_multi_index(codes, self.shape).astype(np.int64)

    def histogram(self, ds: Dataset) -> SparseHistogram:
        """D: the dataset's sparse histogram over this universe (private)."""
        if ds.engine != "memory":  # one GROUP BY in DuckDB/Spark (svtgui.data.engines.plan)
            return ds.universe_histogram(self)
        return SparseHistogram.from_cells(self.cells(ds.frame), self.size)

    def mask(self, where: Predicate | None) -> np.ndarray:
        """Boolean mask over the universe (shape = :attr:`shape`) of the cells satisfying ``where``."""
        if where is None:
            return np.ones(self.shape, dtype=bool)
        if isinstance(where, Junction):
            masks = [self.mask(c) for c in where.children]
            return np.logical_and.reduce(masks) if where.op == "and" else np.logical_or.reduce(masks)
        k = [a.column for a in self.axes].index(self.axis(where.column).column)
        per_level = self.axes[k].satisfies(where)
        view = [1] * len(self.axes)
        view[k] = -1
        return np.broadcast_to(per_level.reshape(view), self.shape)

    def query(self, query: Count | Predicate | None, label: str = "") -> LinearQuery:
        """The counting query (a ``Count`` or a bare predicate) as a 0/1 linear query over the universe."""
        where = query.where if isinstance(query, Count) else query
        if not (where is None or isinstance(where, Condition | Junction)):
            raise QueryError("only count queries become linear queries over a universe, got "
                             f"{getattr(query, 'kind', type(query).__name__)}: {query}")
        cells = np.flatnonzero(np.asarray(self.mask(where)).reshape(-1))
        text = label or (query.describe() if isinstance(query, Count | Condition | Junction) else "all rows")
        return LinearQuery.counting(cells, self.size, text)

    def marginal(self, assignment: dict[str, str]) -> LinearQuery:
        """The counting query of one marginal cell, e.g. {"sex": "Female", "Salary": ">50K"}."""
        mask = np.ones(self.shape, dtype=bool)
        for column, level in assignment.items():
            if level not in self.axis(column).levels:
                raise QueryError(f"column {column!r} has no level {level!r}; "
                                 f"levels: {', '.join(self.axis(column).levels)}")
            k = [a.column for a in self.axes].index(column)
            per = np.array([lv == level for lv in self.axes[k].levels])
            view = [1] * len(self.axes)
            view[k] = -1
            mask = mask & per.reshape(view)
        label = " and ".join(f"{c} = {v}" for c, v in assignment.items())
        return LinearQuery.counting(np.flatnonzero(mask.reshape(-1)), self.size, label)

    def random_marginals(self, count: int, rng: np.random.Generator, *, width: int = 2,
                         subsets: bool = False) -> list[LinearQuery]:
        """``count`` random marginal queries over ``width`` random axes (for benches and tests).

        With ``subsets`` each chosen axis is restricted to a random non-empty subset of its levels
        (a conjunction of ``in`` conditions), otherwise to one level (one marginal cell).
        """
        width = min(width, len(self.axes))
        out = []
        for _ in range(count):
            mask = np.ones(self.shape, dtype=bool)
            parts = []
            for k in sorted(rng.choice(len(self.axes), size=width, replace=False).tolist()):
                axis = self.axes[k]
                take = rng.random(axis.size) < 0.5 if subsets else np.zeros(axis.size, dtype=bool)
                if not take.any():
                    take[rng.integers(axis.size)] = True
                view = [1] * len(self.axes)
                view[k] = -1
                mask = mask & take.reshape(view)
                chosen = [lv for lv, t in zip(axis.levels, take, strict=True) if t]
                parts.append(f"{axis.column} in {{{', '.join(chosen)}}}" if len(chosen) > 1
                             else f"{axis.column} = {chosen[0]}")
            out.append(LinearQuery.counting(np.flatnonzero(mask.reshape(-1)), self.size, " and ".join(parts)))
        return out
