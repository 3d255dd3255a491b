"""File → Export release, driven through the menu action with the save dialog answered.

Each format is written after a seeded NumericSparse run on the census sample (a run that releases
noisy numbers, so a leak would be easy to make), parsed back, and scanned for the run's true answers.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QFileDialog
from session_gui_helpers import answer_dialog, wait_export
from shiboken6 import Shiboken

from svtgui.app.workspace import RunOptions
from svtgui.data.evaluate import evaluate
from svtgui.ledger import Ledger
from svtgui.ui.history.export_dialog import REPORT_FILTERS
from tests.app.report_scan import csv_tables, without_id

FIVE_DIGITS = re.compile(r"(?<![\d.])\d{5,}(?![\d.])")


@pytest.fixture
def finished_run(qtbot, window, act):
    """A seeded NumericSparse run of the sample's first 60 queries, ended; returns (window, truth)."""
    win = window
    act.load(qtbot, win)
    queries = win.queries.queries[:60]
    win.queries.set_queries(queries)
    win.mechanism.picker.select("numeric_sparse")
    act.set_param(win, "epsilon", "1")
    act.set_param(win, "threshold", "25000")
    act.set_param(win, "cutoff", 4)
    win.workspace.set_options(RunOptions(seed=11))  # reproducible test noise (the report says: not secure)
    act.run_to_end(qtbot, win)
    if win.run_model.state == "drained":
        qtbot.mouseClick(win.run_page.stop_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: win.run_model.state == "ended", timeout=10_000)
    truth = evaluate(win.ds, queries)
    return win, truth


def _text(path: Path) -> str:
    if path.suffix == ".pdf":
        assert path.read_bytes()[:5] == b"%PDF-"
        return subprocess.run(["pdftotext", "-layout", str(path), "-"], capture_output=True, text=True,
                              check=True).stdout
    return path.read_text(encoding="utf-8")  # HTML: the chart is inline SVG, its text is scanned too


@pytest.mark.parametrize("suffix", list(REPORT_FILTERS))
def test_export_each_format_has_the_release_and_no_true_answer(qtbot, finished_run, monkeypatch, tmp_path,
                                                               suffix):
    win, truth = finished_run
    run_id = win.run_model.run.id
    rows = Ledger.open().responses(run_id)
    released = {int(round(r.value)) for r in rows if r.above and r.value is not None}
    assert released, "the run released no number: the leak scan would prove nothing"
    assert sum(t >= 10_000 for t in truth[: len(rows)]) >= 10  # answers the scan can recognise

    act = win.sessions.act_export_release
    assert act.isEnabled(), act.toolTip()
    # The user types a name without suffix; the selected file type decides the format.
    asked = answer_dialog(monkeypatch, "getSaveFileName", tmp_path / "release", REPORT_FILTERS[suffix])
    act.trigger()
    assert win.sessions.busy.isVisible() and not act.isEnabled()  # busy while the worker writes
    assert "Exporting" in win.status_label.text()
    wait_export(qtbot, win)
    assert not win.sessions.busy.isVisible() and act.isEnabled()
    out = tmp_path / f"release{suffix}"
    assert asked and all(f in asked[0] for f in REPORT_FILTERS.values())
    notice = win.sessions.notice
    assert notice.ok and str(out) in notice.text(), notice.text()
    assert notice.windowModality() == Qt.WindowModality.NonModal and notice.isVisible()
    assert notice.open_folder is not None and notice.folder == tmp_path
    if suffix == ".html":  # Open folder asks the desktop to show the folder (patched: no file manager here)
        opened = []
        monkeypatch.setattr(QDesktopServices, "openUrl", staticmethod(lambda url: opened.append(url)))
        qtbot.mouseClick(notice.open_folder, Qt.MouseButton.LeftButton)
        assert [u.toLocalFile() for u in opened] == [str(tmp_path)]

    text = _text(out)
    if suffix == ".json":
        data = json.loads(text)
        assert len(data["rows"]) == len(rows) and data["noise"]["secure"] is False
        assert all(r["value"] is None for r in data["rows"] if not r["above"])
    elif suffix == ".csv":
        table = csv_tables(text)[1]
        assert len(table) == len(rows)
        assert all(t["released_value"] == "" for t in table if t["result"] == "⊥")
    else:
        assert win.ds.dataset_id in text.replace("\n", "")
    numbers = {int(n) for n in FIVE_DIGITS.findall(without_id(text, win.ds.dataset_id))}
    assert released & numbers, f"the {suffix} report does not show the released values"
    true_answers = {int(t) for t in truth[: len(rows)]} - released
    assert numbers & true_answers == set(), f"true answer(s) in the {suffix} report"


def test_export_failure_is_a_clear_message_and_writes_nothing(qtbot, finished_run, tmp_path):
    win, _ = finished_run
    missing = tmp_path / "no such folder" / "r.html"
    win.sessions.export_release(missing)
    wait_export(qtbot, win)
    notice = win.sessions.notice
    assert not notice.ok and notice.isVisible()
    assert "not exported" in notice.text() and "no such folder" in notice.informativeText()
    assert not missing.parent.exists()
    win.sessions.export_release(tmp_path / "r.docx")
    wait_export(qtbot, win)
    bad = win.sessions.notice
    assert not bad.ok and ".docx" in bad.informativeText() and not (tmp_path / "r.docx").exists()
    # one message at a time: the new one replaced (closed, and so deleted) the old
    assert not Shiboken.isValid(notice) or not notice.isVisible()


def test_export_is_disabled_with_a_reason_until_a_run_has_ended(qtbot, window, act):
    act_export = window.sessions.act_export_release
    assert not act_export.isEnabled() and "open a dataset first" in act_export.toolTip()
    act.load(qtbot, window)
    assert not act_export.isEnabled() and "no finished" in act_export.toolTip()
    assert act_export.toolTip().endswith("(Ctrl+Shift+E)")  # the shortcut stays in the tooltip
    # Triggered anyway (e.g. by a stale shortcut), it explains instead of writing anything.
    notice = window.sessions.export_release()
    assert not notice.ok and "no finished" in notice.text()


def test_cancelled_dialog_writes_nothing(qtbot, finished_run, monkeypatch, tmp_path):
    win, _ = finished_run
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: ("", "")))
    before = win.sessions.notice
    win.sessions.act_export_release.trigger()
    assert win.sessions.notice is before and list(tmp_path.glob("*release*")) == []


def test_an_export_can_be_cancelled_and_writes_nothing(qtbot, finished_run, tmp_path):
    win, _ = finished_run
    folder = tmp_path / "reports"
    folder.mkdir()
    out = folder / "r.pdf"
    win.sessions.export_release(out)
    cancel = win.sessions.cancel_export
    assert cancel.isVisibleTo(win) and win.sessions.exporting is not None
    qtbot.mouseClick(cancel, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: win.sessions.exporting is None, timeout=30_000)
    assert not cancel.isVisibleTo(win) and "cancelled" in win.status_label.text()
    assert list(folder.iterdir()) == []  # no report, no temporary file left behind
    assert win.act_export.isEnabled()  # a new export can start


def test_export_refuses_a_link_to_the_ledger_or_the_dataset(finished_run, tmp_path, monkeypatch):
    # issue 22 §1: the save dialog's target passes the one output guard before any export starts
    win, _ = finished_run
    ledger = Ledger.open().path
    for name, original in (("ledger.html", ledger), ("data.csv", Path(win.ds.path))):
        before = original.read_bytes()
        (tmp_path / name).symlink_to(original)
        answer_dialog(monkeypatch, "getSaveFileName", tmp_path / name)
        win.sessions.act_export_release.trigger()
        notice = win.sessions.notice
        assert not notice.ok and "would destroy it" in notice.text(), notice.text()
        assert win.sessions.exporting is None and original.read_bytes() == before


def test_the_suggested_file_name_is_the_public_name_never_the_data_file(qtbot, finished_run, monkeypatch):
    """A report is published under its file name: the save dialog suggests the dataset's public name
    (its random id until the curator chooses one), never the data file's ('census')."""
    win, _ = finished_run
    run_id = win.run_model.run.id
    suggested: list[str] = []

    def cancel(parent, caption, start="", *rest, **kw):
        suggested.append(Path(start).name)
        return "", ""

    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(cancel))
    with Ledger.open() as led:
        dataset_id = led.run(run_id).dataset_id
    win.sessions.act_export_release.trigger()
    assert suggested[-1] == f"{dataset_id}-run-{run_id}-release.html"
    with Ledger.open() as led:
        led.set_public_name(dataset_id, "Clinic survey")
    win.sessions.export_script(run_ids=[run_id])
    assert suggested[-1] == f"Clinic-survey-run-{run_id}-release.py"
    assert not any("census" in name for name in suggested)
