"""One release document from several runs of one dataset (issue 24 §2), from the app and the CLI."""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest

from svtgui.app import dataset_identity, recipes
from svtgui.app.reports import FORMATS, export_release
from svtgui.app.reports.content import statistics
from svtgui.app.runs.runner import start_run
from svtgui.cli import main
from svtgui.core.noise import seeded
from svtgui.data.dataset import Dataset
from svtgui.data.evaluate import evaluate
from svtgui.data.queries import RangeCount
from svtgui.data.schema import infer_schema
from svtgui.ledger import Ledger
from tests.app.report_scan import csv_tables, without_id
from tests.app.test_report_dates import TIME_OF_DAY

RANGES = [RangeCount("age", lo, lo + 7) for lo in range(18, 80, 3)]


def _frame(seed: int = 3) -> pd.DataFrame:
    return pd.DataFrame({"age": np.random.default_rng(seed).integers(18, 81, 30_000)})  # test data


@pytest.fixture
def ledger(tmp_path):
    frame = _frame()
    ds = Dataset.from_frame(frame, "toy", infer_schema(frame).with_bounds("age", 0, 100))
    with Ledger.open(tmp_path / "l.sqlite") as led:
        dataset_identity.register(led, ds, "20")
        ids = [recipes.auto_mean(ds, "age", 1.0, rng=seeded(1)).run(led).record.id,
               recipes.screen_ranges(ds, RANGES, 1.0, 3000, 2, rng=seeded(2)).run(led).record.id]
        with start_run(led, ds, RANGES, "sparse", {"epsilon": 0.5, "threshold": 3000, "cutoff": 2},
                       seed=3) as run:
            for _ in run.stream(batch_size=8):
                pass
        ids.append(run.id)
        yield led, ds, ids


def _text(path):
    if path.suffix == ".pdf":
        return subprocess.run(["pdftotext", "-layout", str(path), "-"], capture_output=True, text=True,
                              check=True).stdout
    return path.read_text(encoding="utf-8")


def test_the_release_holds_every_statistic_the_total_cost_and_each_run_s_declarations(ledger, tmp_path):
    led, ds, ids = ledger
    data = json.loads(export_release(led, ids, tmp_path / "r.json").read_text(encoding="utf-8"))
    assert data["format"] == "svtgui-release" and data["dataset"]["id"] == ds.dataset_id
    assert data["statistics"] == [st for i in ids for st in statistics(led, i)]
    assert data["guarantee"]["epsilon"] == "2.5" and data["guarantee"]["delta"] == "0"  # 1 + 1 + 0.5
    assert [r["id"] for r in data["runs"]] == ids
    assert all(r["declarations"] == {"neighbouring": "add_remove", "declared_bounds": {"age": [0, 100]}}
               for r in data["runs"])
    assert [r["method"]["citation"][:4] for r in data["runs"]] == ["Near", "Near", "C. D"]
    assert "rows" not in data and all("rows" not in r for r in data["runs"])
    # seeded test runs inside: the release says NOT differentially private
    assert data["guarantee"]["differentially_private"] is False
    assert data["guarantee"]["sentence"].startswith("This release is NOT differentially private")


def test_no_format_holds_a_true_answer_or_a_time(ledger, tmp_path):
    led, ds, ids = ledger
    truth = evaluate(ds, RANGES)
    released = {float(st["value"]) for st in statistics(led, ids[1])}
    for suffix in FORMATS if shutil.which("pdftotext") else set(FORMATS) - {".pdf"}:
        text = without_id(_text(export_release(led, ids, tmp_path / f"r{suffix}")), ds.dataset_id)
        assert TIME_OF_DAY.search(text) is None, suffix
        for a in truth:
            if float(a) not in released:
                assert not re.search(rf"(?<![\d.,]){int(a):,}(?![\d])", text), (suffix, a)
                assert not re.search(rf"(?<![\d.]){int(a)}(?![\d])", text), (suffix, a)
    table, runs = csv_tables((tmp_path / "r.csv").read_text(encoding="utf-8"))
    assert len(table) == sum(len(statistics(led, i)) for i in ids) and [int(r["run"]) for r in runs] == ids


@pytest.mark.parametrize("why", ["twice", "unknown", "other dataset", "running"])
def test_a_run_that_cannot_be_in_the_release_is_refused_and_nothing_is_written(ledger, tmp_path, why):
    led, _ds, ids = ledger
    frame = _frame(9)
    other = Dataset.from_frame(frame, "other", infer_schema(frame))
    if why == "twice":
        ids, says = [ids[0], ids[0]], "given twice"
    elif why == "unknown":
        ids, says = [ids[0], 99], "run 99 is not in the ledger"
    elif why == "other dataset":
        dataset_identity.register(led, other, "5")
        run = recipes.auto_mean(other, "age", 1.0, rng=seeded(4)).run(led)
        ids, says = [ids[0], run.record.id], "a release covers one dataset"
    else:
        dataset_identity.register(led, other, "5")
        running = start_run(led, other, RANGES, "sparse", {"epsilon": 0.5, "threshold": 3000, "cutoff": 2},
                            seed=5)
        ids, says = [running.id], "still running"
    out = tmp_path / "r.html"
    with pytest.raises(ValueError, match=says):
        export_release(led, ids, out)
    assert not out.exists()


def test_the_cli_builds_every_format_and_refuses_in_one_line(ledger, tmp_path, capsys):
    led, _ds, ids = ledger
    outs = [tmp_path / f"release{s}" for s in FORMATS]
    args = ["release", "build", *map(str, ids), "--ledger", str(led.path)]
    assert main([*args, *[a for o in outs for a in ("--out", str(o))]]) == 0
    assert all(o.stat().st_size > 0 for o in outs)
    assert "release written" in capsys.readouterr().err
    bad = tmp_path / "bad.html"
    assert main(["release", "build", str(ids[0]), "42", "--out", str(bad), "--ledger", str(led.path)]) == 2
    err = capsys.readouterr().err
    assert "run 42 is not in the ledger" in err and len(err.strip().splitlines()) == 1 and not bad.exists()
