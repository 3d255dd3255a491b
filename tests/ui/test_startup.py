"""Start-up: a first window (the splash) before the heavy modules load, then the main window replaces it.

Timings are in bench/startup.py; here only the order and the hand-over are checked.
"""

from __future__ import annotations

import os
import subprocess
import sys

from svtgui.ui.app import create_app
from svtgui.ui.common.splash import Splash, show_splash


def test_the_splash_comes_before_the_main_window_and_the_app_then_runs(tmp_path):
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "SVTGUI_LEDGER": str(tmp_path / "l.sqlite"),
           "SVTGUI_CONFIG_DIR": str(tmp_path / "config")}
    done = subprocess.run([sys.executable, "-m", "svtgui", "--sample", "census", "--startup-probe"],
                          capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["first-window", "main-window"]


def test_the_splash_needs_no_heavy_module_and_closes_when_the_window_is_shown(qtbot):
    code = ("import sys; from svtgui.ui.app import create_app; "
            "from svtgui.ui.common.splash import show_splash; app = create_app([]); show_splash(); "
            "print(sorted(m for m in ('pandas', 'pyqtgraph', 'pyarrow', 'svtgui.data') if m in sys.modules))")
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=env)
    assert out.stdout.strip() == "[]", out.stderr
    create_app()
    splash = show_splash()
    assert isinstance(splash, Splash) and splash.isVisible()
    # returned only once painted while exposed: on X11 a shown window is blank until then, and the
    # imports that follow would keep it blank (issue 24 §4)
    assert splash.painted
    from PySide6.QtWidgets import QMainWindow

    win = QMainWindow()
    qtbot.addWidget(win)
    win.show()
    splash.finish(win)
    assert not splash.isVisible()
