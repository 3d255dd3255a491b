"""Every engine gives every file of the bad-file corpus the same verdict (issue 22 §2): accepted with
the same rows, or refused with the memory loader's one line — and the JVM's own output (log4j,
Java stacks) never reaches the curator's terminal."""

from __future__ import annotations

import math
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from svtgui.data.engines import open_dataset
from svtgui.data.errors import DatasetError
from svtgui.data.evaluate import evaluate
from svtgui.data.loaders import LoadOptions
from svtgui.data.queries import Count
from tests.data.bad_files import HEADERLESS, engine_corpus, write

CORPUS = engine_corpus()


def _cell(v: Any) -> Any:
    if v is None or (isinstance(v, float) and math.isnan(v)) or v is pd.NA or v is pd.NaT:
        return None
    if isinstance(v, pd.Timestamp):
        return v.tz_convert(None).isoformat() if v.tzinfo else v.isoformat()
    if isinstance(v, tuple | list):
        return tuple(sorted(map(_cell, v), key=repr))
    if hasattr(v, "item"):
        v = v.item()
    return float(v) if isinstance(v, int | float) and not isinstance(v, bool) else v


def verdict(path: Path, engine: str, options: LoadOptions | None = None) -> tuple:
    """("refused", the one line) or ("accepted", kinds, sorted rows, the count an engine evaluates)."""
    try:
        master = "local[2]" if engine == "spark" else None
        ds = open_dataset(path, options, engine=engine, spark_master=master)
        rows = ds.frame if engine == "memory" else ds.preview(ds.n_rows)  # every row
        cells = sorted((tuple(_cell(v) for v in row) for row in rows.itertuples(index=False)), key=repr)
        kinds = [(c.name, c.kind.value) for c in ds.schema.columns]
        return ("accepted", kinds, cells, float(evaluate(ds, [Count(None)])[0]))
    except DatasetError as e:
        assert "\n" not in str(e), str(e)
        return ("refused", _library_detail.sub("(…)", str(e)))


_library_detail = re.compile(r"(?<=not a readable Parquet file )\(.*\)$")
"""A damaged Parquet page is named by the library that found it (pyarrow's or DuckDB's words in
the parentheses); the refusal is the same line otherwise."""


@pytest.mark.parametrize("name, content", CORPUS, ids=[name for name, _ in CORPUS])
def test_duckdb_gives_the_memory_engines_verdict(tmp_path: Path, name, content) -> None:
    path = write(tmp_path, name, content())
    assert verdict(path, "duckdb") == verdict(path, "memory")


@pytest.mark.parametrize("name", HEADERLESS)
def test_duckdb_reads_a_file_without_a_header_as_memory_does(tmp_path: Path, name) -> None:
    path, headless = write(tmp_path, name, dict(CORPUS)[name]()), LoadOptions(header=False)
    assert verdict(path, "duckdb", headless) == verdict(path, "memory", headless)


def test_spark_gives_every_file_the_memory_engines_verdict(spark, tmp_path: Path) -> None:
    """One test over the whole corpus (one Spark session; each file costs a few Spark jobs)."""
    differ = []
    for name, content in CORPUS:
        path = write(tmp_path, name, content())
        expected, got = verdict(path, "memory"), verdict(path, "spark")
        if got != expected:
            differ.append(f"{name}: memory {expected!r}, spark {got!r}")
    headless = LoadOptions(header=False)
    for name in HEADERLESS[:3]:  # a few: each costs a Spark job
        path = write(tmp_path, f"headless-{name}", dict(CORPUS)[name]())
        expected, got = verdict(path, "memory", headless), verdict(path, "spark", headless)
        if got != expected:
            differ.append(f"{name} without a header: memory {expected!r}, spark {got!r}")
    assert not differ, "\n".join(differ)


def test_issue_22_cases_have_the_verdicts_the_issue_asks_for(tmp_path: Path) -> None:
    """The corpus comparison above could pass with every engine wrong alike: pin what is right."""
    cases = dict(CORPUS)
    assert verdict(write(tmp_path, "q.csv", cases["quoted-newline.csv"]()), "duckdb")[3] == 3.0
    for name, said in (("corrupt-line.jsonl", "line 2, column 2: not valid JSON"),
                       ("empty-objects.jsonl", "every line is {}"), ("deep.jsonl", "nested too deeply"),
                       ("repeated-name.parquet", "repeats a column name"),
                       ("truncated.parquet", "not a readable Parquet file"),
                       ("mixed-lists.jsonl", "line 2: field 'a' mixes numbers and texts"),
                       ("list-or-value.jsonl", "line 2: field 'a' is a list on some lines"),
                       ("null-item.jsonl", "list item null"),
                       ("case-repeat.jsonl", "line 2: fields 'a' and 'A' differ in case only"),
                       ("repeated-key.jsonl", "line 1: field 'a' appears twice"),
                       ("case-repeat.csv", "repeats a column name"),
                       ("one-trailing-delimiter.csv", "line 3: ragged row: 3 fields where the header has 2"),
                       ("two-trailing-delimiters.csv", "line 3: ragged row: 4 fields"),
                       ("fraction-lists.parquet", "a list column of double"),
                       ("boolean-lists.parquet", "a list column of bool"),
                       ("times.parquet", "holds times of day"), ("durations.parquet", "holds durations"),
                       ("half-floats.parquet", "half-precision numbers"),
                       ("huge-item.jsonl", "list items must be whole numbers (below 2^63) or texts"),
                       ("odd-number-among-texts.jsonl", "line 2: field 'a' holds texts and the number 1.5e"),
                       ("big-number-among-texts.jsonl", "line 2: field 'a' holds texts and the number 1e20")):
        outcome = verdict(write(tmp_path, name, cases[name]()), "duckdb")
        assert outcome[0] == "refused" and said in outcome[1], outcome


def test_csv_columns_are_typed_by_the_rules_on_duckdb(tmp_path: Path) -> None:
    """The memory loader's rules (``data.inference``), not DuckDB's sniffer: pinned on DuckDB."""
    cases = dict(CORPUS)
    for name, kind, cell in (("leading-zeros.csv", "numeric", 7.0), ("yes-no.csv", "categorical", "yes"),
                             ("hex.csv", "categorical", "0x10"), ("times.csv", "categorical", "10:00:00"),
                             ("slash-dates.csv", "categorical", "01/02/2020"),
                             ("boolean-cases.csv", "boolean", True), ("empty-column.csv", "numeric", 1.0),
                             ("iso-datetimes.csv", "datetime", "2020-01-02T10:00:00"),
                             ("zeros-then-late-text.csv", "categorical", "007")):
        _, kinds, rows, _ = verdict(write(tmp_path, name, cases[name]()), "duckdb")
        assert kinds[0][1] == kind and cell in {row[0] for row in rows}, (name, kinds, rows[:3])


def test_json_fields_of_texts_are_typed_by_the_rules_on_duckdb(tmp_path: Path) -> None:
    """Texts true/false are booleans, ISO date texts datetimes, number texts texts, every list empty
    an item set, an integer past 64 bits a number — as the memory loader reads them."""
    cases = dict(CORPUS)
    for name, kind, cell in (("true-false-texts.jsonl", "boolean", True),
                             ("true-text-and-boolean.jsonl", "boolean", True),
                             ("boolean-text-cases.jsonl", "boolean", True),
                             ("date-texts.jsonl", "datetime", "2020-01-03T10:00:00"),
                             ("slash-date-texts.jsonl", "categorical", "01/02/2020"),
                             ("number-texts.jsonl", "categorical", "7"),
                             ("numbers-among-texts.jsonl", "categorical", "1.5e-07"),
                             ("huge-integer-among-texts.jsonl", "categorical", "99999999999999999999"),
                             ("huge-integer.jsonl", "numeric", 1e20), ("empty-lists.jsonl", "itemset", ())):
        _, kinds, rows, _ = verdict(write(tmp_path, name, cases[name]()), "duckdb")
        assert kinds[0][1] == kind and cell in {row[0] for row in rows}, (name, kinds, rows[:3])


def test_nanosecond_timestamps_are_floored_to_the_microsecond(tmp_path: Path) -> None:
    """Spark cannot read nanoseconds and DuckDB rounded them: every engine floors them (-1 ns is
    one microsecond before 1970, 1,999 ns is 1 µs)."""
    path = write(tmp_path, "n.parquet", dict(CORPUS)["nanoseconds.parquet"]())
    _, _, rows, _ = verdict(path, "duckdb")
    assert {row[0] for row in rows} == {"1970-01-01T00:00:01", "1969-12-31T23:59:59.999999",
                                        "1970-01-01T00:00:00.000001", None}
    assert {row[1] for row in rows} == {"1970-01-01T00:00:00.000001", "1969-12-31T23:59:59.999998",
                                        "1970-01-01T00:00:00", None}


def test_spark_keeps_the_jvms_output_off_the_terminal(tmp_path: Path) -> None:
    """In its own process (a fresh JVM): a truncated Parquet file and a bad query path print the one
    line only — no log4j warnings, no Java stack (issue 22: 91 lines of stack before the message)."""
    cases = dict(CORPUS)
    data = write(tmp_path, "t.parquet", cases["truncated.parquet"]())
    good = write(tmp_path, "good.parquet", cases["seed.parquet"]())
    script = ("import sys\nfrom svtgui.data.engines import open_dataset\n"
              "from svtgui.data.errors import DatasetError\n"
              f"ds = open_dataset({str(good)!r}, engine='spark', spark_master='local[1]')\n"
              "print('rows', ds.n_rows)\n"
              f"try:\n    open_dataset({str(data)!r}, engine='spark', spark_master='local[1]')\n"
              "except DatasetError as e:\n    print(e, file=sys.stderr)\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300,
                          cwd=Path(__file__).resolve().parents[2])
    assert done.stdout.strip() == "rows 3", done.stdout + done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "not a readable Parquet file" in lines[0], done.stderr
