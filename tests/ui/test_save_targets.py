"""The window's save dialogs never write over what the set-up reads (issue 22 §1): the dataset, its
schema sidecar, the ledger and the open session — named directly or through a link — whichever
dialog asks (Export queries, Save session, save the wider queries, the SparseProject release file).
The refusal says what the file is; the file is left as it was."""

from __future__ import annotations

import shutil

import pytest
from session_gui_helpers import answer_dialog

from svtgui.data.loaders import sidecar_path
from svtgui.data.queries import ClippedSum, RangeCount
from svtgui.ui.main_window import sample_path


@pytest.fixture
def opened(qtbot, window, tmp_path):
    """The census sample and its declared schema, copied where the test may link to them, open in
    the window."""
    data = shutil.copy(sample_path("census"), tmp_path / "census.csv")
    shutil.copy(sidecar_path(sample_path("census")), sidecar_path(data))
    window.open_path(data)
    qtbot.waitUntil(lambda: window.ds is not None, timeout=30_000)
    return window, data


def test_export_queries_refuses_the_dataset_and_its_sidecar(opened, tmp_path, monkeypatch):
    win, data = opened
    before = data.read_bytes(), sidecar_path(data).read_bytes()
    (tmp_path / "link.json").symlink_to(data)
    for target in (data, tmp_path / "link.json", sidecar_path(data)):
        answer_dialog(monkeypatch, "getSaveFileName", target)
        win.export_queries()
        assert "would destroy it" in win.queries.error.text(), win.queries.error.text()
    assert (data.read_bytes(), sidecar_path(data).read_bytes()) == before
    answer_dialog(monkeypatch, "getSaveFileName", tmp_path / "q.json")
    win.export_queries()  # any other file is written
    assert (tmp_path / "q.json").stat().st_size > 0


def test_save_session_refuses_a_link_to_the_dataset_but_saves_over_itself(opened, tmp_path, monkeypatch):
    win, data = opened
    before = data.read_bytes()
    (tmp_path / "study.svtsession").symlink_to(data)  # a name Save session keeps as it is
    assert win.sessions.save_session(tmp_path / "study.svtsession") is None
    assert "is the dataset" in win.status_label.text() and data.read_bytes() == before
    saved = win.sessions.save_session(tmp_path / "mine.svtsession")
    assert saved is not None and win.sessions.save_session() == saved  # Save writes over its own file


def test_splitting_the_queue_never_writes_over_the_ledger(opened, tmp_path):
    win, _ = opened
    ledger = win.run_model.ledger.path  # opens it
    before = ledger.read_bytes()
    win.queries.set_queries([RangeCount("age", 20, 30), ClippedSum("age")])  # Δ = 1 and Δ = age's bound
    assert win.queries.split_by_sensitivity(ledger) is False
    assert "privacy ledger" in win.queries.error.text() and ledger.read_bytes() == before
    assert len(win.queries.queries) == 2  # the queue is unchanged


def test_a_release_file_over_the_open_session_is_a_problem_of_the_plan(opened, tmp_path):
    win, _ = opened
    session = win.sessions.save_session(tmp_path / "study.svtsession")
    (tmp_path / "release.npz").symlink_to(session)
    win.mechanism.picker.select("sparse_project")
    win.workspace.set_entries({"universe": ["sex"], "release_out": str(tmp_path / "release.npz")})
    problem = win.workspace.plan.by_field().get("release_out", "")
    assert "the open session file" in problem


def test_an_export_that_fails_midway_leaves_the_previous_list(opened, tmp_path, monkeypatch):
    # Export queries wrote in place: a full disk in the middle left half a list over the previous one
    from pathlib import Path

    win, _ = opened
    previous = tmp_path / "ages.json"
    previous.write_text('{"previous": "list"}')
    real = Path.write_text

    def disk_full(self, text, *args, **kwargs):
        real(self, text[: len(text) // 2], *args, **kwargs)
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(Path, "write_text", disk_full)
    assert not win.queries.export_json(previous)
    assert "No space left" in win.queries.error.text()
    monkeypatch.undo()
    assert previous.read_text() == '{"previous": "list"}'
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no half-written copy left
