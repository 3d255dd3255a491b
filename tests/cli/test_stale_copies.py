"""A private working copy of rows left by a killed process is removed when the next command starts
(issue 25 §3: "removed on close and at start-up when stale"), not only when the next copy is made."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from svtgui.cli import main
from svtgui.data.engines import scratch


def stale_and_live(folder: Path) -> tuple[Path, Path]:
    """A folder of a process that is gone (no process has id 999999999) and one of this process."""
    dead, alive = folder / f"{scratch.PREFIX}999999999-x", folder / f"{scratch.PREFIX}{os.getpid()}-y"
    for made in (dead, alive):
        made.mkdir()
        (made / "copy.parquet").write_bytes(b"private rows")
    return dead, alive


def test_a_command_removes_a_dead_processs_copies_at_start(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    dead, alive = stale_and_live(tmp_path)
    # a command that opens no dataset at all (and fails on its input): no copy is made, none needed
    assert main(["queries", "show", str(tmp_path / "missing.json")]) == 2
    assert not dead.exists() and alive.exists()
    assert "missing.json" in capsys.readouterr().err
