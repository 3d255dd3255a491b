"""A screenshot is a demo: it neither reads nor writes the curator's remembered choices."""

from __future__ import annotations

import os
import subprocess
import sys


def test_a_screenshot_run_ignores_and_keeps_the_users_settings(tmp_path):
    config = tmp_path / "config"
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "SVTGUI_CONFIG_DIR": str(config),
           "SVTGUI_LEDGER": str(tmp_path / "ledger.sqlite")}
    remember = ("from svtgui.ui.app import create_app; from svtgui.ui.common.settings import Settings; "
                "create_app([]); s = Settings(); s.last_mechanism = 'pmw'; s.pace = 2.0; s.sync()")
    subprocess.run([sys.executable, "-c", remember], env=env, check=True, timeout=60)
    before = {p.name: p.read_bytes() for p in config.rglob("*") if p.is_file()}
    assert before, "the remembered settings were written"
    out = tmp_path / "shot.png"
    done = subprocess.run([sys.executable, "-m", "svtgui", "--sample", "census", "--screenshot", str(out),
                           "--run"], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr  # a remembered PMW (which needs a universe) is not used
    assert out.stat().st_size > 0
    assert {p.name: p.read_bytes() for p in config.rglob("*") if p.is_file()} == before


def _shoot(out, *extra: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    argv = [sys.executable, "-m", "svtgui", "--screenshot", str(out), "--page", "start", *extra]
    return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120)


def test_a_screenshot_never_lands_on_the_ledger_the_data_or_a_file_it_cannot_fill(tmp_path):
    # `svtgui --screenshot ledger.sqlite` left the curator's ledger empty (Qt opened it for writing,
    # then found no image format for '.sqlite'); any other file of a non-image name was emptied too
    ledger = tmp_path / "ledger.sqlite"
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "SVTGUI_LEDGER": str(ledger),
           "SVTGUI_STATE_DIR": str(tmp_path / "state"), "SVTGUI_CONFIG_DIR": str(tmp_path / "config")}
    ledger.write_bytes(b"SQLite format 3\0" + bytes(100))  # bytes that must survive (not opened here)
    notes = tmp_path / "notes.txt"
    notes.write_text("a curator's notes\n")
    data = tmp_path / "toy.csv"
    data.write_text("x\n1\n2\n")
    cases = [(ledger, (), "is the privacy ledger"), (tmp_path / "ledger.sqlite-wal", (), "privacy ledger"),
             (notes, (), "not an image file name"), (data, (str(data),), "is the dataset"),
             (tmp_path / "toy.schema.json", (str(data),), "schema sidecar")]
    for out, extra, said in cases:
        before = {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()}
        done = _shoot(out, *extra, env=env)
        lines = [ln for ln in done.stderr.splitlines() if "propagateSizeHints" not in ln]
        assert done.returncode == 2 and len(lines) == 1 and said in lines[0], (out, done.stderr)
        assert {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()} == before, out
    assert _shoot(tmp_path / "start.png", env=env).returncode == 0  # a picture's own name still works
    assert (tmp_path / "start.png").read_bytes().startswith(b"\x89PNG")
