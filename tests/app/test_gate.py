"""The one gate (issue 21 §1, §3, §5): every release path is checked and charged by svtgui.app.gate alone.

Each class is tried through the real paths: the runner (window and CLI), recipes, ``sparse-project
build``, ``svtgui-cli run``, a screenshot; refusals come before anything is charged or registered.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import svtgui
from svtgui.app import dataset_identity, gate, recipes
from svtgui.app.public_data import PUBLIC_KEY, is_bundled_sample, is_public
from svtgui.app.runs.runner import start_run
from svtgui.cli import main
from svtgui.core.noise import seeded
from svtgui.data import load_dataset
from svtgui.data.queries import RangeCount
from svtgui.ledger import Ledger

PACKAGE = Path(svtgui.__file__).resolve().parent
SPARSE = {"epsilon": 0.5, "threshold": 100.0, "cutoff": 1}


def ledger_charge_callers(source: str) -> list[int]:
    """Lines of ``source`` that call a ``.start_run(...)`` method: the ledger's charge. (The runner's
    ``start_run`` is imported by name wherever it is used, so any attribute call is a direct charge.)"""
    return [node.lineno for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr == "start_run"]


def test_only_the_gate_calls_the_ledgers_charge():
    callers = {}
    for path in PACKAGE.rglob("*.py"):
        lines = ledger_charge_callers(path.read_text(encoding="utf-8"))
        if lines:
            callers[str(path.relative_to(PACKAGE))] = lines
    assert list(callers) == ["app/gate.py"], f"the ledger's start_run is called outside the gate: {callers}"


def test_the_scan_finds_a_new_direct_caller():
    """The scan is not vacuous: the recipe charge as it was written before the gate is found."""
    before = "def charge(self):\n    self.record = self.ledger.start_run(self.key, 'r', {}, '1', '0')\n"
    assert ledger_charge_callers(before) == [2]
    assert ledger_charge_callers("from svtgui.app.runs.runner import start_run\nstart_run(led, ds)\n") == []


def _private_csv(path: Path, n: int = 400) -> Path:
    path.write_text("age,hours\n" + "".join(f"{20 + i % 50},{30 + i % 7}\n" for i in range(n)))
    return path


def _queries(path: Path, column: str = "age") -> Path:
    path.write_text(json.dumps({"format": "svtgui-queries", "version": 1,
                                "queries": [RangeCount(column, 30, 40).to_json()]}))
    return path


def _replace_schema(path: Path, n: int) -> Path:
    path.write_text(json.dumps({"format": "svtgui-schema", "version": 1, "neighbouring": "replace", "n": n,
                                "columns": [{"name": "age", "kind": "numeric", "lower": 0, "upper": 100}]}))
    return path


def _ledger_bytes(path: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(path.parent.glob(path.name + "*")))


# -- §3 one neighbouring relation per dataset ---------------------------------------------------------


@pytest.fixture
def registered(tmp_path):
    """A private file registered under add/remove (total ε 10, δ 1e-5), and a ledger open on it."""
    data = _private_csv(tmp_path / "people.csv")
    with Ledger.open(tmp_path / "ledger.sqlite") as led:
        ds = load_dataset(data)
        dataset_identity.register(led, ds, "10", "1e-5")
        yield led, ds, data


def test_a_run_under_another_relation_is_refused_before_the_charge_by_the_runner(registered):
    led, ds, _ = registered
    replace = ds.with_schema(ds.schema.with_neighbouring("replace", ds.n_rows))
    with pytest.raises(gate.Refused, match="budgeted under add/remove-one neighbours, but replace-one "
                                           "with n = 400 is declared"):
        start_run(led, replace, [RangeCount("age", 30, 40)], "sparse", SPARSE)
    assert led.runs() == []
    start_run(led, ds, [RangeCount("age", 30, 40)], "sparse", SPARSE).finish()  # the registered one runs
    assert len(led.runs()) == 1


def test_a_recipe_under_another_relation_is_refused_before_the_charge(registered):
    led, ds, _ = registered
    replace = ds.with_schema(ds.schema.with_neighbouring("replace", ds.n_rows).with_bounds("age", 0, 100))
    with pytest.raises(gate.Refused, match="budgeted under add/remove-one"):
        recipes.auto_mean(replace, "age", 1.0).run(led)
    assert led.runs() == []


def test_the_cli_refuses_another_relation_with_one_line_and_changes_nothing(registered, tmp_path, capsys):
    led, ds, data = registered
    path = led.path
    led.close()
    schema = _replace_schema(tmp_path / "replace.schema.json", ds.n_rows)
    before = _ledger_bytes(path)
    code = main(["run", "--data", str(data), "--schema", str(schema),
                 "--queries", str(_queries(tmp_path / "q.json")), "--mechanism", "sparse",
                 "--epsilon", "0.5", "--threshold", "100", "--cutoff", "1", "--ledger", str(path)])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1, err
    assert "add/remove-one" in err and f"replace-one with n = {ds.n_rows:,}" in err and "set-relation" in err
    assert _ledger_bytes(path) == before
    code = main(["sparse-project", "build", "--data", str(data), "--schema", str(schema),
                 "--columns", "age@0,50,101", "--epsilon", "1",
                 "--out", str(tmp_path / "r.npz"), "--ledger", str(path)])
    err = capsys.readouterr().err.strip()
    assert code == 2 and "budgeted under add/remove-one" in err and not (tmp_path / "r.npz").exists()
    assert _ledger_bytes(path) == before


# -- §5 seeded runs only where nothing is private ----------------------------------------------------


def test_a_seeded_cli_run_on_private_rows_is_refused_and_writes_nothing(tmp_path, capsys):
    data, ledger = _private_csv(tmp_path / "people.csv"), tmp_path / "ledger.sqlite"
    code = main(["run", "--data", str(data), "--queries", str(_queries(tmp_path / "q.json")), "--mechanism",
                 "sparse", "--epsilon", "0.5", "--threshold", "100", "--cutoff", "1", "--ledger", str(ledger),
                 "--budget-epsilon", "5", "--test-seed", "3"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and "seeded" in err and "people" in err, err
    with Ledger.open(ledger) as led:
        assert led.datasets() == [] and led.runs() == []  # not even registered


def test_a_sample_by_content_not_by_name(tmp_path, census_copy):
    """The census sample's bytes under another name are public; census.csv with one edited cell is not."""
    assert is_bundled_sample(load_dataset(census_copy))
    edited = tmp_path / "census.csv"
    lines = census_copy.read_text().splitlines(keepends=True)
    first = lines[1].split(",")
    first[0] = str(int(first[0]) + 1)
    edited.write_text("".join([lines[0], ",".join(first), *lines[2:]]))
    assert not is_public(load_dataset(edited))
    # the same values in every column, re-paired across two rows (ages swapped): other people's rows
    frame = pd.read_csv(census_copy)
    second = int(np.flatnonzero(frame["age"].to_numpy() != frame["age"][0])[0])
    frame.loc[[0, second], "age"] = frame.loc[[second, 0], "age"].to_numpy()
    repaired = tmp_path / "repaired.csv"
    frame.to_csv(repaired, index=False)
    same_columns = load_dataset(repaired).content_fingerprint(PUBLIC_KEY)
    assert same_columns == load_dataset(census_copy).content_fingerprint(PUBLIC_KEY)  # each column alike
    assert not is_public(load_dataset(repaired))
    reordered = tmp_path / "reordered.parquet"  # the same rows in another order and format
    pd.read_csv(census_copy).iloc[::-1].to_parquet(reordered)
    assert is_bundled_sample(load_dataset(reordered))


def test_seeded_recipes_and_runs_on_private_rows_are_refused(tmp_path):
    ds = load_dataset(_private_csv(tmp_path / "people.csv"))
    ds = ds.with_schema(ds.schema.with_bounds("age", 0, 100))
    with Ledger.open(tmp_path / "ledger.sqlite") as led:
        dataset_identity.register(led, ds, "10")
        with pytest.raises(gate.Refused, match="seeded"):
            recipes.auto_mean(ds, "age", 1.0, rng=seeded(1)).run(led)
        with pytest.raises(gate.Refused, match="seeded"):
            start_run(led, ds, [RangeCount("age", 30, 40)], "sparse", SPARSE, seed=1)
        assert led.runs() == []


# -- §1 demos and screenshots of private data ----------------------------------------------------------


def test_in_a_demo_only_public_rows_pass_the_gate(tmp_path, census_copy):
    from svtgui.app.demo import throwaway_ledger

    private = load_dataset(_private_csv(tmp_path / "people.csv"))
    census = load_dataset(census_copy)
    with throwaway_ledger() as path, Ledger.open(path) as led:
        for ds in (private, census):
            dataset_identity.register(led, ds, "10")
        with pytest.raises(gate.Refused, match="screenshot or demo"):
            start_run(led, private, [RangeCount("age", 30, 40)], "sparse", SPARSE)
        start_run(led, census, [RangeCount("age", 30, 40)], "sparse", SPARSE).finish()
        assert [r.dataset_id for r in led.runs()] == [census.dataset_id]
    assert gate.DEMO_ENV not in os.environ  # the demo ended: the curator's own runs are not restricted


@pytest.mark.parametrize("options", [["--run"], ["--page", "dataset"], ["--page", "schema"], []],
                         ids=["run", "dataset-preview", "schema-summary", "default-page"])
def test_a_screenshot_of_a_private_file_is_refused_with_one_line(tmp_path, options):
    """Every page of a private file: a run releases answers, the preview draws its rows and the schema
    page its missing-value counts, and a picture of any of them is a release nothing charges."""
    data = _private_csv(tmp_path / "people.csv")
    out = tmp_path / "shot.png"
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    proc = subprocess.run([sys.executable, "-m", "svtgui", "--screenshot", str(out), *options, str(data)],
                          env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 2, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.startswith("svtgui:")]
    assert len(lines) == 1 and "bundled samples" in lines[0] and str(data) in lines[0]
    assert not out.exists()

