"""Release reports: every format holds the public facts, and none holds a true answer or runs a script."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import unicodedata
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from svtgui.app import reports as report
from svtgui.app.dataset_identity import register
from svtgui.app.reports import export
from svtgui.app.runs.runner import start_run
from svtgui.data import Dataset
from svtgui.data.evaluate import evaluate
from svtgui.data.queries import ClippedSum, RangeCount
from svtgui.ledger import Ledger
from tests.app.report_scan import csv_tables, without_id

XSS = "<script>alert(1)</script>"
EVIL_NAME = '<img src=x onerror="alert(2)">'


@pytest.fixture(scope="module")
def dataset():
    rng = np.random.default_rng(5)  # test data, not release noise
    frame = pd.DataFrame({XSS: np.round(rng.uniform(0, 5000, 30_000), 4),
                          "age": rng.integers(17, 90, 30_000)})
    return Dataset.from_frame(frame, name=EVIL_NAME)


def _queries():
    sums = [ClippedSum(XSS, 0.0, float(u)) for u in range(300, 5000, 157)]  # distinctive float answers
    counts = [RangeCount(XSS, float(lo), float(lo + 2500)) for lo in range(0, 2500, 250)]  # 5-digit counts
    return sums + counts


def _run(ledger, ds, mechanism, params, seed=None):
    queries = _queries()
    with start_run(ledger, ds, queries, mechanism, params, seed=seed) as run:
        for _ in run.stream(batch_size=16):
            pass
    return run.id, queries


@pytest.fixture
def ledger(tmp_path, dataset):
    with Ledger.open(tmp_path / "l.sqlite") as led:
        record = register(led, dataset, 100, "0.01")
        led.set_public_name(record.dataset_id, EVIL_NAME)  # the curator's public name: user text, escaped
        yield led


def _pdf_text(path: Path) -> str:
    return subprocess.run(["pdftotext", "-layout", str(path), "-"], capture_output=True, text=True,
                          check=True).stdout


def _texts(ledger, run_id, tmp_path) -> dict[str, str]:
    out = {}
    for suffix in report.FORMATS:
        path = export(ledger, run_id, tmp_path / f"r{run_id}{suffix}")
        out[suffix] = _pdf_text(path) if suffix == ".pdf" else path.read_text(encoding="utf-8")
    return out


def _number_forms(a: float) -> set[str]:
    forms = {repr(float(a)), f"{a:.2f}", f"{a:.1f}", f"{a:g}"}
    if float(a).is_integer():
        forms.add(str(int(a)))
    return {f for f in forms if len(f.replace(".", "").replace("-", "")) >= 5}


def _leaks(text: str, answers: np.ndarray, released: set[float]) -> list[str]:
    found = []
    for a in answers:
        if any(abs(a - r) < 1e-9 for r in released):
            continue  # a released noisy value that happens to equal the truth is the release itself
        for form in _number_forms(a):
            if re.search(rf"(?<![\d.]){re.escape(form)}(?![\d])", text):
                found.append(form)
    return found


@pytest.mark.skipif(shutil.which("pdftotext") is None, reason="poppler-utils missing (.ci/run installs it)")
@pytest.mark.parametrize("mechanism, params", [
    ("numeric_sparse", {"epsilon": 1.0, "delta": 0.001, "threshold": 2_000_000, "cutoff": 4}),
    ("gap_svt", {"epsilon": 1.0, "threshold": 2_000_000, "cutoff": 4}),
    ("sparse", {"epsilon": 1.0, "threshold": 2_000_000, "cutoff": 4}),
    ("em_top_c", {"epsilon": 1.0, "cutoff": 3}),
])
def test_no_format_contains_a_true_answer(ledger, dataset, tmp_path, mechanism, params):
    run_id, queries = _run(ledger, dataset, mechanism, params)
    truth = evaluate(dataset, queries)
    rows = ledger.responses(run_id)
    released = {float(r.value) for r in rows if r.value is not None}
    assert any(r.above for r in rows)
    for suffix, text in _texts(ledger, run_id, tmp_path).items():
        text = without_id(text, dataset.dataset_id)  # its random hex digits can spell a count
        assert _leaks(text, truth[: len(rows)], released) == [], f"true answer in the {suffix} report"
    data = json.loads((tmp_path / f"r{run_id}.json").read_text())
    assert all(r["value"] is None and r["gap"] is None for r in data["rows"] if not r["above"])
    assert all(set(r) == {"index", "number", "query", "result", "above", "value", "gap"}
               for r in data["rows"])
    assert all(r["number"] == r["index"] + 1 for r in data["rows"])  # numbered as in the window
    assert set(data["noise"]) == {"source", "secure", "description"}


def test_the_leak_scan_would_catch_a_leak(dataset):
    """The scanner itself finds an answer that is present (so a passing scan means something)."""
    truth = evaluate(dataset, _queries())
    text = f"row 3: released {truth[3]!r} and count {int(truth[-1])}"
    assert len(_leaks(text, truth, set())) >= 2


def test_html_is_self_contained_and_escapes_user_text(ledger, dataset, tmp_path):
    run_id, _ = _run(ledger, dataset, "numeric_sparse", {"epsilon": 1.0, "threshold": 2_000_000, "cutoff": 2})
    html = export(ledger, run_id, tmp_path / "r.html").read_text(encoding="utf-8")
    assert "<script" not in html.lower() and not re.search(r"<[^>]*onerror", html, re.IGNORECASE)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "&lt;img src=x onerror=&quot;alert(2)&quot;&gt;" in html
    # the chart, inline SVG: a ⊤ mark for each of the 2 released answers
    assert re.search(r'<svg xmlns="http://www.w3.org/2000/svg"[^>]*>.*<path fill="#0072b2"[^>]* '
                     r'd="(M[-\d. ]+l[^z]+z){2}"', html, re.DOTALL)
    assert not re.search(r"(src|href)=\"https?:", html)
    for fact in [dataset.dataset_id, "adding or removing one person", "Dwork and A. Roth",
                 "threshold T = 2000000", "secure", "-differentially private", "SVT Studio"]:
        assert fact in html, fact


def test_seeded_run_says_not_secure_in_every_format(ledger, dataset, tmp_path):
    run_id, _ = _run(ledger, dataset, "sparse", {"epsilon": 0.5, "threshold": 2_000_000, "cutoff": 1}, seed=9)
    texts = _texts(ledger, run_id, tmp_path)
    for suffix in report.FORMATS:
        text = " ".join(unicodedata.normalize("NFKC", texts[suffix]).split())  # the PDF's "ﬀ" ligature
        assert "NOT differentially private" in text and "-differentially private" not in text, suffix
        assert "seed 9" not in text and not re.search(r"\bseed\b", text), suffix
    # the CSV has no sentence above its rows: every row says it (rows copied out of it still do)
    rows = csv_tables(texts[".csv"])[1]
    assert rows and all(r["guarantee"].startswith("NOT differentially private") for r in rows)


def test_json_schema_and_csv_rows(ledger, dataset, tmp_path):
    run_id, queries = _run(ledger, dataset, "gap_svt", {"epsilon": 2.0, "threshold": 2_000_000, "cutoff": 3})
    data = json.loads(export(ledger, run_id, tmp_path / "r.json").read_text())
    assert data["format"] == "svtgui-release-report" and data["version"] == 3
    assert data["dataset"]["id"] == dataset.dataset_id and "fingerprint" not in data["dataset"]
    assert set(data) >= {"software", "dataset", "mechanism", "parameters", "guarantee", "accuracy", "run",
                         "noise", "budget", "rows", "release_date"}
    assert data["dataset"]["name"] == EVIL_NAME and data["budget"]["spent_epsilon"] == "2"
    assert data["budget"]["remaining_epsilon"] == "98" and data["guarantee"]["epsilon"] == "2"
    assert data["mechanism"]["citation"].startswith("Z. Ding")
    assert data["parameters"]["sensitivity"] == max(q.sensitivity(dataset.schema) for q in queries)
    export(ledger, run_id, tmp_path / "r.csv")
    rows = csv_tables((tmp_path / "r.csv").read_text(encoding="utf-8"))[1]
    stored = ledger.responses(run_id)
    assert [int(r["number"]) for r in rows] == [r.index + 1 for r in stored]  # as the window numbers them
    assert [r["result"] for r in rows] == [r.symbol for r in stored]
    tops = [r for r in rows if r["result"] == "⊤"]
    assert len(tops) == 3 and all(r["released_value"] and r["gap"] for r in tops)
    assert all(r["released_value"] == "" for r in rows if r["result"] == "⊥")
    assert {r["guarantee"] for r in rows} == {"2-differentially private"}


def test_accuracy_statement_present_and_degrades_gracefully(ledger, dataset, tmp_path, monkeypatch):
    run_id, _ = _run(ledger, dataset, "sparse", {"epsilon": 1.0, "threshold": 2_000_000, "cutoff": 2})
    acc = json.loads(export(ledger, run_id, tmp_path / "a.json").read_text())["accuracy"]
    assert acc["available"] and acc["alpha"] > 0 and acc["beta"] == 0.05

    import svtgui.core.accuracy as accuracy

    def broken(*a, **k):
        raise NotImplementedError("no bound for this mechanism")

    monkeypatch.setattr(accuracy, "bound", broken)
    data = json.loads(export(ledger, run_id, tmp_path / "b.json").read_text())
    reason = "no accuracy bound for this configuration (no bound for this mechanism)"
    assert data["accuracy"] == {"available": False, "reason": reason}
    assert "no accuracy bound" in export(ledger, run_id, tmp_path / "b.html").read_text()


def test_accuracy_words_follow_what_the_run_released(ledger, dataset, tmp_path):
    """A ⊤/⊥-only run is never said to have released answers within ±α (issue 15 §3)."""
    params = {"epsilon": 1.0, "threshold": 2_000_000, "cutoff": 2}
    for mechanism, numbers in (("sparse", False), ("numeric_sparse", True), ("standard_svt", False)):
        run_id, _ = _run(ledger, dataset, mechanism, dict(params))
        said = json.loads(export(ledger, run_id, tmp_path / f"{mechanism}.json").read_text())["accuracy"]
        assert ("every released number is within ±α" in said["statement"]) is numbers, mechanism
        assert ("no numbers are released" in said["statement"]) is not numbers, mechanism
        assert "below T − α come back ⊥" in said["statement"]


def test_running_run_unknown_format_and_interrupted_run(ledger, dataset, tmp_path):
    run = start_run(ledger, dataset, _queries(), "sparse", {"epsilon": 1.0, "threshold": 1e12, "cutoff": 9})
    run.next_batch(3)
    with pytest.raises(ValueError, match="still running"):
        export(ledger, run.id, tmp_path / "r.json")
    with pytest.raises(ValueError, match="unknown report format"):
        export(ledger, run.id, tmp_path / "r.docx")
    assert list(tmp_path.glob("r.*")) == []  # nothing half-written
    ledger.finish_run(run.id, "interrupted")
    html = export(ledger, run.id, tmp_path / "r.html").read_text()
    assert "interrupted" in html and "3 answered" in html


@pytest.mark.skipif(shutil.which("pdftoppm") is None, reason="poppler-utils missing (.ci/run installs it)")
def test_pdf_first_page_renders_non_blank(ledger, dataset, tmp_path):
    from PySide6.QtGui import QImage

    run_id, _ = _run(ledger, dataset, "numeric_sparse", {"epsilon": 1.0, "threshold": 2_000_000, "cutoff": 4})
    pdf = export(ledger, run_id, tmp_path / "r.pdf")
    assert pdf.read_bytes()[:5] == b"%PDF-"
    subprocess.run(["pdftoppm", "-r", "50", "-png", "-f", "1", "-l", "1", "-singlefile", str(pdf),
                    str(tmp_path / "page")], check=True)
    image = QImage(str(tmp_path / "page.png"))
    assert not image.isNull() and image.width() > 300
    step = 3
    dark = sum(1 for x in range(0, image.width(), step) for y in range(0, image.height(), step)
               if image.pixelColor(x, y).lightness() < 200)
    total = (image.width() // step) * (image.height() // step)
    assert dark / total > 0.02, "the first page is (almost) blank"
    text = _pdf_text(pdf)
    assert "Release report" in text and XSS in text and dataset.dataset_id in text.replace("\n", "")
    # copied text matches what was written: no "ﬀ" ligature (a dataset id may hold "ff" too)
    assert "cutoff" in text and "\ufb00" not in text


def test_chart_ticks_read_like_the_window():
    from svtgui.app.reports.chart import _label

    assert [_label(v) for v in (4201.0, 4200.5, 3e7, 0.25)] == ["4,201", "4,200.5", "30,000,000", "0.25"]


def test_a_report_is_never_written_over_the_ledger(ledger, dataset, tmp_path):
    # any suffix names a ledger (SVTGUI_LEDGER=~/audit.json); a report exported over it replaced the
    # main file while the WAL still held the runs; the GUI's History export goes through export() too
    run_id, _ = _run(ledger, dataset, "sparse", {"epsilon": 0.5, "threshold": 2_000_000, "cutoff": 1})
    for target in (ledger.path.with_suffix(".json"), Path(str(ledger.path) + "-wal.csv")):
        assert export(ledger, run_id, target).exists()  # files beside the ledger are fine
    with Ledger.open(tmp_path / "audit.json") as other:
        with pytest.raises(ValueError, match="is the privacy ledger"):
            export(other, run_id, other.path)
        assert other.datasets() == [] and other.path.read_bytes()[:16] == b"SQLite format 3\x00"
