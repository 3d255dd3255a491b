"""Exports carry dates only: no time of day, no duration, no per-batch time (issue 21 §6).

How long a run's evaluation takes, and so when its batches were committed and when it ended, depends
on the private rows. Every export format of several kinds of run (⊤/⊥ only, released numbers, PMW's
free and paid answers, a recipe, a SparseProject release) is scanned for anything that looks like a
time of day or a time key.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from datetime import UTC, datetime
from pathlib import Path

import pytest

from svtgui.app import recipes
from svtgui.app.dataset_identity import register
from svtgui.app.reports import FORMATS, export
from svtgui.app.runs.runner import start_run
from svtgui.assets import asset
from svtgui.core.noise import seeded
from svtgui.data import generators, load_dataset
from svtgui.data.queries import RangeCount
from svtgui.ledger import Ledger

# 09:41, 09:41:07, T09, 1.25 s, "took", "seconds": a time of day, an ISO time part or a duration
TIME_OF_DAY = re.compile(r"\d{1,2}:\d{2}|\dT\d{2}|\b\d+(\.\d+)?\s?(s|ms|sec|seconds?|minutes?)\b|\btook\b")
TIME_KEYS = {"time", "started_at", "ended_at", "generated_at", "duration", "seconds", "elapsed"}


@pytest.fixture(scope="module")
def census():
    return load_dataset(asset("samples/census.csv"))


@pytest.fixture
def ledger(tmp_path, census):
    with Ledger.open(tmp_path / "l.sqlite") as led:
        register(led, census, 40, "0.01")
        yield led


def _stream(ledger, census, mechanism, params, queries, seed):
    with start_run(ledger, census, queries, mechanism, params, seed=seed) as run:
        for _ in run.stream(batch_size=7):  # several batches: several commit times in the ledger
            pass
    return run.id


def _runs(ledger, census, tmp_path) -> list[int]:
    ages = [RangeCount("age", lo, lo + 10) for lo in range(17, 80, 3)]
    return [
        _stream(ledger, census, "sparse", {"epsilon": 1.0, "threshold": 2000, "cutoff": 3}, ages, 1),
        _stream(ledger, census, "numeric_sparse", {"epsilon": 1.0, "threshold": 2000, "cutoff": 3}, ages, 2),
        _stream(ledger, census, "pmw", {"epsilon": 1.0, "delta": 1e-6, "threshold": 1500.0, "cutoff": 5,
                                        "universe": ["age@17,35,55,91", "sex", "income"]},
                generators.marginals(census.schema, ["sex", "income"], k=1), 3),
        recipes.auto_mean(census, "age", 1.0, rng=seeded(4)).run(ledger).record.id,
        recipes.screen_ranges(census, ages, 1.0, 2000, 2, rng=seeded(5)).run(ledger).record.id,
        _stream(ledger, census, "sparse_project",
                {"epsilon": 1.0, "delta": 1e-6, "projection_size": 64, "queries": 10, "universe": ["sex"],
                 "release_out": str(tmp_path / "release.npz")}, [], 6),
    ]


def _text(path: Path) -> str:
    if path.suffix == ".pdf":
        return subprocess.run(["pdftotext", "-layout", str(path), "-"], capture_output=True, text=True,
                              check=True).stdout
    return path.read_text(encoding="utf-8")


def _keys(value) -> set[str]:
    if isinstance(value, dict):
        return set(value) | set().union(*map(_keys, value.values()))
    if isinstance(value, list):
        return set().union(*map(_keys, value))
    return set()


def test_no_export_of_any_run_kind_holds_a_time_of_day_or_a_duration(ledger, census, tmp_path):
    today = datetime.now(UTC).date().isoformat()
    for run_id in _runs(ledger, census, tmp_path):
        assert ledger.run(run_id).started_at[11:13]  # the ledger keeps its time stamps (for the curator)
        for suffix in FORMATS if shutil.which("pdftotext") else set(FORMATS) - {".pdf"}:  # CI has it
            text = _text(export(ledger, run_id, tmp_path / f"r{run_id}{suffix}"))
            found = TIME_OF_DAY.search(re.sub(r"ds-[0-9a-f]+", "", text))
            assert found is None, f"run {run_id} {suffix}: {found.group(0)!r}"
            assert suffix == ".csv" or today in text, f"run {run_id} {suffix} does not state its date"
        data = json.loads((tmp_path / f"r{run_id}.json").read_text(encoding="utf-8"))
        assert _keys(data) & TIME_KEYS == set(), run_id
        assert data["release_date"] == data["budget"]["as_of"] == today
        assert data["run"]["date"] == ledger.run(run_id).started_at[:10]
        header = (tmp_path / f"r{run_id}.csv").read_text(encoding="utf-8").splitlines()[0]
        assert "time" not in header.split(","), run_id


def test_the_scan_finds_a_time_where_there_is_one():
    """The patterns above catch the forms a timing would take (so a clean scan means something)."""
    for leak in ("2026-11-27T09:41:07.123456+00:00", "ended 09:41", "took 1.3 s", "70 seconds"):
        assert TIME_OF_DAY.search(leak), leak
    for clean in ("2026-11-27", "age in [17, 27)", "ε = 1.5", "run 12"):
        assert TIME_OF_DAY.search(clean) is None, clean


def test_a_pdf_export_carries_no_time_of_day_in_its_metadata(tmp_path):
    """Qt stamps the moment a PDF is written (Info dictionary and XMP) to the second; written at the
    end of a run (`run --report`), that says when the run ended. Only the day may remain, and the file
    must still parse (the dates are shortened in place, so its byte offsets hold)."""
    from svtgui.app.reports.pdf import write_html_pdf

    path = tmp_path / "r.pdf"
    write_html_pdf("<p>Release report</p>", "SVT Studio release report", "SVT Studio", path)
    raw = path.read_bytes()
    stamps = re.findall(rb"/(?:CreationDate|ModDate) \(D:([^)]*)\)", raw)
    stamps += re.findall(rb'xmp:\w*Date="([^"]*)"', raw)
    assert stamps, "Qt wrote no date: the scan would prove nothing"
    assert all(re.fullmatch(rb"\d{8}|\d{4}-\d{2}-\d{2}", s) for s in stamps), stamps  # a day, no time
    if shutil.which("pdfinfo"):
        info = subprocess.run(["pdfinfo", str(path)], capture_output=True, text=True, check=True)
        assert "Pages:" in info.stdout and "rror" not in info.stderr, info.stderr
