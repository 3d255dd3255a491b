"""Reports a data-protection officer can file: settings in words, bounds stated, rows as in the window."""

from __future__ import annotations

import html
import re
from pathlib import Path

from svtgui.app.reports.content import bounds_text, noise_line, params_text, result_text
from svtgui.cli import main

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
