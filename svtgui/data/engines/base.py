"""The table-engine seam: what the batch planner needs from an engine that holds the data elsewhere.

An engine answers SQL over one relation (the dataset) and streams its rows in record batches;
it never hands the planner more than aggregates (grouped counts, sums) or a bounded number of rows
(the preview). The planner (``plan``) turns query batches into few such aggregates and computes the
answers locally, so mechanisms, noise and the ledger never leave the curator's process.

Why SQL and not a dataframe API: DuckDB and Spark both speak it, so one planner serves both; the
small dialect differences (identifier quoting, string escapes, list functions) live in ``Dialect``.
"""

from __future__ import annotations

import os
import threading
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from svtgui.core.progress import ProgressState
from svtgui.data import textio
from svtgui.data.cells import is_timestamp
from svtgui.data.errors import DatasetError
from svtgui.data.fingerprint import Block, ColumnSums

if TYPE_CHECKING:  # small results and previews are frames; a numeric plan's histogram never is
    import pandas as pd

ENGINES = ("memory", "duckdb", "spark")
HISTOGRAM_LIMIT = 2_000_000
"""Largest grouped histogram (rows) the planner asks for; above it, aggregates per scan are used."""
AGGREGATES_PER_SCAN = 256
"""How many query aggregates one scan computes in the fallback plan (SQL size stays moderate)."""
FINGERPRINT_BATCH_ROWS = 500_000
FINGERPRINT_THREADS = 2


class EngineError(DatasetError):
    """An engine could not read the data or answer (unreachable cluster, timeout, bad column type)."""


class EngineRefused(EngineError):
    """An operation that this engine does not support; the message names the operation and engine."""


@dataclass(frozen=True)
class Dialect:
    """The SQL spelling differences between DuckDB and Spark SQL."""

    name: str
    quote_char: str
    backslash_escapes: bool  # Spark string literals treat backslash as an escape character
    distinct_items: str  # {c}: a row per distinct item of a list column (in a SELECT list)
    has_all: str  # {c}, {items}: the list column holds every item of the literal list
    round_even: str  # {x}: x rounded to an integer, ties to even (exact_sums' rint)
    exact_int: str  # the type an exact integer sum is taken in
    strip: str  # {x}: the text without surrounding blanks (cells.BLANKS: spaces and tabs)
    is_marker: str  # {x}, {marks}: the text is one of the literal missing markers

    def ident(self, name: str) -> str:
        q = self.quote_char
        return f"{q}{name.replace(q, q + q)}{q}"

    def literal(self, value: Any) -> str:
        """A SQL literal for a coerced query value (bool, int, float, str, pandas Timestamp)."""
        if isinstance(value, bool):
            return "TRUE" if value else "FALSE"
        if isinstance(value, int):
            return str(value)
        if isinstance(value, float):
            return f"CAST('{value!r}' AS DOUBLE)"
        if is_timestamp(value):
            return f"TIMESTAMP '{value.isoformat(sep=' ')}'"
        text = str(value)
        if self.backslash_escapes:
            text = text.replace("\\", "\\\\").replace("'", "\\'")
        else:
            text = text.replace("'", "''")
        return f"'{text}'"

    def items(self, values: list[Any]) -> str:
        return f"array({', '.join(map(self.literal, values))})" if self.name == "spark" else \
            f"[{', '.join(map(self.literal, values))}]"


DUCKDB = Dialect("duckdb", '"', False, "unnest(list_distinct({c}))", "list_has_all({c}, {items})",
                 "round_even({x}, 0)", "HUGEINT", "trim({x}, ' \t')",
                 # not `IN (…)`: DuckDB plans a long IN list as a join, which it never prunes, so every
                 # query through the view read and trimmed every text column (3x a GROUP BY of a number)
                 "array_position([{marks}], {x}) IS NOT NULL")
SPARK = Dialect("spark", "`", True, "explode(array_distinct({c}))", "size(array_except({items}, {c})) = 0",
                # doubles of 2^52 and more are integers already (and Spark's bround goes through decimal text)
                "CASE WHEN abs({x}) >= 4503599627370496 THEN {x} ELSE bround({x}, 0) END", "DECIMAL(38, 0)",
                "trim(BOTH ' \t' FROM {x})", "{x} IN ({marks})")


def duckdb_file(path: str | os.PathLike[str]) -> str:
    """A DuckDB literal naming exactly the file ``path`` as Python opens it. DuckDB's readers take
    ``[``, ``*`` and ``?`` in a path as a glob, so ``sales[1].csv`` read ``sales1.csv``, and ``b*.csv``
    every match at once; each is escaped as a one-character class (``[[]``). A leading ``~`` is
    DuckDB's home folder: such a relative path is read as ``./~…``. (Spark's readers glob too:
    ``spark_engine``.)"""
    text = os.fspath(path)
    if text.startswith("~"):
        text = "./" + text
    return DUCKDB.literal("".join(f"[{c}]" if c in "[*?" else c for c in text))


def text_cell(dialect: Dialect, column: str, markers: frozenset[str], text: str | None = None) -> str:
    """A text column's cells by ``svtgui.data.cells``' rule, in SQL: stripped of blanks, markers NULL
    (``text``: an expression giving the column's text, when it is not the column itself)."""
    stripped = dialect.strip.format(x=text or dialect.ident(column))
    marks = ", ".join(dialect.literal(m) for m in sorted(markers))
    return f"CASE WHEN {dialect.is_marker.format(x=stripped, marks=marks)} THEN NULL ELSE {stripped} END"


@dataclass(frozen=True)
class ColumnType:
    """One column as the engine reports it: its name, the engine's type name and the schema kind."""

    name: str
    type_name: str
    kind: str  # a ColumnKind value
    is_float: bool = False
    from_text: bool = False  # a JSON field of texts typed by data.inference (Spark reads it as text too)


class TableEngine(ABC):
    """One dataset held by an engine. Picklable: a child process reconnects lazily."""

    name: str
    dialect: Dialect
    relation: str  # the name the planner's SQL uses for the dataset

    @abstractmethod
    def columns(self) -> list[ColumnType]:
        """The columns with their kinds, from metadata (no scan)."""

    @abstractmethod
    def row_count(self) -> int:
        """Number of rows (from metadata where the format has it)."""

    @abstractmethod
    def preview(self, rows: int) -> pd.DataFrame:
        """The first ``rows`` rows (private data: for the curator's own view only)."""

    @abstractmethod
    def sql(self, text: str) -> pd.DataFrame:
        """Run one aggregate query over ``relation``; a small result as a pandas frame."""

    def sql_arrays(self, text: str) -> dict[str, np.ndarray]:
        """Run one aggregate query whose columns are numbers without NULLs; each column as a numpy
        array. The numeric histogram's path: DuckDB fetches it without pandas (issue 25 §4)."""
        frame = self.sql(text)
        return {str(name): frame[name].to_numpy() for name in frame.columns}

    @abstractmethod
    def batches(self, rows: int) -> Iterator[pd.DataFrame]:
        """All rows, as pandas frames of about ``rows`` rows (only for the legacy fingerprint of a
        ledger of schema 5 or older: :meth:`svtgui.data.Dataset.legacy_fingerprint`)."""

    @abstractmethod
    def column_sums(self, cells: bytes, progress: ProgressState | None) -> ColumnSums:
        """The fingerprint's per-column sums under the cell key ``cells``, computed where the rows are
        (:mod:`svtgui.data.fingerprint`), with progress and Cancel (``LoadCancelled``)."""

    @abstractmethod
    def close(self) -> None:
        """Release connections (the engine reconnects if used again)."""

    def group_hint(self, bits: int | None) -> None:
        """The next GROUP BY's columns have declared integer ranges worth ``bits`` bits in all (None:
        not all declared). Engines that can group through a perfect hash table use it."""
        del bits  # Spark has no such setting: nothing to do

    @property
    def location(self) -> str:
        """Where the data is, for messages (a path, a table name, a master URL)."""
        return self.relation


def lists_as_tuples(frame: pd.DataFrame) -> pd.DataFrame:
    """List cells (item sets) as tuples and categories as Python strings, as the memory loaders
    hold them (the fingerprint hashes Python strings several times faster than Arrow ones)."""
    import pandas as pd

    for name in frame.columns:
        s = frame[name]
        if isinstance(s.dtype, pd.CategoricalDtype):
            frame[name] = s.astype(pd.CategoricalDtype(s.cat.categories.astype(object)))
            continue
        if s.dtype == object:
            first = s.dropna()
            cell = first.iloc[0] if len(first) else None
            if cell is not None and not isinstance(cell, str | bytes) and hasattr(cell, "__len__"):
                frame[name] = s.map(lambda v: tuple(v.tolist() if hasattr(v, "tolist") else v)
                                    if v is not None and not isinstance(v, float) else v)
    return frame


def dictionary_text(batch: Any) -> Any:
    """An Arrow record batch with its text columns dictionary-encoded (pandas categoricals): the
    fingerprint then converts each distinct text once instead of once per row."""
    import pyarrow as pa

    columns = [c.dictionary_encode() if pa.types.is_string(c.type) or pa.types.is_large_string(c.type) else c
               for c in batch.columns]
    return pa.RecordBatch.from_arrays(columns, names=batch.schema.names)


def sums_in_threads(batches: Iterator[Any], columns: int, cells: bytes, progress: ProgressState | None,
                    total_rows: int, layout: Sequence[int | Block] | None = None) -> ColumnSums:
    """The fingerprint's sums of Arrow record batches, hashed on worker threads while the caller's
    thread reads the next batch (Arrow and numpy release the GIL). Each thread folds its batches
    into a state of its own (a block's counts add up there and are folded into its columns' sums
    once); the states merge by addition at the end, so the result does not depend on which thread
    took which batch. A batch's column ``i`` holds the dataset's column ``layout[i]``, or the codes
    of a :class:`~svtgui.data.fingerprint.Block` of several (``ColumnSums.update_arrow``)."""
    total = max(total_rows, 1)
    local = threading.local()
    states: list[ColumnSums] = []

    def fold(batch: Any) -> int:
        if not hasattr(local, "sums"):
            local.sums = ColumnSums(columns, cells)
            states.append(local.sums)
        local.sums.update_arrow(batch, layout)
        return int(batch.num_rows)

    done = 0
    with ThreadPoolExecutor(FINGERPRINT_THREADS, thread_name_prefix="svtgui-fingerprint") as pool:
        pending: deque[Future[int]] = deque()
        try:
            for batch in batches:
                pending.append(pool.submit(fold, batch))
                while len(pending) > FINGERPRINT_THREADS or (pending and pending[0].done()):
                    done += pending.popleft().result()
                    textio.report(progress, min(done / total, 1.0))
            while pending:
                done += pending.popleft().result()
                textio.report(progress, min(done / total, 1.0))
        finally:
            for f in pending:
                f.cancel()
    sums = ColumnSums(columns, cells)
    for state in states:
        sums.merge(state)
    return sums
