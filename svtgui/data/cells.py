"""One definition of a cell: its value, whether it is missing, and which query values match it.

Every engine reads cells by these rules and both evaluation paths match by them, so an answer
depends on neither the engine (memory, DuckDB, Spark) nor the batch size (a grouped histogram
evaluated in pandas or a ``SUM(CASE …)`` evaluated in SQL):

* **A text cell's value** is its text without surrounding blanks (spaces and tabs): ``" Male"``
  from a ``", "``-separated file and ``"Male "`` are the category ``Male``.
* **A text cell is missing** when that stripped text is empty or a *missing marker*: the load
  options' markers (default ``?``) and, unless ``standard_missing`` is off, the standard ones
  (``NA``, ``null``, ``NaN``, … — :data:`svtgui.data.fingerprint.MARKERS`). This holds for every
  file format, not only CSV. A NaN in a float column is missing too.
* **A query value matches a categorical cell** when their *category texts* are equal: a text is
  itself without surrounding blanks; a number is written in its shortest exact form (``13`` and
  ``13.0`` are ``"13"``, ``2.5`` is ``"2.5"``); ``true`` / ``false`` for booleans; a date as
  ``YYYY-MM-DD`` (with `` HH:MM:SS`` when it has a time). So for a numeric column declared
  categorical the cell ``13`` matches the values ``13``, ``13.0`` and ``"13"``, but not ``"13.0"``
  — the same rows as when the column is stored as text, whatever the file format.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import numpy as np

from svtgui.data.fingerprint import MARKERS

if TYPE_CHECKING:  # imported where a frame is cleaned or a date parsed: DuckDB runs on numbers never load it
    import pandas as pd

BLANKS = " \t"
STANDARD_MARKERS = MARKERS - {"?"}
"""The standard missing markers (pandas' list, which the CSV loader has always honoured)."""


def missing_markers(extra: Iterable[str], standard: bool = True) -> frozenset[str]:
    """Every stripped text that means "missing" under the load options ``missing`` / ``standard_missing``."""
    marks = {""} | {str(m).strip(BLANKS) for m in extra}
    return frozenset(marks | STANDARD_MARKERS if standard else marks)


def text_value(text: str | None, markers: frozenset[str]) -> str | None:
    """A text cell's value by the rules above: the text without surrounding blanks, or None when it is
    missing (no text, or a marker once stripped)."""
    if text is None:
        return None
    stripped = text.strip(BLANKS)
    return None if stripped in markers else stripped


def clean_frame(frame: pd.DataFrame, markers: frozenset[str]) -> pd.DataFrame:
    """``frame`` with every text (categorical) column read by the rules above; other columns as they are."""
    import pandas as pd

    for name in frame.columns:
        s = frame[name]
        if isinstance(s.dtype, pd.CategoricalDtype):
            frame[name] = clean_categorical(s, markers)
    return frame


def clean_categorical(s: pd.Series, markers: frozenset[str]) -> pd.Series:
    """A categorical text column with its categories stripped and the markers missing; categories
    that become equal once stripped (``" x"`` and ``"x"``) are merged. Works on the categories, not
    the cells, so a million rows cost what their distinct values cost."""
    import pandas as pd

    texts = [str(c).strip(BLANKS) for c in s.cat.categories]
    if texts == [str(c) for c in s.cat.categories] and not markers.intersection(texts):
        return s
    kept = sorted({t for t in texts if t not in markers})
    position = {t: i for i, t in enumerate(kept)}
    remap = np.array([position.get(t, -1) for t in texts] + [-1], dtype=np.int64)
    codes = remap[s.cat.codes.to_numpy()]  # code -1 (already missing) reads the appended -1
    dtype = pd.CategoricalDtype(pd.Index(kept, dtype=object))
    return pd.Series(pd.Categorical.from_codes(codes, dtype=dtype), index=s.index, name=s.name)


def number_text(x: float) -> str:
    """A number's category text: integers without a fraction, others in their shortest exact form."""
    if math.isfinite(x) and x == int(x) and abs(x) < 2**63:
        return str(int(x))
    return repr(float(x))


def is_timestamp(value: Any) -> bool:
    """Whether ``value`` is a pandas ``Timestamp``, without importing pandas: while pandas is not
    loaded no value can be one (a DuckDB run over numbers never loads it, issue 25 §4)."""
    pd = sys.modules.get("pandas")
    return pd is not None and isinstance(value, pd.Timestamp)


def date_text(ts: pd.Timestamp) -> str:
    return ts.strftime("%Y-%m-%d") if ts == ts.normalize() else ts.isoformat(sep=" ")


def category_text(value: Any) -> str:
    """A query value's category text (see the module docstring)."""
    if isinstance(value, bool | np.bool_):
        return "true" if value else "false"
    if isinstance(value, int | np.integer):
        return str(int(value))
    if isinstance(value, float | np.floating):
        return number_text(float(value))
    if is_timestamp(value):
        return date_text(value)
    return str(value).strip(BLANKS)


def category_matches(storage: str, values: Iterable[Any]) -> list[Any]:
    """The stored cells (of a column stored as ``storage``: text, numeric, boolean or datetime) whose
    category text is one of ``values``' — what ``=``, ``!=`` and ``in`` compare a categorical
    column with, in pandas and in SQL alike."""
    texts = {category_text(v) for v in values}
    if storage == "numeric":
        out: list[Any] = []
        for t in texts:
            try:
                x = float(t)
            except ValueError:
                continue
            if not math.isnan(x) and number_text(x) == t:
                out.append(x)
        return out
    if storage == "boolean":
        return [t == "true" for t in texts if t in ("true", "false")]
    if storage == "datetime":
        import pandas as pd

        out = []
        for t in texts:
            try:
                ts = pd.Timestamp(t)
            except (ValueError, TypeError):
                continue
            if ts is not pd.NaT and date_text(ts) == t:
                out.append(ts)
        return out
    return sorted(texts)


def storage_of(series: pd.Series) -> str:
    """How a pandas column stores its cells: numeric, boolean, datetime or text."""
    import pandas as pd

    dtype = series.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        return "text"
    if pd.api.types.is_bool_dtype(dtype):
        return "boolean"
    if pd.api.types.is_numeric_dtype(dtype):
        return "numeric"
    if pd.api.types.is_datetime64_any_dtype(dtype):
        return "datetime"
    return "text"
