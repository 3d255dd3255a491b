"""``svtgui-cli`` on a machine without Qt: runs and writes HTML, JSON and CSV reports; a PDF is refused
before anything is charged. Qt is made unimportable in the child interpreter by a ``sitecustomize``
that puts ``None`` in ``sys.modules`` for PySide6, shiboken6 and pyqtgraph (``import PySide6`` then
raises ImportError, as on a machine where it is not installed)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from svtgui.ledger import Ledger
from tests.app.report_scan import csv_tables

QT = ("PySide6", "shiboken6", "pyqtgraph")
BLOCKER = "import sys\n" + "".join(f"sys.modules[{name!r}] = None\n" for name in QT)


@pytest.fixture
def no_qt(tmp_path):
    """Environment of a child interpreter in which Qt cannot be imported."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(BLOCKER)
    path = [str(site), *filter(None, [os.environ.get("PYTHONPATH")])]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(path))
    env.pop("QT_QPA_PLATFORM", None)
    return env


def _cli(env, *args):
    return subprocess.run([sys.executable, "-m", "svtgui.cli", *args], capture_output=True, text=True,
                          env=env, timeout=300)


def test_the_blocker_blocks(no_qt):
    for name in QT:
        out = subprocess.run([sys.executable, "-c", f"import {name}"], capture_output=True, text=True,
                             env=no_qt)
        assert out.returncode != 0 and f"import of {name} halted" in out.stderr


def test_run_writes_html_json_csv_reports_without_qt(no_qt, tmp_path):
    data = tmp_path / "toy.csv"
    data.write_text("x\n" + "".join(f"{i % 100}\n" for i in range(2000)))
    queries = tmp_path / "q.json"
    queries.write_text(json.dumps({"format": "svtgui-queries", "version": 1, "queries": [
        {"kind": "range", "column": "x", "low": lo, "high": lo + 10} for lo in range(0, 100, 5)]}))
    ledger = tmp_path / "ledger.sqlite"
    reports = [tmp_path / f"r.{suffix}" for suffix in ("html", "json", "csv")]
    out = _cli(no_qt, "run", "--data", str(data), "--queries", str(queries), "--ledger", str(ledger),
               "--mechanism", "numeric_sparse", "--epsilon", "1", "--threshold", "50", "--cutoff", "3",
               "--budget-epsilon", "2", *[a for r in reports for a in ("--report", str(r))])
    assert out.returncode == 0, out.stderr
    html = reports[0].read_text(encoding="utf-8")
    assert "<svg" in html and "Release report" in html
    assert json.loads(reports[1].read_text())["run"]["status"] == "halted"
    rows = csv_tables(reports[2].read_text(encoding="utf-8"))[1]
    # 19 true counts are 200, 150 above T (the last is 100): the run halts at c = 3 unless noise leaves
    # fewer than 3 ⊤ among the 20 (probability ≈ 7e-12; at T = 150 it was 2e-5). Noise may turn one into
    # ⊥, so the report holds the answers up to and including the third ⊤
    results = [r["result"] for r in rows]
    assert results.count("⊤") == 3 and results[-1] == "⊤" and set(results) <= {"⊤", "⊥"}


def test_a_pdf_without_qt_is_refused_before_any_charge(no_qt, tmp_path):
    data = tmp_path / "toy.csv"
    data.write_text("x\n1\n2\n3\n")
    queries = tmp_path / "q.json"
    queries.write_text(json.dumps({"format": "svtgui-queries", "version": 1,
                                   "queries": [{"kind": "range", "column": "x", "low": 0, "high": 2}]}))
    ledger = tmp_path / "ledger.sqlite"
    out = _cli(no_qt, "run", "--data", str(data), "--queries", str(queries), "--ledger", str(ledger),
               "--mechanism", "sparse", "--epsilon", "1", "--threshold", "1", "--cutoff", "1",
               "--budget-epsilon", "2", "--report", str(tmp_path / "r.pdf"))
    assert out.returncode == 2
    assert "HTML, JSON and CSV reports do not" in out.stderr.strip().splitlines()[-1]
    assert "r.pdf" in out.stderr and not (tmp_path / "r.pdf").exists()
    if ledger.exists():
        with Ledger.open(ledger) as led:
            assert led.runs() == []
