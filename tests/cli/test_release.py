"""``svtgui-cli sparse-project``: build a release from the data, answer from the file alone."""

import json

import numpy as np

from svtgui.cli import main
from svtgui.core.mechanisms.sparse_project import ProjectionRelease

# levels declared: adult has no schema, and levels read from the data are refused
COLUMNS = ["age@17,35,55,91", "sex=Female,Male", "Salary=<=50K,>50K"]


def _build(shared_data, out, *extra):
    return main(["sparse-project", "build", "--data", str(shared_data / "adult.csv"), "--columns", *COLUMNS,
                 "--epsilon", "1", "--T", "512", "--out", str(out), "--test-seed", "1", *extra])


def test_build_then_answer_without_the_data(shared_data, tmp_path, capsys):
    out = tmp_path / "release.npz"
    assert _build(shared_data, out, "--budget-epsilon", "3", "--budget-delta", "1e-5") == 0
    built = capsys.readouterr()
    assert "paper's T" in built.out and "theoretical α at T = 512" in built.out
    assert "NOT differentially private" in built.err
    query = {"kind": "count", "where": {"column": "sex", "op": "=", "value": "Female"}}
    args = ["sparse-project", "answer", "--release", str(out), "--query", json.dumps(query), "--json"]
    assert main(args) == 0
    row = json.loads(capsys.readouterr().out)
    release = ProjectionRelease.load(out)
    # Answer within the release's own worst-case α (holds with probability ≥ 0.95; fixed seed):
    # the true fraction of women in adult is 10771 / 32561.
    assert abs(row["fraction"] - 10771 / 32561) < release.header["accuracy"]["alpha"]
    assert row["cells"] == 4 * 4  # (3 age bins + missing) × (2 incomes + other + missing), sex fixed
    assert main(["sparse-project", "info", "--release", str(out)]) == 0
    assert "sex: Female, Male" in capsys.readouterr().out
    assert np.all(release.noisy == ProjectionRelease.load(out).noisy)


def test_budget_refusal_and_bad_inputs(shared_data, tmp_path, capsys):
    out = tmp_path / "r.npz"
    assert _build(shared_data, out, "--budget-epsilon", "0.5", "--budget-delta", "1e-5") == 3
    assert "does not fit" in capsys.readouterr().err and not out.exists()
    assert _build(shared_data, tmp_path / "r.bin", "--budget-epsilon", "5", "--budget-delta", "1e-5") == 2
    assert "--out: " in capsys.readouterr().err
    assert main(["ledger", "--json"]) == 0  # the test's own ledger ($SVTGUI_LEDGER, tests/conftest.py)
    assert json.loads(capsys.readouterr().out)["datasets"] == []  # a bad first run registers nothing
    assert main(["sparse-project", "answer", "--release", str(tmp_path / "none.npz"), "--query", "{}"]) == 2
    assert "no such release file" in capsys.readouterr().err
    budget = ("--budget-epsilon", "5", "--budget-delta", "1e-5")
    assert _build(shared_data, tmp_path / "nodir" / "r.npz", *budget) == 2
    assert "does not exist" in capsys.readouterr().err
