"""DuckDB: files on disk read where they are (Parquet, CSV/TSV, JSON lines), never loaded whole.

One in-process DuckDB connection per dataset holds a view over the file. The view normalises what
the memory engine normalises while loading: NaN becomes missing, decimals and wide integers become
DOUBLE, dates become timestamps. Row count and schema come from the file's metadata (Parquet) or
DuckDB's sniffer over the first rows (text); a preview reads the first rows only.

The connection is not picklable; a copy sent to the run's child process reconnects on first use.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from svtgui.core.progress import ProgressState
from svtgui.data import inference
from svtgui.data.cells import missing_markers, text_value
from svtgui.data.engines import scratch
from svtgui.data.engines.base import (
    DUCKDB,
    FINGERPRINT_BATCH_ROWS,
    ColumnType,
    EngineError,
    TableEngine,
    dictionary_text,
    duckdb_file,
    lists_as_tuples,
    sums_in_threads,
    text_cell,
)
from svtgui.data.file_state import file_state
from svtgui.data.fingerprint import LOOKUP_RANGE, Block, CellKeys, ColumnSums, integer_table, pack, text_table

if TYPE_CHECKING:  # Arrow results become frames where a frame is asked for; numeric plans skip pandas
    import pandas as pd

RELATION = "dataset"
_CELLS = "svtgui_cells"  # the fingerprint's relation of the columns, each named c{j}
CODED_TEXTS = 1 << 16
"""Text columns with at most about this many distinct values reach the fingerprint as integer codes."""
SAMPLED_ESTIMATE_ROWS = 1_000_000
"""Above this many rows, the text columns' distinct counts are estimated on a 10% sample of DuckDB's
vectors of rows (a third of the estimate's cost). A value is missed only when every vector holding
it is left out, so the estimate is about a tenth of the count or more: a column coded in error holds
at most about ten times :data:`CODED_TEXTS` texts, a list that still fits in memory at once."""
_TEXT = ("VARCHAR", "JSON")  # file types the view turns into stripped texts
DEFAULT_PERFECT_HT, MAX_PERFECT_HT = 12, 22  # bits: DuckDB's default, and the most a declaration sets
_T = TypeVar("_T")
_ITEM_ELEMENTS = ("VARCHAR", "TINYINT", "SMALLINT", "INTEGER", "BIGINT", "UTINYINT", "USMALLINT", "UINTEGER",
                  "HUGEINT", "NULL")
"""Item ids: texts or whole numbers (the loaders refuse ids past 64 bits, so a HUGEINT list — DuckDB's
type for ``[-0, 1]`` — holds BIGINTs)."""
_AS_READ_ITEMS = ("VARCHAR", "BIGINT", "NULL")  # other item lists are cast to BIGINT[]
_NUMERIC = ("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT", "UINTEGER",
            "UBIGINT", "UHUGEINT", "FLOAT", "DOUBLE", "DECIMAL")
_EXACT_NUMERIC = ("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "FLOAT", "DOUBLE")
_WHOLE = ("TINYINT", "SMALLINT", "INTEGER", "BIGINT")  # the integer types the view keeps as they are
_REFUSAL = "svtgui refuses: "
"""Marks a refusal raised inside a statement (DuckDB's ``error()``): what follows is the one line."""
_NO_STATISTICS = "statistics_propagation"
"""The optimizer that folds a range test into TRUE from a Parquet file's statistics."""


def kind_of(type_name: str) -> str | None:
    """The schema kind of a DuckDB type, or None when SVT Studio cannot query it."""
    t = type_name.upper()
    if t.endswith("[]"):
        # A Parquet list whose every basket is empty has element type null: DuckDB 1.x reads it as
        # INTEGER[], 2.x as "NULL"[]. Either way it is an item column with no items yet.
        element = t[:-2].strip('"')
        return "itemset" if element in _ITEM_ELEMENTS else None
    if t == '"NULL"' or t == "NULL":  # a field that is null on every line: missing numbers, as in memory
        return "numeric"
    if t == "BOOLEAN":
        return "boolean"
    if t.split("(")[0] in _NUMERIC:
        return "numeric"
    if t.startswith(("TIMESTAMP", "DATE")):
        return "datetime"
    if t == "VARCHAR" or t.startswith("ENUM") or t == "JSON":  # JSON: a field of numbers and texts
        return "categorical"
    return None


class DuckDBTable(TableEngine):
    """A file read by DuckDB: ``fmt`` is parquet, csv, tsv or jsonl."""

    name = "duckdb"
    dialect = DUCKDB
    relation = RELATION

    def __init__(self, path: str | Path, fmt: str, *, delimiter: str | None = None,
                 markers: frozenset[str] | None = None, threads: int | None = None,
                 memory_limit: str | None = None, copy: Path | None = None, header: bool = True) -> None:
        self.path = Path(path)
        self.copy = copy  # a private UTF-8 copy of ``path`` to read instead (engines.scratch), or None
        self._release = scratch.removed_with(self, copy)  # the copy goes with this table
        self.fmt = fmt
        self.delimiter = delimiter
        self.header = header  # delimited text: False when its first line is a record
        self.markers = missing_markers(("?",)) if markers is None else markers
        self.threads = threads or os.cpu_count() or 1
        self.memory_limit = memory_limit
        self._con: Any = None
        self._perfect_ht = DEFAULT_PERFECT_HT
        self._columns: list[ColumnType] | None = None
        self._rows: int | None = None
        self._text_kinds: dict[str, str] | None = None  # JSON: the kinds of the fields read as text
        self._cells: tuple[str, list[str]] = ("", [])  # the view: its reader, each column's SQL over it

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_con": None, "_perfect_ht": DEFAULT_PERFECT_HT, "_release": None}

    @property
    def location(self) -> str:
        return str(self.path)

    # -- connection -------------------------------------------------------------------------
    def _reader(self, types: list[tuple[str, str]] | None = None) -> str:
        """The file as DuckDB reads it; JSON lines with ``types`` (name, type) for its fields, else
        with the types DuckDB finds on every line (not only the first 20,480, as the memory loader)."""
        p = duckdb_file(self.copy or self.path)
        if self.fmt == "parquet":
            return f"read_parquet({p})"
        if types is None:
            return f"read_json({p}, format = 'newline_delimited', sample_size = -1)"
        fields = ", ".join(f"{DUCKDB.literal(n)}: {DUCKDB.literal(t)}" for n, t in types)
        return f"read_json({p}, format = 'newline_delimited', columns = {{{fields}}})"

    def _json_types(self, con: Any, found: list[tuple[str, str]]) -> tuple[str, dict[str, str]]:
        """JSON lines read as the memory loader reads them: a field of texts (of numbers and texts, or
        of texts DuckDB recognised as dates, times, UUIDs, …) as text, typed by ``data.inference``'s
        rules for JSON (all true/false: booleans; all ISO dates: datetimes; none: missing numbers); a
        field whose every list is empty as lists of texts. Returns the reader and the kinds of the
        fields read as text."""
        read = [(n, "VARCHAR[]" if t.upper() == "JSON[]" else
                 t if kind_of(t) in ("numeric", "boolean", "itemset") else "VARCHAR") for n, t in found]
        reader = self._reader(read)
        texts = [n for n, t in read if t == "VARCHAR"]
        if self._text_kinds is None:  # one scan at open; a copy in the run's process reuses the kinds
            cells = [text_cell(DUCKDB, n, self.markers) for n in texts]
            checks = [check for cell in cells for check in inference.kind_checks(cell, numbers=False)]
            said = con.execute(f"SELECT {', '.join(checks)} FROM {reader}").fetchone() if texts else ()
            self._text_kinds = {n: inference.kind_from_checks(said[2 * i:2 * i + 2])
                                for i, n in enumerate(texts)}
        return reader, self._text_kinds

    def _connection(self) -> Any:
        if self._con is None:
            import duckdb

            con = duckdb.connect(":memory:", config={"threads": self.threads})
            con.execute("SET enable_progress_bar = false")
            if self.memory_limit:
                con.execute(f"SET memory_limit = {DUCKDB.literal(self.memory_limit)}")
            reader = self._reader()
            try:
                raw = [(n, t) for n, t, *_ in con.execute(f"DESCRIBE SELECT * FROM {reader}").fetchall()]
                texts: dict[str, str] = {}
                if self.fmt == "jsonl":
                    reader, texts = self._json_types(con, raw)
                    raw = [(n, inference.SQL_TYPES[texts[n]] if n in texts else
                            "VARCHAR[]" if t.upper() == "JSON[]" else t) for n, t in raw]
            except duckdb.Error as e:
                con.close()
                raise EngineError(f"DuckDB cannot read this file: {_first_line(e)}", path=self.path) from None
            columns, cells = [], []  # cells: each column's SQL over the reader, as the view has it
            for name, type_name in raw:
                kind = kind_of(type_name)
                if kind is None:
                    con.close()
                    raise EngineError(f"column type {type_name} is not supported (numbers, texts, "
                                      "true/false, dates and lists of items are)",
                                      path=self.path, column=name)
                base = type_name.upper().split("(")[0]
                is_float = base in ("FLOAT", "DOUBLE")
                q = DUCKDB.ident(name)
                if name in texts:  # a JSON field of texts, typed by the rules
                    cell = inference.cast_sql(text_cell(DUCKDB, name, self.markers), texts[name])
                    cells.append(cell)
                    is_float = texts[name] == inference.EMPTY
                elif is_float:
                    cells.append(f"CASE WHEN isnan({q}) THEN NULL ELSE CAST({q} AS DOUBLE) END")
                elif kind == "numeric" and base.strip('"') == "NULL":
                    cells.append("CAST(NULL AS DOUBLE)")
                    is_float = True
                elif kind == "numeric" and base not in _EXACT_NUMERIC:
                    cells.append(f"CAST({q} AS DOUBLE)")
                    is_float = True
                elif kind == "itemset" and type_name.upper()[:-2].strip('"') not in _AS_READ_ITEMS:
                    cells.append(f"CAST({q} AS BIGINT[])")
                elif base in ("TIMESTAMP_NS", "TIMESTAMPTZ_NS"):  # floored to the µs (UTC), as in memory
                    ns = f"epoch_ns({q})"
                    cells.append(f"make_timestamp(({ns} - ({ns} % 1000 + 1000) % 1000) // 1000)")
                elif base == "DATE":
                    cells.append(f"CAST({q} AS TIMESTAMP)")
                elif base == "VARCHAR":
                    cells.append(text_cell(DUCKDB, name, self.markers))
                else:
                    cells.append(q)
                columns.append(ColumnType(name, type_name, kind, is_float, from_text=name in texts))
            named = (f"{cell} AS {DUCKDB.ident(c.name)}" for cell, c in zip(cells, columns, strict=True))
            con.execute(f"CREATE VIEW {RELATION} AS SELECT {', '.join(named)} FROM {reader}")
            self._con, self._columns, self._cells = con, columns, (reader, cells)
        return self._con

    def group_hint(self, bits: int | None) -> None:
        """DuckDB groups integers through a perfect hash table when their range (from the file's
        statistics) fits ``perfect_ht_threshold`` bits, 12 by default: a declared range of 200,000
        values needs 18 (3x faster). Capped so the table stays small (2^22 slots)."""
        wanted = DEFAULT_PERFECT_HT if bits is None else min(max(bits, DEFAULT_PERFECT_HT), MAX_PERFECT_HT)
        if wanted != self._perfect_ht:
            self._run(f"SET perfect_ht_threshold = {wanted}", lambda r: r)
            self._perfect_ht = wanted

    def close(self, *, keep_copy: bool = False) -> None:
        """Close the connection and remove the private copy (``keep_copy``: another table reads it)."""
        if self._con is not None:
            self._con.close()
            self._con = None
            self._perfect_ht = DEFAULT_PERFECT_HT
        if self._release is not None and keep_copy:
            self._release.detach()
        elif self._release is not None:
            self._release()

    # -- the seam ---------------------------------------------------------------------------
    def columns(self) -> list[ColumnType]:
        self._connection()
        assert self._columns is not None
        return self._columns

    def row_count(self) -> int:
        if self._rows is None:
            source = self._reader() if self.fmt == "parquet" else RELATION  # Parquet: from the footer
            self._rows = int(self._run(f"SELECT count(*) FROM {source}", lambda r: r.fetchall())[0][0])
        return self._rows

    def preview(self, rows: int) -> pd.DataFrame:
        head = self._run(f"SELECT * FROM {RELATION} LIMIT {int(rows)}", lambda r: r.to_arrow_table())
        return lists_as_tuples(head.to_pandas())

    def sql(self, text: str) -> pd.DataFrame:
        return self._run(text, lambda r: r.to_arrow_table()).to_pandas()

    def sql_arrays(self, text: str) -> dict[str, np.ndarray]:
        return self._run(text, lambda r: r.fetchnumpy())

    def batches(self, rows: int) -> Iterator[pd.DataFrame]:
        reader = self._run(f"SELECT * FROM {RELATION}", lambda r: _arrow_reader(r, rows))
        batches = iter(reader)
        while (batch := self._guard(lambda: next(batches, None))) is not None:
            yield lists_as_tuples(dictionary_text(batch).to_pandas())

    def column_sums(self, cells: bytes, progress: ProgressState | None) -> ColumnSums:
        """Arrow record batches straight from DuckDB, hashed on worker threads (no pandas frame).

        A column of few values arrives as small integer codes that DuckDB computes in its parallel
        C++: a text column of at most :data:`CODED_TEXTS` distinct values as its number in the list
        of its distinct texts (a join, so the texts never cross to Python: streaming them cost more
        than all the hashing), a whole-number column spanning at most ``fingerprint.LOOKUP_RANGE``
        values as its offset from its smallest (bounds from the Parquet statistics, free), true/false
        as 0/1; a missing cell as one code past the values. Several such columns travel as ONE code
        per row (a :class:`~svtgui.data.fingerprint.Block`), so Python counts and gathers once per
        block, not per column. A text column of the file is coded by its texts *as the file has
        them*: the view's cleaning (blanks stripped, markers missing) is applied to each distinct
        text in Python (``cells.text_value``), not by DuckDB to every cell. Finding the texts costs
        two passes over the text columns alone (DuckDB's estimate of their distinct counts, then the
        distinct texts of the few-valued ones); the rest arrives as the view has it.

        The passes are several queries, each reading the file anew: a file rewritten between them
        could give codes of one version for the values of another (a fingerprint of neither, so a
        budget of its own). The file's state is compared before and after (a stat and four sampled
        blocks, ``file_state``), and a change is refused as the CSV copy refuses it."""
        before = file_state(self.path) if self.copy is None else None  # a private copy never changes
        keys = CellKeys.of(cells)
        dictionaries = self._text_dictionaries()
        bounds = self._integer_bounds()
        raw = self._raw_texts()
        tables = {j: text_table(_values(texts, self.markers) if j in raw else texts, keys)
                  for j, texts in dictionaries.items()}
        blocks = pack(tables | {j: integer_table(low, high, keys) for j, (low, high) in bounds.items()})
        codes: dict[int, str] = {}  # the SQL of each coded column's code
        joins, registered = [], []
        reader = None
        try:
            for j, texts in dictionaries.items():  # (a table from Python lists: Arrow's would load pandas)
                name = f"svtgui_codes_{j}"
                self._guard(lambda name=name, texts=texts: self._connection().execute(
                    f"CREATE OR REPLACE TEMP TABLE {name} AS SELECT unnest($1) AS text, "
                    "unnest(range(len($1))) AS code", [texts]))
                registered.append(name)
                joins.append(f"LEFT JOIN {name} ON {_CELLS}.c{j} = {name}.text")
                codes[j] = f"coalesce({name}.code, {len(texts)})"
            for j, (low, high) in bounds.items():
                codes[j] = self._offset_code(j, low, high)
            plain = [j for j in range(len(self.columns())) if j not in codes]
            layout: list[int | Block] = [*blocks, *plain]
            select = [_block_code(block, codes) for block in blocks] + [f"{_CELLS}.c{j}" for j in plain]
            source = self._source(range(len(self.columns())), raw & dictionaries.keys())
            # planned without the statistics, which would take every offset's range test for true
            self._run(f"SET disabled_optimizers = {DUCKDB.literal(_NO_STATISTICS)}", lambda r: r)
            reader = self._run(f"SELECT {', '.join(select)} FROM {source} {' '.join(joins)}",
                               lambda r: _arrow_reader(r, FINGERPRINT_BATCH_ROWS))
            batches = iter(reader)
            sums = sums_in_threads(iter(lambda: self._guard(lambda: next(batches, None)), None),
                                   len(self.columns()), cells, progress, self.row_count(), layout)
        finally:
            if reader is not None:  # a cancelled pass left the result open: close it first
                reader.close()
            for name in registered:
                self._connection().execute(f"DROP TABLE IF EXISTS {name}")
            self._run("RESET disabled_optimizers", lambda r: r)
        if before is not None and file_state(self.path) != before:
            raise EngineError("the file changed while it was read", path=self.path)
        return sums

    def _offset_code(self, j: int, low: int, high: int) -> str:
        """The SQL of column ``j``'s code, its offset from ``low`` (a missing cell: one past the
        values). ``low`` and ``high`` come from the file's statistics; a value outside them (a damaged
        footer, on which DuckDB would answer from the statistics) would give another value's code
        and so a fingerprint of other rows: it stops the pass with the one line naming the column."""
        cell = f"{_CELLS}.c{j}"
        offset = f"CAST({cell} AS BIGINT) - ({low})"
        if self.columns()[j].kind == "boolean":  # 0 and 1, whatever the statistics say
            return f"coalesce({offset}, {high - low + 1})"
        said = (f"{_REFUSAL}column {self.columns()[j].name!r}: the file's statistics state that its "
                f"values lie between {low} and {high}, but it holds others (a damaged footer, from "
                "which DuckDB would answer wrongly); rewrite the file")
        return (f"CASE WHEN {cell} IS NULL THEN {high - low + 1} WHEN {cell} BETWEEN {low} AND {high} "
                f"THEN {offset} ELSE error({DUCKDB.literal(said)}) END")

    def _raw_texts(self) -> set[int]:
        """The text columns whose view cell is the file's text cleaned by ``cells.text_value``'s rule
        (in SQL, ``base.text_cell``): read as the file has them, they are cleaned per distinct text."""
        return {j for j, c in enumerate(self.columns())
                if not c.from_text and c.type_name.upper().split("(")[0] == "VARCHAR"}

    def _source(self, columns: Iterable[int], raw: Iterable[int] = ()) -> str:
        """A relation of the given columns, column ``j`` named ``c{j}``: as the view has it, or as the
        file has it for the columns in ``raw`` (names of the file never meet the joins' names)."""
        self._connection()
        reader, cells = self._cells
        raw = set(raw)
        names = [DUCKDB.ident(c.name) for c in self.columns()]
        picked = [f"{names[j] if j in raw else cells[j]} AS c{j}" for j in columns]
        return f"(SELECT {', '.join(picked)} FROM {reader}) AS {_CELLS}"

    def _integer_bounds(self) -> dict[int, tuple[int, int]]:
        """The smallest and largest value of each column the fingerprint receives as codes from their
        offset: whole numbers spanning at most ``fingerprint.LOOKUP_RANGE`` values (and fewer than
        the rows), and true/false (0 and 1). The bounds of a Parquet file come from its statistics,
        so they cost no pass; JSON lines have none (a pass over the file): there no column is coded."""
        if self.fmt != "parquet":
            return {}
        columns = self.columns()
        bounds = {j: (0, 1) for j, c in enumerate(columns) if c.kind == "boolean"}
        whole = [j for j, c in enumerate(columns)
                 if c.kind == "numeric" and not c.is_float and c.type_name.upper() in _WHOLE]
        if not whole:
            return bounds
        names = [DUCKDB.ident(columns[j].name) for j in whole]
        found = self._run(f"SELECT {', '.join(f'min({q}), max({q})' for q in names)} FROM {RELATION}",
                          lambda r: r.fetchall())[0]
        for j, low, high in zip(whole, found[0::2], found[1::2], strict=True):
            if low is not None and high - low < min(LOOKUP_RANGE, self.row_count()):
                bounds[j] = (int(low), int(high))
        return bounds

    def _text_dictionaries(self) -> dict[int, list[str | None]]:
        """The distinct texts of each text column with at most about :data:`CODED_TEXTS` of them, as
        the file has them for the columns of :meth:`_raw_texts` (fewer passes of DuckDB's cleaning),
        else as the view has them (DuckDB may list a NULL among them; no cell's join matches it, so
        a NULL cell is missing)."""
        texts = [j for j, c in enumerate(self.columns()) if c.type_name.upper().split("(")[0] in _TEXT]
        if not texts:
            return {}
        source = self._source(texts, self._raw_texts())
        sample = " USING SAMPLE 10% (system)" if self.row_count() > SAMPLED_ESTIMATE_ROWS else ""
        estimates = self._run(f"SELECT {', '.join(f'approx_count_distinct(c{j})' for j in texts)} "
                              f"FROM {source}{sample}", lambda r: r.fetchall())[0]
        few = [j for j, n in zip(texts, estimates, strict=True) if n <= CODED_TEXTS]
        if not few:
            return {}
        lists = self._run(f"SELECT {', '.join(f'list(DISTINCT c{j})' for j in few)} FROM {source}",
                          lambda r: r.fetchall())[0]
        return {j: texts or [] for j, texts in zip(few, lists, strict=True)}  # no rows: a NULL list

    def _run(self, text: str, fetch: Callable[[Any], _T]) -> _T:
        """``fetch`` applied to the relation of ``text``; DuckDB's errors become EngineErrors.

        A relation (``con.sql``) rather than a DB-API cursor: Arrow results come without the extra
        copy DuckDB 2 warns about, and the same calls work on every DuckDB from 1.1 on.
        """
        con = self._connection()
        return self._guard(lambda: fetch(con.sql(text)))

    def _guard(self, step: Callable[[], _T]) -> _T:
        import duckdb

        try:
            return step()
        except duckdb.InterruptException:
            raise EngineError("the query was interrupted", path=self.path) from None
        except duckdb.Error as e:
            if _REFUSAL in str(e):  # our own refusal, raised inside a statement: its words alone
                raise EngineError(_first_line(e).split(_REFUSAL, 1)[1], path=self.path) from None
            if self.fmt == "parquet" and isinstance(e, duckdb.InvalidInputException | duckdb.IOException):
                # a damaged page, found when it is first read: the loader's words
                raise EngineError(f"not a readable Parquet file ({_first_line(e)})", path=self.path) from None
            raise EngineError(f"DuckDB failed: {_first_line(e)}", path=self.path) from None

    def interrupt(self) -> None:
        """Stop the running statement (from another thread: Cancel in the GUI)."""
        if self._con is not None:
            self._con.interrupt()


def _values(texts: list[str | None], markers: frozenset[str]) -> list[str | None]:
    """Texts of the file as the view reads them (``cells.text_value``: None when missing)."""
    return [text_value(t, markers) for t in texts]


def _block_code(block: Block, codes: dict[int, str]) -> str:
    """The SQL of a block's code, ``c0 + n0·(c1 + n1·(c2 + …))``, from its columns' codes."""
    sql = codes[block.columns[-1]]
    for j, table in zip(reversed(block.columns[:-1]), reversed(block.tables[:-1]), strict=True):
        sql = f"{codes[j]} + {len(table)} * ({sql})"
    return sql


def _arrow_reader(relation: Any, rows: int) -> Any:
    """DuckDB 2 renamed ``fetch_arrow_reader`` (every 1.x has it) to ``to_arrow_reader``."""
    if hasattr(type(relation), "to_arrow_reader"):
        return relation.to_arrow_reader(rows)
    return relation.fetch_arrow_reader(rows)


def _first_line(e: BaseException) -> str:
    return str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
