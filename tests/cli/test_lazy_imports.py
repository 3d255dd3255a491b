"""``svtgui-cli`` imports pandas, PySpark and Qt only for a command that needs them (issue 25 §4).

Each case runs the real command (``python -m svtgui.cli``) in a fresh interpreter whose
``sitecustomize`` writes ``sys.modules`` to a file at exit (``-X importtime`` would not do: it does not
see modules imported through ``importlib.import_module``). ``--help`` and a DuckDB
run over a Parquet file (range counts answered from a numeric histogram fetched as numpy arrays,
committed to the ledger, summarised on stderr) need none of the three: pandas alone cost more than
DuckDB and numpy together at start-up, and a re-open (fingerprint cached in the ledger) is mostly
start-up. A first open loads pandas while it fingerprints the rows only when a column needs it
(pyarrow's ``to_numpy`` imports it, and many texts, or texts past printable ASCII, are hashed with
pandas' keyed SipHash, as every ledger's fingerprints are); a file whose every column reaches the
fingerprint as block codes (whole numbers of a small range, true/false, few texts) does not.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

HEAVY = ("pandas", "pyspark", "PySide6")
DUMP = ("import atexit, json, os, sys\n"
        "def dump():\n"
        "    with open(os.environ['SVTGUI_TEST_MODULES'], 'w') as f:\n"
        "        json.dump(sorted(sys.modules), f)\n"
        "atexit.register(dump)\n")


def imported(args: list[str], env: dict[str, str], *, modules: bool = False
             ) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    """The finished ``svtgui-cli ARGS`` and the top-level packages (every module, with ``modules``)
    in its ``sys.modules`` at exit."""
    done = subprocess.run([sys.executable, "-m", "svtgui.cli", *args], env=env, capture_output=True,
                          text=True, timeout=300, check=False)
    with open(env["SVTGUI_TEST_MODULES"], encoding="utf-8") as f:
        names = set(json.load(f))
    return done, names if modules else {name.split(".")[0] for name in names}


@pytest.fixture
def env(tmp_path):
    """A child interpreter whose ``sitecustomize`` writes ``sys.modules`` to a file when it exits."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(DUMP, encoding="utf-8")
    path = os.pathsep.join([str(site), *filter(None, [os.environ.get("PYTHONPATH")])])
    return {**os.environ, "PYTHONPATH": path, "SVTGUI_TEST_MODULES": str(tmp_path / "modules.json"),
            "SVTGUI_STATE_DIR": str(tmp_path / "state"), "SVTGUI_CONFIG_DIR": str(tmp_path / "config")}


def test_the_import_list_sees_pandas_where_a_command_needs_it(env, tmp_path):
    """The reader is not blind: a run that loads a CSV file into memory does import pandas."""
    data = tmp_path / "ages.csv"
    data.write_text("age\n" + "".join(f"{i % 80}\n" for i in range(500)))
    done, roots = imported([*_run_args(tmp_path, data, tmp_path / "m.ledger"), "--engine", "memory"], env)
    assert done.returncode == 0, done.stderr[-2000:]
    assert {"svtgui", "numpy", "pandas"} <= roots


@pytest.mark.parametrize("args", [["--help"], ["run", "--help"], ["--version"]], ids=" ".join)
def test_help_imports_no_pandas_spark_or_qt(env, args):
    done, roots = imported(args, env)
    assert done.returncode == 0, done.stderr[-2000:]
    assert roots.isdisjoint(HEAVY), sorted(roots.intersection(HEAVY))


def test_a_command_imports_its_own_module_only(env, tmp_path):
    """``run`` does not import the auditor's or the recipes' command modules (nor what they import);
    ``--help`` still lists every command."""
    done, names = imported(["run", "--help"], env, modules=True)
    assert done.returncode == 0
    assert "svtgui.cli.commands.run" in names
    assert not names & {"svtgui.cli.commands.audit", "svtgui.cli.commands.recipe", "svtgui.core.audit"}
    for args in (["--help"], ["-h", "run"]):
        done, names = imported(args, env, modules=True)
        assert {"svtgui.cli.commands.audit", "svtgui.cli.commands.recipe"} <= names
        assert "audit" in done.stdout and "recipe" in done.stdout and "sparse-project" in done.stdout


def _parquet(path) -> None:
    import duckdb

    con = duckdb.connect()
    con.execute("COPY (SELECT (i % 80)::INTEGER AS age, (i * 7 % 1000)::DOUBLE AS income, "
                f"CASE WHEN i % 3 = 0 THEN 'a' ELSE 'b' END AS grp FROM range(5000) t(i)) TO '{path}' "
                "(FORMAT parquet)")
    con.close()


def _run_args(tmp_path, data, ledger) -> list[str]:
    queries = tmp_path / "ranges.json"
    queries.write_text(json.dumps({"format": "svtgui-queries", "version": 1, "queries": [
        {"kind": "range", "column": "age", "low": lo, "high": lo + 9} for lo in range(0, 80, 4)]}))
    return ["run", "--engine", "duckdb", "--data", str(data), "--queries", str(queries), "--mechanism",
            "sparse", "--epsilon", "1", "--threshold", "100000", "--cutoff", "1", "--ledger", str(ledger),
            "--budget-epsilon", "10"]


def test_a_duckdb_run_on_parquet_imports_no_pandas_spark_or_qt(env, tmp_path):
    """The re-open (fingerprint from the ledger's cache) imports none of the three, nor pyarrow: the
    footer of a plain file is checked by DuckDB, and nothing is hashed. The first open computes the
    fingerprint, for which the text hashes (pandas' SipHash) and a float column's (pyarrow's
    ``Array.to_numpy``) load pandas, but never Spark or Qt."""
    data = tmp_path / "census.parquet"
    _parquet(data)
    run = _run_args(tmp_path, data, tmp_path / "a.ledger")
    first, roots = imported(run, env)
    assert first.returncode == 0, first.stderr[-2000:]
    assert "duckdb" in roots and roots.isdisjoint(("pyspark", "PySide6"))
    again, names = imported(run, env, modules=True)  # the fingerprint now comes from the ledger's cache
    assert again.returncode == 0, again.stderr[-2000:]
    assert "20 answered" in again.stderr  # the run did evaluate and commit every query
    roots = {name.split(".")[0] for name in names}
    assert "duckdb" in roots and roots.isdisjoint(HEAVY), sorted(roots.intersection(HEAVY))
    assert "pyarrow" not in roots  # 45 ms to import, for hashing cells and pyarrow's footer checks


def test_a_first_duckdb_open_of_columns_in_blocks_imports_no_pandas(env, tmp_path):
    """A Parquet file whose every column reaches the fingerprint as block codes (whole numbers of a
    small range, true/false, a few printable texts) is fingerprinted without pandas (0.18 s of a
    first open): the codes are read from their Arrow buffer, not through ``to_numpy``, and the texts
    hashed by the fingerprint's own SipHash."""
    import duckdb

    data = tmp_path / "numbers.parquet"
    duckdb.sql("COPY (SELECT (i % 80)::INTEGER AS age, i % 7 = 0 AS flag, (i * 7 % 1000)::BIGINT AS hours, "
               "['a', ' b', 'NA', '12', NULL][1 + i % 5] AS grp "
               f"FROM range(5000) t(i)) TO '{data}' (FORMAT parquet)")
    first, roots = imported(_run_args(tmp_path, data, tmp_path / "n.ledger"), env)
    assert first.returncode == 0, first.stderr[-2000:]
    assert "20 answered" in first.stderr  # the rows were fingerprinted, every query evaluated
    assert "duckdb" in roots and roots.isdisjoint(HEAVY), sorted(roots.intersection(HEAVY))
