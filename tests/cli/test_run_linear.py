"""``svtgui-cli run --mechanism pmw | sparse_project`` on the bundled census sample."""

from __future__ import annotations

import json

import pytest

from svtgui.assets import asset
from svtgui.cli import main
from svtgui.ledger import Ledger
from tests.app.report_scan import csv_tables

UNIVERSE = ["age@17,25,35,45,55,65,91", "education", "sex", "income"]


@pytest.fixture
def census(tmp_path):
    data = asset("samples/census.csv")
    queries = tmp_path / "marginals.json"
    assert (
        main(
            [
                "queries",
                "generate",
                "marginals",
                "--data",
                str(data),
                "--columns",
                "education",
                "sex",
                "income",
                "-k",
                "2",
                "--out",
                str(queries),
            ]
        )
        == 0
    )
    return data, queries, tmp_path / "ledger.sqlite"


def _runs(path):
    if not path.exists():
        return []
    with Ledger.open(path) as led:
        return led.runs()


def test_pmw_run_prints_free_and_paid_rows_and_reports_them(census, tmp_path, capsys):
    data, queries, ledger = census
    report = tmp_path / "r.csv"
    capsys.readouterr()
    code = main(
        [
            "run",
            "--data",
            str(data),
            "--queries",
            str(queries),
            "--mechanism",
            "pmw",
            "--epsilon",
            "1",
            "--delta",
            "1e-6",
            "--threshold",
            "1500",
            "--cutoff",
            "30",
            "--universe",
            *UNIVERSE,
            "--ledger",
            str(ledger),
            "--budget-epsilon",
            "3",
            "--budget-delta",
            "1e-5",
            "--test-seed",
            "4",
            "--report",
            str(report),
            "--json",
        ]
    )
    assert code == 0
    out, err = capsys.readouterr()
    rows = [json.loads(line) for line in out.splitlines()]
    n_queries = len(json.loads(queries.read_text())["queries"])
    assert len(rows) == n_queries  # every PMW answer is released, free or paid
    assert {r["answered_from_simulation"] for r in rows} == {True, False}
    assert all(r["value"] is not None for r in rows)
    free = sum(r["answered_from_simulation"] for r in rows)
    assert f"{free} free, {n_queries - free} paid (c = 30)" in err and "n̂ = " in err
    with report.open(encoding="utf-8") as fh:
        results = [r["result"] for r in csv_tables(fh.read())[1]]
    assert results.count("free (simulated)") == free and results.count("paid") == n_queries - free
    (run,) = _runs(ledger)
    assert run.mechanism_id == "pmw" and run.params["universe"] == UNIVERSE and run.status == "finished"


def test_universe_via_param_json_is_accepted(census, capsys):
    data, queries, ledger = census
    assert (
        main(
            [
                "run",
                "--data",
                str(data),
                "--queries",
                str(queries),
                "--mechanism",
                "pmw",
                "--epsilon",
                "1",
                "--threshold",
                "2000",
                "--cutoff",
                "5",
                "--param",
                f"universe={json.dumps(UNIVERSE)}",
                "--ledger",
                str(ledger),
                "--budget-epsilon",
                "2",
                "--test-seed",
                "1",
            ]
        )
        == 0
    )
    assert "free (simulated)" in capsys.readouterr().out


def test_sparse_project_run_then_answer_from_the_file(census, tmp_path, capsys):
    data, _, ledger = census
    out = tmp_path / "release.npz"
    assert (
        main(
            [
                "run",
                "--data",
                str(data),
                "--mechanism",
                "sparse_project",
                "--epsilon",
                "1",
                "--delta",
                "1e-6",
                "--param",
                "projection_size=256",
                "--universe",
                *UNIVERSE,
                "--release-out",
                str(out),
                "--ledger",
                str(ledger),
                "--budget-epsilon",
                "2",
                "--budget-delta",
                "1e-5",
                "--test-seed",
                "2",
            ]
        )
        == 0
    )
    text = capsys.readouterr()
    assert f"release written to {out}" in text.err and "sparse-project answer --release" in text.out
    assert "paper's T" in text.out
    (run,) = _runs(ledger)
    assert run.status == "finished" and float(run.epsilon) == 1.0
    query = {"kind": "count", "where": {"column": "sex", "op": "=", "value": "Female"}}
    assert (
        main(["sparse-project", "answer", "--release", str(out), "--query", json.dumps(query), "--json"]) == 0
    )
    assert 0 < json.loads(capsys.readouterr().out)["fraction"] < 1
    assert len(_runs(ledger)) == 1  # answering never touches the ledger


def _build(data, out, ledger, *extra: str) -> int:
    return main(["sparse-project", "build", "--data", str(data), "--columns", *UNIVERSE, "--epsilon", "0.5",
                 "--T", "128", "--out", str(out), "--ledger", str(ledger), *extra])


def test_sparse_project_build_goes_through_the_same_ledger_path(census, tmp_path, capsys):
    data, _, ledger = census
    out = tmp_path / "b.npz"
    assert _build(data, out, ledger, "--budget-epsilon", "1", "--budget-delta", "1e-5") == 0
    (run,) = _runs(ledger)
    assert run.params["release_out"] == str(out) and run.status == "finished" and out.exists()
    assert _build(data, out, ledger, "--neighbouring", "replace") == 2
    assert "declares add_remove neighbours" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--mechanism", "pmw", "--threshold", "10"], "give its columns with --universe"),
        (
            ["--mechanism", "sparse_project", "--universe", "sex"],
            "--release-out RELEASE.npz (or use `svtgui-cli sparse-project build`)",
        ),
        (
            ["--mechanism", "sparse", "--threshold", "10", "--universe", "sex"],
            "are for pmw and sparse_project",
        ),
        (["--mechanism", "pmw", "--threshold", "10", "--universe", "hours_per_week"], "needs bins"),
        (
            [
                "--mechanism",
                "pmw",
                "--threshold",
                "10",
                "--universe",
                "age@17,91",
                "--param",
                'neighbouring="replace"',
            ],
            "schema's neighbouring",
        ),
    ],
)
def test_bad_linear_runs_exit_2_and_charge_nothing(census, capsys, extra, message):
    data, queries, ledger = census
    code = main(
        [
            "run",
            "--data",
            str(data),
            "--queries",
            str(queries),
            "--epsilon",
            "1",
            "--ledger",
            str(ledger),
            "--budget-epsilon",
            "2",
            *extra,
        ]
    )
    assert code == 2
    assert message in capsys.readouterr().err
    assert all(float(r.epsilon) == 0 for r in _runs(ledger)) and _runs(ledger) == []


def test_saved_pmw_and_sparse_project_sessions_replay_headlessly(census, tmp_path, capsys):
    """A GUI session of either linear mechanism holds its universe (and release file) and replays."""
    from svtgui.app.project_file import Session, save
    from svtgui.data import load_dataset
    from svtgui.data.queries import queries_from_json

    data, queries, ledger = census
    ds = load_dataset(data)
    qs = queries_from_json(queries.read_text())
    pmw = {"epsilon": 1.0, "threshold": 1500.0, "cutoff": 5, "universe": UNIVERSE}
    pmw_path = save(Session.from_state(ds, qs, "pmw", pmw), tmp_path / "pmw")
    out = tmp_path / "release.npz"
    sp = {"epsilon": 1.0, "delta": 1e-6, "projection_size": 128, "universe": UNIVERSE,
          "release_out": str(out)}
    sp_path = save(Session.from_state(ds, [], "sparse_project", sp), tmp_path / "sp")
    common = ["--ledger", str(ledger), "--budget-epsilon", "5", "--budget-delta", "1e-5", "--test-seed", "3"]
    assert main(["run", "--session", str(pmw_path), *common]) == 0, capsys.readouterr().err
    assert main(["run", "--session", str(sp_path), *common]) == 0, capsys.readouterr().err
    pmw_run, sp_run = _runs(ledger)
    assert pmw_run.mechanism_id == "pmw" and pmw_run.params["universe"] == UNIVERSE
    assert sp_run.mechanism_id == "sparse_project" and sp_run.params["universe"] == UNIVERSE
    assert sp_run.status == "finished" and out.exists()
    with Ledger.open(ledger) as led:
        rows = led.responses(pmw_run.id)
        assert pmw_run.queries_planned == len(qs) and rows  # the saved queries were replayed
        assert sum(not r.answered_from_simulation for r in rows) <= 5  # the saved cutoff held
        assert led.facts(sp_run.id)["release_file"] == str(out.resolve())
