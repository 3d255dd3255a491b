"""The plan: one validation for the window, the CLI and the run — problems by field, derived Δ /
integer / monotonic, cost and budget fit; and nothing charged (nor registered) unless the whole
plan is valid (issue 11 §6), through the Plan and through ``svtgui-cli run`` (exit 2, ledger unchanged)."""

from __future__ import annotations

import errno
import json
import os
from fractions import Fraction
from pathlib import Path

import pytest

from svtgui.app import outputs as outputs_module
from svtgui.app import plan as plan_module
from svtgui.app.outputs import Inputs, check_output
from svtgui.app.plan import Plan, build, declared_budget, queue_facts
from svtgui.cli import main
from svtgui.core.budget import Budget
from svtgui.data import Dataset
from svtgui.data.queries import queries_from_json
from svtgui.ledger import Ledger

SPARSE = {"epsilon": 1.0, "threshold": 50.0, "cutoff": 2}


@pytest.fixture
def toy(tmp_path):
    import pandas as pd

    frame = pd.DataFrame({"x": [i % 100 for i in range(500)], "colour": ["red", "blue"] * 250})
    ds = Dataset.from_frame(frame, name="toy")
    return ds.with_schema(ds.schema.with_bounds("x", 0, 99))


def q(*objs):
    return queries_from_json(list(objs))


COUNT = {"kind": "count", "where": {"column": "x", "op": ">=", "value": 10}}
SUM = {"kind": "sum", "column": "x", "lower": 0, "upper": 99}


def fields(p: Plan) -> list[str]:
    return [x.field for x in p.problems]


def test_a_valid_plan_derives_delta_integer_monotonic_and_cost(toy):
    p = build(toy, q(COUNT, COUNT), "standard_svt", SPARSE, monotonic=True, budget=Budget(Fraction(3)))
    assert p.ok, p.problems
    assert p.params["sensitivity"] == 1.0 and p.params["integer"] is True and p.params["monotonic"] is True
    assert p.cost.epsilon == 1.0 and p.fits is True and not p.warnings


def test_problems_are_tied_to_their_field_not_parsed_from_text(toy):
    p = build(toy, q(COUNT), "sparse", {**SPARSE, "epsilon": 0.0, "cutoff": 0})
    assert not p.ok
    assert fields(p)[0] in ("epsilon", "cutoff")
    assert set(p.by_field()) <= {"epsilon", "cutoff"}
    p = build(toy, q(COUNT), "sparse", {**SPARSE, "delta": 1.5})
    assert fields(p) == ["delta"]
    with pytest.raises(ValueError) as err:
        p.raise_if_invalid()
    assert err.value.param == "delta"


def test_a_numeric_column_compared_with_text_is_refused_before_any_charge(toy):
    for bad in ({"column": "x", "op": ">=", "value": "abc"},
                {"column": "x", "op": "between", "value": ["a", "b"]}):
        p = build(toy, q(COUNT, {"kind": "count", "where": bad}), "sparse", SPARSE)
        assert fields(p) == ["queries"], p.problems
        assert "query 2" in p.problems[0].message and "not a number" in p.problems[0].message


def test_an_empty_query_list_is_refused_unless_the_run_is_adaptive(toy):
    assert fields(build(toy, [], "sparse", SPARSE)) == ["queries"]
    assert build(toy, [], "sparse", {**SPARSE, "sensitivity": 1.0}, adaptive=True).ok  # the window: ask later
    assert fields(build(toy, [], "em_top_c", {"epsilon": 1.0}, adaptive=True)) == ["queries"]


def test_mixing_a_count_with_a_wide_sum_warns_that_every_query_gets_the_wide_noise(toy):
    p = build(toy, q(COUNT, SUM), "sparse", SPARSE)
    assert p.ok and p.params["sensitivity"] == 99.0
    assert len(p.warnings) == 1 and "Δ = 99" in p.warnings[0] and "Δ = 1" in p.warnings[0]
    assert "split" in p.warnings[0]
    assert not build(toy, q(SUM, SUM), "sparse", SPARSE).warnings


def test_monotonic_only_when_asked_every_query_is_and_neighbours_are_add_remove(toy):
    assert build(toy, q(COUNT), "standard_svt", SPARSE, monotonic=False).params["monotonic"] is False
    assert build(toy, q(COUNT), "sparse", SPARSE, monotonic=True).by_field() == {
        "monotonic": "sparse has no monotonic variant"}
    facts = queue_facts(q(COUNT, SUM), toy.schema)
    assert facts.monotonic  # a clipped sum of a non-negative range only grows
    replace = toy.with_schema(toy.schema.with_neighbouring("replace", n=500))
    facts = queue_facts(q(COUNT), replace.schema)
    assert not facts.monotonic and "add or remove" in facts.monotonic_reason
    assert build(replace, q(COUNT), "standard_svt", SPARSE, monotonic=True).params["monotonic"] is False


def test_budget_fit_is_exact_and_a_declared_total_is_checked(toy):
    assert build(toy, q(COUNT), "sparse", {**SPARSE, "epsilon": 0.3}, budget=Budget(Fraction(3, 10))).fits
    p = build(toy, q(COUNT), "sparse", {**SPARSE, "epsilon": 0.31}, budget=Budget(Fraction(3, 10)))
    assert p.fits is False and fields(p) == ["epsilon"] and "does not fit" in p.problems[0].message
    with pytest.raises(ValueError) as err:
        declared_budget("", None)
    assert err.value.param == "budget"
    with pytest.raises(ValueError):
        declared_budget("0", "0")
    assert declared_budget("2", "1e-6").total_epsilon == 2


def test_outputs_are_checked_for_writability(toy, tmp_path, monkeypatch):
    (tmp_path / "dir.html").mkdir()
    p = build(toy, q(COUNT), "sparse", SPARSE, outputs=[tmp_path / "dir.html", tmp_path / "nope" / "r.html"])
    assert fields(p) == ["report", "report"]
    assert "is a directory" in p.problems[0].message and "does not exist" in p.problems[1].message
    assert check_output(tmp_path / "ok.html") == tmp_path / "ok.html"
    assert sorted(os.listdir(tmp_path)) == ["dir.html"]  # the probe file was removed

    def full(fd, data):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(outputs_module.os, "write", full)
    with pytest.raises(ValueError, match="No space left"):
        check_output(tmp_path / "r.html")
    assert sorted(os.listdir(tmp_path)) == ["dir.html"]


def test_linear_problems_name_their_run_parameter(toy):
    p = build(toy, [], "sparse_project", {"epsilon": 1.0, "delta": 1e-6, "universe": ["x@0,50,100"],
                                          "release_out": "/nonexistent-dir/r.npz"})
    assert fields(p) == ["release_out"]
    p = build(toy, [], "pmw", {"epsilon": 1.0, "threshold": 10.0, "universe": ["colour"]}, adaptive=True)
    assert fields(p) == ["domains"]  # levels not declared: read from the data only with the override
    assert "the values of column 'colour'" in p.problems[0].message


# ---- through the CLI: exit 2, ledger unchanged, dataset not registered ---------------------------

@pytest.fixture
def cli(tmp_path):
    data = tmp_path / "toy.csv"
    data.write_text("x,colour\n" + "".join(f"{i % 100},{'red' if i % 3 else 'blue'}\n" for i in range(3000)))
    good = tmp_path / "good.json"
    good.write_text(json.dumps([COUNT, {"kind": "count", "where": {"column": "x", "op": "<", "value": 5}}]))
    ledger = tmp_path / "ledger.sqlite"

    def run(queries: Path, *extra: str) -> int:
        return main(["run", "--data", str(data), "--queries", str(queries), "--ledger", str(ledger),
                     "--mechanism", "sparse", "--epsilon", "1", "--threshold", "100", "--cutoff", "2",
                     *extra])

    def state():
        if not ledger.exists():
            return [], []
        with Ledger.open(ledger) as led:
            return [d.name for d in led.datasets()], [(r.id, str(r.epsilon)) for r in led.runs()]

    return run, state, good, tmp_path


def _bad(tmp_path: Path, name: str, objs: list) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(objs))
    return path


@pytest.mark.parametrize("where", [{"column": "x", "op": ">=", "value": "abc"},
                                   {"column": "x", "op": "between", "value": ["a", "b"]}])
def test_cli_refuses_text_compared_with_a_number_and_registers_nothing(cli, where, capsys):
    run, state, _, tmp = cli
    bad = _bad(tmp, "bad.json", [COUNT, {"kind": "count", "where": where}])
    assert run(bad, "--budget-epsilon", "5") == 2
    assert "not a number" in capsys.readouterr().err
    assert state() == ([], [])


def test_cli_refuses_an_empty_query_list(cli, capsys):
    run, state, _, tmp = cli
    assert run(_bad(tmp, "empty.json", []), "--budget-epsilon", "5") == 2
    err = capsys.readouterr().err
    assert "empty" in err and "nothing was charged" in err
    assert state() == ([], [])


def test_cli_refuses_a_bad_report_path_before_the_charge(cli, capsys):
    run, state, good, tmp = cli
    (tmp / "out.html").mkdir()
    assert run(good, "--budget-epsilon", "5", "--report", str(tmp / "out.html")) == 2
    assert "is a directory" in capsys.readouterr().err
    # /proc refuses every new file, also to root (a read-only folder does not, for root)
    assert run(good, "--budget-epsilon", "5", "--report", "/proc/release.html") == 2
    assert "cannot write" in capsys.readouterr().err
    assert state() == ([], [])
    assert run(good, "--budget-epsilon", "5", "--report", str(tmp / "ok.json")) == 0
    assert state()[0] == ["toy"] and len(state()[1]) == 1 and (tmp / "ok.json").exists()


def test_cli_never_writes_a_report_over_the_data_or_the_ledger(cli, capsys):
    # a report named like the data file replaced the private data; named like the ledger (any suffix
    # is a valid ledger name), it replaced the record of the spend while its WAL still held the runs
    run, state, good, tmp = cli
    data = tmp / "toy.csv"
    before = data.read_bytes()
    assert run(good, "--budget-epsilon", "5", "--report", str(data)) == 2
    assert "is the dataset, which is read here" in capsys.readouterr().err
    assert data.read_bytes() == before and state() == ([], [])
    assert run(good, "--budget-epsilon", "5") == 0
    assert run(good, "--report", str(tmp / ".." / tmp.name / "toy.csv")) == 2  # the same file, another path
    capsys.readouterr()
    other = tmp / "l.json"  # a ledger whose name a report could take
    code = main(["run", "--data", str(data), "--queries", str(good), "--ledger", str(other), "--mechanism",
                 "sparse", "--epsilon", "1", "--threshold", "100", "--budget-epsilon", "5",
                 "--report", str(other)])
    assert code == 2 and "is the privacy ledger" in capsys.readouterr().err
    assert data.read_bytes() == before and len(state()[1]) == 1


def test_outputs_may_not_be_the_data_or_the_ledger_files(toy, tmp_path):
    ledger = tmp_path / "l.sqlite"
    for target in (ledger, tmp_path / "l.sqlite-wal", tmp_path / "sub" / ".." / "l.sqlite"):
        (tmp_path / "sub").mkdir(exist_ok=True)
        p = build(toy, q(COUNT), "sparse", SPARSE, outputs=[target], inputs=Inputs().add_ledger(ledger))
        assert fields(p) == ["report"] and "privacy ledger" in p.problems[0].message


def test_an_output_needs_the_space_it_can_take_before_the_charge(cli, toy, tmp_path, monkeypatch, capsys):
    # a disk with 4 KB left passed the 4,096-byte probe, took the charge, then refused the 7 KB report
    monkeypatch.setattr(outputs_module, "_free_bytes", lambda folder: 4096)
    p = build(toy, q(COUNT), "sparse", SPARSE, outputs=[tmp_path / "r.html"])
    assert fields(p) == ["report"] and "only 4,096 bytes are free" in p.problems[0].message
    run, state, good, tmp = cli
    assert run(good, "--budget-epsilon", "5", "--report", str(tmp / "r.json")) == 2
    assert "bytes are free" in capsys.readouterr().err and state() == ([], [])
    monkeypatch.setattr(outputs_module, "_free_bytes", lambda folder: 10**9)
    assert run(good, "--budget-epsilon", "5", "--report", str(tmp / "r.json")) == 0
    # the bound covers what is written: a fixed part and every row
    size = (tmp / "r.json").stat().st_size
    assert size <= plan_module.output_bytes(tmp / "r.json", 2)


def test_cli_a_new_dataset_is_registered_only_with_its_first_valid_run(cli):
    run, state, good, _ = cli
    assert run(good, "--budget-epsilon", "5", "--epsilon", "0") == 2  # ε = 0: refused, not registered
    assert state() == ([], [])
    assert run(good, "--budget-epsilon", "0.5") == 3  # the run does not fit the declared total
    assert state() == ([], [])
    assert run(good, "--budget-epsilon", "5") == 0
    names, runs = state()
    assert names == ["toy"] and len(runs) == 1


def test_a_sum_over_declared_non_negative_bounds_is_monotonic(toy):
    """A sum that takes its bounds from the schema was always "not monotonic" (issue 24 §5); it is
    monotonic exactly when the declared lower bound is ≥ 0."""
    declared_sum = {"kind": "sum", "column": "x"}
    non_negative = toy.schema.with_bounds("x", 0, 99)
    facts = queue_facts(q(COUNT, declared_sum), non_negative)
    assert facts.monotonic, facts.monotonic_reason
    negative = toy.schema.with_bounds("x", -5, 99)
    facts = queue_facts(q(declared_sum), negative)
    assert not facts.monotonic and "is not monotonic" in facts.monotonic_reason
