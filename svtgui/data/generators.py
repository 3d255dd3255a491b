"""Point-and-click query lists: sweeps, random ranges, clip-bound searches, items, values, marginals.

Generators only ever use public inputs (column names, declared bounds and categories, the
curator's parameters). Random ranges use a seeded numpy generator: choosing *which* queries to ask
is public and needs no secure randomness; release noise comes from ``svtgui.core.noise`` only.

Where a generator needs a domain (the values of a categorical column, the items of a transaction
file), pass it explicitly or declare it in the schema (``Column.categories``). :func:`observed_items`
and :func:`observed_values` read a domain off the data for the curator's convenience; a query list
built from them reveals which values occur, so the GUI labels that choice.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from svtgui.core.progress import ProgressState
from svtgui.core.wording import plain
from svtgui.data.dataset import Dataset
from svtgui.data.predicates import Condition, Junction, QueryError
from svtgui.data.queries import ClipDiff, ClipStall, Count, ItemSupport, RangeCount
from svtgui.data.schema import ColumnKind, Schema, SchemaError

MAX_QUERIES = 5_000_000


def _check_size(k: int, what: str) -> None:
    if k > MAX_QUERIES:
        many = f"{k:,}" if k < 10**15 else plain(k)  # a sweep to 1e308 counted 309 digits in the message
        raise QueryError(f"{what} would create {many} queries (limit {MAX_QUERIES:,}); narrow it down")


def _sweep_size(ratio: float, what: str) -> int:
    """How many queries a sweep makes, ⌈ratio⌉, checked against the limit; a ratio that overflows a
    double (a step of 5e-324, bounds of 1e-300 and 1e300) is over the limit too, not a crash."""
    if not math.isfinite(ratio):
        raise QueryError(f"{what} would create more than {MAX_QUERIES:,} queries (far more: the step is "
                         "too small for the range); narrow it down")
    k = math.ceil(ratio)
    _check_size(k, what)
    return k


def _positive(name: str, v: Any) -> float:
    if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v) or v <= 0:
        raise QueryError(f"{name} must be a positive number, got {v!r}")
    return float(v)


class GenerationCancelled(Exception):
    """The caller cancelled a long generation (nothing is returned)."""


CHUNK = 50_000  # queries built between two progress reports / cancellation checks


def _build(k: int, make: Callable[[int], Any], progress: ProgressState | None) -> list[Any]:
    """``[make(i) for i in range(k)]``, in chunks that report progress and honour a cancel.

    Why: two million range objects take seconds to build; a dialog shows how far it is and can stop.
    """
    if progress is None or k <= CHUNK:
        return [make(i) for i in range(k)]
    out: list[Any] = []
    for lo in range(0, k, CHUNK):
        if progress.is_cancelled():
            raise GenerationCancelled(f"cancelled after {lo:,} of {k:,} queries")
        progress.set_progress(lo / k, f"{lo:,} of {k:,} queries")
        out.extend(make(i) for i in range(lo, min(k, lo + CHUNK)))
    progress.set_progress(1.0, f"{k:,} queries")
    return out


def _finite(name: str, v: Any) -> float:
    if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
        raise QueryError(f"{name} must be a finite number, got {v!r}")
    return float(v)


def range_sweep(
    column: str, start: float, stop: float, width: float, step: float | None = None, *,
    progress: ProgressState | None = None,
) -> list[RangeCount]:
    """Windows [a, a + width) for a = start, start + step, … while a < stop (step defaults to width)."""
    start, stop = _finite("start", start), _finite("stop", stop)
    width = _positive("width", width)
    step = width if step is None else _positive("step", step)
    if stop <= start:
        raise QueryError(f"stop ({stop:g}) must exceed start ({start:g})")
    k = _sweep_size((stop - start) / step, "this sweep")
    return _build(k, lambda i: RangeCount(column, _tidy(start + i * step), _tidy(start + i * step + width)),
                  progress)


def random_ranges(
    column: str,
    low: float,
    high: float,
    k: int,
    *,
    seed: int = 0,
    integer: bool = True,
    min_width: float = 1.0,
    progress: ProgressState | None = None,
) -> list[RangeCount]:
    """``k`` random ranges [a, b) within [low, high] with b − a ≥ min_width (public, seeded).

    With ``integer`` the values are the integers low … high, so a range may end at ``high + 1``
    (exclusive): the declared upper bound itself is counted (age 90 with High = 90).
    """
    low, high = _finite("low", low), _finite("high", high)
    min_width = _positive("min_width", min_width)
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise QueryError(f"k must be a positive integer, got {k!r}")
    _check_size(k, "random_ranges")
    top = high + 1 if integer else high  # exclusive end of the domain
    if not math.isfinite(top - low):  # numpy's uniform() refused it: "high - low range exceeds valid bounds"
        raise QueryError(f"[{low:g}, {high:g}] is wider than a double can hold (high − low overflows); "
                         "narrow it down")
    if top - low < min_width:
        raise QueryError(f"[{low:g}, {high:g}] is narrower than min_width {min_width:g}")
    rng = np.random.default_rng(seed)
    a = rng.uniform(low, top - min_width, size=k)
    b = a + min_width + rng.uniform(0, 1, size=k) * (top - a - min_width)
    if integer:
        a = np.floor(a)
        b = np.minimum(np.maximum(np.ceil(b), a + math.ceil(min_width)), math.floor(top))
    starts, ends = a.tolist(), b.tolist()
    return _build(k, lambda i: RangeCount(column, _tidy(starts[i]), _tidy(ends[i])), progress)


def clip_bound_sweep(
    column: str,
    start: float,
    stop: float,
    step: float = 5.0,
    *,
    geometric: bool = False,
    diff_step: float | None = None,
    normalised: bool | None = None,
    stalls: bool = False,
    progress: ProgressState | None = None,
) -> list[ClipDiff] | list[ClipStall]:
    """Difference queries for the clipping-bound search.

    Linear (the notebook's ``bs = range(start, stop, step)``): bounds b = start, start + step, …,
    each query Σclip(x, 0, b + s) − Σclip(x, 0, b) with s = ``diff_step`` (default 1, as in the
    notebook, sensitivity 1). Geometric: bounds start·step^i (``step`` > 1 is the ratio) and each query
    covers [b_i, b_{i+1}) so s grows; ``normalised`` (default True for geometric) divides by s, which
    keeps every query at sensitivity 1 so one threshold serves the whole sweep. ``stalls`` asks the
    negated differences (:class:`ClipStall`): the form AboveThreshold needs, ⊤ at the first bound
    where the sum stops growing (threshold 0), instead of ⊤ at once on the first bound.
    """
    diffs = _clip_diffs(column, start, stop, step, geometric, diff_step, normalised, progress)
    if stalls:  # "has the sum stopped growing?": AboveThreshold finds the first bound past the data
        return [ClipStall(q.column, q.bound, q.step, q.normalised) for q in diffs]
    return diffs


def _clip_diffs(column: str, start: float, stop: float, step: float, geometric: bool,
                diff_step: float | None, normalised: bool | None,
                progress: ProgressState | None) -> list[ClipDiff]:
    start, stop = _finite("start", start), _finite("stop", stop)
    if start < 0:
        raise QueryError(f"start must be >= 0, got {start:g}")
    if stop <= start:
        raise QueryError(f"stop ({stop:g}) must exceed start ({start:g})")
    step = _positive("step", step)
    if not geometric:
        s = 1.0 if diff_step is None else _positive("diff_step", diff_step)
        k = _sweep_size((stop - start) / step, "this sweep")
        return _build(k, lambda i: ClipDiff(column, _tidy(start + i * step), _tidy(s), bool(normalised)),
                      progress)
    if step <= 1:
        raise QueryError(f"a geometric sweep needs a ratio step > 1, got {step:g}")
    if start == 0:
        raise QueryError("a geometric sweep needs start > 0")
    k = _sweep_size(math.log(stop / start) / math.log(step), "this sweep")
    bounds = [start * step**i for i in range(k + 1)]
    norm = True if normalised is None else normalised
    return [ClipDiff(column, _tidy(b0), _tidy(b1 - b0), norm) for b0, b1 in itertools.pairwise(bounds)]


def _once_each(values: Sequence[Any], what: str) -> None:
    """Refuse a value listed twice: it would be two queries (two candidates of a choice, twice as
    likely to be chosen under EM), not one, without a word."""
    seen: set[Any] = set()
    repeated = next((v for v in values if v in seen or seen.add(v)), None)  # type: ignore[func-returns-value]
    if repeated is not None:
        raise QueryError(f"{what} lists {repeated!r} twice; list each once")


def every_item(items: Iterable[Any], column: str = "items") -> list[ItemSupport]:
    """One support query per item of a (public) item domain, each item once."""
    items = list(items)
    _once_each(items, "the item domain")
    out = [ItemSupport((it,), column) for it in items]
    if not out:
        raise QueryError("the item list is empty")
    _check_size(len(out), "every_item")
    return out


def every_value(schema: Schema, column: str, values: Sequence[Any] | None = None) -> list[Count]:
    """One ``column = v`` count per value: ``values`` or the column's declared categories."""
    col = _column(schema, column)
    if values is None:
        if col.categories is None:
            raise QueryError(
                f"column {column!r} has no declared categories; pass the values explicitly "
                "or declare them in the schema"
            )
        values = col.categories
    if not values:
        raise QueryError(f"no values given for column {column!r}")
    _once_each(values, f"the values of column {column!r}")
    return [Count(Condition(column, "=", v)) for v in values]


def marginals(
    schema: Schema, columns: Sequence[str], k: int = 2, values: Mapping[str, Sequence[Any]] | None = None
) -> list[Count]:
    """Every cell of every k-way marginal of ``columns``: counts of AND-ed equalities.

    Domains come from ``values`` (column → list) or the schema's declared categories.
    """
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= len(columns):
        raise QueryError(
            f"k must be an integer between 1 and {len(columns)} (the number of columns), got {k!r}"
        )
    if len(set(columns)) != len(columns):
        raise QueryError("columns must be distinct")
    values = dict(values or {})
    domains = {}
    for c in columns:
        col = _column(schema, c)
        dom = values.get(c, col.categories)
        if dom is None:
            raise QueryError(f"column {c!r} has no declared categories; pass its values")
        domains[c] = list(dom)
    total = sum(math.prod(len(domains[c]) for c in combo) for combo in itertools.combinations(columns, k))
    _check_size(total, "these marginals")
    out = []
    for combo in itertools.combinations(columns, k):
        for cell in itertools.product(*(domains[c] for c in combo)):
            conds = tuple(Condition(c, "=", v) for c, v in zip(combo, cell, strict=True))
            out.append(Count(conds[0] if k == 1 else Junction("and", conds)))
    return out


def observed_items(ds: Dataset, column: str = "items") -> list[Any]:
    """The items that occur in a transaction dataset (reveals the item domain; see module docstring)."""
    from svtgui.data.evaluate import postings

    _column(ds.schema, column)
    return postings(ds, column).items.tolist()


def observed_values(ds: Dataset, column: str) -> list[Any]:
    """The distinct non-missing values of a column (reveals them; see module docstring)."""
    col = _column(ds.schema, column)
    if col.kind == ColumnKind.ITEMSET:
        raise QueryError(f"column {column!r} holds item sets; use observed_items")
    if ds.engine != "memory":
        values = ds.distinct_values(column)
    else:
        values = ds.frame[column].dropna().unique().tolist()
    return sorted(values, key=lambda v: (str(type(v)), v))


def _column(schema: Schema, name: str):
    try:
        return schema.column(name)
    except SchemaError as e:
        raise QueryError(str(e)) from None


def _tidy(x: float) -> float | int:
    """Integral floats as ints, so JSON and descriptions read ``30`` rather than ``30.0``."""
    r = round(x, 9)
    return int(r) if float(r).is_integer() and abs(r) < 2**53 else r
