"""Spark: the data stays on a cluster (or Spark in local mode); only aggregates come back.

The session is created lazily from a master URL: ``local[*]`` / ``local[N]`` (Spark in this
process's JVM), ``spark://host:7077`` (standalone), ``yarn``, or ``sc://host:15002`` (Spark
Connect). The source is a path Spark can read (Parquet, CSV/TSV, JSON lines; local or ``hdfs://``,
``s3a://`` …) or ``table:NAME`` from the session's catalogue. Every job runs in its own job group
and is cancelled after ``timeout`` seconds, so an unreachable master or a stuck cluster becomes a
clear error instead of a hang.

What travels: the SQL of each aggregate (query definitions) to the cluster, and the grouped counts
and sums back. Mechanism, noise, thresholds and the ledger never leave this process.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
import time
import uuid
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pandas as pd

from svtgui.core.progress import ProgressState
from svtgui.data import textio
from svtgui.data.cells import missing_markers
from svtgui.data.engines import scratch
from svtgui.data.engines.base import SPARK, ColumnType, EngineError, TableEngine, lists_as_tuples, text_cell
from svtgui.data.errors import LoadCancelled
from svtgui.data.fingerprint import ColumnSums

DEFAULT_TIMEOUT = 600.0
CANCEL_CHECK = 0.2  # seconds between looks at the caller's Cancel while a job runs
_NUMERIC = ("tinyint", "smallint", "int", "bigint", "float", "double", "decimal")
_ITEMS = ("array<string>", "array<int>", "array<bigint>", "array<smallint>", "array<tinyint>")
SPARK_LOG = "SVTGUI_SPARK_LOG"
"""Environment variable: a file to which the driver JVM's own output (log4j, Java stacks) is appended.
Unset, that output goes nowhere: the curator sees SVT Studio's one-line messages only."""
_CAST = {"BOOLEAN": "boolean", "TINYINT": "bigint", "SMALLINT": "bigint", "INTEGER": "bigint",
         "BIGINT": "bigint", "DATE": "timestamp", "VARCHAR": "string"}
"""DuckDB's sniffed type of a delimited column → the Spark type its text is cast to (others: double;
timestamps: timestamp)."""


def kind_of(type_name: str) -> str | None:
    t = type_name.lower()
    if t in _ITEMS:
        return "itemset"
    if t in ("void", "null"):  # a field that is null on every line: missing numbers, as in memory
        return "numeric"
    if t == "boolean":
        return "boolean"
    if t.split("(")[0] in _NUMERIC:
        return "numeric"
    if t in ("date", "timestamp", "timestamp_ntz"):
        return "datetime"
    if t == "string" or t.startswith(("varchar", "char")):
        return "categorical"
    return None


def _quiet_import() -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # pyspark's pandas-version notice
        try:
            from pyspark.sql import SparkSession
        except ImportError:
            raise EngineError("the spark engine needs PySpark: pip install 'svtgui[spark]'") from None
    return SparkSession


class SparkTable(TableEngine):
    """A dataset read by Spark (``fmt``: parquet, csv, tsv, jsonl, or table)."""

    name = "spark"
    dialect = SPARK

    def __init__(self, master: str, source: str, fmt: str, *, conf: dict[str, str] | None = None,
                 delimiter: str | None = None, markers: frozenset[str] | None = None,
                 timeout: float | None = None, text_types: list[tuple[str, str]] | None = None,
                 json_texts: frozenset[str] = frozenset(), copy: Path | None = None,
                 header: bool = True, nanoseconds: frozenset[str] = frozenset()) -> None:
        self.master = master
        self.source = source
        self.fmt = fmt
        self.conf = dict(conf or {})
        self.delimiter = delimiter
        self.header = header  # delimited text: False when its first line is a record (names from text_types)
        self.markers = missing_markers(("?",)) if markers is None else markers
        self.text_types = text_types  # delimited text: (column, DuckDB type) to cast each text column to
        self.json_texts = json_texts  # JSON fields read as text and cast to their type, as delimited text
        self.nanoseconds = nanoseconds  # Parquet columns of nanosecond timestamps (Spark reads them as longs)
        self.copy = copy  # a private UTF-8 copy of ``source`` to read instead (engines.scratch), or None
        self._release = scratch.removed_with(self, copy)  # the copy goes with this table
        self.timeout = timeout or DEFAULT_TIMEOUT
        self.relation = f"svt_{uuid.uuid4().hex[:12]}"
        self._df: Any = None
        self._spark: Any = None  # the session, once started (not sent to the run process)
        self._columns: list[ColumnType] | None = None
        self._rows: int | None = None

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_df": None, "_spark": None, "_release": None}

    @property
    def location(self) -> str:
        return f"{self.source} on {self.master}"

    # -- session and view ---------------------------------------------------------------------
    def session(self) -> Any:
        spark_session = _quiet_import()
        builder = spark_session.builder.appName("SVT Studio")
        builder = builder.remote(self.master) if self.master.startswith("sc://") else \
            builder.master(self.master).config("spark.ui.enabled", "false")
        if self.master.startswith("local"):
            # local Python workers (the fingerprint's mapInArrow) run this interpreter, which has
            # pyarrow and numpy, not whichever python3 comes first on PATH (PySpark reads only this)
            os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
        for k, v in self.conf.items():
            builder = builder.config(k, v)
        if self._spark is not None:
            return self._spark
        result: list[Any] = []
        errors: list[BaseException] = []

        def start() -> None:
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", FutureWarning)
                    result.append(builder.getOrCreate())
            except BaseException as e:  # Java missing, bad master URL, Connect server down
                errors.append(e)

        _py4j_logs_hidden()
        starter = threading.Thread(target=start, name="svtgui-spark-start", daemon=True)
        with _jvm_output_hidden(not self.master.startswith("sc://")):
            starter.start()
            starter.join(self.timeout)
        if errors or not result:
            why = _first_line(errors[0]) if errors else f"no answer within {self.timeout:g} s"
            raise EngineError(f"Spark did not start on {self.master} (is the master reachable, and Java "
                              f"17+ installed?): {why}")
        self._spark = result[0]
        return self._spark

    def _frame(self) -> Any:
        if self._df is None:
            spark = self.session()

            source = self.source if self.fmt == "table" else _literal_path(self.copy or self.source)

            def read() -> Any:
                if self.fmt == "table":
                    return spark.table(self.source[len("table:"):].strip())
                if self.fmt == "parquet":
                    if self.nanoseconds:  # Spark refuses nanosecond timestamps unless read as longs
                        spark.conf.set("spark.sql.legacy.parquet.nanosAsLong", "true")
                    return spark.read.parquet(source)
                if self.fmt == "jsonl":
                    reader = spark.read
                    if self.text_types is not None:
                        reader = reader.schema(", ".join(
                            f"{SPARK.ident(n)} {'string' if n in self.json_texts else _json_type(t)}"
                            for n, t in self.text_types))
                    return reader.json(source)
                # RFC 4180, as the other engines read it: a quoted field may hold line breaks
                # (multiLine), and a quote inside one is doubled (escape), not backslashed
                reader = spark.read.option("header", str(self.header).lower()).option("multiLine", "true") \
                    .option("quote", '"').option("escape", '"')
                if self.text_types is not None:  # every cell as text; cast in the view below
                    reader = reader.schema(", ".join(f"{SPARK.ident(n)} string" for n, _ in self.text_types))
                else:
                    reader = reader.option("inferSchema", "true")
                sep = self.delimiter or ("\t" if self.fmt == "tsv" else ",")
                return reader.option("sep", sep).csv(source)

            df = self._guarded(read, "reading the source")
            if self.nanoseconds:  # floored to the microsecond, as every engine holds a datetime
                df = df.selectExpr(*(f"timestamp_micros(({q} - pmod({q}, 1000)) div 1000) AS {q}"
                                     if c in self.nanoseconds else q
                                     for c in df.columns for q in [SPARK.ident(c)]))
            if self.text_types is not None:  # delimited text, JSON fields of texts: cast as DuckDB typed them
                df = df.selectExpr(*(_cast_text(name, duck, self.markers)
                                     if self.fmt != "jsonl" or name in self.json_texts else SPARK.ident(name)
                                     for name, duck in self.text_types))
            columns, select = [], []
            for field in df.schema.fields:
                type_name = field.dataType.simpleString()
                kind = kind_of(type_name)
                if kind is None:
                    raise EngineError(f"{self.source}, column {field.name!r}: column type {type_name} is not "
                                      "supported (numbers, texts, true/false, dates and arrays of items are)")
                q = SPARK.ident(field.name)
                is_float = type_name in ("float", "double")
                if is_float:
                    select.append(f"CASE WHEN isnan({q}) THEN NULL ELSE CAST({q} AS DOUBLE) END AS {q}")
                elif type_name.startswith("decimal") or kind == "numeric" and type_name in ("void", "null"):
                    select.append(f"CAST({q} AS DOUBLE) AS {q}")
                    is_float = True
                elif type_name == "date":
                    select.append(f"CAST({q} AS TIMESTAMP) AS {q}")
                elif kind == "categorical":
                    select.append(f"{text_cell(SPARK, field.name, self.markers)} AS {q}")
                else:
                    select.append(q)
                columns.append(ColumnType(field.name, type_name, kind, is_float))
            df = df.selectExpr(*select)
            df.createOrReplaceTempView(self.relation)
            self._df, self._columns = df, columns
        return self._df

    def _guarded(self, work: Callable[[], Any], what: str, progress: ProgressState | None = None) -> Any:
        """Run ``work`` in its own job group; cancel it and raise after ``timeout`` seconds, or as soon
        as ``progress`` says the caller cancelled (``LoadCancelled``: the window's Cancel)."""
        spark = self.session()
        group = f"svtgui-{uuid.uuid4().hex[:8]}"
        result: list[Any] = []
        errors: list[BaseException] = []

        def run() -> None:
            try:
                if hasattr(spark, "sparkContext") and not self.master.startswith("sc://"):
                    spark.sparkContext.setJobGroup(group, "SVT Studio", interruptOnCancel=True)
                result.append(work())
            except BaseException as e:  # re-raised below, in the caller's thread
                errors.append(e)

        worker = threading.Thread(target=run, name="svtgui-spark", daemon=True)
        worker.start()
        deadline = time.monotonic() + self.timeout
        while worker.is_alive() and time.monotonic() < deadline:
            left = max(deadline - time.monotonic(), 0.0)
            worker.join(min(CANCEL_CHECK, left) if progress is not None else left)
            if worker.is_alive() and progress is not None and progress.is_cancelled():
                self._cancel(spark, group)
                raise LoadCancelled("loading was cancelled")
        if worker.is_alive():
            self._cancel(spark, group)
            raise EngineError(f"Spark on {self.master} did not answer within {self.timeout:g} s ({what}); "
                              "is the master reachable and does it have free executors?")
        if errors:
            e = errors[0]
            damage = _parquet_damage(e) if self.fmt == "parquet" else None
            if damage:  # a damaged page, found when it is first read: the loader's words
                raise EngineError(f"not a readable Parquet file ({damage})", path=self.source) from None
            raise EngineError(f"Spark failed ({what}) on {self.master}: {_first_line(e)}") from None
        return result[0]

    def _cancel(self, spark: Any, group: str) -> None:
        if not self.master.startswith("sc://"):
            spark.sparkContext.cancelJobGroup(group)

    # -- the seam -------------------------------------------------------------------------------
    def columns(self) -> list[ColumnType]:
        self._frame()
        assert self._columns is not None
        return self._columns

    def row_count(self) -> int:
        if self._rows is None:
            df = self._frame()
            self._rows = int(self._guarded(df.count, "counting rows"))
        return self._rows

    def preview(self, rows: int) -> pd.DataFrame:
        df = self._frame()
        head = self._guarded(lambda: df.limit(int(rows)).toArrow(), "reading a preview")
        return lists_as_tuples(head.to_pandas())

    def sql(self, text: str) -> pd.DataFrame:
        self._frame()
        spark = self.session()
        return self._guarded(lambda: spark.sql(text).toArrow().to_pandas(), "an aggregate")

    def batches(self, rows: int) -> Iterator[pd.DataFrame]:
        """The rows streamed to the driver, a partition at a time (only for the legacy fingerprint);
        a failure on the way is an EngineError like every other Spark failure (CLI exit 2)."""
        df = self._frame()
        names = [c.name for c in self.columns()]
        chunk: list[Any] = []
        try:
            for row in df.toLocalIterator(prefetchPartitions=True):
                chunk.append(tuple(row))
                if len(chunk) >= rows:
                    yield lists_as_tuples(pd.DataFrame.from_records(chunk, columns=names))
                    chunk = []
        except Exception as e:  # py4j and PySpark errors, an executor or the driver out of memory
            raise EngineError(f"Spark failed (streaming the rows) on {self.master}: "
                              f"{_first_line(e)}") from None
        if chunk:
            yield lists_as_tuples(pd.DataFrame.from_records(chunk, columns=names))

    def column_sums(self, cells: bytes, progress: ProgressState | None) -> ColumnSums:
        """Partial sums per partition on the executors (``mapInArrow``), merged here: the rows are
        never collected to the driver (10^7 rows need no more driver memory than 10^3). The module
        that hashes is shipped to the executors by value, so they need no SVT Studio install; they
        receive the cell key only, never the ledger key."""
        from pyspark import cloudpickle

        from svtgui.data import fingerprint

        df, columns = self._frame(), len(self.columns())
        textio.report(progress, 0.0)
        cloudpickle.register_pickle_by_value(fingerprint)
        with warnings.catch_warnings():  # mapInArrow checks pandas' version: a two-line FutureWarning
            warnings.simplefilter("ignore", FutureWarning)  # beside a new dataset's run, unasked
            job = df.mapInArrow(fingerprint.partition_sums(cells, columns), fingerprint.PARTITION_SCHEMA)
        parts = self._guarded(job.toArrow, "fingerprinting the rows", progress)
        textio.report(progress, 1.0)
        return fingerprint.merge_partitions(parts, columns, cells)

    def close(self) -> None:
        self._df = None
        if self._release is not None:
            self._release()


def _cast_text(name: str, duck_type: str, markers: frozenset[str]) -> str:
    """A delimited column read as text, as the value DuckDB reads: markers missing, blanks stripped,
    the text cast to the type DuckDB's sniffer chose (cells.py's rule; the view strips texts again)."""
    base = duck_type.upper().split("(")[0]
    target = _CAST.get(base, "timestamp" if base.startswith("TIMESTAMP") else "double")
    q = SPARK.ident(name)
    cell = text_cell(SPARK, name, markers)
    return f"{cell} AS {q}" if target == "string" else f"CAST({cell} AS {target}) AS {q}"


def _json_type(duck_type: str) -> str:
    """The Spark type a JSON field is read as, from DuckDB's sniffed type (lists: arrays)."""
    t = duck_type.upper()
    if t.endswith("[]"):
        return "array<string>" if t[:-2] == "VARCHAR" else "array<bigint>"
    base = t.split("(")[0].strip('"')
    if base == "NULL":
        return "double"
    if base == "JSON":  # a field holding numbers and texts: read as text
        return "string"
    return _CAST.get(base, "timestamp" if base.startswith("TIMESTAMP") else "double")


@contextmanager
def _jvm_output_hidden(active: bool) -> Iterator[None]:
    """While the driver JVM starts (it inherits this process's stderr and stdout for good), point
    both at ``$SVTGUI_SPARK_LOG`` or nowhere: log4j's warnings and Java stack traces must never
    reach the curator unasked. Restored as soon as the session exists."""
    if not active:
        yield
        return
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    target = os.open(os.environ.get(SPARK_LOG) or os.devnull, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    saved = [os.dup(1), os.dup(2)]
    try:
        os.dup2(target, 1)
        os.dup2(target, 2)
        yield
    finally:
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for fd in (*saved, target):
            os.close(fd)


class _SparkLogHandler(logging.Handler):
    """The root logger's handler while Spark is used: what py4j or PySpark log goes to
    ``$SVTGUI_SPARK_LOG`` or nowhere, anything else to stderr as Python's last resort would."""

    def emit(self, record: logging.LogRecord) -> None:
        if not any(part in ("py4j", "pyspark") for part in Path(record.pathname).parts):
            if record.levelno >= logging.lastResort.level:  # type: ignore[union-attr]
                logging.lastResort.handle(record)  # type: ignore[union-attr]
            return
        if target := os.environ.get(SPARK_LOG):
            with open(target, "a", encoding="utf-8") as log:
                log.write(logging.Formatter().format(record) + "\n")


def _py4j_logs_hidden() -> None:
    """py4j reports a Ctrl-C or SIGTERM that comes while it waits on the JVM with the root logger
    (``logging.exception``), and with no handler there that call configures one on stderr: the
    curator read 'ERROR:root:KeyboardInterrupt while sending command.' and a 12-line traceback
    above the one "interrupted" line. A root logger someone configured is left as it is."""
    root = logging.getLogger()
    if not root.handlers:
        root.addHandler(_SparkLogHandler())


def _parquet_damage(e: BaseException) -> str | None:
    """The line of a Spark failure that says a Parquet page could not be read, if it says so."""
    for line in str(e).splitlines():
        if "Exception" in line and any(w in line.lower() for w in ("parquet", "decompress", "corrupt")):
            return line.strip()[:400]
    return None


def _first_line(e: BaseException) -> str:
    """The line that says what went wrong: the first, or for a Python worker's traceback the last."""
    text = str(e).strip()
    lines = text.splitlines()
    if "Traceback (most recent call last)" in text:
        lines = [next((ln for ln in reversed(lines) if ln.strip() and not ln.startswith("\t")), "")]
    for line in lines:
        line = line.strip()
        if line:
            return line[:400]
    return type(e).__name__


def _literal_path(path: str | Path) -> str:
    """The local file ``path`` for Spark's readers, which read ``[``, ``]``, ``{``, ``}``, ``*``, ``?``
    and ``\\`` in a path as a Hadoop glob (``sales[1].csv`` read ``sales1.csv``; ``q?.csv`` every
    match at once): each is escaped with a backslash, so exactly the file the other engines read is read."""
    return "".join("\\" + c if c in "[]{}*?\\" else c for c in str(path))
