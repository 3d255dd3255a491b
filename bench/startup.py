"""Time to the first painted frame and to the main window of ``svtgui``, median of runs, against bare Qt.

    .venv/bin/python bench/startup.py [--runs 5] [--offscreen]

Each run starts ``svtgui --sample census --startup-probe`` in a real X11 session and reads the moments
it prints: ``first-window`` when the splash's pixels are on the screen, read back from the X server
(not when ``show()`` returned: on X11 a window shown but not yet exposed is blank), and
``main-window`` (the main window shown; the sample then loads in the background). With no ``DISPLAY``
the bench starts its own X server (``Xvfb``, package xvfb) for the measurement and stops it after.
The baseline, measured in the same run and the same way, is a Python process that imports only
QtWidgets and shows a window of the splash's colour: the floor no Qt app goes under.
Target (issue 24 §4): the first window visible within 1.0 s.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

# The floor: QtWidgets and one window with text (the first text drawn initialises the font database),
# timed like the splash: until its pixels are read back from the screen.
BARE = """
from PySide6.QtCore import QEventLoop
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QApplication, QLabel
app = QApplication([])
w = QLabel('SVT Studio')
w.setStyleSheet('background: #f5f6f7')
w.resize(420, 220)
w.show()
while True:
    corner = w.geometry().topLeft()
    pixel = w.screen().grabWindow(0, corner.x() + 4, corner.y() + 4, 1, 1).toImage()
    if app.platformName() != 'xcb' or pixel.pixelColor(0, 0) == QColor('#f5f6f7'):
        break
    app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 10)
print('first-window', flush=True)
"""
TARGET = 1.0  # seconds to the first visible window (issue 24 §4)


def timed(argv: list[str], marks: tuple[str, ...], env: dict[str, str]) -> dict[str, float]:
    """Seconds from the process start to each printed mark."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
    seen: dict[str, float] = {}
    assert proc.stdout is not None
    for line in proc.stdout:
        word = line.strip()
        if word in marks:
            seen[word] = time.perf_counter() - start
        if len(seen) == len(marks):
            break
    proc.wait(60)
    missing = set(marks) - set(seen)
    if missing:
        sys.exit(f"startup: {argv[0]} never printed {', '.join(sorted(missing))}")
    return seen


@contextlib.contextmanager
def x_display(offscreen: bool) -> Iterator[dict[str, str]]:
    """The environment of the measured processes: the user's X display, else an Xvfb of our own."""
    env = {**os.environ, "SVTGUI_CONFIG_DIR": "/tmp/svtgui-bench-config",
           "SVTGUI_LEDGER": "/tmp/svtgui-bench-ledger.sqlite"}
    if offscreen:
        yield {**env, "QT_QPA_PLATFORM": "offscreen"}
        return
    if os.environ.get("DISPLAY"):
        yield {**env, "QT_QPA_PLATFORM": "xcb"}
        return
    if shutil.which("Xvfb") is None:
        sys.exit("startup: no DISPLAY and no Xvfb: install xvfb (apt-get install xvfb) or pass --offscreen")
    number = next(n for n in range(90, 200) if not Path(f"/tmp/.X11-unix/X{n}").exists())
    server = subprocess.Popen(["Xvfb", f":{number}", "-screen", "0", "1600x1000x24", "-nolisten", "tcp"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        socket, deadline = Path(f"/tmp/.X11-unix/X{number}"), time.monotonic() + 10
        while not socket.exists():  # the server is ready when its socket exists
            if server.poll() is not None or time.monotonic() > deadline:
                sys.exit(f"startup: Xvfb :{number} did not start")
            time.sleep(0.02)
        yield {**env, "QT_QPA_PLATFORM": "xcb", "DISPLAY": f":{number}"}
    finally:
        server.terminate()
        server.wait(10)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--offscreen", action="store_true",
                    help="no X server: the offscreen platform (painted, not read back)")
    args = ap.parse_args()
    with x_display(args.offscreen) as env:
        measure(env, args.runs)


def measure(env: dict[str, str], runs: int) -> None:
    app = [sys.executable, "-m", "svtgui", "--sample", "census", "--startup-probe"]
    bare = [sys.executable, "-c", BARE]
    timed(app, ("first-window", "main-window"), env)  # warm the file cache once, untimed
    ours = [timed(app, ("first-window", "main-window"), env) for _ in range(runs)]
    base = [timed(bare, ("first-window",), env)["first-window"] for _ in range(runs)]
    first = statistics.median(r["first-window"] for r in ours)
    main_window = statistics.median(r["main-window"] for r in ours)
    floor = statistics.median(base)
    platform = env["QT_QPA_PLATFORM"]
    print(f"platform {platform}{' on ' + env['DISPLAY'] if platform == 'xcb' else ''}")
    print(f"bare Qt window painted (baseline): {floor:6.2f} s  (median of {runs})")
    print(f"svtgui splash painted on screen:   {first:6.2f} s  ratio to baseline {first / floor:5.2f}")
    print(f"svtgui main window shown:          {main_window:6.2f} s  "
          f"ratio to baseline {main_window / floor:5.2f}")
    print(f"startup: first_painted={first:.2f}s main_window={main_window:.2f}s target_first<={TARGET}s "
          f"{'met' if first <= TARGET else 'NOT met'} ({platform})")


if __name__ == "__main__":
    main()
