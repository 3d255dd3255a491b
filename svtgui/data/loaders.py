"""File → :class:`Dataset`: CSV/TSV, Parquet, Excel, JSON Lines and FIMI transaction files.

All loaders share one contract: the file's bytes are read once (hashed while the parser consumes
them: the plain hash is kept privately, only to find budgets of a migrated 0.1 ledger), progress
is reported and cancellation honoured between chunks, and any
problem with the file surfaces as one :class:`DatasetError` naming the file, line and column where
they are known, never a parser traceback.

Memory: delimited text is parsed in chunks of ``chunk_rows`` rows and text columns are turned into
pandas categoricals chunk by chunk, so the peak is about two copies of the final frame plus one
chunk (the final ``concat`` needs the chunks and the result at once).
"""

from __future__ import annotations

import codecs
import io
import json
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from svtgui.core.progress import ProgressState
from svtgui.data import textio
from svtgui.data.cells import clean_frame, missing_markers
from svtgui.data.dataset import Dataset
from svtgui.data.errors import DatasetError, DeclaredSchemaError, LoadCancelled
from svtgui.data.file_state import file_state, unchanged_since
from svtgui.data.schema import Column, ColumnKind, Schema, SchemaError, infer_schema

if TYPE_CHECKING:  # the readers import pandas when they run: the engines' paths never need it
    import pandas as pd

    from svtgui.data.frames import Chunk

FORMATS = ("csv", "tsv", "parquet", "excel", "jsonl", "fimi")
_SUFFIXES = {
    ".csv": "csv",
    ".txt": "csv",
    ".tsv": "tsv",
    ".tab": "tsv",
    ".parquet": "parquet",
    ".pq": "parquet",
    ".xlsx": "excel",
    ".xlsm": "excel",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".dat": "fimi",
}
DEFAULT_MISSING = ("?",)


@dataclass(frozen=True)
class LoadOptions:
    """How to read a file. ``None`` fields are detected.

    * ``missing``: extra cell texts meaning "missing" (adult.csv uses ``?``), in addition to empty
      cells and, if ``standard_missing``, pandas' usual markers (``NA``, ``NaN``, ``null``, ...).
    * ``schema``: the curator's declared schema (kinds, bounds, relation), a path to one, or None
      to use a sidecar ``<file stem>.schema.json`` next to the file when there is one.
    """

    format: str | None = None
    delimiter: str | None = None
    encoding: str | None = None
    missing: tuple[str, ...] = DEFAULT_MISSING
    standard_missing: bool = True
    header: bool = True
    sheet: str | int = 0
    schema: Schema | str | Path | None = None
    chunk_rows: int = 50_000
    item_column: str = "items"

    def __post_init__(self) -> None:
        if self.format is not None and self.format not in FORMATS:
            raise ValueError(f"format must be one of {', '.join(FORMATS)}, got {self.format!r}")
        if self.delimiter is not None and (not isinstance(self.delimiter, str) or len(self.delimiter) != 1):
            raise ValueError(f"delimiter must be one character, got {self.delimiter!r}")
        if isinstance(self.chunk_rows, bool) or not isinstance(self.chunk_rows, int) or self.chunk_rows < 1:
            raise ValueError(f"chunk_rows must be a positive integer, got {self.chunk_rows!r}")
        object.__setattr__(self, "missing", tuple(str(m) for m in self.missing))


@dataclass
class _Loaded:
    frame: pd.DataFrame
    fingerprint: str  # the file's plain SHA-256: private, only for finding a 0.1 ledger's budget
    format: str
    notes: list[str] = field(default_factory=list)
    item_columns: tuple[str, ...] = ()  # item sets by the file's own types, whatever their values


def load_dataset(
    path: str | Path, options: LoadOptions | None = None, progress: ProgressState | None = None
) -> Dataset:
    """Load ``path`` into a :class:`Dataset` (see the module docstring for the guarantees)."""
    options = options or LoadOptions()
    path = Path(path)
    fmt = _check_path(path, options)
    state = file_state(path)  # the fingerprint cache's key: taken before reading, kept if unchanged after
    readers = {
        "csv": _read_delimited,
        "tsv": _read_delimited,
        "parquet": _read_parquet,
        "excel": _read_excel,
        "jsonl": _read_jsonl,
        "fimi": _read_fimi,
    }
    try:
        loaded = readers[fmt](path, options, progress)
    except (DatasetError, LoadCancelled):
        raise
    except MemoryError:
        raise DatasetError("not enough memory to load this file", path=path) from None
    except RecursionError:
        raise DatasetError("the file is nested too deeply to be read", path=path) from None
    except OSError as e:
        raise DatasetError(f"cannot read the file: {e.strerror or e}", path=path) from None
    frame = clean_frame(loaded.frame, missing_markers(options.missing, options.standard_missing))
    if loaded.format == "jsonl":  # a field of texts takes its type from all of them (CSV: while read)
        from svtgui.data.inference import typed_frame

        frame = typed_frame(frame, numbers=False)
    schema = _schema_for(path, frame, options, loaded.item_columns)
    textio.report(progress, 1.0)
    return Dataset(path.stem, path, frame, schema, loaded.format,
                   legacy_file_sha256=loaded.fingerprint, file_state=unchanged_since(state, path))


def _check_path(path: Path, options: LoadOptions) -> str:
    textio.check_regular_file(path)  # a FIFO, device, folder, link loop or empty file: named, never read
    fmt = options.format or _SUFFIXES.get(path.suffix.lower())
    if fmt is None:
        known = ", ".join(sorted(_SUFFIXES))
        raise DatasetError(
            f"unknown file type {path.suffix or '(no suffix)'!r}; known: {known} "
            "(or choose a format in the load options)",
            path=path,
        )
    return fmt


def _schema_for(path: Path, frame: pd.DataFrame, options: LoadOptions,
                item_columns: tuple[str, ...] = ()) -> Schema:
    try:
        inferred = infer_schema(frame)
        if item_columns:  # a list column with no list at all: an item set all the same, as DuckDB reads it
            inferred = Schema(tuple(Column(c.name, ColumnKind.ITEMSET) if c.name in item_columns else c
                                    for c in inferred.columns))
    except SchemaError as e:  # e.g. a column name a schema cannot hold
        raise DatasetError(f"the columns cannot be described: {e}", path=path) from None
    return declared_schema(path, inferred, options, len(frame))


def sidecar_path(path: str | os.PathLike[str]) -> Path:
    """The declared schema read beside a data file when none is given: ``adult.schema.json``."""
    p = Path(path)
    return p.with_name(p.stem + ".schema.json")


def declared_schema(path: Path, inferred: Schema, options: LoadOptions, n_rows: int) -> Schema:
    """``inferred`` merged with the curator's declared schema (``options.schema`` or the sidecar),
    which must fit the data: its columns, their kinds and, under ``replace``, its n (``n_rows``)."""
    declared = options.schema
    if isinstance(declared, Schema):
        source = path
    else:
        sidecar = sidecar_path(path)
        source = Path(declared) if declared is not None else sidecar if sidecar.exists() else None
        if source is None:
            return inferred
        try:
            declared = Schema.read(source)
        except SchemaError as e:  # names the file
            raise DeclaredSchemaError(str(e), given=options.schema is not None) from None
    try:
        merged = inferred.merged(declared)
        merged.check_rows(n_rows)
    except SchemaError as e:
        raise DeclaredSchemaError(str(e), given=options.schema is not None, path=source) from None
    return merged


# -- delimited text ---------------------------------------------------------------------------------


def _encoding(path: Path, options: LoadOptions, sample: bytes) -> str:
    if options.encoding is not None:
        return textio.check_encoding_name(options.encoding, path)
    return textio.detect_encoding(sample, path)


def _read_delimited(path: Path, options: LoadOptions, progress: ProgressState | None) -> _Loaded:
    sample = textio.read_sample(path)
    encoding = _encoding(path, options, sample)
    if (
        options.encoding is not None
        and textio.looks_binary(sample)
        and "16" not in encoding
        and "32" not in encoding
    ):
        raise DatasetError(
            "this looks like a binary file, not text (it contains NUL or control bytes)", path=path
        )
    delimiter = _delimiter(path, options, sample.decode(encoding, errors="replace"))
    try:
        return _parse_delimited(path, options, progress, encoding, delimiter)
    except DatasetError as e:
        # UTF-8 was guessed from the first 64 KiB; a later non-UTF-8 byte means a legacy encoding.
        if options.encoding is None and encoding == "utf-8" and "cannot be decoded" in e.message:
            return _parse_delimited(path, options, progress, "cp1252", delimiter)
        raise


def _delimiter(path: Path, options: LoadOptions, text: str) -> str:
    """The declared delimiter, else tab for a .tsv/.tab file holding tabs, else the detected one."""
    if options.delimiter:
        return options.delimiter
    if path.suffix.lower() in (".tsv", ".tab") and "\t" in text:
        return "\t"
    return textio.detect_delimiter(text, path)


UTF8 = ("utf-8", "utf-8-sig", "ascii")
"""Encodings (codecs names) DuckDB and Spark read as they are; text in any other is given to them
as a UTF-8 copy."""


def delimited_dialect(path: Path, options: LoadOptions) -> tuple[str, str]:
    """The encoding and delimiter the memory loader reads ``path`` with, from its first 64 KiB
    (binary text refused); a later non-UTF-8 byte is found by the full pass (:func:`check_delimited`)."""
    sample = textio.read_sample(path)
    encoding = _encoding(path, options, sample)
    return encoding, _delimiter(path, options, sample.decode(encoding, errors="replace"))


def check_header(path: Path, options: LoadOptions, encoding: str, delimiter: str) -> None:
    """The header's names as written: none (a blank file), empty or repeated ones are refused."""
    if options.header:
        header = _raw_header(path, encoding, delimiter)
        if not header:
            raise DatasetError("the file has no columns (it is empty or blank)", path=path)
        _check_header(header, path)


def check_delimited(path: Path, options: LoadOptions,
                    progress: ProgressState | None = None) -> tuple[str, str]:
    """For an engine that parses delimited text itself: the same checks the memory loader makes —
    binary text refused, the encoding found as the loader finds it, every record's field count (a
    ragged row: DuckDB's sniffer falls back to one column, or drops rows), header names as written
    — in one linear streaming pass. Returns the delimiter to give the engine (its own guess is what
    goes wrong) and the encoding (:data:`UTF8`, or the engine needs a copy)."""
    encoding, delimiter = delimited_dialect(path, options)
    try:
        _check_records(path, progress, encoding, delimiter)
    except DatasetError as e:  # as the loader does: UTF-8 guessed from the sample, a legacy byte later
        if options.encoding is not None or encoding != "utf-8" or "cannot be decoded" not in e.message:
            raise
        encoding = "cp1252"
        _check_records(path, progress, encoding, delimiter)
    check_header(path, options, encoding, delimiter)
    return delimiter, codecs.lookup(encoding).name


def _check_records(path: Path, progress: ProgressState | None, encoding: str, delimiter: str) -> None:
    with textio.open_stream(path, progress, encoding=encoding, delimiter=delimiter, span=(0.0, 0.5)) as raw:
        while raw.read(1 << 20):
            pass


def _parse_delimited(
    path: Path, options: LoadOptions, progress: ProgressState | None, encoding: str, delimiter: str
) -> _Loaded:
    from svtgui.data.frames import TypedChunks

    typed = TypedChunks(missing_markers(options.missing, options.standard_missing))
    fingerprint = _read_chunks(path, options, progress, encoding, delimiter, typed.add)
    if not typed.rows:
        raise DatasetError("the file has a header but no data rows", path=path, line=2)
    mixed = typed.mixed()
    if mixed:  # rare: whole numbers for a chunk or more, then texts; their texts as written, again
        names = list(typed.parts)
        for name in mixed:
            _read_chunks(path, options, None, encoding, delimiter,
                         lambda chunk, name=name: typed.add_texts(name, chunk), as_text=[names.index(name)])
    frame = typed.frame()
    if not options.header:
        frame.columns = numbered_names(frame.shape[1])
    else:
        _check_header(_raw_header(path, encoding, delimiter), path)
        # a name without the blanks around it, as checked above and as DuckDB and Spark name it
        frame.columns = [str(name).strip() for name in frame.columns]
    return _Loaded(frame, fingerprint, "tsv" if delimiter == "\t" else "csv")


def _nearest_double(pandas_version: str) -> dict[str, str]:
    """Numbers read as the nearest double, as DuckDB and Spark read them: pandas 3 does by default
    (and deprecates the option), pandas 2's default parser can be one unit in the last place off."""
    return {} if int(pandas_version.split(".")[0]) >= 3 else {"float_precision": "round_trip"}


def _read_chunks(path: Path, options: LoadOptions, progress: ProgressState | None, encoding: str,
                 delimiter: str, take: Callable[[pd.DataFrame], None],
                 as_text: list[int] | None = None) -> str:
    """The cells of a delimited file (missing markers missing), a chunk at a time given to ``take``:
    as pandas parses them, or ``as_text`` those columns only, every cell a text; returns the file's
    plain SHA-256."""
    import pandas as pd

    with textio.open_stream(path, progress, encoding=encoding, delimiter=delimiter, span=(0.0, 0.95)) as raw:
        buffered = io.BufferedReader(raw, buffer_size=1 << 18)
        try:
            reader = pd.read_csv(
                buffered,
                sep=delimiter,
                encoding=encoding,
                skipinitialspace=True,
                header=0 if options.header else None,
                dtype=None if as_text is None else str,
                usecols=as_text,
                **_nearest_double(pd.__version__),
                na_values=list(options.missing),
                keep_default_na=options.standard_missing,
                chunksize=options.chunk_rows,
                engine="c",
                low_memory=True,
            )
            with reader:
                for chunk in reader:
                    take(chunk)
        except pd.errors.EmptyDataError:
            raise DatasetError("the file has no columns (it is empty or blank)", path=path) from None
        except pd.errors.ParserError as e:
            if raw.failure is not None:  # Ctrl-C, a cancel or an I/O error inside a read, not the file
                raise raw.failure from None
            raise _parser_error(path, str(e)) from None
        except UnicodeDecodeError as e:
            raise DatasetError(f"cannot be decoded as {encoding} ({e.reason})", path=path) from None
        raw.drain()
        return raw.fingerprint


def numbered_names(count: int) -> list[str]:
    """The names of the columns of a file read without a header ("column 1", ...): one definition,
    so every engine names them alike."""
    return [f"column {i + 1}" for i in range(count)]


def headless_names(path: Path, encoding: str, delimiter: str) -> list[str]:
    """For an engine reading a delimited file that has no header: its columns' names, one per field
    of the first record (the memory loader's names; DuckDB and Spark would say ``column0``, ``_c0``)."""
    return numbered_names(len(_raw_header(path, encoding, delimiter)))


def _raw_header(path: Path, encoding: str, delimiter: str) -> list[str]:
    """The header's names as written (pandas renames a repeated ``age`` to ``age.1``, so its
    columns cannot tell a repeat from a real ``age.1``)."""
    import csv

    text = textio.read_sample(path).decode(encoding, errors="replace")
    # newline=None: a lone "\r" ends a line, as it does for pandas' parser
    rows = csv.reader(io.StringIO(text.lstrip("\ufeff"), newline=None), delimiter=delimiter,
                      skipinitialspace=True)
    try:
        first = next((row for row in rows if row), [])  # pandas skips blank lines before the header
    except csv.Error:  # a header the csv module cannot tokenise: pandas reports the file itself
        return []
    return [name.strip() for name in first]


_REPEATED_NAME = "the header repeats a column name (names are compared ignoring case)"


def _check_header(names: list[object], path: Path, line: int | None = 1) -> None:
    """Refuse an empty or repeated column name in the header (``names`` as written in the file).

    Names are compared ignoring case: DuckDB and Spark read ``a`` and ``A`` as one name (DuckDB
    renames the second ``A_1``), so such a file is refused on every engine rather than read two ways.
    """
    seen: set[str] = set()
    for i, name in enumerate(names):
        text = "" if name is None or (isinstance(name, float) and name != name) else str(name).strip()
        if not text:
            raise DatasetError("the header has an empty column name", path=path, line=line, column=i + 1)
        if text.casefold() in seen:
            raise DatasetError(_REPEATED_NAME, path=path, line=line, column=text)
        seen.add(text.casefold())


def _parser_error(path: Path, message: str) -> DatasetError:
    m = re.search(r"Expected (\d+) fields in line (\d+), saw (\d+)", message)
    if m:
        return DatasetError(
            f"ragged row: {m.group(3)} fields where the header has {m.group(1)}",
            path=path,
            line=int(m.group(2)),
        )
    m = re.search(r"line (\d+)", message)
    detail = message.split("C error: ")[-1].strip()
    return DatasetError(f"cannot parse the file: {detail}", path=path, line=int(m.group(1)) if m else None)


# -- JSON Lines -------------------------------------------------------------------------------------


class JsonLines:
    """The records of a JSON-lines file, each checked as the memory loader checks it (valid JSON, an
    object, flat fields with names), in one streaming pass; ``fingerprint`` is set once iterated.
    DuckDB and Spark are given a file only after it passed :func:`check_jsonl` (their readers
    count a corrupt line as a row, or fail on deep nesting with a stack trace)."""

    def __init__(self, path: Path, options: LoadOptions, progress: ProgressState | None) -> None:
        self.path, self.options, self.progress = path, options, progress
        self.fingerprint = ""
        self.encoding = _encoding(path, options, textio.read_sample(path))
        self.item_kinds: dict[str, str] = {}  # each field so far: "numbers"/"texts" (lists) or "values"
        self.spellings: dict[str, str] = {}  # each field's name so far, by its case-folded name
        self.texts: set[str] = set()  # the fields that held a text (or true/false) so far
        self.odd_numbers: dict[str, _WrittenNumber | _WrittenInteger] = {}  # each field's first odd number

    def __iter__(self) -> Iterator[dict]:
        path, encoding = self.path, self.encoding
        with textio.open_stream(path, self.progress, encoding=encoding, span=(0.0, 0.95)) as raw:
            text = io.TextIOWrapper(io.BufferedReader(raw, buffer_size=1 << 20), encoding=encoding)
            for lineno, line in textio.text_lines(text, path):
                if not line.strip():
                    continue
                try:
                    rec = json.loads(line, object_pairs_hook=_fields, parse_float=_float_token,
                                     parse_int=_int_token)
                except json.JSONDecodeError as e:
                    raise DatasetError(
                        f"not valid JSON: {e.msg}", path=path, line=lineno, column=e.colno
                    ) from None
                except RecursionError:
                    raise DatasetError("JSON nested too deeply", path=path, line=lineno) from None
                except _RepeatedKey as e:
                    raise DatasetError(f"field {e.args[0]!r} appears twice in one record", path=path,
                                       line=lineno) from None
                except ValueError as e:  # e.g. an integer too long to convert
                    raise DatasetError(f"not usable JSON: {e}", path=path, line=lineno) from None
                if not isinstance(rec, dict):
                    raise DatasetError(
                        f"each line must be a JSON object, got {type(rec).__name__}", path=path, line=lineno
                    )
                _same_spelling(rec, self.spellings, path, lineno)
                self._check_number_texts(rec, lineno)
                yield _flat_record(rec, path, lineno, self.item_kinds)
            self.fingerprint = raw.fingerprint


    def _check_number_texts(self, rec: dict, line: int) -> None:
        """Refuse a field that holds texts and a number written otherwise than its text in a field of
        texts (``1e20`` is ``1e+20`` in memory and on DuckDB, ``1e20`` on Spark, which keeps what the
        file says): no engine can write it as every other does."""
        for key, value in rec.items():
            if isinstance(value, str | bool):
                self.texts.add(key)
            elif isinstance(value, _WrittenNumber | _WrittenInteger):
                self.odd_numbers.setdefault(key, value)
            if key in self.texts and key in self.odd_numbers:
                odd = self.odd_numbers[key]
                raise DatasetError(
                    f"field {key!r} holds texts and the number {odd.written}, which would be the text "
                    f"{str(odd)!r} on some engines and {odd.written!r} on others; write the number as "
                    f"{str(odd)} or quote it", path=self.path, line=line)


class _WrittenNumber(float):
    """A JSON number written otherwise than Python and DuckDB write it as a text (``1e20``, ``1E5``,
    ``-0``): its value, and ``written``, what the file says."""

    written: str


class _WrittenInteger(int):
    """A JSON integer written otherwise than its text (``-0``), still a whole number (a list item)."""

    written: str


def _written(number: _WrittenNumber | _WrittenInteger, text: str) -> _WrittenNumber | _WrittenInteger:
    """``number`` marked with the text the file wrote it as (the refusal quotes it)."""
    number.written = text
    return number


def _float_token(text: str) -> float:
    value = float(text)
    return value if repr(value) == text else _written(_WrittenNumber(value), text)


def _int_token(text: str) -> int:
    value = int(text)
    return value if str(value) == text else _written(_WrittenInteger(value), text)


class _RepeatedKey(ValueError):
    """A JSON object names a field twice (Python keeps the last value, DuckDB refuses the line)."""


def _fields(pairs: list[tuple[str, object]]) -> dict:
    fields = dict(pairs)
    if len(fields) != len(pairs):
        raise _RepeatedKey(next(k for i, (k, _) in enumerate(pairs) if k in dict(pairs[:i])))
    return fields


def _no_records(path: Path, any_record: bool) -> DatasetError:
    if not any_record:
        return DatasetError("the file holds no JSON records", path=path)
    return DatasetError("the records have no fields (every line is {}): nothing to query", path=path)


def check_jsonl(path: Path, options: LoadOptions, progress: ProgressState | None = None) -> str:
    """For an engine that parses JSON lines itself: the memory loader's refusals, in one pass.
    Returns the file's encoding (codecs name)."""
    any_record = any_field = False
    lines = JsonLines(path, options, progress)
    for rec in lines:
        any_record = True
        any_field = any_field or bool(rec)
    if not any_field:
        raise _no_records(path, any_record)
    return codecs.lookup(lines.encoding).name


def _read_jsonl(path: Path, options: LoadOptions, progress: ProgressState | None) -> _Loaded:
    import pandas as pd

    from svtgui.data.frames import combine_chunks, split_chunk

    chunks: list[Chunk] = []
    lengths: list[int] = []  # records per chunk (a chunk of {} records has no column to tell)
    records: list[dict] = []
    lines = JsonLines(path, options, progress)
    for rec in lines:
        records.append(rec)
        if len(records) >= options.chunk_rows:
            chunks.append(split_chunk(pd.DataFrame.from_records(records)))
            lengths.append(len(records))
            records = []
    if records:
        chunks.append(split_chunk(pd.DataFrame.from_records(records)))
        lengths.append(len(records))
    if not any(chunk for chunk in chunks):
        raise _no_records(path, bool(chunks))
    # a field null (or absent) on every line is typed as missing numbers by data.inference
    return _Loaded(combine_chunks(_same_fields(chunks, lengths)), lines.fingerprint, "jsonl")


def _same_fields(chunks: list[Chunk], lengths: list[int]) -> list[Chunk]:
    """Give every chunk every field (missing in the records of a chunk: all missing there); records
    need not all name the same fields, and a field may first appear in a later chunk."""
    names = list(dict.fromkeys(name for chunk in chunks for name in chunk))
    # a missing part takes the field's type from a chunk that has it (all missing: NaN, NA, ...)
    empty = {name: next(c[name] for c in chunks if name in c).iloc[:0] for name in names}
    return [
        {name: chunk[name] if name in chunk else empty[name].reindex(range(n)) for name in names}
        for chunk, n in zip(chunks, lengths, strict=True)
    ]


def _same_spelling(rec: dict, spellings: dict[str, str], path: Path, line: int) -> None:
    """Refuse field names that differ in case only, in one record or across the file: DuckDB and
    Spark read ``a`` and ``A`` as one name, the memory loader as two (see :func:`_check_header`)."""
    for key in rec:
        first = spellings.setdefault(key.casefold(), key)
        if first != key:
            raise DatasetError(f"fields {first!r} and {key!r} differ in case only; names are compared "
                               "ignoring case", path=path, line=line)


def _flat_record(rec: dict, path: Path, line: int, item_kinds: dict[str, str]) -> dict:
    """A record's fields: scalars, or a flat list of items (an item set, kept as a tuple).

    An object or a list of lists has no column meaning; it is refused, never stringified. Items are
    whole numbers or texts, one kind per field in the whole file (``item_kinds``: the kinds seen so
    far): item 1 and item "1" would be one item to some engines and two to others, and a fraction or
    true/false is no item id, so every engine refuses such lists alike. A true/false among other
    values is kept as its JSON text (``true``), as every engine reads a field of mixed values.
    """
    out = {}
    for key, value in rec.items():
        if not key.strip():
            raise DatasetError(f"a field has an empty name ({key!r}); every field needs a name", path=path,
                               line=line)
        if isinstance(value, dict):
            raise DatasetError(
                f"field {key!r} is a JSON object; nested objects are not supported (flatten them into "
                "their own fields)", path=path, line=line,
            )
        if isinstance(value, list):
            if any(isinstance(v, list | dict) for v in value):
                raise DatasetError(
                    f"field {key!r} is a list holding lists or objects; a list field must hold items "
                    "(numbers or texts)", path=path, line=line,
                )
            _check_items(key, value, path, line, item_kinds)
            value = tuple(value)
        elif value is not None and item_kinds.setdefault(key, "values") != "values":
            raise DatasetError(f"field {key!r} is a list on some lines and a single value on others",
                               path=path, line=line)
        if isinstance(value, bool):
            value = "true" if value else "false"
        elif isinstance(value, int) and not _INT64[0] <= value <= _INT64[1]:
            value = _WideInteger(value)
        out[key] = value
    return out


class _WideInteger(float):
    """A JSON integer past 64 bits: a number (the nearest double) in a field of numbers, as DuckDB
    and Spark read it, and its digits as written in a field that also holds texts (as DuckDB)."""

    def __new__(cls, value: int) -> _WideInteger:
        number = super().__new__(cls, float(value))
        number.digits = str(value)
        return number

    def __str__(self) -> str:
        return self.digits


def _check_items(key: str, items: list, path: Path, line: int, item_kinds: dict[str, str]) -> None:
    """Refuse a list whose items are not all whole numbers or all texts, or a field that is a list on
    one line and a single value on another (see :func:`_flat_record`); a null item is no item."""
    if item_kinds.get(key) == "values":
        raise DatasetError(f"field {key!r} is a list on some lines and a single value on others",
                           path=path, line=line)
    item_kinds.setdefault(key, "lists")  # a list field, its items' kind not known yet (an empty list)
    for item in items:
        if isinstance(item, bool) or not isinstance(item, int | str) or (
                isinstance(item, int) and not _INT64[0] <= item <= _INT64[1]):
            raise DatasetError(f"field {key!r} holds the list item {json.dumps(item)}; list items must be "
                               "whole numbers (below 2^63) or texts", path=path, line=line)
        kind = "texts" if isinstance(item, str) else "numbers"
        if item_kinds[key] == "lists":
            item_kinds[key] = kind
        if item_kinds[key] != kind:
            raise DatasetError(f"field {key!r} mixes numbers and texts in its lists; list items must be all "
                               "whole numbers or all texts", path=path, line=line)


# -- FIMI transactions ------------------------------------------------------------------------------


def _read_fimi(path: Path, options: LoadOptions, progress: ProgressState | None) -> _Loaded:
    import pandas as pd

    sample = textio.read_sample(path)
    encoding = _encoding(path, options, sample)
    baskets: list[list[str]] = []
    lines: list[int] = []
    first: _FirstItem | None = None
    with textio.open_stream(path, progress, encoding=encoding, span=(0.0, 0.9)) as raw:
        text = io.TextIOWrapper(io.BufferedReader(raw, buffer_size=1 << 20), encoding=encoding)
        for lineno, line in textio.text_lines(text, path):
            items = line.split()
            if items:
                _check_basket(line, path, lineno)
                first = _check_item_kinds(line, path, lineno, first)
                baskets.append(items)
                lines.append(lineno)
        fingerprint = raw.fingerprint
    if first is None:
        raise DatasetError("the file holds no baskets (only blank lines)", path=path)
    items = _item_ids(baskets, lines, path) if first.is_id else [tuple(sorted(set(b))) for b in baskets]
    column = pd.Series(items, dtype=object, name=options.item_column)
    return _Loaded(column.to_frame(), fingerprint, "fimi")


_ITEM_ID = re.compile(r"[0-9]+")  # a FIMI item id: a non-negative integer in ASCII digits
_NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")  # what reads as a number
_ITEM = re.compile(r"\S+")
_ID_LINE = re.compile(r"[0-9\s]*")
_INT64 = (-(2**63), 2**63 - 1)


@dataclass(frozen=True)
class _FirstItem:
    """The file's first item, which says what its items are: ids (digits) or words."""

    text: str
    line: int
    is_id: bool


def _check_item_kinds(line: str, path: Path, lineno: int, first: _FirstItem | None) -> _FirstItem:
    """Refuse, with its line and column, an item that reads as a number but is not a FIMI item id (a
    non-negative integer): ``-4``, ``+4``, ``1.5``, ``1e3``; and a file that mixes ids and words, whose
    ids would have been read as texts without a word (``1 2 x``: item 1 then matched no integer id of
    the domain). The file's first item (returned) says which of the two its items are."""
    if first is not None and first.is_id and _ID_LINE.fullmatch(line):
        return first  # the common line of a file of ids, checked at once (retail.dat: 88,162 lines)
    for found in _ITEM.finditer(line):
        item = found.group()
        is_id = _ITEM_ID.fullmatch(item) is not None
        if not is_id and _NUMBER.fullmatch(item):
            raise DatasetError(f"item id {item[:25]!r} is not a non-negative integer; FIMI item ids are "
                               "0, 1, 2, … written in digits", path=path, line=lineno,
                               column=found.start() + 1)
        if first is None:
            first = _FirstItem(item, lineno, is_id)
        elif is_id != first.is_id:
            kinds = ("an integer id", "a word") if is_id else ("a word", "an integer id")
            raise DatasetError(f"item {item[:25]!r} is {kinds[0]} but the file's first item "
                               f"{first.text[:25]!r} (line {first.line}) is {kinds[1]}: FIMI item ids are "
                               "non-negative integers, and a file of words may hold no number",
                               path=path, line=lineno, column=found.start() + 1)
    assert first is not None  # the caller passes lines that hold an item
    return first


def _item_ids(baskets: list[list[str]], lines: list[int], path: Path) -> list[tuple]:
    """Each basket of a file of ids (:func:`_check_item_kinds`) as a sorted tuple of distinct integers.
    An id past 64 bits is refused with its line: evaluation holds ids as int64, so it could not be
    counted."""
    converted = []
    for basket, line in zip(baskets, lines, strict=True):
        # 20 digits already exceed 2^63; longer ones are not even converted (int() refuses 4,300)
        ids = {int(x) if len(x) <= 20 else _INT64[1] + 1 for x in basket}
        if max(ids) > _INT64[1]:
            big = next(x for x in basket if len(x) > 20 or int(x) > _INT64[1])
            raise DatasetError(f"item id {big[:25]}{'…' if len(big) > 25 else ''} does not fit in 64 bits; "
                               "FIMI item ids are integers below 2^63", path=path, line=line)
        converted.append(tuple(sorted(ids)))
    return converted


def _check_basket(line: str, path: Path, lineno: int) -> None:
    """FIMI items are separated by blanks; a comma or semicolon means another format (one item
    "1,2,3" would silently stand for three)."""
    for sep in (",", ";", "|"):
        if sep in line:
            raise DatasetError(
                f"items of a FIMI .dat file are separated by spaces, but this line holds {sep!r} "
                "(is it a CSV file? load it as CSV, or replace the separators by spaces)",
                path=path, line=lineno,
            )


# -- Parquet and Excel (their parsers open the file themselves; hash first, then parse) -------------


def check_parquet(path: Path) -> None:
    """What every engine refuses in a Parquet file before reading a row, from its footer alone: an
    unreadable footer (a truncated or foreign file), a repeated column name (DuckDB renames it
    ``x_1``), a column type with no query meaning, no rows. The same messages on every engine."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        with textio.open_regular(path) as f:
            meta = pq.ParquetFile(f)
            schema, rows = meta.schema_arrow, meta.metadata.num_rows
    except (pa.ArrowException, OSError, ValueError) as e:  # ValueError: e.g. undecodable metadata
        raise DatasetError(f"not a readable Parquet file ({_one_line(e)})", path=path) from None
    _check_header(schema.names, path, line=None)
    _check_parquet_types(schema, path)
    if rows == 0:
        raise DatasetError("the file holds no rows", path=path)


def _read_parquet(path: Path, options: LoadOptions, progress: ProgressState | None) -> _Loaded:
    import pandas as pd
    import pyarrow as pa
    import pyarrow.parquet as pq

    from svtgui.data.frames import tidy_frame

    check_parquet(path)
    fingerprint = textio.hash_file(path, progress, span=(0.0, 0.3))
    try:
        pf = pq.ParquetFile(path)
        tables = []
        for i in range(pf.num_row_groups):
            tables.append(pf.read_row_group(i))
            textio.report(progress, 0.3 + 0.6 * (i + 1) / max(pf.num_row_groups, 1))
        table = pa.concat_tables(tables) if tables else pf.schema_arrow.empty_table()
    except (pa.ArrowException, OSError, ValueError) as e:  # ValueError: e.g. undecodable metadata
        raise DatasetError(f"not a readable Parquet file ({_one_line(e)})", path=path) from None
    # pyarrow reads a damaged page without checking it (text that is not UTF-8, offsets out of
    # range), which would fail later, mid-conversion, with a bare ArrowException
    for name, column in zip(table.column_names, table.columns, strict=True):
        try:
            column.validate(full=True)
        except pa.ArrowException as e:
            raise DatasetError(f"damaged values in the Parquet file ({_one_line(str(e).split(': ')[-1])})",
                               path=path, column=name) from None
    table = _microsecond_timestamps(_decimals_as_floats(table))
    try:
        # a boolean column with nulls stays boolean (not texts "True"), a date column is a date
        # (not texts), as DuckDB and Spark read them
        frame = table.to_pandas(date_as_object=False,
                                types_mapper={pa.bool_(): pd.BooleanDtype()}.get)
    except pa.ArrowException as e:  # e.g. a date outside what pandas can hold
        raise DatasetError(f"the Parquet file's values cannot be converted ({_one_line(e)})",
                           path=path) from None
    if frame.empty:
        raise DatasetError("the file holds no rows", path=path)
    frame = frame.apply(
        lambda s: (
            s.map(lambda v: tuple(v) if hasattr(v, "__len__") and not isinstance(v, str) else v)
            if s.dtype == object
            else s
        )
    )
    frame = tidy_frame(frame, categorical=True)
    empty_lists = tuple(f.name for f in table.schema
                        if (pa.types.is_list(f.type) or pa.types.is_large_list(f.type))
                        and table.column(f.name).null_count == len(table))
    for name in empty_lists:  # no list at all: missing baskets (tidy_frame took them for texts)
        frame[name] = pd.Series([None] * len(frame), index=frame.index, dtype=object)
    return _Loaded(frame, fingerprint, "parquet", item_columns=empty_lists)


def _one_line(e: object) -> str:
    """A library's message (pyarrow's hold line breaks) on one line."""
    return " ".join(str(e).split())


def _check_parquet_types(schema, path: Path) -> None:  # noqa: ANN001 - pyarrow types, imported lazily
    """Columns SVT Studio can query: numbers, booleans, texts, dates, categories, and lists of
    whole numbers or texts (item sets), on every engine alike. Structs, maps, binary data and nested
    lists are refused, naming the column, rather than turned into tuples of keys or sets of byte
    values; so are times of day, durations and half-precision numbers (texts or numbers in memory,
    refused by DuckDB or Spark) and lists of fractions, booleans, dates or unsigned 64-bit numbers
    (no item ids, as in JSON lines; DuckDB refused them)."""
    import pyarrow.types as t

    def scalar(typ) -> bool:  # noqa: ANN001
        if t.is_dictionary(typ):
            return scalar(typ.value_type)
        return (t.is_integer(typ) or t.is_float32(typ) or t.is_float64(typ) or t.is_boolean(typ)
                or t.is_string(typ) or t.is_large_string(typ) or t.is_timestamp(typ) or t.is_date(typ)
                or t.is_null(typ) or t.is_decimal(typ))

    def item(typ) -> bool:  # noqa: ANN001
        return ((t.is_integer(typ) and not t.is_uint64(typ)) or t.is_string(typ) or t.is_large_string(typ)
                or t.is_null(typ))

    for f in schema:
        typ = f.type
        if t.is_list(typ) or t.is_large_list(typ) or t.is_fixed_size_list(typ):
            if not item(typ.value_type):
                raise DatasetError(
                    f"a list column of {typ.value_type}; a list column must hold whole numbers (below "
                    "2^63) or texts (an item set)", path=path, column=f.name,
                )
        elif not scalar(typ):
            kind = ("binary data" if t.is_binary(typ) or t.is_large_binary(typ) or t.is_fixed_size_binary(typ)
                    else "a struct (nested fields)" if t.is_struct(typ) else "a map" if t.is_map(typ)
                    else "times of day" if t.is_time(typ) else "durations" if t.is_duration(typ)
                    else "half-precision numbers (float16: Spark cannot read them; store float32)"
                    if t.is_float16(typ)
                    else str(typ))
            raise DatasetError(
                f"the column holds {kind}, which has no meaning for a query; drop it or flatten it "
                "into plain columns before loading", path=path, column=f.name,
            )


def _decimals_as_floats(table):  # noqa: ANN001, ANN202 - pyarrow types, imported lazily
    """Decimal columns as float64 (said in docs/data.md): exact decimals become the nearest double.
    A column of type null (no value at all) too: missing numbers, as DuckDB and Spark read it."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.types as t

    for i, f in enumerate(table.schema):
        if t.is_decimal(f.type) or t.is_null(f.type):
            table = table.set_column(i, f.name, pc.cast(table.column(i), pa.float64()))
    return table


def _microsecond_timestamps(table):  # noqa: ANN001, ANN202 - pyarrow types, imported lazily
    """Nanosecond timestamps floored to the microsecond, as every engine holds a datetime (DuckDB's
    TIMESTAMP, Spark's, which cannot read nanoseconds at all; CSV and JSON dates stop at µs)."""
    import pyarrow.compute as pc
    import pyarrow.types as t

    for i, f in enumerate(table.schema):
        if t.is_timestamp(f.type) and f.type.unit == "ns":
            table = table.set_column(i, f.name, pc.floor_temporal(table.column(i), unit="microsecond"))
    return table


def parquet_nanosecond_columns(path: Path) -> list[str]:
    """The columns of a Parquet file (its footer) that hold nanosecond timestamps."""
    import pyarrow.parquet as pq
    import pyarrow.types as t

    with textio.open_regular(path) as f:
        schema = pq.ParquetFile(f).schema_arrow
    return [f.name for f in schema if t.is_timestamp(f.type) and f.type.unit == "ns"]


def _read_excel(path: Path, options: LoadOptions, progress: ProgressState | None) -> _Loaded:
    import zipfile

    import pandas as pd

    from svtgui.data.frames import tidy_frame

    fingerprint = textio.hash_file(path, progress, span=(0.0, 0.3))
    _check_workbook_container(path)
    try:
        frame = pd.read_excel(
            path,
            sheet_name=options.sheet,
            engine="openpyxl",
            header=0 if options.header else None,
            na_values=list(options.missing),
            keep_default_na=options.standard_missing,
        )
    except (zipfile.BadZipFile, KeyError) as e:
        raise DatasetError(f"not a readable Excel workbook ({e})", path=path) from None
    except ValueError as e:
        raise DatasetError(f"cannot read the workbook: {e}", path=path) from None
    except Exception as e:  # openpyxl raises its own InvalidFileException and friends
        raise DatasetError(f"not a readable Excel workbook ({type(e).__name__}: {e})", path=path) from None
    if frame.empty:
        raise DatasetError(f"sheet {options.sheet!r} holds no rows", path=path)
    if not options.header:
        frame.columns = numbered_names(frame.shape[1])
    else:
        header = _excel_row(path, options.sheet, 1)
        _check_header(header, path)
        if frame.shape[1] > len(header):  # pandas names such a column "Unnamed: 1"
            from openpyxl.utils import get_column_letter

            raise DatasetError(
                f"column {get_column_letter(len(header) + 1)} holds values but has no name in the header "
                "(row 1); name it, or delete the stray values", path=path,
            )
    frame.columns = [str(c) for c in frame.columns]
    if frame.isna().to_numpy().any():
        _check_cached_formulas(path, options.sheet)
    return _Loaded(tidy_frame(frame, categorical=True), fingerprint, "excel")


_CFB_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"  # OLE compound file: encrypted .xlsx or old .xls


def _check_workbook_container(path: Path) -> None:
    """Name the two non-zip workbooks a curator meets: password-protected ones and Excel 97-2003."""
    with textio.open_regular(path) as f:
        head = f.read(1 << 20)
    if not head.startswith(_CFB_MAGIC):
        return
    if "EncryptedPackage".encode("utf-16-le") in head:
        raise DatasetError(
            "this workbook is password-protected (encrypted); open it in Excel or LibreOffice, remove "
            "the password, save it, and load it again", path=path,
        )
    raise DatasetError(
        "this is an Excel 97-2003 (.xls) workbook or another OLE file, not .xlsx; save it as .xlsx or "
        "CSV", path=path,
    )


def _worksheet(path: Path, sheet: str | int, data_only: bool):  # noqa: ANN202 - openpyxl objects
    import openpyxl

    wb = openpyxl.load_workbook(path, read_only=True, data_only=data_only)
    return wb, (wb[sheet] if isinstance(sheet, str) else wb.worksheets[sheet])


def _excel_row(path: Path, sheet: str | int, row: int) -> list[object]:
    """Row ``row`` of the sheet as written (the header, before pandas renames repeats)."""
    wb, ws = _worksheet(path, sheet, True)
    try:
        values = next(ws.iter_rows(min_row=row, max_row=row, values_only=True), ())
        while values and values[-1] is None:  # trailing empty cells are not columns
            values = values[:-1]
        return list(values)
    finally:
        wb.close()


def _check_cached_formulas(path: Path, sheet: str | int) -> None:
    """Refuse formula cells with no saved value (a workbook written by a program that does not
    calculate): they would load as missing values, silently."""
    from openpyxl.utils import get_column_letter

    wb_values, values = _worksheet(path, sheet, True)
    wb_formulas, formulas = _worksheet(path, sheet, False)
    try:
        rows = zip(values.iter_rows(values_only=True), formulas.iter_rows(values_only=True), strict=False)
        uncached = [
            (r, c)
            for r, (vrow, frow) in enumerate(rows, start=1)
            for c, (v, f) in enumerate(zip(vrow, frow, strict=False), start=1)
            if v is None and isinstance(f, str) and f.startswith("=")
        ]
    finally:
        wb_values.close()
        wb_formulas.close()
    if uncached:
        r, c = uncached[0]
        more = f" and {len(uncached) - 1} more" if len(uncached) > 1 else ""
        raise DatasetError(
            f"cell {get_column_letter(c)}{r}{more}: formulas with no saved value (the workbook was "
            "written by a program that does not calculate them); open and save it in Excel or "
            "LibreOffice, or export the sheet as CSV", path=path,
        )
