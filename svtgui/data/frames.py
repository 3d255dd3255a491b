"""Turning parsed chunks into one tidy frame with the right dtypes.

Text columns become pandas categoricals chunk by chunk (a million repeated strings cost a few MB
instead of ~60 MB per column); chunks whose types disagree (a JSON field that is numeric in one
chunk and text in the next) are reconciled as text, so no chunk silently decides a column's type.
Text columns are typed later, once cleaned, from all their texts (:mod:`svtgui.data.inference`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from pandas.api.types import union_categoricals

from svtgui.data.cells import clean_categorical
from svtgui.data.inference import (
    BOOLEAN_KIND,
    DATE_KIND,
    EMPTY,
    INTEGER_KIND,
    NUMBER_KIND,
    TEXT_KIND,
    kind_of_texts,
    typed_column,
)


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
        columns[name] = parts[0] if len(parts) == 1 else _concat_column(parts)
        del parts
    return pd.DataFrame(columns, copy=False)


def _concat_column(parts: list[pd.Series]) -> pd.Series:
    if not any(isinstance(p.dtype, pd.CategoricalDtype) for p in parts):
        return pd.concat(parts, ignore_index=True)
    cats = [p.array if isinstance(p.dtype, pd.CategoricalDtype) else _as_category(p).array for p in parts]
    return pd.Series(union_categoricals(cats, ignore_order=True))


class TypedChunks:
    """Delimited text read as text, chunk by chunk, each column typed by :mod:`svtgui.data.inference`
    from all of its texts — without holding a numeric column as texts (a column of distinct numbers
    would cost ten times its floats as strings): each chunk's column is cleaned and typed on
    arrival; a column whose chunks disagree (whole numbers, then ``x``) is a text column whose
    typed chunks lost their texts as written (``007``), so :meth:`frame` names it to be read again
    as text (:meth:`add_texts`)."""

    def __init__(self, markers: frozenset[str]) -> None:
        self.markers = markers
        self.parts: dict[str, list[tuple[str, pd.Series]]] = {}
        self.rows = 0

    def add(self, frame: pd.DataFrame) -> None:
        """One chunk as pandas parsed it: its whole numbers, numbers and booleans are those of the
        rules (pandas' grammar for them is the rules'); other columns are typed from their texts."""
        for name in frame.columns:
            s = frame[name].reset_index(drop=True)
            kind = _parsed_kind(s)
            if kind is None:
                part = clean_categorical(_as_category(s), self.markers)
                kind = kind_of_texts(part.cat.categories, numbers=True)
                part = part if kind in (TEXT_KIND, EMPTY) else typed_column(part, numbers=True)
            else:
                part = s.astype("boolean") if kind == BOOLEAN_KIND else s.astype(np.float64) \
                    if s.dtype == np.uint64 else s
            self.parts.setdefault(str(name), []).append((kind, part))
        self.rows += len(frame)

    def mixed(self) -> list[str]:
        """The columns whose chunks disagree on a kind: text columns to read again as text."""
        return [name for name, parts in self.parts.items() if _combined_kind(parts) is None]

    def add_texts(self, name: str, frame: pd.DataFrame) -> None:
        """One chunk of column ``name`` (the chunk's only column), read again as text, in the order of
        the first reading."""
        text = clean_categorical(_as_category(frame.iloc[:, 0].reset_index(drop=True)), self.markers)
        if all(kind != "reread" for kind, _ in self.parts[name]):
            self.parts[name] = []
        self.parts[name].append(("reread", text))

    def frame(self) -> pd.DataFrame:
        columns = {}
        for name in list(self.parts):
            parts = self.parts.pop(name)
            kind = _combined_kind(parts)
            series = [s.reset_index(drop=True) for _, s in parts]
            if kind in (TEXT_KIND, EMPTY, "reread"):
                whole = series[0] if len(series) == 1 else _concat_column(series)
                columns[name] = typed_column(whole, numbers=True) if kind == EMPTY else whole
            else:
                columns[name] = pd.concat([_typed_gap(s, kind) if k == EMPTY else s
                                           for (k, _), s in zip(parts, series, strict=True)],
                                          ignore_index=True)
        return pd.DataFrame(columns, copy=False)


def _parsed_kind(s: pd.Series) -> str | None:
    """The kind of a column chunk pandas parsed as numbers or booleans (None: it kept texts)."""
    if pd.api.types.is_bool_dtype(s.dtype):
        return BOOLEAN_KIND
    if pd.api.types.is_integer_dtype(s.dtype):
        return INTEGER_KIND if s.dtype != np.uint64 else NUMBER_KIND  # past 2^63: a number
    if pd.api.types.is_float_dtype(s.dtype):
        return EMPTY if s.isna().all() else NUMBER_KIND
    return None


def _combined_kind(parts: list[tuple[str, pd.Series]]) -> str | None:
    """The kind of a column from its chunks' kinds (None: they disagree, read it again as text)."""
    kinds = {kind for kind, _ in parts} - {EMPTY}
    if not kinds:
        return EMPTY
    if kinds <= {INTEGER_KIND, NUMBER_KIND}:
        return NUMBER_KIND if NUMBER_KIND in kinds else INTEGER_KIND
    if len(kinds) == 1:
        return kinds.pop()
    return None


def _typed_gap(s: pd.Series, kind: str) -> pd.Series:
    """An all-missing chunk of a typed column, in that column's type."""
    if kind == BOOLEAN_KIND:
        return pd.Series(pd.array([pd.NA] * len(s), dtype="boolean"))
    if kind == DATE_KIND:
        return pd.Series(np.full(len(s), np.datetime64("NaT", "ns")))
    return pd.Series(np.full(len(s), np.nan))
