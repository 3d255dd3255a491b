"""``svtgui-cli sparse-project``: build a release from the data, answer from the file alone."""

import json

import numpy as np
import pandas as pd

from svtgui.cli import main
from svtgui.core.mechanisms.sparse_project import ProjectionRelease

# levels declared (levels read from the data are refused); the data is the bundled census sample's
# bytes under another name: seeded (test) noise runs only on public rows
COLUMNS = ["age@17,35,55,91", "sex=Female,Male", "income=<=50K,>50K"]


def _build(data, out, *extra):
    return main(["sparse-project", "build", "--data", str(data), "--columns", *COLUMNS,
                 "--epsilon", "1", "--T", "512", "--out", str(out), "--test-seed", "1", *extra])


def test_build_then_answer_without_the_data(census_copy, tmp_path, capsys):
    out = tmp_path / "release.npz"
    assert _build(census_copy, out, "--budget-epsilon", "3", "--budget-delta", "1e-5") == 0
    built = capsys.readouterr()
    assert "paper's T" in built.out and "theoretical α at T = 512" in built.out
    assert "NOT differentially private" in built.err
    query = {"kind": "count", "where": {"column": "sex", "op": "=", "value": "Female"}}
    args = ["sparse-project", "answer", "--release", str(out), "--query", json.dumps(query), "--json"]
    assert main(args) == 0
    row = json.loads(capsys.readouterr().out)
    release = ProjectionRelease.load(out)
    # Answer within the release's own worst-case α (holds with probability ≥ 0.95; fixed seed)
    true_fraction = (pd.read_csv(census_copy)["sex"] == "Female").mean()
    assert abs(row["fraction"] - true_fraction) < release.header["accuracy"]["alpha"]
    assert row["cells"] == 4 * 4  # (3 age bins + missing) × (2 incomes + other + missing), sex fixed
    # the answer's interval is the release's accuracy statement, as a count (issue 24 §1)
    alpha, n = release.header["accuracy"]["alpha"], release.n
    assert row["confidence"] == 1 - release.header["accuracy"]["beta"]
    assert row["interval"][0] <= max(0.0, (row["fraction"] - alpha) * n) + 1
    assert row["interval"][1] >= (row["fraction"] + alpha) * n - 1
    assert row["interval"][0] <= true_fraction * n <= row["interval"][1]
    assert main(args[:-1]) == 0  # the statistics table
    text = capsys.readouterr().out
    assert text.startswith("statistic") and "count of rows where sex = 'Female'" in text and " to " in text
    assert "the release's accuracy statement" in text
    assert main(["sparse-project", "info", "--release", str(out)]) == 0
    assert "sex: Female, Male" in capsys.readouterr().out
    assert np.all(release.noisy == ProjectionRelease.load(out).noisy)


def test_budget_refusal_and_bad_inputs(census_copy, tmp_path, capsys):
    out = tmp_path / "r.npz"
    assert _build(census_copy, out, "--budget-epsilon", "0.5", "--budget-delta", "1e-5") == 3
    assert "does not fit" in capsys.readouterr().err and not out.exists()
    assert _build(census_copy, tmp_path / "r.bin", "--budget-epsilon", "5", "--budget-delta", "1e-5") == 2
    assert "--out: " in capsys.readouterr().err
    assert main(["ledger", "--json"]) == 0  # the test's own ledger ($SVTGUI_LEDGER, tests/conftest.py)
    assert json.loads(capsys.readouterr().out)["datasets"] == []  # a bad first run registers nothing
    assert main(["sparse-project", "answer", "--release", str(tmp_path / "none.npz"), "--query", "{}"]) == 2
    assert "no such release file" in capsys.readouterr().err
    budget = ("--budget-epsilon", "5", "--budget-delta", "1e-5")
    assert _build(census_copy, tmp_path / "nodir" / "r.npz", *budget) == 2
    assert "does not exist" in capsys.readouterr().err
