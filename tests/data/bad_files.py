"""The test suite's corpus of bad (and tricky-but-valid) data files, shared by the loader tests and the
cross-engine verdict test: every engine must accept each file with the same rows, or refuse it with
the memory loader's one line (issue 22 §2).

Gathered from ``test_loaders`` (bad files), ``tests/cli/test_bad_inputs`` (DuckDB's lenient text),
``test_guarded_reader`` (ragged rows among quotes), issue 22's engine cases, and seeded byte-level
mutations of the fuzzer's seeds (``fuzzing.mutate_bytes``), so what the fuzzer explores for the
memory loader is also held against the other engines.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from datetime import date
from pathlib import Path

from tests.data.fuzzing import mutate_bytes

# (file name, content, what the memory loader's message says, the line it names)
REFUSED: list[tuple[str, bytes, str, int | None]] = [
    ("empty.csv", b"", "empty", None),
    ("blank.csv", b"\n\n\n", "no columns", None),
    ("header.csv", b"a,b\n", "no data rows", 2),
    ("binary.csv", bytes(range(256)) * 40, "binary", None),
    ("short.csv", b"a,b,c\n1,2,3\n4,5\n6,7,8\n", "ragged row: 2 fields", 3),
    ("long.csv", b"a,b,c\n1,2,3\n4,5,6,7\n", "ragged row: 4 fields", 3),
    ("noname.csv", b"a,,c\n1,2,3\n", "empty column name", 1),
    ("dupe.csv", b"a,b,a\n1,2,3\n", "repeats", 1),
    ("bad.jsonl", b'{"a": 1}\n{oops}\n', "not valid JSON", 2),
    ("list.jsonl", b"[1, 2]\n", "JSON object", 1),
    ("blank.dat", b"\n \n", "no baskets", None),
    # FIMI ids are non-negative integers: one stray token made every id of the file a text
    ("negative.dat", b"1 2\n-4 5\n", "'-4' is not a non-negative integer", 2),
    ("fraction.dat", b"1 2\n3 1.5\n", "'1.5' is not a non-negative integer", 2),
    ("id-then-word.dat", b"1 2\n2 x\n", "'x' is a word but the file's first item '1'", 2),
    ("word-then-id.dat", b"milk\nbread 2\n", "'2' is an integer id but the file's first item 'milk'", 2),
    ("junk.parquet", b"PAR1 this is not parquet", "Parquet", None),
    ("junk.xlsx", b"not a zip file at all", "Excel", None),
    ("data.xyz", b"a\n1\n", "unknown file type", None),
]

CSV_SEED = b'age,sex,"note, quoted"\n34,F,"a ""b"""\n51,M,\n\n29,F,x\n'
JSONL_SEED = b'{"age": 34, "sex": "F", "items": [1, 2]}\n{"age": 51, "sex": null, "items": [3]}\n'


def _parquet(**columns: object) -> bytes:
    import pyarrow as pa
    import pyarrow.parquet as pq

    out = io.BytesIO()
    pq.write_table(pa.table(columns), out)
    return out.getvalue()


def _repeated_name() -> bytes:
    import pyarrow as pa
    import pyarrow.parquet as pq

    out = io.BytesIO()
    pq.write_table(pa.Table.from_arrays([pa.array([1, 2]), pa.array([3, 4])], names=["x", "x"]), out)
    return out.getvalue()


def _mutations(seed: bytes, count: int, salt: int) -> list[bytes]:
    """``count`` seeded byte-level mutations of ``seed`` (the fuzzer's edits, fixed choices)."""
    return [mutate_bytes(seed, ((salt + 7919 * i) % 65536, (31 * i + salt) % 65536, (17 * i) % 256, i % 10))
            for i in range(count)]


def engine_corpus() -> list[tuple[str, Callable[[], bytes]]]:
    """Files for the three engines (formats DuckDB and Spark read: CSV, TSV, JSON lines, Parquet)."""
    parquet_seed = _parquet(age=[1, 2, 3], sex=["F", "M", "F"], items=[[1], [2, 3], []])
    files: list[tuple[str, Callable[[], bytes]]] = [
        (name, lambda content=content: content) for name, content, _, _ in REFUSED
        if name.endswith((".csv", ".jsonl", ".parquet"))]
    files += [
        # issue 22 §2
        ("quoted-newline.csv", lambda: b'a,b\n1,"two\nlines"\n2,x\n3,y\n'),  # 3 records, not 4
        ("corrupt-line.jsonl", lambda: b'{"a": 1}\n{oops}\n{"a": 2}\n'),
        ("empty-objects.jsonl", lambda: b"{}\n{}\n"),
        ("deep.jsonl", lambda: b'{"a": ' + b"[" * 3000 + b"1" + b"]" * 3000 + b"}\n"),
        ("nested.jsonl", lambda: b'{"a": {"k": 1}}\n'),
        ("repeated-name.parquet", _repeated_name),
        ("truncated.parquet", lambda: parquet_seed[:-30]),
        ("struct.parquet", lambda: _parquet(ok=[1, 2], nested=[{"k": 1}, {"k": 2}])),
        ("no-rows.parquet", _empty_parquet),
        # tests/cli/test_bad_inputs: DuckDB's lenient reading of text
        ("one-short.csv", lambda: b"x,colour\n1,red\n2\n"),
        ("quoted-short.csv", lambda: b'x,colour\n1,"red, dark"\n2\n'),
        ("one-long.csv", lambda: b"x,colour\n1,red\n2,blue,3\n"),
        ("x-twice.csv", lambda: b"x,x\n1,2\n"),
        ("utf16.csv", lambda: "x,colour\n1,red\n".encode("utf-16-le")),
        # test_guarded_reader: ragged rows among quotes
        ("after-quoted-newline.csv", lambda: b'a,b\n1,"two\nlines"\n2,3\n4\n'),
        ("doubled-quotes.csv", lambda: b'a,b\n"x ""q"", y",1\n2\n'),
        ("quoted-fields.csv", lambda: b'a,b\n"x, y",1\n"two\nlines",2\n, 3\n'),
        # valid seeds of the fuzzer, and what it does to them
        ("seed.csv", lambda: CSV_SEED),
        ("seed.tsv", lambda: CSV_SEED.replace(b",", b"\t")),
        ("seed.jsonl", lambda: JSONL_SEED),
        ("seed.parquet", lambda: parquet_seed),
        ("markers-and-blanks.csv", lambda: b"a,b,c\n x ,NA,1\ny, ?,2\nNA ,null,3\nz,n/a , 4\n"),
        ("stray-quote.csv", lambda: b'h,w\n5\'3",1\n6\'1",2\n'),  # a quote inside an unquoted field: literal
        ("blank-line-and-crlf.csv", lambda: b"a,b\r\n1,2\r\n\r\n3,4\r\n"),
        ("late-text.csv", lambda: ("a,b\n" + "1,2\n" * 25_000 + "x,3\n").encode()),  # past DuckDB's sample
        ("late-text.jsonl", lambda: ('{"a": 1}\n' * 25_000 + '{"a": "x"}\n').encode()),
        # JSON lists: items are whole numbers or texts, one kind per field (DuckDB refused JSON[]);
        # a true/false among other values reads as its JSON text on every engine
        ("mixed-list.jsonl", lambda: b'{"a": [1, "x"]}\n{"a": [2]}\n'),
        ("mixed-lists.jsonl", lambda: b'{"a": [1]}\n{"a": ["x"]}\n'),
        ("fraction-list.jsonl", lambda: b'{"a": [1.5]}\n{"a": [2]}\n'),
        ("boolean-list.jsonl", lambda: b'{"a": [true]}\n{"a": [false]}\n'),
        ("null-item.jsonl", lambda: b'{"a": [1, null]}\n{"a": []}\n'),
        ("list-or-value.jsonl", lambda: b'{"a": [1]}\n{"a": 2}\n'),
        ("value-or-list.jsonl", lambda: b'{"a": "x"}\n{"a": null}\n{"a": ["x"]}\n'),
        ("number-or-boolean.jsonl", lambda: b'{"a": 1, "b": true}\n{"a": true, "b": null}\n'),
        # names that differ in case only are one name to DuckDB and Spark (DuckDB said A_1); a key
        # twice in one JSON object (memory kept the last value, DuckDB refused with its own words)
        ("case-repeat.csv", lambda: b"a,A\n1,2\n"),
        ("case-repeat.parquet", lambda: _parquet(a=[1, 2], A=[3, 4])),
        ("case-repeat.jsonl", lambda: b'{"a": 1}\n{"A": 2}\n'),
        ("repeated-key.jsonl", lambda: b'{"a": 1, "a": 2}\n'),
        # Parquet booleans with nulls were texts "True" in memory, dates texts: DuckDB's types
        ("boolean-nulls.parquet", lambda: _parquet(a=[True, None, False])),
        ("dates.parquet", lambda: _parquet(a=[date(2020, 1, 2), None])),
        # no value at all: missing numbers (as an empty CSV column), not texts of no category
        ("null-field.jsonl", lambda: b'{"a": null, "b": 1}\n{"a": null, "b": 2}\n'),
        ("null-type.parquet", lambda: _parquet(a=pa_nulls(2), b=["x", "y"])),
        # a column's type from all of its texts, by data.inference's rules, on every engine
        ("leading-zeros.csv", lambda: b"a,b\n007,x\n010,y\n"),
        ("plus-sign.csv", lambda: b"a,b\n+1,x\n-2,y\n"),
        ("infinity.csv", lambda: b"a,b\ninf,x\n-inf,y\n3,z\n"),
        ("number-spellings.csv", lambda: b"a,b\n1e5,x\n.5,y\n1.,z\n+.5e-3,w\n-INFINITY,v\n1E400,u\n-0,t\n"),
        ("exponent-integers.csv", lambda: b"a\n1e3\n2\n"),
        ("past-int64.csv", lambda: b"a,b\n9223372036854775808,x\n1,y\n"),
        ("int64-edges.csv", lambda: b"a\n9223372036854775807\n-9223372036854775808\n"),
        ("long-fraction.csv", lambda: b"a\n0.1000000000000000055511151231257827\n2.2250738585072011e-308\n"),
        ("blank-padded-numbers.csv", lambda: b'a,b\n 1 ,x\n2 ,y\n" 3",z\n'),
        ("quoted-numbers.csv", lambda: b'a,b\n"1",x\n"2.5",y\n'),
        ("zeros-then-text.csv", lambda: b"a,b\n007,1\n1.50,2\nx,3\n"),
        ("zeros-then-late-text.csv", lambda: ("a,b\n" + "007,1.50\n" * 50_001 + "x,true\n").encode()),
        ("numbers-then-late-boolean.csv", lambda: ("a\n" + "1\n" * 50_001 + "true\n").encode()),
        ("late-empty.csv", lambda: ("a,b\n" + "1,2\n" * 50_001 + "NA,\n" * 50_001).encode()),
        ("hex.csv", lambda: b"a,b\n0x10,x\n1,y\n"),
        ("underscores.csv", lambda: b"a,b\n1_000,x\n2,y\n"),
        ("arabic-digits.csv", lambda: "a,b\n\u0661\u0662,x\n3,y\n".encode()),
        ("nan-text.csv", lambda: b"a,b\nnan,x\n1,y\n"),
        ("yes-no.csv", lambda: b"a,b\nyes,x\nno,y\n"),
        ("boolean-cases.csv", lambda: b"a,b\nTRUE,x\nfalse,y\ntRuE,z\n,w\n"),
        ("boolean-or-number.csv", lambda: b"a,b\ntrue,x\n1,y\n"),
        ("one-zero.csv", lambda: b"a,b\n1,x\n0,y\n"),
        ("slash-dates.csv", lambda: b"a,b\n01/02/2020,x\n12/31/2021,y\n"),
        ("iso-datetimes.csv", lambda: b"a,b\n2020-01-02T10:00:00,x\n2020-01-03 11:30,y\n2021-12-31,z\n,w\n"),
        ("micro-seconds.csv", lambda: b"a\n2020-01-02 10:00:00.123456\n2020-01-02 10:00:00.5\n"),
        ("nano-seconds.csv", lambda: b"a\n2020-01-02 10:00:00.1234567\n"),
        ("no-such-day.csv", lambda: b"a,b\n2020-02-30,x\n2020-01-01,y\n"),
        ("old-dates.csv", lambda: b"a,b\n1500-01-01,x\n2020-01-01,y\n"),
        ("zoned-dates.csv", lambda: b"a,b\n2020-01-02T10:00:00Z,x\n2020-01-02T10:00:00+01:00,y\n"),
        ("compact-dates.csv", lambda: b"a,b\n20200102,x\n2020-1-2,y\n"),
        ("times.csv", lambda: b"a,b\n10:00:00,x\n11:30:00,y\n"),
        ("dates-and-numbers.csv", lambda: b"a\n2020-01-02\n5\n"),
        ("empty-column.csv", lambda: b"a,b\n1,\n2,\n"),
        ("markers-only.csv", lambda: b"a,b\nNA,1\n?,2\n null ,3\n"),
        ("empty-column.tsv", lambda: b"a\tb\n1\t\n2\t\n"),
        # rows longer than the header by empty fields: DuckDB dropped them, even in strict mode
        ("trailing-delimiter.csv", lambda: b"a,b\n1,x,\n2,y,\n"),
        ("one-trailing-delimiter.csv", lambda: b"a,b\n1,x\n2,y,\n"),
        ("two-trailing-delimiters.csv", lambda: b"a,b\n1,x\n2,y,,\n"),
        ("trailing-delimiter-crlf.csv", lambda: b"a,b\r\n1,x\r\n2,y,\r\n"),
        ("trailing-delimiter-at-end.csv", lambda: b"a,b\n1,x\n2,y,"),
        ("trailing-delimiter.tsv", lambda: b"a\tb\n1\tx\n2\ty\t\n"),
        ("trailing-blank-field.csv", lambda: b"a,b\n1,x\n2,y, \n"),
        ("blanks-line.csv", lambda: b"a,b\n1,x\n   \n2,y\n"),
        ("space-line.csv", lambda: b"a,b\n1,2\n \n3,4\n"),
        ("spaces-line-one-column.csv", lambda: b"a\n1\n   \n3\n"),
        ("tab-line.tsv", lambda: b"a\tb\n1\t2\n\t\n"),  # two empty fields: a row of missing values
        ("comment-sign.csv", lambda: b"a,b\n#N/A,1\n#x,2\n3,3\n"),  # DuckDB's sniffer took # for comments
        ("one-column-empty-lines.csv", lambda: b"a\nyes\n\nyes\n\n"),
        ("one-column-quoted-empty.csv", lambda: b'a\nx\n""\ny\n'),
        ("one-column-markers.csv", lambda: b"a\nNA\n\n?\n1\n"),
        ("one-column-only-empty-lines.csv", lambda: b"a\n\n\n\n"),
        ("leading-blank-lines.csv", lambda: b"\n\na,b\n1,2\n"),
        ("blanks-in-header.csv", lambda: b" a , b \n1,x\n"),
        ("big-number-among-texts.jsonl", lambda: b'{"a": 1e20}\n{"a": "x"}\n'),
        ("numbers-among-texts.jsonl",
         lambda: b'{"a": 13.0}\n{"a": -0.0}\n{"a": 1.5e-07}\n{"a": 7}\n{"a": "x"}\n'),
        ("odd-number-among-texts.jsonl", lambda: b'{"a": "x"}\n{"a": 1.5e-7}\n'),
        ("text-after-odd-number.jsonl", lambda: b'{"a": 1E5}\n{"a": 2}\n{"a": true}\n'),
        ("negative-zero-among-texts.jsonl", lambda: b'{"a": -0}\n{"a": "x"}\n'),
        ("negative-zero-item.jsonl", lambda: b'{"a": [-0, 1]}\n'),
        ("huge-integer.jsonl", lambda: b'{"a": 99999999999999999999}\n{"a": 1}\n'),
        ("huge-integer-among-texts.jsonl", lambda: b'{"a": 99999999999999999999}\n{"a": "x"}\n'),
        ("int64-edges.jsonl", lambda: b'{"a": 9223372036854775807}\n{"a": -9223372036854775808}\n'),
        ("integers-and-fractions.jsonl", lambda: b'{"a": 1}\n{"a": 2.5}\n{"a": 1e3}\n'),
        ("number-texts.jsonl", lambda: b'{"a": "7"}\n{"a": "8"}\n'),
        ("date-texts.jsonl", lambda: b'{"a": "2020-01-02"}\n{"a": "2020-01-03T10:00:00"}\n{"a": null}\n'),
        ("zoned-date-texts.jsonl", lambda: b'{"a": "2020-01-02T10:00:00Z"}\n{"a": "2020-01-03T10:00:00Z"}\n'),
        ("slash-date-texts.jsonl", lambda: b'{"a": "01/02/2020"}\n{"a": "12/31/2021"}\n'),
        ("old-date-texts.jsonl", lambda: b'{"a": "1500-01-02"}\n'),
        ("time-texts.jsonl", lambda: b'{"a": "10:00:00"}\n{"a": "11:30:00"}\n'),
        ("uuid-texts.jsonl", lambda: b'{"a": "550e8400-e29b-41d4-a716-446655440000"}\n'
                                     b'{"a": "650e8400-e29b-41d4-a716-446655440000"}\n'),
        ("zoned-timestamp-texts.jsonl",
         lambda: b'{"a": "2020-01-02 10:00:00+01"}\n{"a": "2020-01-03 10:00:00+01"}\n'),
        ("interval-texts.jsonl", lambda: b'{"a": "1 day"}\n{"a": "2 days"}\n'),
        ("boolean-text-cases.jsonl", lambda: b'{"a": "TRUE"}\n{"a": false}\n{"a": null}\n'),
        ("yes-no-texts.jsonl", lambda: b'{"a": "yes"}\n{"a": "no"}\n'),
        ("marker-texts.jsonl", lambda: b'{"a": "NA", "b": "?"}\n{"a": " x ", "b": null}\n'),
        ("marker-and-number.jsonl", lambda: b'{"a": "NA"}\n{"a": 1}\n'),
        ("empty-list-then-value.jsonl", lambda: b'{"b": []}\n{"b": "x"}\n'),
        ("empty-lists-and-null.jsonl", lambda: b'{"a": []}\n{"a": null}\n'),
        ("empty-text.jsonl", lambda: b'{"a": ""}\n{"a": "x"}\n'),
        ("huge-item.jsonl", lambda: b'{"a": [99999999999999999999]}\n{"a": [1]}\n'),
        ("true-text-and-boolean.jsonl", lambda: b'{"a": "true"}\n{"a": false}\n'),
        ("true-false-texts.jsonl", lambda: b'{"a": "true"}\n{"a": "false"}\n'),
        ("empty-lists.jsonl", lambda: b'{"a": []}\n{"a": []}\n'),
        ("fraction-lists.parquet", lambda: _parquet(a=[[1.5], []])),
        ("whole-float-lists.parquet", lambda: _parquet(a=[[1.0], [2.0]])),
        ("boolean-lists.parquet", lambda: _parquet(a=[[True], [False]])),
        ("unsigned-lists.parquet", lambda: _parquet(a=_typed([[1], [2, 3]], "list<uint8>"))),
        ("big-unsigned-lists.parquet", lambda: _parquet(a=_typed([[2**63 + 1]], "list<uint64>"))),
        ("date-lists.parquet", lambda: _parquet(a=[[date(2020, 1, 2)], []])),
        ("times.parquet", lambda: _parquet(a=_typed([36000, None], "time32[s]"))),
        ("durations.parquet", lambda: _parquet(a=_typed([5, 6], "duration[s]"))),
        ("zoned-timestamps.parquet",
         lambda: _parquet(a=_typed([0, 86_400_000_000], "timestamp[us, tz=UTC]"))),
        ("nanoseconds.parquet", lambda: _parquet(a=_typed([1_000_000_001, -1, 1_999, None], "timestamp[ns]"),
                                                b=_typed([1_999, -1_001, 0, None], "timestamp[ns, tz=UTC]"))),
        ("null-lists.parquet", lambda: _parquet(a=_typed([None, None], "list<int64>"), b=[1, 2])),
        ("far-dates.parquet", lambda: _parquet(a=[date(3000, 1, 2), date(1000, 1, 1)])),
        ("big-unsigned.parquet", lambda: _parquet(a=_typed([2**64 - 1, 1], "uint64"))),
        ("half-floats.parquet", lambda: _parquet(a=_typed([1.5, None], "float16"))),
        ("decimals.parquet", lambda: _parquet(a=_typed(["1.25", None], "decimal128(5, 2)"))),
        ("dictionary-texts.parquet", lambda: _parquet(a=_typed(["x", "y", "x"], "dictionary<string>"))),
        ("dictionary-integers.parquet", lambda: _parquet(a=_typed([1, 2, 1], "dictionary<int64>"))),
        ("large-strings.parquet", lambda: _parquet(a=_typed(["x", None], "large_string"))),
        ("true-false-strings.parquet", lambda: _parquet(a=["true", "false"])),
        ("marker-strings.parquet", lambda: _parquet(a=["NA", " x "], b=[1.0, float("nan")])),
        ("all-null-strings.parquet", lambda: _parquet(a=_typed([None, None], "string"), b=[1, 2])),
    ]
    seeds = ((".csv", CSV_SEED, 1), (".jsonl", JSONL_SEED, 2), (".parquet", parquet_seed, 3))
    for suffix, seed, salt in seeds:
        files += [(f"mutant-{i}{suffix}", lambda m=m: m) for i, m in enumerate(_mutations(seed, 12, salt))]
    return files


HEADERLESS = ("seed.csv", "seed.tsv", "quoted-newline.csv", "blank-line-and-crlf.csv", "dupe.csv",
              "noname.csv", "header.csv", "short.csv", "x-twice.csv", "markers-and-blanks.csv",
              "zeros-then-late-text.csv", "leading-blank-lines.csv", "one-trailing-delimiter.csv")
"""Delimited files also read as having no header (``LoadOptions(header=False)``): the first line is
a record and the columns are "column 1", ... on every engine (DuckDB said ``column0``, or took the
first record for a header)."""


def _typed(values: list, arrow_type: str) -> object:
    """A column of ``values`` of an Arrow type named as pyarrow prints it (``list<uint8>``, ...)."""
    import pyarrow as pa

    simple = {"list<uint8>": pa.list_(pa.uint8()), "list<int64>": pa.list_(pa.int64()),
              "list<uint64>": pa.list_(pa.uint64()),
              "time32[s]": pa.time32("s"), "duration[s]": pa.duration("s"),
              "timestamp[us, tz=UTC]": pa.timestamp("us", tz="UTC"), "uint64": pa.uint64(),
              "timestamp[ns]": pa.timestamp("ns"), "timestamp[ns, tz=UTC]": pa.timestamp("ns", tz="UTC"),
              "decimal128(5, 2)": pa.decimal128(5, 2), "large_string": pa.large_string(),
              "string": pa.string()}
    if arrow_type.startswith("dictionary<"):
        inner = pa.int64() if "int64" in arrow_type else pa.string()
        return pa.array(values, inner).dictionary_encode()
    if arrow_type == "float16":
        import numpy as np

        return pa.array(np.array(values, dtype=np.float16))
    if arrow_type.startswith("decimal"):
        from decimal import Decimal

        values = [None if v is None else Decimal(v) for v in values]
    return pa.array(values, simple[arrow_type])


def pa_nulls(n: int) -> object:
    """A Parquet column of type null (every value missing)."""
    import pyarrow as pa

    return pa.nulls(n)


def _empty_parquet() -> bytes:
    import pyarrow as pa

    return _parquet(a=pa.array([], pa.int64()))


def write(folder: Path, name: str, content: bytes) -> Path:
    path = folder / name
    path.write_bytes(content)
    return path
