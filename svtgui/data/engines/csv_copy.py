"""CSV and TSV on DuckDB: a validating, typing pass at open, then a private typed columnar copy.

Why (issue 25 §3): the memory loader's Python check of every record ran at 2.1–2.6 M lines/s,
2.8–4.9× DuckDB's own full read, and every plan then parsed the text again; at 5×10^7 rows open,
fingerprint and evaluation took 80 s against 18 s for a hand-written ``read_csv`` and GROUP BYs.

How: DuckDB reads the file, with the dialect the memory loader would use (its delimiter and
encoding, RFC 4180 quotes, its header or its names for a file without one, the empty lines before
the header skipped, strict mode, the missing markers as NULL), every cell as text cleaned by
``cells``' rule, twice, and never writes the texts:

1. **validate and type**: one aggregate over every cell counts the rows and types every column by
   :mod:`svtgui.data.inference` (the memory loader's rules: DuckDB's sniffer read ``007`` as text
   and ``yes`` as a boolean). DuckDB parses every record for it, so its refusals come from here.
2. **typed copy**: the file read again, each column cast to its kind, written as Parquet into the
   private working folder (``engines.scratch``: ``0700``, removed on close, at exit, and at the
   next start after a crash); every later pass (fingerprint, plans) reads it. A file that no longer
   casts or counts as it did in pass 1 is refused ("the file changed while it was read").

Parsing CSV is parallel in DuckDB and cheap beside writing texts to Parquet: the earlier design
(a copy of the cleaned texts, the aggregate over it, the typed copy from it) took 18.5 s for 5×10^6
rows of six columns where these two passes take 11.1 s (load 7.6–8.6). Spark needs the types only
(:func:`column_types`): pass 1 alone, nothing written.

DuckDB refuses ragged rows, broken quoting and bytes that are not UTF-8 itself; when it refuses,
the memory loader's own check runs once over the file so the refusal is the loader's line (a ragged
row with its line and field counts, text after a closing quote, …) on every engine. DuckDB accepts
a row longer than the header by empty fields (``2,y,``), even in strict mode, and reads a line of
only spaces as a row, so a file in which a delimiter ends a line or a blank starts one is counted by
the loader's check too. No comment lines: DuckDB's sniffer took ``#N/A`` for a comment and dropped
the row. A legacy encoding found late is read through a UTF-8 copy, as the loader falls back to
Windows-1252.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from svtgui.core.progress import ProgressState
from svtgui.data import inference, textio
from svtgui.data.cells import BLANKS
from svtgui.data.engines import scratch
from svtgui.data.engines.base import DUCKDB, EngineError, text_cell
from svtgui.data.errors import DatasetError
from svtgui.data.loaders import (
    UTF8,
    LoadOptions,
    check_delimited,
    check_header,
    delimited_dialect,
    headless_names,
)

_T = TypeVar("_T")
POLL_SECONDS = 0.1
SCAN_BYTES = 4 << 20
COPY_MEMORY = "512MB"
"""DuckDB's memory limit while it copies: without one the copy of 5×10^7 rows peaked at 1.4 GB;
with it, 0.34 GB for 10^7 rows, at the same speed (it streams row groups to the file)."""


@dataclass(frozen=True)
class ColumnarCopy:
    """The private Parquet copy of a delimited file (typed by :mod:`svtgui.data.inference`), the
    delimiter it was read with, its rows."""

    parquet: Path
    delimiter: str
    rows: int


def read_csv_sql(source: Path, delimiter: str, markers: frozenset[str], *, header: bool = True,
                 quoted_nulls: bool = True) -> str:
    """DuckDB's ``read_csv`` of ``source`` (UTF-8) with the memory loader's dialect (see the module
    docstring), every cell a text; without a ``header``, its columns get the memory loader's names;
    without ``quoted_nulls``, a quoted marker is a text (``""`` is not an empty line)."""
    nulls = ", ".join(DUCKDB.literal(m) for m in sorted(markers))
    names = "" if header else \
        f", names = [{', '.join(DUCKDB.literal(n) for n in headless_names(source, 'utf-8', delimiter))}]"
    return (f"read_csv({DUCKDB.file(source)}, header = {str(header).lower()}, "
            f"delim = {DUCKDB.literal(delimiter)}, quote = '\"', escape = '\"', "
            f"skip = {_blank_lines(source)}, comment = '', strict_mode = true, all_varchar = true, "
            f"allow_quoted_nulls = {str(quoted_nulls).lower()}, nullstr = [{nulls}]{names})")


def _blank_lines(source: Path) -> int:
    """The empty lines before the first record, which pandas skips (DuckDB took one for the header)."""
    lines = textio.read_sample(source).decode("utf-8", errors="replace").lstrip("\ufeff").splitlines()
    return next((i for i, line in enumerate(lines) if line), len(lines))


def columnar_copy(path: Path, options: LoadOptions, markers: frozenset[str],
                  progress: ProgressState | None = None) -> ColumnarCopy:
    """Validate ``path`` and write its private columnar copy (raises the loader's ``DatasetError``)."""
    def typed(cleaned: str, kinds: list[tuple[str, str]], delimiter: str, rows: int) -> ColumnarCopy:
        select = ", ".join(f"{inference.cast_sql(DUCKDB.ident(n), k)} AS {DUCKDB.ident(n)}" for n, k in kinds)
        try:
            parquet, copied = _copy(f"SELECT {select} FROM ({cleaned})", progress, (0.5, 0.95))
        except _Refused as refused:  # the file was read twice and no longer says what it said
            raise EngineError(f"the file changed while it was read: {refused.line}", path=path) from None
        if copied != rows:
            scratch.remove(parquet)
            raise EngineError("the file changed while it was read", path=path)
        return ColumnarCopy(parquet, delimiter, rows)

    return _validated(path, options, markers, progress, typed)


def column_types(path: Path, options: LoadOptions, markers: frozenset[str],
                 progress: ProgressState | None = None) -> list[tuple[str, str]]:
    """Validate ``path`` as :func:`columnar_copy` does and return each column's name and DuckDB type
    by ``data.inference``'s rules, without the typed copy (Spark reads the file itself)."""
    def types(cleaned: str, kinds: list[tuple[str, str]], delimiter: str, rows: int) -> list[tuple[str, str]]:
        del cleaned, delimiter, rows
        return [(n, inference.SQL_TYPES[k]) for n, k in kinds]

    return _validated(path, options, markers, progress, types)


def _validated(path: Path, options: LoadOptions, markers: frozenset[str], progress: ProgressState | None,
               then: Callable[[str, list[tuple[str, str]], str, int], _T]) -> _T:
    """``then`` of the validated file's cleaned reading (a ``SELECT`` of texts over ``read_csv``),
    its columns' kinds, its delimiter and its rows. The validating pass is the kinds' aggregate
    itself: DuckDB parses every record to compute it, so its refusals come from there."""
    encoding, delimiter = delimited_dialect(path, options)
    for _ in range(2):  # at most: a late legacy byte found by the loader's check
        text = None if encoding in UTF8 else scratch.utf8_copy(path, encoding, progress)
        try:
            try:
                cleaned, names = _cleaned(text or path, delimiter, markers, options.header)
                kinds, rows = _kinds(cleaned, names, progress)
                count = _loader_must_count(text or path, delimiter)
            except _Refused as refused:
                _, found = check_delimited(path, options, progress)  # the loader's words, when it refuses too
                if found == encoding:
                    raise EngineError(f"DuckDB cannot read this file: {refused.line}", path=path) from None
                encoding = found
                continue
            if count:  # rows longer by empty fields, lines of blanks: the loader counts every record's
                check_delimited(path, options, progress)
            check_header(path, options, encoding, delimiter)
            if rows == 0:  # a run on no rows would be charged for nothing
                raise DatasetError("the file has a header but no data rows", path=path, line=2)
            return then(cleaned, kinds, delimiter, rows)
        finally:
            scratch.remove(text)
    raise EngineError("DuckDB cannot read this file", path=path)


def _loader_must_count(path: Path, delimiter: str) -> bool:
    """Whether ``path`` may hold what DuckDB reads otherwise than the loader: a delimiter ending a
    line (DuckDB drops empty fields past the header's) or a line starting with a blank (a line of
    only spaces is a row to DuckDB, refused by the loader). A byte search, so only such files pay for
    the loader's count of every record's fields.

    Read in 4 MiB blocks, not mapped: a search of the whole file mapped in memory made every page
    of it resident in this process, and ``svtgui-cli run`` on a 1.45 GB CSV peaked at 1.5 GB."""
    end = delimiter.encode()
    marks = [end + b"\n", end + b"\r", b"\n ", b"\n\t", b"\r ", b"\r\t"]
    carry = b""
    with textio.open_regular(path) as f:
        block = f.read(SCAN_BYTES)
        if block[:1] in (b" ", b"\t"):
            return True
        while block:
            data = carry + block  # a mark split between two blocks is whole here
            if any(m in data for m in marks):
                return True
            carry = data[-len(end):]
            block = f.read(SCAN_BYTES)
    return carry == end


def _cleaned(source: Path, delimiter: str, markers: frozenset[str], header: bool) -> tuple[str, list[str]]:
    """A ``SELECT`` of every column of ``source`` read as texts, cleaned by ``cells``' rule
    (stripped, markers missing), and the columns' names.

    DuckDB's reader already made every cell that *is* a marker NULL (``nullstr``), so only a cell
    that holds a blank anywhere is stripped and compared with the markers again. ``contains`` is a
    byte search, cheaper than testing both ends for each blank: every column of 5×10^6 rows read
    and cleaned in 4.0 s against 5.9 s (load 7). In a file of one column DuckDB reads an empty line
    as a row (pandas, Spark and DuckDB itself in a wider file skip it): there only the unquoted
    empty cells are NULL when read, and their rows are dropped."""
    import duckdb

    reader = read_csv_sql(source, delimiter, markers, header=header)
    con = duckdb.connect(":memory:")
    try:
        names = [row[0] for row in con.execute(f"DESCRIBE SELECT * FROM {reader}").fetchall()]
    except duckdb.Error as e:
        raise _Refused(" ".join(str(e).split())[:300]) from None
    finally:
        con.close()
    if len(names) == 1:
        q = DUCKDB.ident(names[0])
        lines = read_csv_sql(source, delimiter, frozenset({""}), header=header, quoted_nulls=False)
        cell = text_cell(DUCKDB, names[0], markers)
        return f"SELECT {cell} AS {q} FROM {lines} WHERE {q} IS NOT NULL", names

    def cell(name: str) -> str:
        q = DUCKDB.ident(name)
        blank = " OR ".join(f"contains({q}, {DUCKDB.literal(b)})" for b in BLANKS)
        return f"CASE WHEN {blank} THEN {text_cell(DUCKDB, name, markers)} ELSE {q} END AS {q}"

    return f"SELECT {', '.join(cell(n) for n in names)} FROM {reader}", names


def _kinds(cleaned: str, names: list[str],
           progress: ProgressState | None) -> tuple[list[tuple[str, str]], int]:
    """Each column of ``cleaned`` and its kind by :mod:`svtgui.data.inference`, and the rows, from
    one aggregate pass (the one that validates the file)."""
    checks = [check for n in names for check in inference.kind_checks(DUCKDB.ident(n), numbers=True)]
    found = _interruptible(f"SELECT count(*), {', '.join(checks)} FROM ({cleaned})", progress, (0.0, 0.5))[0]
    kinds = [(n, inference.kind_from_checks(found[1 + 2 * i:3 + 2 * i])) for i, n in enumerate(names)]
    return kinds, int(found[0])


class _Refused(Exception):
    def __init__(self, line: str) -> None:
        super().__init__(line)
        self.line = line


def _copy(select: str, progress: ProgressState | None, span: tuple[float, float]) -> tuple[Path, int]:
    """``COPY (select) TO`` a fresh Parquet file (see :func:`_interruptible`); returns the file and
    its rows."""
    parquet = scratch.new_path(".parquet")
    try:
        done = _interruptible(f"COPY ({select}) TO {DUCKDB.literal(str(parquet))} "
                              "(FORMAT parquet, ROW_GROUP_SIZE 1000000)", progress, span)
    except BaseException:
        scratch.remove(parquet)
        raise
    return parquet, int(done[0][0])


def _interruptible(statement: str, progress: ProgressState | None,
                   span: tuple[float, float]) -> list[tuple]:
    """The rows of ``statement``, run on a thread with progress (in ``span``) and Cancel (DuckDB is
    interrupted); DuckDB's refusal is a :class:`_Refused`."""
    import duckdb

    con = duckdb.connect(":memory:")
    con.execute("SET enable_progress_bar = true")  # what query_progress() reads
    con.execute("SET enable_progress_bar_print = false")
    con.execute(f"SET memory_limit = {DUCKDB.literal(COPY_MEMORY)}")
    # rows may land in any order (25 % faster): answers and the fingerprint do not depend on it
    con.execute("SET preserve_insertion_order = false")
    outcome: list[Any] = []

    def run() -> None:
        try:
            outcome.append(con.execute(statement).fetchall())
        except BaseException as e:  # re-raised below, in the caller's thread
            outcome.append(e)

    worker = threading.Thread(target=run, name="svtgui-csv-copy", daemon=True)
    worker.start()
    try:
        while worker.is_alive():
            worker.join(POLL_SECONDS)
            done = con.query_progress()
            textio.report(progress, span[0] + max(done, 0.0) / 100 * (span[1] - span[0]))
    except BaseException:  # a cancel (LoadCancelled) or Ctrl-C: stop DuckDB
        con.interrupt()
        worker.join()
        con.close()
        raise
    con.close()
    result = outcome[0]
    if isinstance(result, duckdb.Error):
        raise _Refused(" ".join(str(result).split())[:300]) from None
    if isinstance(result, BaseException):
        raise result
    return result
