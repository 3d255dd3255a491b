"""The bundled samples: reproducible from the script, loadable, with declared bounds and query sets."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from svtgui.assets import asset
from svtgui.data import load_dataset
from svtgui.data.evaluate import evaluate
from svtgui.data.queries import queries_from_json
from svtgui.data.schema import ColumnKind

REPO = Path(__file__).resolve().parents[2]
FILES = (
    "census.csv",
    "census.schema.json",
    "census.queries.json",
    "census.clip_sweep.queries.json",
    "baskets.dat",
)


def test_committed_samples_are_what_the_script_generates(tmp_path):
    subprocess.run(
        [sys.executable, str(REPO / "resources" / "make_samples.py"), "--out", str(tmp_path)],
        check=True,
        capture_output=True,
    )
    for name in FILES:
        assert (tmp_path / name).read_bytes() == asset(f"samples/{name}").read_bytes(), name


def test_census_loads_with_its_declared_schema():
    ds = load_dataset(asset("samples/census.csv"))
    assert 25_000 <= ds.n_rows <= 35_000
    for name in ("age", "hours_per_week", "capital_gain"):
        col = ds.schema.column(name)
        lo, hi = col.bounds()
        assert col.kind == ColumnKind.NUMERIC and ds.frame[name].between(lo, hi).all()
    assert ds.schema.column("sex").categories == ("Female", "Male")
    assert ds.frame["occupation"].isna().any()  # "?" cells load as missing
    gain = ds.frame["capital_gain"]
    assert (gain == 0).mean() > 0.8 and gain.max() > 10 * gain[gain > 0].median()  # mostly 0, heavy tail


def test_default_query_sets_fit_the_sample():
    ds = load_dataset(asset("samples/census.csv"))
    for name in ("census.queries.json", "census.clip_sweep.queries.json"):
        queries = queries_from_json(asset(f"samples/{name}").read_text())
        assert len(queries) >= 1000
        answers = evaluate(ds, queries)
        assert (answers >= 0).all() and answers.max() > 0


def test_baskets_load_as_transactions():
    ds = load_dataset(asset("samples/baskets.dat"))
    assert ds.is_transactions and ds.n_rows == 5000
