"""``--engine`` on the CLI: the same run on memory and DuckDB, and engine failures as exit code 2
with nothing charged before the first answer, an interrupted run with its spend kept after."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from svtgui.cli import main
from svtgui.ledger import Ledger


@pytest.fixture
def census(tmp_path: Path, census_copy: Path) -> tuple[Path, Path]:
    """The bundled census sample's rows as Parquet: public rows, on which seeded noise may run."""
    data = tmp_path / "census.parquet"
    pd.read_csv(census_copy).to_parquet(data)
    queries = tmp_path / "q.json"
    assert main(["queries", "generate", "range-sweep", "--column", "age", "--start", "17", "--stop", "91",
                 "--width", "5", "--out", str(queries)]) == 0
    return data, queries


def _run(data: Path | str, queries: Path, ledger: Path, *extra: str) -> int:
    return main(["run", "--data", str(data), "--queries", str(queries), "--mechanism", "sparse",
                 "--epsilon", "1", "--threshold", "200", "--cutoff", "3", "--ledger", str(ledger),
                 "--budget-epsilon", "5", "--test-seed", "7", *extra])


def _runs(ledger: Path) -> list:
    if not ledger.exists():
        return []
    with Ledger.open(ledger) as led:
        return led.runs()


def test_memory_and_duckdb_release_the_same_rows(census, tmp_path: Path, capsys) -> None:
    data, queries = census
    outputs = []
    for engine in ("memory", "duckdb"):
        assert _run(data, queries, tmp_path / f"{engine}.db", "--engine", engine) == 0
        outputs.append(capsys.readouterr().out.splitlines()[:-1])  # the last line names the ledger
    assert outputs[0] == outputs[1] and outputs[0]


@pytest.mark.parametrize("extra, message", [
    (("--engine", "duckdb", "--spark-master", "local[2]"), "--spark-master is for the spark engine"),
    (("--engine", "spark", "--spark-conf", "novalue"), "--spark-conf must look like KEY=VALUE"),
])
def test_bad_engine_options_exit_2_and_charge_nothing(census, tmp_path: Path, capsys, extra, message) -> None:
    data, queries = census
    ledger = tmp_path / "l.db"
    assert _run(data, queries, ledger, *extra) == 2
    assert message in capsys.readouterr().err
    assert _runs(ledger) == []


def test_unreadable_data_exits_2_and_charges_nothing(census, tmp_path: Path, capsys) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    _, queries = census
    nested = tmp_path / "nested.parquet"
    pq.write_table(pa.table({"age": [1, 2], "where": [{"k": 1}, {"k": 2}]}), nested)
    ledger = tmp_path / "l.db"
    for data, message in ((tmp_path / "gone.parquet", "no such file"),
                          (nested, "column 'where': the column holds a struct")):
        assert _run(data, queries, ledger, "--engine", "duckdb") == 2
        assert message in capsys.readouterr().err
    assert _runs(ledger) == []


def test_an_engine_failure_mid_run_interrupts_and_keeps_the_spend(census, tmp_path: Path, capsys,
                                                                 monkeypatch) -> None:
    from svtgui.data.engines import EngineError
    from svtgui.data.engines.plan import Planner

    data, queries = census
    ledger = tmp_path / "l.db"

    def broken(self, ds, batch):
        raise EngineError("the cluster lost an executor")

    monkeypatch.setattr(Planner, "evaluate", broken)
    assert _run(data, queries, ledger, "--engine", "duckdb") == 2
    assert "interrupted: the cluster lost an executor" in capsys.readouterr().err
    (run,) = _runs(ledger)
    assert run.status == "interrupted"
    with Ledger.open(ledger) as led:
        assert led.budget(run.dataset_id).spent_epsilon == 1


def test_a_csv_run_on_duckdb_leaves_no_private_copy_behind(census, tmp_path: Path) -> None:
    """The validating pass writes a private columnar copy (issue 25 §3); the process removes it at
    exit, and a folder a killed process left behind is removed by the next one that makes a copy."""
    import os
    import subprocess
    import sys

    data, queries = census
    csv = tmp_path / "census.csv"
    pd.read_parquet(data).to_csv(csv, index=False)
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    stale = scratch / "svtgui-engine-999999999-left"  # no process has this id
    stale.mkdir()
    env = {**os.environ, "TMPDIR": str(scratch), "SVTGUI_STATE_DIR": str(tmp_path / "state")}
    done = subprocess.run(
        [sys.executable, "-m", "svtgui.cli", "run", "--engine", "duckdb", "--data", str(csv), "--queries",
         str(queries), "--mechanism", "sparse", "--epsilon", "1", "--threshold", "200", "--cutoff", "3",
         "--ledger", str(tmp_path / "l.db"), "--budget-epsilon", "5"],
        capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr
    assert list(scratch.iterdir()) == []
