"""Seeded random files (CSV cells, JSON values, Parquet columns drawn from tricky spellings and
types) get DuckDB the memory engine's verdict (issue 22 §2). The corpus holds the classes found so
far; these files mix them in ways nobody wrote down (a ``#N/A`` first cell was a comment to DuckDB,
an empty line a row in a file of one column, a list column of nulls texts in memory)."""

from __future__ import annotations

import json
import random
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path

import pytest

from tests.data.test_engines_verdicts import verdict

CELLS = ["007", "+1", "-2", "1e5", ".5", "1.", "inf", "-Infinity", "nan", "NA", "?", "", " ", " 3 ", "true",
         "FALSE", "tRuE", "yes", "2020-01-02", "2020-01-02T10:00", "2020-02-30", "01/02/2020", "10:00:00",
         "0x10", "1_000", "x", "  y", "z ", '"q,r"', '""', '"a""b"', "9223372036854775808", "-0", "1e400",
         "1.5e-7", "\t4", "1", "3.25", "null", "#N/A", "-1.5E+3"]
VALUES = [1, 1.5, 1e20, "x", "true", True, False, None, "2020-01-02", [], [1], ["a"], "NA", 13.0, -3, "7",
          "TRUE", " x ", "", 2**70]


def _csv(rng: random.Random) -> str:
    width = rng.randint(1, 3)
    pools = [rng.sample(CELLS, rng.randint(1, 4)) for _ in range(width)]
    rows = [",".join(rng.choice(pool) for pool in pools) for _ in range(rng.randint(1, 5))]
    return "\n".join([",".join(f"c{j}" for j in range(width)), *rows]) + "\n"


def _jsonl(rng: random.Random) -> str:
    pools = {key: rng.sample(VALUES, rng.randint(1, 3)) for key in ["a", "b"][: rng.randint(1, 2)]}
    records = [{k: rng.choice(pool) for k, pool in pools.items() if rng.random() > 0.1}
               for _ in range(rng.randint(1, 4))]
    return "\n".join(json.dumps(r) for r in records) + "\n"


def _parquet(rng: random.Random, path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    makers = [
        (pa.int8(), lambda: rng.randint(-128, 127)), (pa.uint32(), lambda: rng.randint(0, 2**32 - 1)),
        (pa.float64(), lambda: rng.choice([1e308, 5e-324, float("nan"), 0.1, -2.5, float("inf")])),
        (pa.bool_(), lambda: rng.random() < 0.5),
        (pa.string(), lambda: rng.choice(["x", " y ", "NA", "", "true", "2020-01-02", "007", "?"])),
        (pa.date32(), lambda: date(rng.randint(1, 9999), 1, 2)),
        (pa.timestamp("ms", tz="Europe/Paris"), lambda: datetime(2020, 1, 2, 3, 4, 5)),
        (pa.timestamp("ns"), lambda: rng.randint(-2**62, 2**62)),
        (pa.decimal128(10, 3), lambda: Decimal(rng.choice(["1.250", "-3.000", "9999999.999"]))),
        (pa.list_(pa.int32()), lambda: rng.sample(range(10), rng.randint(0, 3))),
        (pa.list_(pa.string()), lambda: rng.sample(list("abcd"), rng.randint(0, 2))),
        (pa.null(), lambda: None),
    ]
    rows = rng.randint(1, 4)
    columns = {}
    for j in range(rng.randint(1, 3)):
        arrow_type, make = rng.choice(makers)
        columns[f"c{j}"] = pa.array([None if rng.random() < 0.2 else make() for _ in range(rows)], arrow_type)
    pq.write_table(pa.table(columns), path)


@pytest.mark.parametrize("suffix", [".csv", ".jsonl", ".parquet"])
def test_duckdb_gives_generated_files_the_memory_engines_verdict(tmp_path: Path, suffix: str) -> None:
    differ = _differences(tmp_path, random.Random(f"verdicts{suffix}"), suffix)
    assert not differ, "\n".join(differ[:5])


def _differences(folder: Path, rng: random.Random, suffix: str) -> list[str]:
    """The files of 120 generated ones to which DuckDB gives another verdict than the memory engine."""
    differ = []
    for i in range(120):
        path = folder / f"f{i}{suffix}"
        if suffix == ".parquet":
            _parquet(rng, path)
        else:
            path.write_text(_csv(rng) if suffix == ".csv" else _jsonl(rng))
        expected, got = verdict(path, "memory"), verdict(path, "duckdb")
        if got != expected:
            differ.append(f"{path.name}: memory {expected!r}, duckdb {got!r}")
    return differ


@pytest.mark.parametrize("tail", [7, 24])
def test_csvs_whose_samples_mislead_get_the_memory_engines_verdict(tmp_path: Path, monkeypatch, tail) -> None:
    """DuckDB's open types a CSV from a sample of its rows (its first, and the lines of its last
    bytes) and checks every other cell against it while it copies; with a sample of one row and a
    few bytes, most of these files hold a cell of another kind elsewhere (its open reads the whole
    file for the kinds), a cell to clean that the sample did not show, or a tail cut inside a quoted
    field: every file must still get the memory engine's verdict."""
    from svtgui.data.engines import csv_copy

    monkeypatch.setattr(csv_copy, "SAMPLE_ROWS", 1)
    monkeypatch.setattr(csv_copy, "TAIL_BYTES", tail)
    differ = _differences(tmp_path, random.Random(f"verdicts after a one-row sample, {tail} bytes"), ".csv")
    assert not differ, "\n".join(differ[:5])
