"""Every engine reads exactly the file it is given, whatever characters its name holds.

DuckDB and Spark read ``[``, ``*`` and ``?`` in a path as a glob (Spark also ``{``, ``}``, ``\\``): before,
``sales[1].csv`` was read as ``sales1.csv`` next to it, ``q?.parquet`` as every file it matched at once,
and DuckDB read a relative ``~x.parquet`` as a file in the home folder. Each case puts a decoy beside the
named file, one the glob would match, holding other rows; the engine must give the named file's answers.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
import pytest

from svtgui.data.engines import open_dataset
from svtgui.data.evaluate import evaluate
from svtgui.data.queries import Count, RangeCount

NAMED = pd.DataFrame({"age": [30, 40, 50, 60], "sex": ["F", "M", "F", "M"]})
DECOY = pd.DataFrame({"age": [1], "sex": ["X"]})
BATCH = [Count(), RangeCount("age", 35, 55)]
# (the named file, a decoy its name matches as a glob)
NAMES = [("sales[1]", "sales1"), ("q?", "qz"), ("b*c", "bxc"), ("t{1,2}", "t1"), ("w[ab]", "wa")]


def _write(frame: pd.DataFrame, path: Path) -> Path:
    if path.suffix == ".parquet":
        frame.to_parquet(path, index=False)
    else:
        frame.to_csv(path, index=False)
    return path


def _answers(path: Path | str, engine: str) -> list[float]:
    master = "local[2]" if engine == "spark" else None
    return list(evaluate(open_dataset(path, engine=engine, spark_master=master), BATCH))


@pytest.mark.parametrize("suffix", [".parquet", ".csv"])
@pytest.mark.parametrize("name, decoy", NAMES, ids=[n for n, _ in NAMES])
def test_duckdb_reads_the_named_file_not_its_glob_matches(tmp_path, name, decoy, suffix) -> None:
    named = _write(NAMED, tmp_path / f"{name}{suffix}")
    _write(DECOY, tmp_path / f"{decoy}{suffix}")
    assert _answers(named, "duckdb") == _answers(named, "memory") == [4, 2]


def test_spark_reads_the_named_file_not_its_glob_matches(spark, tmp_path) -> None:
    for name, decoy in NAMES:
        for suffix in (".parquet", ".csv"):
            named = _write(NAMED, tmp_path / f"{name}{suffix}")
            _write(DECOY, tmp_path / f"{decoy}{suffix}")
            assert _answers(named, "spark") == [4, 2], named.name


def test_a_relative_name_starting_with_a_tilde_is_read_where_it_is(tmp_path, monkeypatch) -> None:
    _write(NAMED, tmp_path / "~x.parquet")
    monkeypatch.chdir(tmp_path)
    assert _answers("~x.parquet", "duckdb") == [4, 2]


def test_a_name_with_glob_characters_in_its_folder_is_read_too(tmp_path) -> None:
    folder = tmp_path / "runs [2026]"
    folder.mkdir()
    (tmp_path / "runs 2").mkdir()
    named = _write(NAMED, folder / "data.csv")
    shutil.copy(_write(DECOY, tmp_path / "decoy.csv"), tmp_path / "runs 2" / "data.csv")
    assert _answers(named, "duckdb") == [4, 2]
