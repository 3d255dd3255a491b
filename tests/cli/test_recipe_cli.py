"""``svtgui-cli recipe``: the seeds' recipes on the real Adult and retail data; bad input charges nothing."""

from __future__ import annotations

import json

import pytest

from svtgui.app import dataset_identity
from svtgui.cli import main
from svtgui.data import load_dataset
from svtgui.ledger import FINISHED, Ledger


def _runs(ledger):
    if not ledger.exists():
        return []
    with Ledger.open(ledger) as led:
        return led.runs()


def test_auto_mean_on_adult_prints_the_chosen_bound_and_the_noisy_mean(shared_data, tmp_path, capsys):
    ledger, report = tmp_path / "l.sqlite", tmp_path / "mean.json"
    code = main(["recipe", "auto-mean", "--data", str(shared_data / "adult.csv"), "--column", "age",
                 "--epsilon", "1", "--ledger", str(ledger), "--budget-epsilon", "3", "--report", str(report),
                 "--json"])
    assert code == 0
    facts = json.loads(capsys.readouterr().out)
    assert facts["bound"] > 0 and facts["noisy_count"] > 0
    assert facts["mean"] == pytest.approx(facts["noisy_sum"] / facts["noisy_count"])
    (run,) = _runs(ledger)
    assert run.status == FINISHED and run.mechanism_id == "recipe_auto_mean" and run.epsilon == 1
    data = json.loads(report.read_text())
    assert data["mechanism"]["name"] == "Auto-clipped mean (recipe)"
    assert data["released"]["bound"] == facts["bound"]


def test_screen_ranges_and_frequent_items_run_and_print_what_they_release(shared_data, tmp_path, capsys):
    ledger = tmp_path / "l.sqlite"
    assert main(["recipe", "screen-ranges", "--data", str(shared_data / "adult.csv"), "--column", "age",
                 "--start", "17", "--stop", "91", "--width", "5", "--threshold", "3000", "--cutoff", "2",
                 "--epsilon", "1", "--ledger", str(ledger), "--budget-epsilon", "3", "--json"]) == 0
    screened = json.loads(capsys.readouterr().out)
    assert screened["found"] == len(screened["answers"]) <= 2
    assert main(["recipe", "frequent-items", "--data", str(shared_data / "retail.dat"), "--items-range", "0",
                 "16469", "--cutoff", "5", "--epsilon", "1", "--ledger", str(ledger), "--budget-epsilon", "2",
                 "--json"]) == 0
    items = json.loads(capsys.readouterr().out)["items"]
    assert len(items) == 5 and all(0 <= i <= 16469 for i in items)
    assert [r.mechanism_id for r in _runs(ledger)] == ["recipe_screen_ranges", "recipe_frequent_items"]


@pytest.mark.parametrize(("extra", "code", "says"), [
    (["--column", "nope", "--budget-epsilon", "3"], 2, "no column 'nope'"),
    (["--column", "age", "--budget-epsilon", "0.5"], 3, "budget has 0.5 left"),
    (["--column", "age"], 2, "--budget-epsilon"),
    (["--column", "age", "--budget-epsilon", "3", "--report", "{tmp}/missing/r.html"], 2, "does not exist"),
])
def test_bad_input_is_one_line_and_charges_or_registers_nothing(extra, code, says, tmp_path, capsys):
    data = tmp_path / "ages.csv"
    data.write_text("age\n" + "".join(f"{20 + i % 50}\n" for i in range(500)))
    ledger = tmp_path / "l.sqlite"
    argv = ["recipe", "auto-mean", "--data", str(data), "--epsilon", "1", "--ledger", str(ledger),
            *[a.format(tmp=tmp_path) for a in extra]]
    assert main(argv) == code
    err = capsys.readouterr().err
    assert says in err and len(err.strip().splitlines()) == 1
    if ledger.exists():
        with Ledger.open(ledger) as led:
            assert led.runs() == [] and led.datasets() == []


def test_items_from_data_are_refused_unless_allowed_and_then_not_private(tmp_path, capsys):
    import json

    data, ledger, report = tmp_path / "b.dat", tmp_path / "l.sqlite", tmp_path / "r.json"
    data.write_text("".join(f"{i % 7} {(i * 3) % 11}\n" for i in range(300)))
    args = ["recipe", "frequent-items", "--data", str(data), "--items-from-data", "--cutoff", "2",
            "--epsilon", "1", "--ledger", str(ledger), "--budget-epsilon", "1", "--report", str(report)]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "the items of column 'items'" in err and "nothing was charged" in err
    with Ledger.open(ledger) as led:
        assert led.datasets() == [] and led.runs() == []
    assert not report.exists()
    assert main([*args, "--allow-data-derived-domains"]) == 0
    assert "NOT differentially private" in capsys.readouterr().err
    with Ledger.open(ledger) as led:
        (run,) = led.runs()
        assert led.declarations(run.id)["domains_from_data"] == ["the items of column 'items'"]
    guarantee = json.loads(report.read_text())["guarantee"]
    assert guarantee["differentially_private"] is False
    assert guarantee["sentence"].startswith("This release is NOT differentially private")


def test_a_recipe_that_does_not_fit_the_named_dataset_binds_and_charges_nothing(tmp_path, capsys):
    data, ledger = tmp_path / "ages.csv", tmp_path / "l.sqlite"
    data.write_text("age\n" + "".join(f"{20 + i % 50}\n" for i in range(500)))
    assert main(["recipe", "auto-mean", "--data", str(data), "--column", "age", "--epsilon", "1",
                 "--ledger", str(ledger), "--budget-epsilon", "1.5"]) == 0
    with Ledger.open(ledger) as led:
        (known,) = led.datasets()
    data.write_text("age\n" + "".join(f"{21 + i % 50}\n" for i in range(500)))  # the file changed
    capsys.readouterr()
    code = main(["recipe", "auto-mean", "--data", str(data), "--column", "age", "--epsilon", "1",
                 "--ledger", str(ledger), "--same-dataset-as", known.dataset_id])
    assert code == 3 and "0.5 left" in capsys.readouterr().err
    with Ledger.open(ledger) as led:
        assert len(led.runs()) == 1
        assert dataset_identity.identify(led, load_dataset(data)).record is None  # not bound to it
