"""Reports a data-protection officer can file: settings in words, bounds stated, rows as in the window."""

from __future__ import annotations

import html
import re
from pathlib import Path

import numpy as np
import pandas as pd

from svtgui.app.dataset_identity import register
from svtgui.app.reports import export
from svtgui.app.reports.content import (
    bounds_text,
    facts,
    noise_line,
    params_text,
    report_data,
    result_text,
)
from svtgui.app.runs.runner import start_run
from svtgui.cli import main
from svtgui.data import Dataset
from svtgui.data.queries import RangeCount
from svtgui.ledger import Ledger

REPO_SAMPLES = Path(__file__).resolve().parents[2] / "resources" / "samples"


def test_parameters_read_as_words_not_python():
    text = params_text({"cutoff": 3, "epsilon": 1.0, "integer": True, "monotonic": False, "threshold": 2000})
    assert "cutoff c = 3" in text and "ε = 1" in text and "threshold T = 2000" in text
    assert "integer-valued" in text and "not assumed monotonic" in text
    assert "True" not in text and "False" not in text and "integer =" not in text


def test_a_stopped_run_says_how_far_it_got():
    run = {"status": "stopped", "answered": 4, "above": 3, "queries_planned": 2000}
    assert result_text(run, []) == "Stopped by the curator after 4 of 2,000 planned queries: 3 ⊤, 1 ⊥"
    one = {"status": "halted", "answered": 1, "above": 1, "queries_planned": 1}
    assert result_text(one, []) == "Halted at the cutoff after 1 of 1 planned query: 1 ⊤, 0 ⊥"


def test_the_noise_source_is_named_once():
    line = noise_line({"noise": {"secure": True, "description": "secure (operating-system CSPRNG)"}})
    assert line == "secure (operating-system CSPRNG)" and "secure: secure" not in line


def test_bounds_are_listed_by_column():
    assert bounds_text({"hours": [1, 99], "age": [17, 90]}) == "age 17 – 90; hours 1 – 99"
    assert bounds_text({}) == "none declared"


def test_an_html_report_states_the_declared_bounds_and_numbers_rows_from_one(tmp_path):
    out = tmp_path / "r.html"
    code = main(["run", "--data", str(REPO_SAMPLES / "census.csv"), "--queries",
                 str(REPO_SAMPLES / "census.queries.json"), "--mechanism", "sparse", "--epsilon", "1",
                 "--threshold", "2000", "--cutoff", "2", "--ledger", str(tmp_path / "l.sqlite"),
                 "--budget-epsilon", "3", "--report", str(out)])
    assert code == 0
    page = html.unescape(out.read_text(encoding="utf-8"))
    assert "Declared public bounds" in page and "age 17 – 90" in page
    numbers = [int(n) for n in re.findall(r'<tr><td class="num">(\d+)</td>', page)]
    assert numbers and numbers[0] == 1 and numbers == sorted(numbers)


def test_each_report_states_what_was_declared_when_its_run_was_charged(tmp_path):
    """Declarations made after a dataset's first run reach the later runs' reports (their Δ came
    from them), and an earlier run's report keeps what was declared for it. Levels are never listed:
    the window can read them off the data, so a report must not publish them."""
    rng = np.random.default_rng(3)  # test data, not release noise
    frame = pd.DataFrame({"age": rng.integers(17, 91, 500), "sex": rng.choice(["F", "M"], 500)})
    bare = Dataset.from_frame(frame, name="people")
    queries = [RangeCount("age", float(lo), float(lo + 10)) for lo in range(17, 90, 10)]
    params = {"epsilon": 1.0, "threshold": 60.0, "cutoff": 2}
    with Ledger.open(tmp_path / "l.sqlite") as ledger:
        register(ledger, bare, 10)
        declared = bare.with_schema(bare.schema.with_bounds("age", 17, 90).with_categories("sex", ["F", "M"]))
        ids = []
        for ds in (bare, declared):
            with start_run(ledger, ds, queries, "sparse", params) as run:
                for _ in run.stream(batch_size=4):
                    pass
            ids.append(run.id)
        first, second = (report_data(ledger, i)["dataset"] for i in ids)
        assert first["declared_bounds"] == {} and second["declared_bounds"] == {"age": [17, 90]}
        page = html.unescape(export(ledger, ids[1], tmp_path / "r.html").read_text(encoding="utf-8"))
        assert "age 17 – 90" in page and "F, M" not in page


def test_a_dataset_without_a_delta_budget_has_no_delta_line(tmp_path):
    """"δ spent 0 of 0" says nothing: a pure-ε dataset's budget line names ε only (issue 24 §5)."""
    frame = pd.DataFrame({"age": np.random.default_rng(2).integers(17, 90, 500)})
    ds = Dataset.from_frame(frame, name="pure")
    with Ledger.open(tmp_path / "l.sqlite") as led:
        register(led, ds, 5)
        with start_run(led, ds, [RangeCount("age", 20, 30)], "sparse",
                       {"epsilon": 1.0, "threshold": 10.0, "cutoff": 1}) as run:
            for _ in run.stream():
                pass
        text = dict(facts(report_data(led, run.id)))
    line = next(v for k, v in text.items() if k.startswith("Budget of the dataset"))
    assert "ε spent 1 of 5" in line and "δ" not in line
