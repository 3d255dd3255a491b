"""Turning parsed chunks into one tidy frame with the right dtypes.

Text columns become pandas categoricals chunk by chunk (a million repeated strings cost a few MB
instead of ~60 MB per column); chunks whose types disagree (a column that is numeric in one chunk
and text in the next) are reconciled as text, so no chunk silently decides a column's type.
At the end, text columns that only hold true/false become booleans and text columns whose every
value is an ISO date become datetimes.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from pandas.api.types import union_categoricals

_TRUE_FALSE = {"true", "false"}


def tidy_frame(frame: pd.DataFrame, *, categorical: bool) -> pd.DataFrame:
    """Column names as strings; text columns (not item-set tuples) as categoricals."""
    frame.columns = [str(c) for c in frame.columns]
    if not categorical:
        return frame
    out = {}
    for name in frame.columns:
        s = frame[name]
        out[name] = _as_category(s) if _is_text(s) else s
    return pd.DataFrame(out, index=frame.index)


def _is_text(s: pd.Series) -> bool:
    if isinstance(s.dtype, pd.CategoricalDtype):
        return False
    if s.dtype == object:
        first = s.dropna()
        return not (len(first) and isinstance(first.iloc[0], tuple))
    return pd.api.types.is_string_dtype(s.dtype)


def _as_category(s: pd.Series) -> pd.Series:
    mask = s.notna()
    values = s[mask].map(str) if s.dtype == object else s[mask].astype(str)
    cat = pd.Series(pd.Categorical(values), index=values.index).reindex(s.index)
    return cat.astype(pd.CategoricalDtype(cat.cat.categories.astype(object)))


Chunk = dict[str, pd.Series]


def split_chunk(frame: pd.DataFrame) -> Chunk:
    """A parsed chunk as independent columns (copies), so each can be freed once concatenated.

    A DataFrame keeps same-typed columns in one 2-D block; deleting a column from it frees nothing,
    which would keep every chunk alive until the end of the load.
    """
    tidy = tidy_frame(frame, categorical=True)
    return {name: tidy[name].reset_index(drop=True).copy(deep=True) for name in tidy.columns}


def combine_chunks(chunks: list[Chunk]) -> pd.DataFrame:
    """Concatenate chunks column by column, reconciling types (see the module docstring).

    The chunks are consumed: each column's parts are dropped as soon as they are joined.
    """
    names = list(chunks[0])
    columns = {}
    for name in names:
        parts = [c.pop(name) for c in chunks]
        columns[name] = _finish(parts[0] if len(parts) == 1 else _concat_column(parts))
        del parts
    return pd.DataFrame(columns, copy=False)


def _concat_column(parts: list[pd.Series]) -> pd.Series:
    if not any(isinstance(p.dtype, pd.CategoricalDtype) for p in parts):
        return pd.concat(parts, ignore_index=True)
    cats = [p.array if isinstance(p.dtype, pd.CategoricalDtype) else _as_category(p).array for p in parts]
    return pd.Series(union_categoricals(cats, ignore_order=True))


def _finish(s: pd.Series) -> pd.Series:
    if not isinstance(s.dtype, pd.CategoricalDtype):
        return s
    cats = s.cat.categories
    if len(cats) and {str(c).lower() for c in cats} <= _TRUE_FALSE:
        codes = np.array([str(c).lower() == "true" for c in cats])
        out = pd.array(codes[s.cat.codes.to_numpy()], dtype="boolean")
        out[s.isna().to_numpy()] = pd.NA
        return pd.Series(out, name=s.name)
    if len(cats) and _all_dates(cats):
        return pd.Series(pd.to_datetime(s.astype(object), format="ISO8601"), name=s.name)
    return s


def _all_dates(cats: pd.Index) -> bool:
    texts = [str(c) for c in cats]
    if not all(any(ch.isdigit() for ch in t) and ("-" in t or ":" in t) and len(t) >= 8 for t in texts):
        return False
    try:
        pd.to_datetime(pd.Series(texts), format="ISO8601")
    except (ValueError, TypeError, OverflowError):
        return False
    return True
