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
