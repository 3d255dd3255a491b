"""Which engine evaluates a dataset, and opening it there.

Automatic choice (``engine=None`` or ``"auto"``): a ``table:NAME`` source lives in a Spark catalogue,
so Spark; a file larger than the threshold (default 1 GB, the ``engines/large_file_bytes`` setting),
or a Parquet file whose footer says more than 10^7 rows, opens on DuckDB; anything else is loaded
into memory. Excel and FIMI files always use memory (DuckDB and Spark do not read them). The choice
comes with its reason, in words the Dataset page shows.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from svtgui.core.progress import ProgressState
from svtgui.data.cells import missing_markers
from svtgui.data.dataset import Dataset
from svtgui.data.engines import scratch
from svtgui.data.engines.base import ENGINES, EngineError, EngineRefused, TableEngine, duckdb_file
from svtgui.data.engines.dataset import TableDataset
from svtgui.data.engines.parquet_footer import plain_rows
from svtgui.data.file_state import file_state
from svtgui.data.loaders import (
    _SUFFIXES,
    UTF8,
    LoadOptions,
    _check_path,
    check_delimited,
    check_jsonl,
    check_parquet,
    declared_schema,
    parquet_nanosecond_columns,
)
from svtgui.data.schema import Column, Schema

LARGE_FILE_BYTES = 1 << 30
LARGE_PARQUET_ROWS = 10**7
TABLE_PREFIX = "table:"
TABLE_FORMATS = ("parquet", "csv", "tsv", "jsonl")
DEFAULT_MASTER = "local[*]"


@dataclass(frozen=True)
class EngineChoice:
    engine: str
    reason: str


def _size_text(n: int) -> str:
    for unit in ("bytes", "KB", "MB", "GB", "TB"):
        if n < 1000 or unit == "TB":
            return f"{n:.0f} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1000
    raise AssertionError


def _format(path: Path, options: LoadOptions) -> str | None:
    return options.format or _SUFFIXES.get(path.suffix.lower())


def parquet_rows(path: Path) -> int | None:
    """Rows from a Parquet footer (no scan, read by DuckDB: no pyarrow), or None if the footer cannot
    be read (a broken footer is reported properly by whichever engine opens the file)."""
    import duckdb

    try:
        con = duckdb.connect(":memory:", config={"threads": 1})
        try:
            metadata = f"parquet_file_metadata({duckdb_file(path)})"
            rows = con.execute(f"SELECT sum(num_rows) FROM {metadata}").fetchone()
        finally:
            con.close()
    except duckdb.Error:
        return None
    return int(rows[0]) if rows and rows[0] is not None else None


def choose_engine(source: str | Path, requested: str | None = None, options: LoadOptions | None = None,
                  *, large_file_bytes: int = LARGE_FILE_BYTES) -> EngineChoice:
    """The engine for ``source`` and why (``requested``: memory, duckdb, spark, or None/auto)."""
    if requested not in (None, "auto", *ENGINES):
        raise EngineError(f"unknown engine {requested!r}; engines: auto, {', '.join(ENGINES)}")
    text = str(source)
    if text.startswith(TABLE_PREFIX):
        if requested not in (None, "auto", "spark"):
            raise EngineRefused(f"{text} is a Spark catalogue table; only the spark engine reads it")
        return EngineChoice("spark", "a catalogue table is read by Spark")
    if requested not in (None, "auto"):
        return EngineChoice(requested, "chosen by you")
    path = Path(source)
    fmt = _format(path, options or LoadOptions())
    try:
        size = path.stat().st_size
    except OSError:
        return EngineChoice("memory", "small file")
    if fmt in ("excel", "fimi"):
        return EngineChoice("memory", f"{fmt} files are read into memory")
    if size > large_file_bytes:
        return EngineChoice("duckdb", f"file is {_size_text(size)} (> {_size_text(large_file_bytes)}): read "
                                      "in place by DuckDB")
    if fmt == "parquet":
        rows = parquet_rows(path)
        if rows is not None and rows > LARGE_PARQUET_ROWS:
            return EngineChoice("duckdb", f"Parquet file with {rows:,} rows (> {LARGE_PARQUET_ROWS:,}): read "
                                          "in place by DuckDB")
    return EngineChoice("memory", f"file is {_size_text(size)}: loaded into memory")


def _check_file(path: Path, fmt: str, options: LoadOptions,
                progress: ProgressState | None) -> tuple[str | None, Path | None]:
    """The memory loader's refusals for a file Spark will read (same messages). Returns, for
    delimited text, the delimiter to give Spark (its own guess is what goes wrong), and for text in
    an encoding other than UTF-8 a private UTF-8 copy for it to read instead."""
    delimiter, encoding = None, "utf-8"
    if fmt in ("csv", "tsv"):
        delimiter, encoding = check_delimited(path, options, progress)
    elif fmt == "parquet" and plain_rows(path) is None:  # a plain footer is accepted without pyarrow
        check_parquet(path)
    elif fmt == "jsonl":
        encoding = check_jsonl(path, options, progress)
    return delimiter, None if encoding in UTF8 else scratch.utf8_copy(path, encoding, progress)


def _duckdb_table(path: Path, fmt: str, options: LoadOptions, markers: frozenset[str],
                  progress: ProgressState | None) -> TableEngine:
    """DuckDB on ``path`` after the memory loader's refusals (same messages). Delimited text is read
    once, validated by DuckDB, into a private columnar copy that every later pass reads
    (``csv_copy``); JSON lines in another encoding than UTF-8 through a UTF-8 copy."""
    from svtgui.data.engines.duckdb_engine import DuckDBTable

    if fmt in ("csv", "tsv"):
        from svtgui.data.engines.csv_copy import columnar_copy

        copy = columnar_copy(path, options, markers, progress)
        return DuckDBTable(path, "parquet", delimiter=copy.delimiter, markers=markers, copy=copy.parquet)
    delimiter, text = _check_file(path, fmt, options, progress)
    return DuckDBTable(path, fmt, delimiter=delimiter, markers=markers, copy=text)


def open_dataset(source: str | Path, options: LoadOptions | None = None,
                 progress: ProgressState | None = None, *, engine: str | None = None,
                 spark_master: str | None = None, spark_conf: dict[str, str] | None = None,
                 spark_timeout: float | None = None,
                 large_file_bytes: int = LARGE_FILE_BYTES) -> Dataset:
    """Open ``source`` (a path, or ``table:NAME`` for Spark) on the chosen engine.

    Raises ``DatasetError`` (``EngineError`` for engine failures) with a one-line message; nothing
    is charged or written by opening.
    """
    options = options or LoadOptions()
    if spark_master is not None and engine in (None, "auto"):
        engine = "spark"
    choice = choose_engine(source, engine, options, large_file_bytes=large_file_bytes)
    if choice.engine == "memory":
        from svtgui.data.engines.memory import open_memory

        return open_memory(source, options, progress)
    text = str(source)
    if text.startswith(TABLE_PREFIX):
        path, fmt, name = None, "table", text[len(TABLE_PREFIX):].strip()
        if not name:
            raise EngineError("give a table name after 'table:'")
    else:
        path = Path(source)
        fmt = _check_path(path, options)
        name = path.stem
        if fmt not in TABLE_FORMATS:
            raise EngineRefused(f"{fmt} files are read by the memory engine only, not by {choice.engine}",
                                path=path)
    state = file_state(path)  # before the engine reads anything
    markers = missing_markers(options.missing, options.standard_missing)
    table: TableEngine
    if choice.engine == "duckdb":
        assert path is not None
        table = _duckdb_table(path, fmt, options, markers, progress)
    else:
        from svtgui.data.engines.spark_engine import SparkTable

        delimiter, copy, text_types, json_texts = options.delimiter, None, None, frozenset[str]()
        if path is not None:  # the memory loader's refusals first: every engine gives the same verdict
            checked, copy = _check_file(path, fmt, options, progress)
            delimiter = checked or delimiter
        if path is not None and fmt in ("csv", "tsv"):
            # Spark reads every cell as text and casts each column to the type DuckDB's validating
            # pass gives it (data.inference's rules), so every engine (and fingerprint) sees the same values
            from svtgui.data.engines.csv_copy import column_types

            text_types = column_types(copy or path, replace(options, encoding=None) if copy else options,
                                      markers, progress)
        elif path is not None and fmt == "jsonl":
            # Spark reads JSON lines with the columns and types DuckDB gives the same file (its own
            # inference orders fields by name and reads an all-null field as text)
            from svtgui.data.engines.duckdb_engine import DuckDBTable

            sniffer = DuckDBTable(path, fmt, delimiter=delimiter, markers=markers, threads=1, copy=copy,
                                  header=options.header)
            try:
                text_types = [(c.name, c.type_name) for c in sniffer.columns()]
                json_texts = frozenset(c.name for c in sniffer.columns() if c.from_text)
            finally:
                sniffer.close(keep_copy=True)
        nanoseconds = frozenset(parquet_nanosecond_columns(path)) if path is not None and fmt == "parquet" \
            else frozenset[str]()
        table = SparkTable(spark_master or DEFAULT_MASTER, text if path is None else str(path), fmt,
                           conf=spark_conf or {}, delimiter=delimiter, markers=markers,
                           timeout=spark_timeout, text_types=text_types, json_texts=json_texts, copy=copy,
                           header=options.header, nanoseconds=nanoseconds)
    columns = table.columns()
    if path is not None and table.row_count() == 0:  # a run on no rows would be charged for nothing
        raise EngineError("the file has a header but no data rows", path=path, line=2)  # the loader's words
    inferred = Schema(tuple(Column(c.name, c.kind) for c in columns))
    schema = declared_schema(path, inferred, options, table.row_count()) if path is not None else inferred
    return TableDataset(name, path, schema, fmt, table, choice.reason, file_state=state)
