"""``svtgui-cli run / ledger / report / queries``: outputs, exit codes, and nothing charged on bad input."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from svtgui.cli import main
from svtgui.data.queries import queries_from_json
from svtgui.ledger import Ledger


@pytest.fixture
def files(tmp_path):
    data = tmp_path / "toy.csv"
    data.write_text("x,colour\n" + "".join(f"{i % 100},{'red' if i % 3 else 'blue'}\n" for i in range(3000)))
    queries = tmp_path / "q.json"
    assert (
        main(
            [
                "queries",
                "generate",
                "range-sweep",
                "--column",
                "x",
                "--start",
                "0",
                "--stop",
                "100",
                "--width",
                "10",
                "--out",
                str(queries),
            ]
        )
        == 0
    )
    return data, queries, tmp_path / "ledger.sqlite"


def _run(files, *extra: str) -> int:
    data, queries, ledger = files
    return main(["run", "--data", str(data), "--queries", str(queries), "--ledger", str(ledger), *extra])


def _runs(ledger: Path):
    if not ledger.exists():
        return []
    with Ledger.open(ledger) as led:
        return led.runs()


@pytest.mark.parametrize(
    "argv",
    [
        ["run", "--help"],
        ["ledger", "--help"],
        ["ledger", "raise", "--help"],
        ["report", "--help"],
        ["queries", "--help"],
        ["queries", "generate", "--help"],
        ["queries", "show", "--help"],
        ["queries", "generate", "range-sweep", "--help"],
        ["queries", "generate", "random-ranges", "--help"],
        ["queries", "generate", "clip-bound-sweep", "--help"],
        ["queries", "generate", "every-item", "--help"],
        ["queries", "generate", "every-value", "--help"],
        ["queries", "generate", "marginals", "--help"],
    ],
)
def test_every_command_has_help_with_an_example(argv, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert "usage: svtgui-cli" in out and ("example:" in out or argv[-2] in ("queries", "generate"))


def test_run_prints_committed_top_rows_and_writes_reports(files, capsys, tmp_path):
    code = _run(
        files,
        "--mechanism",
        "numeric_sparse",
        "--epsilon",
        "1",
        "--threshold",
        "100",  # every answer is 300: P(fewer than 3 ⊤ of 10) ≈ 2e-14 (it was 8e-5 at 250)
        "--cutoff",
        "3",
        "--budget-epsilon",
        "2",
        "--report",
        str(tmp_path / "r.json"),
        "--report",
        str(tmp_path / "r.csv"),
    )
    out, err = capsys.readouterr()
    assert code == 0, err
    lines = out.splitlines()
    assert len(lines) == 3 and all(line.split("\t")[1] == "⊤" for line in lines)
    with Ledger.open(files[2]) as led:
        run = led.runs()[0]
        assert run.status == "halted" and run.epsilon == 1
        stored = {(r.index, str(r.value), r.description) for r in led.responses(run.id)}
    for line in lines:
        index, _, value, query = line.split("\t")
        assert (int(index), value, query) in stored
    assert "spent ε 1 of 2" in err and "report written" in err
    assert json.loads((tmp_path / "r.json").read_text())["run"]["id"] == run.id
    rows_table = (tmp_path / "r.csv").read_text().split("\n\n")[1]
    assert rows_table.startswith("number,query,result")  # numbered as in the window


def test_run_json_lines_and_all_rows(files, capsys):
    assert (
        _run(
            files,
            "--mechanism",
            "sparse",
            "--epsilon",
            "1",
            "--threshold",
            "1e9",
            "--budget-epsilon",
            "1",
            "--json",
            "--all-rows",
        )
        == 0
    )
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(rows) == 10 and not any(r["above"] for r in rows) and all(r["value"] is None for r in rows)


def test_seeded_run_warns_and_is_reproducible(files, census_copy, capsys):
    """On public rows (the bundled census sample's bytes under another name): seeded noise runs only there."""
    queries = census_copy.with_name("ages.json")
    assert main(["queries", "generate", "range-sweep", "--column", "age", "--start", "17", "--stop", "91",
                 "--width", "5", "--out", str(queries)]) == 0
    outs = []
    for _ in range(2):
        assert (
            _run(
                (census_copy, queries, files[2]),
                "--mechanism",
                "numeric_sparse",
                "--epsilon",
                "0.5",
                "--threshold",
                "250",
                "--cutoff",
                "2",
                "--budget-epsilon",
                "5",
                "--test-seed",
                "42",
            )
            == 0
        )
        out, err = capsys.readouterr()
        assert "NOT differentially private" in err and "42" not in err
        outs.append(out)
    assert outs[0] == outs[1]
    assert all(r.noise == "seeded" for r in _runs(files[2]))


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--mechanism", "sparse", "--epsilon", "1", "--threshold", "5"], "--budget-epsilon"),
        (["--mechanism", "nope", "--epsilon", "1", "--budget-epsilon", "1"], "unknown mechanism"),
        (
            ["--mechanism", "sparse", "--epsilon", "-1", "--threshold", "5", "--budget-epsilon", "1"],
            "epsilon",
        ),
        (["--mechanism", "sparse", "--epsilon", "1", "--budget-epsilon", "1"], "threshold"),
        (
            [
                "--mechanism",
                "sparse",
                "--epsilon",
                "1",
                "--threshold",
                "5",
                "--budget-epsilon",
                "1",
                "--param",
                "oops",
            ],
            "NAME=VALUE",
        ),
        (
            [
                "--mechanism",
                "sparse",
                "--epsilon",
                "1",
                "--threshold",
                "5",
                "--budget-epsilon",
                "1",
                "--param",
                "colour=3",
            ],
            "no parameter 'colour'",
        ),
        (
            [
                "--mechanism",
                "sparse",
                "--epsilon",
                "1",
                "--threshold",
                "5",
                "--budget-epsilon",
                "1",
                "--report",
                "out.docx",
            ],
            "unknown format",
        ),
        (
            [
                "--mechanism",
                "sparse",
                "--epsilon",
                "1",
                "--threshold",
                "5",
                "--budget-epsilon",
                "1",
                "--batch-size",
                "0",
            ],
            "batch-size",
        ),
        (
            [
                "--mechanism",
                "lecture_sparse_2011",
                "--epsilon",
                "1",
                "--threshold",
                "5",
                "--budget-epsilon",
                "1",
            ],
            "not to be differentially private",
        ),
    ],
)
def test_bad_input_exits_2_and_charges_nothing(files, capsys, extra, message):
    assert _run(files, *extra) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1  # one clear line, no traceback
    assert _runs(files[2]) == []


def test_bad_files_exit_2_naming_the_file(files, capsys, tmp_path):
    data, queries, ledger = files
    bad = tmp_path / "bad.json"
    bad.write_text('{"queries": [{"kind": "range", "column": "x", "low": 1}]}')
    base = [
        "--mechanism",
        "sparse",
        "--epsilon",
        "1",
        "--threshold",
        "5",
        "--budget-epsilon",
        "1",
        "--ledger",
        str(ledger),
    ]
    assert main(["run", "--data", str(data), "--queries", str(bad), *base]) == 2
    assert "bad.json" in capsys.readouterr().err
    wrong_column = tmp_path / "wrong.json"
    wrong_column.write_text('[{"kind": "range", "column": "height", "low": 1, "high": 2}]')
    assert main(["run", "--data", str(data), "--queries", str(wrong_column), *base]) == 2
    assert "height" in capsys.readouterr().err
    assert main(["run", "--data", str(tmp_path / "missing.csv"), "--queries", str(queries), *base]) == 2
    assert "missing.csv" in capsys.readouterr().err
    corrupt = tmp_path / "corrupt.sqlite"
    corrupt.write_bytes(b"garbage" * 100)
    assert main(["run", "--data", str(data), "--queries", str(queries), *base[:-1], str(corrupt)]) == 2
    assert "corrupt" in capsys.readouterr().err and corrupt.read_bytes() == b"garbage" * 100
    assert _runs(ledger) == []


def test_budget_refusal_exits_3_and_names_the_amounts(files, capsys):
    args = ["--mechanism", "sparse", "--threshold", "1e9", "--budget-epsilon", "1"]
    assert _run(files, *args, "--epsilon", "0.7") == 0
    capsys.readouterr()
    assert _run(files, *args, "--epsilon", "0.4") == 3
    err = capsys.readouterr().err
    assert "total ε = 1" in err and "spent ε = 0.7" in err and "requested ε = 0.4" in err
    assert len(_runs(files[2])) == 1
    assert _run(files, *args, "--epsilon", "0.3") == 0  # 0.7 + 0.3 = 1 exactly


def test_config_file_with_relative_paths_and_overrides(files, tmp_path, capsys):
    data, queries, ledger = files
    conf_dir = tmp_path / "conf"
    conf_dir.mkdir()
    (conf_dir / "run.toml").write_text(
        f'data = "../{data.name}"\nqueries = "../{queries.name}"\nledger = "../{ledger.name}"\n'
        'mechanism = "standard_svt"\nepsilon = 0.5\nthreshold = 250.0\ncutoff = 2\nbudget_epsilon = "3"\n'
        'report = "out.json"\n[params]\nnumeric_share = 0.5\n'
    )
    assert main(["run", "--config", str(conf_dir / "run.toml"), "--epsilon", "0.75"]) == 0, (
        capsys.readouterr().err
    )
    run = _runs(ledger)[0]
    assert run.epsilon == Fraction(3, 4) and run.params["numeric_share"] == 0.5 and run.params["cutoff"] == 2
    assert (conf_dir / "out.json").exists()
    (conf_dir / "bad.toml").write_text('data = "x"\nepsilonn = 1\n')
    assert main(["run", "--config", str(conf_dir / "bad.toml")]) == 2
    assert "epsilonn" in capsys.readouterr().err
    (conf_dir / "broken.toml").write_text("data = \n")
    assert main(["run", "--config", str(conf_dir / "broken.toml")]) == 2
    assert "not valid TOML" in capsys.readouterr().err


def test_ledger_listing_raise_and_report(files, capsys, tmp_path):
    _run(
        files,
        "--mechanism",
        "sparse",
        "--epsilon",
        "0.25",
        "--threshold",
        "250",
        "--cutoff",
        "2",
        "--budget-epsilon",
        "1",
    )
    capsys.readouterr()
    ledger = str(files[2])
    assert main(["ledger", "--ledger", ledger, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    d = data["datasets"][0]
    assert (d["name"], d["spent_epsilon"], d["remaining_epsilon"]) == ("toy", "0.25", "0.75")
    assert d["runs"][0]["status"] == "halted" and d["runs"][0]["above"] == 2
    assert main(["ledger", "--ledger", ledger]) == 0
    text = capsys.readouterr().out
    assert "toy" in text and "spent 0.25" in text and "halted" in text
    fp = d["id"]
    assert (
        main(["ledger", "raise", fp[:10], "--total-epsilon", "2", "--note", "approved", "--ledger", ledger])
        == 0
    )
    assert (
        main(["ledger", "raise", fp[:10], "--total-epsilon", "1.5", "--note", "x", "--ledger", ledger]) == 2
    )
    assert main(["ledger", "raise", "zzzz", "--total-epsilon", "5", "--note", "x", "--ledger", ledger]) == 2
    capsys.readouterr()
    assert main(["ledger", "--ledger", ledger]) == 0
    assert "raised to ε 2" in capsys.readouterr().out
    out = tmp_path / "again.html"
    assert main(["report", str(d["runs"][0]["id"]), "--out", str(out), "--ledger", ledger]) == 0
    assert "Release report" in out.read_text()
    assert main(["report", "999", "--out", str(tmp_path / "x.json"), "--ledger", ledger]) == 2
    assert "no run 999" in capsys.readouterr().err


def test_queries_generators_write_valid_files(tmp_path, files, capsys):
    data = files[0]
    cases = {
        "rr.json": [
            "random-ranges",
            "--column",
            "x",
            "--low",
            "0",
            "--high",
            "99",
            "-k",
            "25",
            "--seed",
            "4",
        ],
        "clip.json": [
            "clip-bound-sweep",
            "--column",
            "x",
            "--start",
            "1",
            "--stop",
            "100",
            "--step",
            "2",
            "--geometric",
        ],
        "items.json": ["every-item", "--items", "38", "39", "41"],
        "values.json": ["every-value", "--data", str(data), "--column", "colour", "--values", "red", "blue"],
        "marg.json": ["marginals", "--data", str(data), "--columns", "colour", "x", "-k", "1", "--observed"],
    }
    sizes = {}
    for name, argv in cases.items():
        assert main(["queries", "generate", *argv[:1], "--out", str(tmp_path / name), *argv[1:]]) == 0
        sizes[name] = len(queries_from_json((tmp_path / name).read_text()))
    assert sizes == {"rr.json": 25, "clip.json": 7, "items.json": 3, "values.json": 2, "marg.json": 102}
    assert "reveals" in capsys.readouterr().err  # --observed says what it discloses
    assert (
        main(
            [
                "queries",
                "generate",
                "every-value",
                "--data",
                str(data),
                "--column",
                "nope",
                "--values",
                "a",
                "--out",
                str(tmp_path / "n.json"),
            ]
        )
        == 2
    )
    assert "nope" in capsys.readouterr().err
    assert main(["queries", "show", str(tmp_path / "values.json"), "--data", str(data)]) == 0
    assert "Δ = 1" in capsys.readouterr().out


@pytest.mark.slow
def test_run_on_the_real_adult_data(shared_data, tmp_path, capsys):
    q = tmp_path / "ages.json"
    assert (
        main(
            [
                "queries",
                "generate",
                "range-sweep",
                "--column",
                "age",
                "--start",
                "17",
                "--stop",
                "91",
                "--width",
                "1",
                "--out",
                str(q),
            ]
        )
        == 0
    )
    ledger = tmp_path / "l.sqlite"
    assert (
        main(
            [
                "run",
                "--data",
                str(shared_data / "adult.csv"),
                "--queries",
                str(q),
                "--mechanism",
                "sparse",
                "--epsilon",
                "1",
                "--threshold",
                "700",  # 16 ages hold ≥ 800 rows: P(fewer than 3 ⊤) ≈ 5e-15 (it was 1e-7 at 800)
                "--cutoff",
                "3",
                "--budget-epsilon",
                "1",
                "--ledger",
                str(ledger),
            ]
        )
        == 0
    )
    assert len(capsys.readouterr().out.splitlines()) == 3
    with Ledger.open(ledger) as led:
        assert led.datasets()[0].name == "adult" and led.runs()[0].status == "halted"


def test_saved_session_replays_headlessly(files, tmp_path, capsys):
    from svtgui.app.project_file import Session, save
    from svtgui.data import load_dataset

    data, queries, ledger = files
    ds = load_dataset(data)
    params = {"epsilon": 0.5, "threshold": 250.0, "cutoff": 2}
    path = save(
        Session.from_state(ds, queries_from_json(queries.read_text()), "sparse", params), tmp_path / "s"
    )
    args = ["run", "--session", str(path), "--ledger", str(ledger), "--budget-epsilon", "1"]
    assert main(args) == 0, capsys.readouterr().err
    assert main([*args, "--epsilon", "0.25"]) == 0  # options override the saved parameters
    runs = _runs(ledger)
    assert [(r.mechanism_id, r.epsilon, r.params["cutoff"]) for r in runs] == [
        ("sparse", Fraction(1, 2), 2),
        ("sparse", Fraction(1, 4), 2),
    ]
    assert main([*args, "--data", str(data)]) == 2
    data.write_text(data.read_text() + "5,red\n")
    capsys.readouterr()
    assert main(args) == 2
    # saved before its first run, the session names no ledger id: the changed rows are caught as rows
    # that look like the known dataset, and the curator must say which dataset they are
    assert "--same-dataset-as ds-" in capsys.readouterr().err
    assert len(_runs(ledger)) == 2


def test_progress_bar_only_on_a_terminal(files):
    """stderr on a pseudo-terminal gets the bar; a pipe (the other tests) gets none."""
    import os
    import pty
    import subprocess
    import sys

    data, queries, ledger = files
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "svtgui.cli", "run", "--data", str(data), "--queries", str(queries),
         "--ledger", str(ledger), "--mechanism", "sparse", "--epsilon", "1", "--threshold", "1e9",
         "--budget-epsilon", "1", "--batch-size", "2"],
        stdout=subprocess.PIPE, stderr=slave)
    os.close(slave)
    chunks = []
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    assert proc.wait(60) == 0
    os.close(master)
    err = b"".join(chunks).decode()
    assert "\r[" in err and "10/10" in err and "run 1: finished" in err
    assert proc.stdout.read() == b""  # no ⊤ rows: nothing on stdout, and the bar never goes there
