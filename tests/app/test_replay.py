"""Reproducible releases (issue 24 §3): each run keeps its plan; the generated script replays it.

The script is run here, in a fresh interpreter, on the bundled samples: it must charge a new ledger
with the same plans (mechanisms, parameters, queries, declarations) and fresh secure noise.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from svtgui.app import dataset_identity, recipes
from svtgui.app.replay import export_script, script_text
from svtgui.app.reports.content import statistics
from svtgui.app.run_plans import PLAN_FACT
from svtgui.app.runs.runner import start_run
from svtgui.assets import asset
from svtgui.cli import main
from svtgui.core.noise import seeded
from svtgui.data import generators, load_dataset
from svtgui.data.queries import RangeCount
from svtgui.ledger import Ledger
from tests.app.test_report_dates import TIME_OF_DAY

ROOT = Path(__file__).resolve().parents[2]
CENSUS = asset("samples/census.csv")
BASKETS = asset("samples/baskets.dat")
RANGES = [RangeCount("age", lo, lo + 10) for lo in range(17, 90, 8)]


def _run_script(script: Path, data: Path, ledger: Path, *extra: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, str(script), str(data), "--ledger", str(ledger), *extra],
                          capture_output=True, text=True, env=env, timeout=300)


def _plans(ledger: Path) -> list[dict]:
    with Ledger.open(ledger) as led:
        return [led.facts(r.id)[PLAN_FACT] for r in led.runs()]


@pytest.fixture
def census_runs(tmp_path):
    ds = load_dataset(CENSUS)
    path = tmp_path / "published.sqlite"
    with Ledger.open(path) as led:
        dataset_identity.register(led, ds, "10")
        ids = [recipes.auto_mean(ds, "age", 1.0, rng=seeded(1)).run(led).record.id,
               recipes.screen_ranges(ds, RANGES, 1.0, 3000, 2, rng=seeded(2)).run(led).record.id]
        with start_run(led, ds, RANGES, "numeric_sparse", {"epsilon": 0.5, "threshold": 3000, "cutoff": 2},
                       seed=3) as run:
            for _ in run.stream():
                pass
        ids.append(run.id)
    return path, ids


def test_the_generated_script_replays_the_release_with_fresh_secure_noise(census_runs, tmp_path):
    published, ids = census_runs
    with Ledger.open(published) as led:
        script = export_script(led, ids, tmp_path / "replay.py")
        released = [st["value"] for i in ids for st in statistics(led, i)]
    text = script.read_text(encoding="utf-8")
    assert "SPENDS PRIVACY BUDGET" in text.split('"""')[1]  # said at the top, in the docstring
    assert "Near & Abuah" in text and "Dwork and A. Roth" in text  # each step cites its method
    assert TIME_OF_DAY.search(text) is None and "seed" not in text
    assert not any(f"{v!r}" in text for v in released if isinstance(v, float))  # no released value

    fresh = tmp_path / "fresh.sqlite"
    refused = _run_script(script, CENSUS, fresh)  # a new dataset needs its total budget declared
    assert refused.returncode != 0 and "--budget-epsilon" in refused.stderr
    assert not fresh.exists() or _plans(fresh) == []
    done = _run_script(script, CENSUS, fresh, "--budget-epsilon", "5")
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("statistic") == 3 and "mean of age clipped to" in done.stdout
    assert _plans(fresh) == _plans(published)  # the same plans, step by step
    with Ledger.open(fresh) as led, Ledger.open(published) as old:
        new_runs, old_runs = led.runs(), old.runs()
        assert [(r.mechanism_id, r.epsilon, r.delta) for r in new_runs] == \
            [(r.mechanism_id, r.epsilon, r.delta) for r in old_runs]
        assert all(r.secure for r in new_runs) and not any(r.secure for r in old_runs)
        assert [led.declarations(r.id) for r in new_runs] == [old.declarations(r.id) for r in old_runs]


def test_a_frequent_items_release_replays_on_the_bundled_baskets(tmp_path):
    ds = load_dataset(BASKETS)
    published = tmp_path / "published.sqlite"
    with Ledger.open(published) as led:
        dataset_identity.register(led, ds, "10")
        items = list(range(1, 60))  # a public domain: the catalogue's item ids
        run = recipes.frequent_items(ds, items, 3, 1.0, rng=seeded(4)).run(led)
        script = export_script(led, [run.record.id], tmp_path / "items.py")
    done = _run_script(script, BASKETS, tmp_path / "fresh.sqlite", "--budget-epsilon", "2")
    assert done.returncode == 0, done.stderr
    assert _plans(tmp_path / "fresh.sqlite") == _plans(published)
    assert "most frequent items" in done.stdout


def test_a_run_without_a_plan_cannot_be_replayed_and_nothing_is_written(census_runs, tmp_path, capsys):
    published, ids = census_runs
    ds = load_dataset(CENSUS)
    with Ledger.open(published) as led:
        old = led.start_run(dataset_identity.identify(led, ds).record.dataset_id, "sparse",
                            {"epsilon": 0.1, "threshold": 5.0, "cutoff": 1}, "0.1", secure=True,
                            noise_description="OS CSPRNG")  # as a ledger from before plans were kept
        led.finish_run(old.id, "finished")
        with pytest.raises(ValueError, match=f"run {old.id} was charged before"):
            script_text(led, [ids[0], old.id])
    out = tmp_path / "s.py"
    assert main(["release", "build", str(ids[0]), str(old.id), "--script", str(out),
                 "--ledger", str(published)]) == 2
    assert "cannot be replayed" in capsys.readouterr().err and not out.exists()


def test_reports_leave_the_plan_out(census_runs, tmp_path):
    published, ids = census_runs
    from svtgui.app.reports import export

    with Ledger.open(published) as led:
        text = export(led, ids[1], tmp_path / "r.json").read_text(encoding="utf-8")
    assert '"plan"' not in text and "screen_share\": 0.5" not in text.split('"released"')[1]


def test_the_cli_writes_the_script_beside_the_release(census_runs, tmp_path, capsys):
    published, ids = census_runs
    out, html = tmp_path / "replay.py", tmp_path / "release.html"
    assert main(["release", "build", *map(str, ids), "--out", str(html), "--script", str(out),
                 "--ledger", str(published)]) == 0
    assert "spends budget" in capsys.readouterr().err
    assert out.read_text(encoding="utf-8").startswith("#!/usr/bin/env python3") and html.exists()


def test_marginals_of_pmw_are_kept_as_query_definitions(tmp_path):
    ds = load_dataset(CENSUS)
    with Ledger.open(tmp_path / "l.sqlite") as led:
        dataset_identity.register(led, ds, "10", "0.01")
        queries = generators.marginals(ds.schema, ["sex", "income"], k=1)
        run = start_run(led, ds, queries, "pmw", {"epsilon": 1.0, "delta": 1e-6, "threshold": 1500.0,
                                                  "cutoff": 5, "universe": ["sex", "income"]}, seed=5)
        run.finish()
        plan = led.facts(run.id)[PLAN_FACT]
    assert plan["mechanism"] == "pmw" and plan["queries"] == [q.to_json() for q in queries]


def test_a_replay_of_runs_over_domains_read_from_the_data_is_not_private_either(tmp_path):
    """Issue 21 §4: the replay carries the curator's override; without it the replay of a NOT-private
    release (its values read off the data, written into the script) would be recorded as private."""
    from svtgui.app.domains import Domains, recorded
    from svtgui.data import provenance

    ds = load_dataset(BASKETS)
    notes = (provenance.items_note("items"),)
    published = tmp_path / "published.sqlite"
    with Ledger.open(published) as led:
        dataset_identity.register(led, ds, "10")
        items = generators.observed_items(ds, "items")
        run = recipes.frequent_items(ds, items, 3, 1.0, domains=Domains(notes, allowed=True)).run(led)
        with start_run(led, ds, generators.every_item(items[:5]), "sparse",
                       {"epsilon": 0.5, "threshold": 50, "cutoff": 1},
                       domains=Domains(notes, allowed=True)) as streamed:
            for _ in streamed.stream():
                pass
        script = export_script(led, [run.record.id, streamed.id], tmp_path / "items.py")
    assert "allowed=True" in script.read_text()
    done = _run_script(script, BASKETS, tmp_path / "fresh.sqlite", "--budget-epsilon", "2")
    assert done.returncode == 0, done.stderr
    with Ledger.open(tmp_path / "fresh.sqlite") as led:
        assert [recorded(led.declarations(r.id)) for r in led.runs()] == [notes, notes]


def test_the_plans_replay_as_svtgui_cli_commands(census_runs, tmp_path, capsys):
    """release build --plan-dir: replay.sh with a run --config TOML per catalogue run and the recipes'
    command lines; run from anywhere on a relative data path, it charges the same plans again."""
    published, ids = census_runs
    plans = tmp_path / "plans"
    plans.mkdir()
    args = ["release", "build", *map(str, ids), "--plan-dir", str(plans), "--ledger", str(published)]
    assert main(args) == 0
    assert "spends budget" in capsys.readouterr().err
    script = (plans / "replay.sh").read_text(encoding="utf-8")
    assert "SPENDS PRIVACY BUDGET" in script and f"run --config run-{ids[2]}.toml" in script
    assert "recipe auto-mean" in script and "recipe screen-ranges" in script
    fresh = tmp_path / "fresh.sqlite"
    (tmp_path / "data").mkdir()
    for name in ("census.csv", "census.schema.json"):  # the data, elsewhere, given by a relative path
        (tmp_path / "data" / name).write_bytes(CENSUS.with_name(name).read_bytes())
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SVTGUI_LEDGER": str(fresh),
           "SVTGUI_CLI": f"{sys.executable} -m svtgui.cli"}
    done = subprocess.run(["sh", str(plans / "replay.sh"), "data/census.csv", "5"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    old, new = _plans(published), _plans(fresh)
    kinds = [[p.get("mechanism") or p["recipe"] for p in plans] for plans in (old, new)]
    assert kinds[0] == kinds[1]
    assert [p.get("queries") for p in new] == [p.get("queries") for p in old]
    assert [p.get("arguments") for p in new] == [p.get("arguments") for p in old]
    with Ledger.open(fresh) as led:
        assert [float(r.epsilon) for r in led.runs()] == [1.0, 1.0, 0.5] and all(r.secure for r in led.runs())


def test_the_script_names_the_dataset_by_its_public_name_never_the_file(tmp_path):
    """The script is published with the release: like reports, it never names the data file."""
    data = tmp_path / "hiv_clinic_roster.csv"
    data.write_bytes(CENSUS.read_bytes())
    ds = load_dataset(data)
    with Ledger.open(tmp_path / "l.sqlite") as led:
        record = dataset_identity.register(led, ds, "10")
        run_id = recipes.auto_mean(ds, "age", 1.0).run(led).record.id
        text = script_text(led, [run_id])
        assert "hiv_clinic" not in text and f'of "{record.dataset_id}"' in text
        led.set_public_name(record.dataset_id, "Clinic survey")
        text = script_text(led, [run_id])
        assert "hiv_clinic" not in text and 'of "Clinic survey"' in text
