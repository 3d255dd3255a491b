"""The window removes a killed process's private working copies when it opens (issue 25 §3)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from svtgui.ui.app import create_app
from svtgui.ui.main_window import MainWindow
from tests.cli.test_stale_copies import stale_and_live


def test_the_window_removes_a_dead_processs_copies_at_start(tmp_path: Path, qtbot,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    dead, alive = stale_and_live(tmp_path)
    create_app()
    win = MainWindow()
    qtbot.addWidget(win)
    assert not dead.exists() and alive.exists()
    win.run_presenter.shutdown()
