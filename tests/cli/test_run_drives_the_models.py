"""``svtgui-cli run`` drives the window's models (issue 23 §5): its run is set up in a ``Workspace``,
planned by it and charged through ``RunModel.confirm``; the same set-up typed into the window's form
plans the same run and, with the same test seed, releases the same rows."""

from __future__ import annotations

import json

import numpy as np

from svtgui.app.runs.in_process import in_process_launcher
from svtgui.app.runs.model import RunModel
from svtgui.app.runs.state import RunState
from svtgui.app.workspace import RunOptions, Workspace
from svtgui.cli import main
from svtgui.data import load_dataset
from svtgui.data.queries import read_queries
from svtgui.ledger import Ledger

SEED = 42


def _cli_run(census_copy, tmp_path, capsys, monkeypatch):
    """The CLI's run, with the model it charged through and its plan at that moment."""
    queries, ledger = tmp_path / "ages.json", tmp_path / "ledger.sqlite"
    assert main(["queries", "generate", "range-sweep", "--column", "age", "--start", "17", "--stop", "91",
                 "--width", "5", "--out", str(queries)]) == 0
    seen: dict[str, object] = {}
    confirm = RunModel.confirm

    def spy(model: RunModel) -> bool:
        seen["model"], seen["plan"] = model, model.workspace.plan
        return confirm(model)

    monkeypatch.setattr(RunModel, "confirm", spy)
    capsys.readouterr()
    assert main(["run", "--data", str(census_copy), "--queries", str(queries), "--ledger", str(ledger),
                 "--mechanism", "numeric_sparse", "--epsilon", "0.5", "--delta", "0", "--threshold", "250",
                 "--cutoff", "2", "--budget-epsilon", "5", "--test-seed", str(SEED), "--json",
                 "--all-rows"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    monkeypatch.setattr(RunModel, "confirm", confirm)
    return queries, ledger, rows, seen


def test_the_cli_charges_through_the_run_model_which_follows_the_run_to_its_end(
        census_copy, tmp_path, capsys, monkeypatch):
    _, ledger, rows, seen = _cli_run(census_copy, tmp_path, capsys, monkeypatch)
    model = seen["model"]
    assert isinstance(model, RunModel) and not model.workspace.options.adaptive
    with Ledger.open(ledger) as led:
        (run,) = led.runs()
    assert model.run is not None and model.run.id == run.id
    assert model.state == RunState.ENDED and model.run.status == run.status == "halted"
    with Ledger.open(ledger) as led:
        assert len(rows) == len(led.responses(run.id)) > 0


def test_the_window_plans_and_releases_what_the_cli_did_from_the_same_set_up(
        census_copy, tmp_path, capsys, monkeypatch):
    queries, ledger, cli_rows, seen = _cli_run(census_copy, tmp_path, capsys, monkeypatch)
    cli_plan = seen["plan"]
    with Ledger.open(ledger) as led:
        workspace = Workspace("numeric_sparse")
        model = RunModel(workspace, open_ledger=lambda: led, launcher=in_process_launcher(led))
        workspace.set_dataset(load_dataset(census_copy), read_queries(queries).queries)
        workspace.set_entries({"epsilon": "0.5", "delta": "0", "threshold": "250", "cutoff": "2"})  # typed
        workspace.set_options(RunOptions(seed=SEED))  # the window's tests set it the same way
        plan = workspace.plan
        assert (plan.cost, plan.cutoff, plan.queue, plan.problems, plan.warnings) == (
            cli_plan.cost, cli_plan.cutoff, cli_plan.queue, cli_plan.problems, cli_plan.warnings)
        assert model.confirm()
        window_run = model.worker.run
        batches = list(window_run.stream(batch_size=1000))
        window_run.finish()
        cli_run, again = sorted(led.runs(), key=lambda r: r.id)
    assert again.id == window_run.id and cli_run.id != again.id
    assert (again.mechanism_id, again.params, again.epsilon, again.delta, again.noise) == (
        cli_run.mechanism_id, cli_run.params, cli_run.epsilon, cli_run.delta, cli_run.noise)
    above = np.concatenate([b.above for b in batches])
    values = [v for b in batches for v in b.values()]
    assert [r["above"] for r in cli_rows] == above.tolist()
    assert [r["value"] for r in cli_rows] == values
