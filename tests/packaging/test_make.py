"""``make run`` installs what running needs, after checking Qt's system libraries; ``make test`` the rest.

Checked with ``make -n`` (what make would do, in order), so nothing is installed by the test.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SYSLIBS = ROOT / "svtgui" / "ui" / "common" / "system_libs.py"

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


def _dry_run(target: str, tmp_path: Path) -> list[str]:
    """The commands ``make TARGET`` runs from a fresh checkout (no venv yet), in order."""
    venv = tmp_path / "venv"
    out = subprocess.run(["make", "-n", target, f"VENV={venv}"], cwd=ROOT, capture_output=True, text=True,
                         check=True)
    return out.stdout.splitlines()


def test_make_run_checks_the_system_libraries_first_and_installs_no_test_tools(tmp_path):
    lines = _dry_run("run", tmp_path)
    check = next(i for i, line in enumerate(lines) if "system_libs.py" in line)
    venv = next(i for i, line in enumerate(lines) if "-m venv" in line)
    install = [line for line in lines if "pip install" in line and "--upgrade pip" not in line]
    assert check < venv  # before anything is created or downloaded
    assert install and all(line.rstrip().endswith("-e .") for line in install), install
    assert not any("[test]" in line or "pyspark" in line for line in lines)


def test_make_test_installs_the_test_tools():
    lines = subprocess.run(["make", "-n", "test", "VENV=/nonexistent-venv"], cwd=ROOT, capture_output=True,
                           text=True, check=True).stdout
    assert "-e '.[test]'" in lines and "pytest" in lines


def test_the_check_runs_on_the_bare_system_python():
    """Isolated (-I: no site packages, not even svtgui): the standard library is all it needs."""
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}  # nothing to check offscreen: exit 0 anywhere
    done = subprocess.run([sys.executable, "-I", str(SYSLIBS)], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    missing = subprocess.run(
        [sys.executable, "-I", "-c",
         f"import runpy, ctypes; ctypes.CDLL = lambda name: (_ for _ in ()).throw(OSError(name)); "
         f"runpy.run_path({str(SYSLIBS)!r}, run_name='__main__')"],
        capture_output=True, text=True, env={k: v for k, v in os.environ.items() if k != "QT_QPA_PLATFORM"})
    if sys.platform.startswith("linux"):
        assert missing.returncode == 2 and "libxcb-cursor.so.0" in missing.stderr
