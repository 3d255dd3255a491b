"""One definition of a column's type from its texts, applied by every engine (issue 22 §2).

A CSV cell is text until the whole column says otherwise, and a JSON-lines field of texts is text
until all of its texts say otherwise. Each engine reads such a column as text (pandas with
``dtype=str``; DuckDB with every column ``VARCHAR``), cleans it by :mod:`svtgui.data.cells`' rule
(blanks stripped, missing markers missing) and then types it here, from all its non-missing texts:

* none at all: **missing numbers** (an all-empty column);
* every text an integer (:data:`INTEGER`: digits with an optional sign, ``007`` and ``+1`` too)
  that fits in 64 bits: **whole numbers**;
* every text a number (:data:`NUMBER`: a decimal with an optional sign, fraction and exponent, or
  ``inf`` / ``infinity`` in any case): **numbers** (the nearest double);
* every text ``true`` or ``false`` in any case: **booleans**;
* every text an ISO date (:data:`DATE`: ``YYYY-MM-DD`` with an optional ``T``/space time to the
  microsecond, no time zone) of a real day in the years :data:`YEARS`: **datetimes**;
* anything else: **text**, each cell as written (stripped), so ``007`` stays ``007`` when the
  column also holds ``x``.

The number rules apply to CSV only: a JSON text ``"7"`` is the text ``7`` (JSON writes numbers
unquoted). Anything the rules leave out is text on every engine: ``0x10``, ``1_000``, ``yes``,
``01/02/2020``, ``10:00:00``, ``nan`` (unless it is a missing marker), time zones.

The patterns use only ASCII classes, so Python's ``re``, RE2 (DuckDB) and Java read them alike.
Python applies them to a column's distinct texts (its categories), SQL to every cell in one pass.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pandas is imported where a frame is typed: DuckDB's path never needs it
    import pandas as pd

EMPTY, INTEGER_KIND, NUMBER_KIND, BOOLEAN_KIND, DATE_KIND, TEXT_KIND = (
    "empty", "integer", "number", "boolean", "datetime", "text")

INTEGER = r"[+-]?[0-9]+"
NUMBER = (r"[+-]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][+-]?[0-9]+)?"
          r"|[+-]?([iI][nN][fF]|[iI][nN][fF][iI][nN][iI][tT][yY])")
DATE = (r"[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])"
        r"([T ]([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9]([.][0-9]{1,6})?)?)?")
YEARS = (1678, 2261)
"""Datetimes every engine holds alike (pandas' nanosecond timestamps end in 1677 and 2262)."""
INT64 = (-(2**63), 2**63 - 1)

SQL_TYPES = {EMPTY: "DOUBLE", INTEGER_KIND: "BIGINT", NUMBER_KIND: "DOUBLE", BOOLEAN_KIND: "BOOLEAN",
             DATE_KIND: "TIMESTAMP", TEXT_KIND: "VARCHAR"}
"""The DuckDB type a column of each kind is stored as (Spark casts its text to the same)."""


# -- in pandas, on a column's distinct texts ---------------------------------------------------------


def kind_of_texts(texts: pd.Index, numbers: bool) -> str:
    """The kind of a column whose distinct, cleaned, non-missing texts are ``texts``."""
    import pandas as pd

    if not len(texts):
        return EMPTY
    texts = pd.Index(texts, dtype=object).astype(str)
    if numbers and texts.str.fullmatch(INTEGER).all() and _fit_int64(texts):
        return INTEGER_KIND
    if numbers and texts.str.fullmatch(NUMBER).all():
        return NUMBER_KIND
    if texts.str.lower().isin(("true", "false")).all():
        return BOOLEAN_KIND
    if texts.str.fullmatch(DATE).all() and _dates(texts) is not None:
        return DATE_KIND
    return TEXT_KIND


def _fit_int64(texts: pd.Index) -> bool:
    long = texts[texts.str.len() > 18]  # 18 digits (and a sign) always fit
    return all(INT64[0] <= int(t) <= INT64[1] for t in long)


def _dates(texts: pd.Index) -> pd.DatetimeIndex | None:
    """``texts`` as datetimes, or None when one is no real day or lies outside :data:`YEARS`."""
    import pandas as pd

    stamps = pd.to_datetime(pd.Series(texts, dtype=object), format="ISO8601", errors="coerce")
    if stamps.isna().any() or not stamps.dt.year.between(*YEARS).all():
        return None
    return pd.DatetimeIndex(stamps)


def typed_column(s: pd.Series, numbers: bool) -> pd.Series:
    """A cleaned categorical text column typed by the rules (other columns are returned as they are).

    Works on the categories: a million rows cost what their distinct texts cost."""
    import numpy as np
    import pandas as pd

    if not isinstance(s.dtype, pd.CategoricalDtype):
        return s
    cats = s.cat.categories
    kind = kind_of_texts(cats, numbers)
    if kind == TEXT_KIND:
        return s
    codes = s.cat.codes.to_numpy()
    missing = codes < 0
    if kind == EMPTY:
        return pd.Series(np.full(len(s), np.nan), index=s.index, name=s.name)
    if kind == INTEGER_KIND:
        values = cats.to_numpy(dtype=object).astype(np.int64)
        if missing.any():  # pandas' own rule: whole numbers with gaps are floats
            return pd.Series(np.where(missing, np.nan, values[codes].astype(np.float64)), index=s.index,
                             name=s.name)
        return pd.Series(values[codes], index=s.index, name=s.name)
    if kind == NUMBER_KIND:
        values = cats.to_numpy(dtype=object).astype(np.float64)
        return pd.Series(np.where(missing, np.nan, values[codes]), index=s.index, name=s.name)
    if kind == BOOLEAN_KIND:
        truth = np.asarray(cats.str.lower() == "true")
        out = pd.array(truth[codes], dtype="boolean")
        out[missing] = pd.NA
        return pd.Series(out, index=s.index, name=s.name)
    stamps = _dates(pd.Index(cats, dtype=object).astype(str))
    assert stamps is not None
    values = stamps.to_numpy(dtype="datetime64[ns]")
    return pd.Series(np.where(missing, np.datetime64("NaT", "ns"), values[codes]), index=s.index,
                     name=s.name)


def typed_frame(frame: pd.DataFrame, numbers: bool) -> pd.DataFrame:
    """Every categorical text column of ``frame`` typed by the rules."""
    for name in frame.columns:
        frame[name] = typed_column(frame[name], numbers)
    return frame


# -- in SQL (DuckDB), over every cell ----------------------------------------------------------------


_BITS = {INTEGER_KIND: 1, NUMBER_KIND: 2, BOOLEAN_KIND: 4, DATE_KIND: 8}


def kind_checks(column: str, numbers: bool) -> list[str]:
    """Two aggregates over a cleaned text column (a SQL expression) that decide its kind with
    :func:`kind_from_checks`: its non-missing count, and which kinds every text allows, as bits
    (:func:`cell_kinds`)."""
    return [f"count({column})", f"bit_and(({cell_kinds(column, numbers)})::INTEGER)"]


def cell_kinds(column: str, numbers: bool) -> str:
    """The kinds one cleaned text cell (a SQL expression) allows, as bits (a missing cell allows
    every kind): a column's kind is the first kind every one of its cells allows.

    Nested ``CASE``s, which DuckDB evaluates only on the rows that reach them, so a cell pays for
    the tests its shape calls for: an integer's pattern first, then a number's (each fails on the
    first character of a word); only a text that is no number is compared with the booleans, and
    only one shaped like a date is cast to one. DuckDB's casts come after the patterns because a
    failing ``TRY_CAST`` is the dearest test of all: ordered the other way (a cast to a double tried
    on every cell), a column of words took 4.4 s per 5×10^6 cells against about 1 s now; an integer
    of fewer than 19 characters fits in 64 bits uncast."""
    def regex(pattern: str) -> str:
        return f"regexp_full_match({column}, {_sql_text(pattern)})"

    date = (f"CASE WHEN {regex(DATE)} THEN COALESCE(year(TRY_CAST({column} AS TIMESTAMP)) "
            f"BETWEEN {YEARS[0]} AND {YEARS[1]}, FALSE) ELSE FALSE END")
    other = (f"CASE WHEN lower({column}) IN ('true', 'false') THEN {_BITS[BOOLEAN_KIND]} "
             f"WHEN {date} THEN {_BITS[DATE_KIND]} ELSE 0 END")
    every = sum(_BITS.values())
    if not numbers:
        return f"CASE WHEN {column} IS NULL THEN {every} WHEN {regex(NUMBER)} THEN 0 ELSE {other} END"
    # 0x10, 1_000, nan: DuckDB reads them, the rules do not; 19 digits or more may not fit in 64 bits
    whole = (f"CASE WHEN length({column}) < 19 OR TRY_CAST({column} AS BIGINT) IS NOT NULL "
             f"THEN {_BITS[INTEGER_KIND] | _BITS[NUMBER_KIND]} ELSE {_BITS[NUMBER_KIND]} END")
    number = f"CASE WHEN TRY_CAST({column} AS DOUBLE) IS NOT NULL THEN {_BITS[NUMBER_KIND]} ELSE 0 END"
    return (f"CASE WHEN {column} IS NULL THEN {every} WHEN {regex(INTEGER)} THEN {whole} "
            f"WHEN {regex(NUMBER)} THEN {number} ELSE {other} END")


def allows_kind(column: str, kind: str, numbers: bool) -> str:
    """Whether one cleaned text cell (a SQL expression) allows ``kind``: every cell allows text, a
    missing cell every kind, and only a missing cell allows "empty".

    Why: a column's kind found on a sample of its rows is the whole column's kind exactly when every
    cell allows it (the whole column's bits are a subset of the sample's, and none before that kind
    was among the sample's), so a pass that writes the typed column can check it cell by cell
    instead of an aggregate pass deciding it first."""
    if kind == TEXT_KIND:
        return "TRUE"
    if kind == EMPTY:
        return f"{column} IS NULL"
    return f"(({cell_kinds(column, numbers)}) & {_BITS[kind]}) <> 0"


def kind_from_checks(values: tuple) -> str:
    """The kind :func:`kind_checks`' aggregates say (they come back in that order)."""
    count, bits = values
    if not count:
        return EMPTY
    return next((kind for kind, bit in _BITS.items() if bits & bit), TEXT_KIND)


def cast_sql(column: str, kind: str) -> str:
    """A cleaned text column (a SQL expression) as the type its kind is stored as."""
    if kind == TEXT_KIND:
        return column
    if kind == EMPTY:
        return "CAST(NULL AS DOUBLE)"
    if kind == BOOLEAN_KIND:
        return f"lower({column}) = 'true'"
    return f"CAST({column} AS {SQL_TYPES[kind]})"


def _sql_text(pattern: str) -> str:
    return "'" + pattern.replace("'", "''") + "'"

