"""CSV and TSV on DuckDB: one validating, typing parse at open into a private typed columnar copy.

Why (issue 25 §3): the memory loader's Python check of every record ran at 2.1–2.6 M lines/s,
2.8–4.9× DuckDB's own full read, and every plan then parsed the text again; at 5×10^7 rows open,
fingerprint and evaluation took 80 s against 18 s for a hand-written ``read_csv`` and GROUP BYs.

How: DuckDB reads the file, with the dialect the memory loader would use (its delimiter and
encoding, RFC 4180 quotes, its header or its names for a file without one, the empty lines before
the header skipped, strict mode, the missing markers as NULL), every cell as text cleaned by
``cells``' rule, and types each column by :mod:`svtgui.data.inference` (the memory loader's rules,
over the whole column: DuckDB's sniffer read ``007`` as text and ``yes`` as a boolean):

1. **sample**: the kinds of the first :data:`SAMPLE_ROWS` rows and of the lines in the last
   :data:`TAIL_BYTES` (one aggregate over the file's start and a private copy of its end);
2. **typed copy**: the whole file parsed once and written as Parquet into the private working
   folder (``engines.scratch``: ``0700``, removed on close, at exit, and at the next start after a
   crash), each cell cast to its column's kind on the sample *after a check that it allows that
   kind* (:func:`inference.allows_kind`). Every cell allowing it is exactly the condition for the
   whole column to have that kind, so the copy is typed as an aggregate over every cell would type
   it. DuckDB parses every record for it, so its refusals come from here. A cell that does not
   allow its kind stops the copy (:data:`KIND_DIFFERS`) and the file is read twice, as before 27
   November: one aggregate types every column, then the copy is cast to those kinds (a file that
   no longer casts or counts as it did is refused, "the file changed while it was read"). Such a
   file pays for the stopped copy besides: up to three parses where the two-read open made two;
3. **the loader's count**, only for a file where a byte search finds what DuckDB reads otherwise
   (below), and the header's names.

Every later pass (fingerprint, plans) reads the copy. A file whose state (size, times, sampled
blocks: ``data.file_state``) differs after the copy from before the sample is refused. Spark needs
the types only (:func:`column_types`): the aggregate over every cell, nothing written.

Where the time goes (docs/scale.md; the 10^7-row census CSV of ``bench/scale.py``, 290 MB, CPU s of
DuckDB's threads): parsing every cell as text 2.8 (with the markers as NULL; 1.7 typed by DuckDB's
own guesses), cleaning 1.1 for the cells that need it, the kind checks 1.3, the Parquet write
1.5. The two-parse open cost the parse twice and the aggregate's tests besides.

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

import contextlib
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from svtgui.core.progress import ProgressState
from svtgui.data import inference, textio
from svtgui.data.cells import BLANKS
from svtgui.data.engines import scratch
from svtgui.data.engines.base import DUCKDB, EngineError, duckdb_file, text_cell
from svtgui.data.errors import DatasetError
from svtgui.data.file_state import file_state, unchanged_since
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
SAMPLE_ROWS = 100_000
TAIL_BYTES = 1 << 20
"""The kinds the one-read copy assumes for the whole file are those of its first ``SAMPLE_ROWS``
rows and of the lines in its last ``TAIL_BYTES`` (a cell that disagrees makes the open read the
file twice: the answer is the same, only slower)."""
KIND_DIFFERS = "svtgui: a cell does not allow its column's kind on the sample"
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
    return (f"read_csv({duckdb_file(source)}, header = {str(header).lower()}, "
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
    state = file_state(path)  # before anything is read: a file rewritten meanwhile is refused

    def copied(reading: _Reading, delimiter: str) -> tuple[ColumnarCopy, int]:
        guess = _guess(reading, delimiter, markers, options.header)
        try:  # one read: the copy, each cell checked against its column's kind on the sample
            parquet, rows = _copy(_typed_select(reading, guess, checked=True), progress, (0.0, 0.95))
        except _Refused as refused:
            if KIND_DIFFERS not in refused.line:
                raise
            parquet, rows = _two_reads(path, reading, progress)
        if unchanged_since(state, path) is None:
            scratch.remove(parquet)
            raise EngineError("the file changed while it was read", path=path)
        return ColumnarCopy(parquet, delimiter, rows), rows

    return _validated(path, options, markers, progress, copied, lambda copy: scratch.remove(copy.parquet))


def _two_reads(path: Path, reading: _Reading, progress: ProgressState | None) -> tuple[Path, int]:
    """The copy when a cell did not allow its column's kind on the sample: every column's kind from
    one aggregate over the whole file, then the copy cast to those kinds (the file read twice)."""
    kinds, rows = _kinds(reading.cleaned, reading.names, progress, (0.0, 0.5))
    try:
        parquet, copied = _copy(_typed_select(reading, kinds, checked=False), progress, (0.5, 0.95))
    except _Refused as refused:  # the file no longer says what it said
        raise EngineError(f"the file changed while it was read: {refused.line}", path=path) from None
    if copied != rows:
        scratch.remove(parquet)
        raise EngineError("the file changed while it was read", path=path)
    return parquet, rows


def _typed_select(reading: _Reading, kinds: list[tuple[str, str]], *, checked: bool) -> str:
    """``reading``'s cleaned columns cast to their ``kinds`` (in the columns' order). ``checked``: a
    cell that does not allow its column's kind stops the statement with :data:`KIND_DIFFERS`.

    A cell as read that allows a kind other than text is its own cleaned text (every such kind's
    texts begin and end with no blank, and an exact marker was read as NULL), so a checked column
    cleans only the cells that do not: 1.1 s of CPU less per 10^7 rows of census-like numbers."""
    def column(name: str, cell: str, kind: str) -> str:
        if not checked or kind == inference.TEXT_KIND:
            return f"{inference.cast_sql(cell, kind)} AS {DUCKDB.ident(name)}"
        shapes = [DUCKDB.ident(name), cell] if reading.markers_read else [cell]
        tests = " ".join(f"WHEN {inference.allows_kind(x, kind, numbers=True)} "
                         f"THEN {inference.cast_sql(x, kind)}" for x in shapes)
        return f"CASE {tests} ELSE error({DUCKDB.literal(KIND_DIFFERS)}) END AS {DUCKDB.ident(name)}"

    return reading.select([column(n, c, k) for (n, k), c in zip(kinds, reading.cells, strict=True)])


def column_types(path: Path, options: LoadOptions, markers: frozenset[str],
                 progress: ProgressState | None = None) -> list[tuple[str, str]]:
    """Validate ``path`` as :func:`columnar_copy` does and return each column's name and DuckDB type
    by ``data.inference``'s rules, without the typed copy (Spark reads the file itself): the kinds'
    aggregate is the validating pass."""
    def types(reading: _Reading, delimiter: str) -> tuple[list[tuple[str, str]], int]:
        del delimiter
        kinds, rows = _kinds(reading.cleaned, reading.names, progress, (0.0, 0.5))
        return [(n, inference.SQL_TYPES[k]) for n, k in kinds], rows

    return _validated(path, options, markers, progress, types, lambda _: None)


def _validated(path: Path, options: LoadOptions, markers: frozenset[str], progress: ProgressState | None,
               read: Callable[[_Reading, str], tuple[_T, int]], discard: Callable[[_T], None]) -> _T:
    """``read`` of the file as DuckDB reads it and of its delimiter, then the checks DuckDB does not
    make. ``read`` is the pass that parses every record (DuckDB refuses there); it returns what it
    made and the rows, and what it made is ``discard``-ed when a later check refuses the file."""
    encoding, delimiter = delimited_dialect(path, options)
    for _ in range(2):  # at most: a late legacy byte found by the loader's check
        text = None if encoding in UTF8 else scratch.utf8_copy(path, encoding, progress)
        try:
            try:
                made, rows = read(_reading(text or path, delimiter, markers, options.header), delimiter)
            except _Refused as refused:
                _, found = check_delimited(path, options, progress)  # the loader's words, when it refuses too
                if found == encoding:
                    raise EngineError(f"DuckDB cannot read this file: {refused.line}", path=path) from None
                encoding = found
                continue
            try:
                if _loader_must_count(text or path, delimiter):  # rows longer by empty fields, lines of
                    check_delimited(path, options, progress)  # blanks: the loader counts every record's
                check_header(path, options, encoding, delimiter)
                if rows == 0:  # a run on no rows would be charged for nothing
                    raise DatasetError("the file has a header but no data rows", path=path, line=2)
            except BaseException:
                discard(made)
                raise
            return made
        finally:
            scratch.remove(text)
    raise EngineError("DuckDB cannot read this file", path=path)


def _loader_must_count(path: Path, delimiter: str) -> bool:
    """Whether ``path`` may hold what DuckDB reads otherwise than the loader: a delimiter ending a
    line (DuckDB drops empty fields past the header's) or a line starting with a blank (a line of
    only spaces is a row to DuckDB, refused by the loader). A byte search, so only such files pay for
    the loader's count of every record's fields.

    Each block is compared as a numpy array (line ends, blanks and the delimiter's bytes, shifted by
    one byte against each other): six substring searches of every block, which stop at every line
    end, took 1.5 s of the 10^7-row census CSV's open (290 MB). Read in 4 MiB blocks, not mapped: a
    search of the whole file mapped in memory made every page of it resident in this process, and
    ``svtgui-cli run`` on a 1.45 GB CSV peaked at 1.5 GB."""
    import numpy as np

    end = delimiter.encode()
    carry = b"\n"  # as if a line ended before the file: a blank first byte starts a line
    with textio.open_regular(path) as f:
        while block := f.read(SCAN_BYTES):
            data = carry + block  # a mark split between two blocks is whole here
            byte = np.frombuffer(data, np.uint8)
            line_end = (byte == ord("\n")) | (byte == ord("\r"))
            if (line_end[:-1] & ((byte[1:] == ord(" ")) | (byte[1:] == ord("\t")))).any():
                return True
            ended = line_end[len(end):].copy()  # ended[i]: the delimiter's bytes from i, then a line end
            for i, b in enumerate(end):
                ended &= byte[i:len(byte) - len(end) + i] == b
            if ended.any():
                return True
            carry = data[-len(end):]
    return carry == end


@dataclass(frozen=True)
class _Reading:
    """A delimited file as DuckDB reads it: ``source`` (``read_csv`` of texts, and the rows kept),
    the columns' ``names``, and each column's cells cleaned by ``cells``' rule (``cells``: SQL over
    the column as read). ``markers_read``: the reader already made every cell that *is* a marker
    NULL, so a cell read without a blank at either end is its own cleaned text."""

    file: Path
    source: str
    names: list[str]
    cells: list[str]
    markers_read: bool

    def select(self, columns: list[str]) -> str:
        return f"SELECT {', '.join(columns)} FROM {self.source}"

    @property
    def cleaned(self) -> str:
        """A ``SELECT`` of every column cleaned, under its name."""
        return self.select([f"{c} AS {DUCKDB.ident(n)}" for n, c in zip(self.names, self.cells, strict=True)])


def _reading(source: Path, delimiter: str, markers: frozenset[str], header: bool) -> _Reading:
    """``source`` read as texts, every cell cleaned by ``cells``' rule (stripped, markers missing).

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
        lines = read_csv_sql(source, delimiter, frozenset({""}), header=header, quoted_nulls=False)
        return _Reading(source, f"{lines} WHERE {DUCKDB.ident(names[0])} IS NOT NULL", names,
                        [text_cell(DUCKDB, names[0], markers)], markers_read=False)

    def cell(name: str) -> str:
        q = DUCKDB.ident(name)
        blank = " OR ".join(f"contains({q}, {DUCKDB.literal(b)})" for b in BLANKS)
        return f"CASE WHEN {blank} THEN {text_cell(DUCKDB, name, markers)} ELSE {q} END"

    return _Reading(source, reader, names, [cell(n) for n in names], markers_read=True)


def _kinds(cleaned: str, names: list[str], progress: ProgressState | None,
           span: tuple[float, float]) -> tuple[list[tuple[str, str]], int]:
    """Each column of ``cleaned`` and its kind by :mod:`svtgui.data.inference`, and the rows, from
    one aggregate pass."""
    checks = [check for n in names for check in inference.kind_checks(DUCKDB.ident(n), numbers=True)]
    found = _interruptible(f"SELECT count(*), {', '.join(checks)} FROM ({cleaned})", progress, span)[0]
    kinds = [(n, inference.kind_from_checks(found[1 + 2 * i:3 + 2 * i])) for i, n in enumerate(names)]
    return kinds, int(found[0])


def _guess(reading: _Reading, delimiter: str, markers: frozenset[str], header: bool) -> list[tuple[str, str]]:
    """Each column's kind on the file's first :data:`SAMPLE_ROWS` rows and on the lines of its last
    :data:`TAIL_BYTES` (a column that turns at its end, rows appended to a file, a sorted file's
    last values). Only a guess: the copy checks every cell against it."""
    head = f"SELECT * FROM ({reading.cleaned}) LIMIT {SAMPLE_ROWS}"
    tail = _tail(reading, delimiter, markers, header)
    try:
        if tail is not None:
            with contextlib.suppress(_Refused):  # DuckDB cannot read the lines: the head alone
                both = f"SELECT * FROM ({head}) UNION ALL SELECT * FROM ({tail.cleaned})"
                return _kinds(both, reading.names, None, (0.0, 0.0))[0]
        return _kinds(head, reading.names, None, (0.0, 0.0))[0]
    finally:
        scratch.remove(tail and tail.file)


def _tail(reading: _Reading, delimiter: str, markers: frozenset[str], header: bool) -> _Reading | None:
    """The whole lines in the file's last :data:`TAIL_BYTES`, after its header line, in a private
    file, as DuckDB reads them; None for a file of less than twice that (the first rows are most of
    it), a header line longer than that (or ended by a lone CR), or when DuckDB finds other columns
    there (the tail began inside a quoted line break)."""
    with textio.open_regular(reading.file) as f:
        first = f.readline(TAIL_BYTES) if header else b""
        records = f.tell()
        size = f.seek(0, os.SEEK_END)
        if size <= 2 * TAIL_BYTES or (header and not first.endswith(b"\n")):
            return None
        f.seek(max(size - TAIL_BYTES, records))
        tail = f.read(TAIL_BYTES).partition(b"\n")[2]
    sample = scratch.new_path(".csv")
    try:
        sample.write_bytes(first + tail)
        lines = _reading(sample, delimiter, markers, header)
        if lines.names == reading.names:
            return lines
    except (_Refused, DatasetError):
        pass
    except BaseException:
        scratch.remove(sample)
        raise
    scratch.remove(sample)
    return None


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
