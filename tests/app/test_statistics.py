"""The statistics table every release opens with (issue 24 §1): JSON, CSV, HTML and the CLI.

Coverage of the intervals themselves is tested in tests/core/test_intervals.py (one Laplace release)
and here for the auto-clipped mean (a ratio of two releases), on seeded runs.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from svtgui.app import dataset_identity, recipes
from svtgui.app.reports import STATISTICS_COLUMNS, export
from svtgui.app.reports.content import statistics
from svtgui.app.reports.statistics import decimals, rounded, statistics_text
from svtgui.app.runs.runner import start_run
from svtgui.cli import main
from svtgui.core import intervals, mechanisms
from svtgui.core.laplace import laplace_scale
from svtgui.core.noise import seeded
from svtgui.data.dataset import Dataset
from svtgui.data.queries import RangeCount
from svtgui.data.schema import infer_schema
from svtgui.ledger import Ledger, ResponseBatch
from tests.app.report_scan import csv_tables
from tests.core.core_stats import Z

KEYS = {"name", "value", "interval", "confidence", "epsilon", "run", "method"}


def _ages(n: int = 4000) -> pd.DataFrame:
    return pd.DataFrame({"age": np.random.default_rng(3).integers(18, 81, n)})  # test data, not noise


@pytest.fixture
def setup(tmp_path):
    frame = _ages()
    ds = Dataset.from_frame(frame, "toy", infer_schema(frame).with_bounds("age", 0, 100))
    with Ledger.open(tmp_path / "l.sqlite") as led:
        key = dataset_identity.register(led, ds, "1000").dataset_id
        yield led, ds, key, frame


def _run(led, ds, mechanism, params, queries, seed=1):
    with start_run(led, ds, queries, mechanism, params, seed=seed) as run:
        for _ in run.stream(batch_size=50):
            pass
    return run.id


RANGES = [RangeCount("age", lo, lo + 10) for lo in range(18, 80, 2)]


def test_numeric_sparse_lists_each_released_answer_with_its_exact_interval(setup, tmp_path):
    led, ds, _key, _frame = setup
    run_id = _run(led, ds, "numeric_sparse", {"epsilon": 2.0, "threshold": 100, "cutoff": 3}, RANGES)
    data = json.loads(export(led, run_id, tmp_path / "r.json").read_text(encoding="utf-8"))
    table = data["statistics"]
    tops = [r for r in data["rows"] if r["above"]]
    assert [st["name"] for st in table] == [r["query"] for r in tops] and len(table) == 3
    probe = mechanisms.create("numeric_sparse", rng=seeded(0), **data["parameters"])
    k = intervals.radius(probe.lattice.scale_units(probe.scales.numeric), 0.95)
    for st, row in zip(table, tops, strict=True):
        assert set(st) == KEYS and st["confidence"] == 0.95 and st["epsilon"] == "2" and st["run"] == run_id
        assert st["value"] == row["value"] and st["interval"] == [row["value"] - k, row["value"] + k]


def test_threshold_only_runs_say_none_released_with_the_accuracy_statement(setup, tmp_path):
    led, ds, _key, _frame = setup
    run_id = _run(led, ds, "sparse", {"epsilon": 1.0, "threshold": 100, "cutoff": 2}, RANGES)
    (st,) = statistics(led, run_id)
    assert st["value"] is None and st["interval"] is None and st["confidence"] is None
    assert st["method"].startswith("none released") and "α = " in st["method"]
    assert "which of 31 queries lie above T = 100" in st["name"]
    single = _run(led, ds, "sparse", {"epsilon": 1.0, "threshold": 100, "cutoff": 1}, RANGES[:1])
    (one,) = statistics(led, single)
    assert "which of 1 query lies above T = 100" in one["name"]  # not "1 query lie"


def test_a_noisy_gap_gets_no_interval(setup):
    led, ds, _key, _frame = setup
    run_id = _run(led, ds, "gap_svt", {"epsilon": 1.0, "threshold": 100, "cutoff": 2}, RANGES)
    table = statistics(led, run_id)
    assert len(table) == 2 and all(st["interval"] is None and st["value"] is not None for st in table)
    assert all("same noise" in st["method"] for st in table)


def test_every_format_opens_with_the_table(setup, tmp_path):
    led, ds, key, _frame = setup
    run_id = recipes.auto_mean(ds, "age", 1.0, rng=seeded(2)).run(led).record.id
    html = export(led, run_id, tmp_path / "r.html").read_text(encoding="utf-8")
    assert html.index("<h2>Statistics</h2>") < html.index("Appendix: how it was released") < html.index(
        "Released rows")
    assert "mean of age clipped to [0, " in html
    text = export(led, run_id, tmp_path / "r.csv").read_text(encoding="utf-8")
    assert text.splitlines()[0] == ",".join(STATISTICS_COLUMNS)
    table, rows = csv_tables(text)
    assert [r["statistic"].split(" of ")[0] for r in table] == ["mean", "sum", "number"]
    assert rows and all(r["result"] in ("⊤", "⊥") for r in rows)
    data = json.loads(export(led, run_id, tmp_path / "r.json").read_text(encoding="utf-8"))
    assert data["statistics"] == statistics(led, run_id)
    lo, hi = data["statistics"][0]["interval"]
    assert lo <= data["statistics"][0]["value"] <= hi


def test_the_mean_interval_covers_the_true_clipped_mean_at_the_stated_confidence(setup):
    """At least 95 % (a union bound over two exact 97.5 % intervals): fixed seeds; fails falsely with
    probability ≈ 5.7e-7 if the coverage were exactly 0.95."""
    led, ds, key, frame = setup
    n, covered = 200, 0
    for seed in range(n):
        done = recipes.auto_mean(ds, "age", 1.0, rng=seeded(seed)).run(led)
        truth = float(np.clip(frame["age"], 0, done.facts["bound"]).mean())
        lo, hi = statistics(led, done.record.id)[0]["interval"]
        covered += lo <= truth <= hi
    assert covered >= n * 0.95 - Z * math.sqrt(n * 0.95 * 0.05)


def test_range_screening_answers_use_each_query_s_own_sensitivity(setup):
    led, ds, key, _frame = setup
    done = recipes.screen_ranges(ds, RANGES, 2.0, 100, 2, rng=seeded(4)).run(led)
    table = statistics(led, done.record.id)
    e = 2.0 * 0.5 / 2
    for st in table:
        expected = intervals.laplace_interval(st["value"], 1.0, e, 0.95, integer=True)
        assert st["interval"] == [int(expected[0]), int(expected[1])]


def test_values_are_rounded_to_their_interval_and_the_interval_never_narrows():
    assert decimals(0.31) == 2 and decimals(27.9) == 0 and decimals(0.048) == 3
    value, (lo, hi) = rounded(38.56349, (38.2512, 38.8757), integer=False)
    assert (value, lo, hi) == (38.56, 38.25, 38.88)
    assert rounded(1161201.4, (1160382.2, 1162020.9), integer=False) == (1161201, (1160382, 1162021))


def test_the_cli_prints_the_table_after_a_recipe_and_a_run(setup, tmp_path, capsys):
    data = tmp_path / "toy.csv"
    _ages().to_csv(data, index=False)
    ledger = tmp_path / "cli.sqlite"
    assert main(["recipe", "auto-mean", "--data", str(data), "--column", "age", "--sweep", "1", "120", "1",
                 "--epsilon", "1", "--ledger", str(ledger), "--budget-epsilon", "5"]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines()[0].split()[:4] == ["statistic", "value", "interval", "confidence"]
    assert out.splitlines()[1].startswith("mean of age clipped to") and " to " in out and "95 %" in out
    assert "as of 20" in err
    with Ledger.open(ledger) as led:
        assert out.strip() == statistics_text(statistics(led, 1))


def test_an_older_screening_run_falls_back_to_its_recorded_accuracy(setup):
    """A run recorded before each answer's Δ was kept: the interval is the 95 % α the run recorded (the
    widest of its answers'), never an interval for a count guessed for a sum."""
    led, ds, key, _frame = setup
    run = led.start_run(key, "recipe_screen_ranges", {"threshold": 10.0, "cutoff": 1, "screen_share": 0.5,
                                                      "queries": 1}, "1", "0", secure=True,
                        noise_description="OS CSPRNG")
    led.record(run.id, ResponseBatch.of([(0, "sum of age", True, 5000.5, None)]))
    for k, v in {"answers": [{"query": "sum of age", "value": 5000.5}], "epsilon_per_answer": 0.5,
                 "answer_alpha_95": 600.0, "examined": 1, "found": 1}.items():
        led.record_fact(run.id, k, v)
    led.finish_run(run.id, "finished")
    (st,) = statistics(led, run.id)
    assert st["interval"] == [4400.5, 5600.5] and "recorded 95 % accuracy" in st["method"]


def test_pmw_paid_answers_to_counts_carry_their_exact_interval(tmp_path):
    """A paid PMW answer is fresh Laplace on the integers (Δ = 1, ε_answer/c): its exact interval; a free
    one comes from the synthetic histogram and has none."""
    from svtgui.assets import asset
    from svtgui.data import generators, load_dataset

    census = load_dataset(asset("samples/census.csv"))
    with Ledger.open(tmp_path / "l.sqlite") as led:
        dataset_identity.register(led, census, "10", "0.001")
        queries = generators.marginals(census.schema, ["sex", "income"], k=1) * 3  # asked again: free
        params = {"epsilon": 1.0, "delta": 1e-6, "threshold": 1500.0, "cutoff": 10,
                  "universe": ["sex", "income"]}
        with start_run(led, census, queries, "pmw", params, seed=7) as run:
            for _ in run.stream():
                pass
        led_rows = led.responses(run.id)
        table = statistics(led, run.id)
        names = {p.name for p in mechanisms.info("pmw").params}
        probe = mechanisms.create("pmw", rng=seeded(0),
                                  **{k: v for k, v in led.run(run.id).params.items() if k in names})
    kinds = [r.answered_from_simulation for r in led_rows]
    stats = [st for st in table if st["name"] != "number of records"]
    paid = [st for st, free in zip(stats, kinds, strict=True) if free is False]
    free = [st for st, free in zip(stats, kinds, strict=True) if free]
    assert paid and free and all(st["interval"] is None for st in free)
    k = intervals.radius(laplace_scale(1.0, probe.answer_epsilon / probe.cutoff, integer=True), 0.95)
    assert all(st["interval"] == [st["value"] - k, st["value"] + k] for st in paid)
