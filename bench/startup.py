"""Time to the first window and to the main window of ``svtgui``, median of runs, against a bare Qt window.

    .venv/bin/python bench/startup.py [--runs 5]

Each run starts ``svtgui --sample census --startup-probe`` offscreen and reads the moments it prints:
``first-window`` (the splash, on screen before the heavy modules load) and ``main-window`` (the main
window shown; the sample then loads in the background). The baseline, measured in the same run, is a
Python process that imports only QtWidgets and shows an empty window: the floor no Qt app goes under.
Target (issue 15): the first window within 1.5 s.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

# The floor: QtWidgets and one window with text (the first text drawn initialises the font database).
BARE = ("from PySide6.QtWidgets import QApplication, QLabel\n"
        "app = QApplication([]); w = QLabel('SVT Studio'); w.show(); app.processEvents()\n"
        "print('first-window', flush=True)")


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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "SVTGUI_CONFIG_DIR": "/tmp/svtgui-bench-config",
           "SVTGUI_LEDGER": "/tmp/svtgui-bench-ledger.sqlite"}
    app = [sys.executable, "-m", "svtgui", "--sample", "census", "--startup-probe"]
    bare = [sys.executable, "-c", BARE]
    timed(app, ("first-window", "main-window"), env)  # warm the file cache once, untimed
    ours = [timed(app, ("first-window", "main-window"), env) for _ in range(args.runs)]
    base = [timed(bare, ("first-window",), env)["first-window"] for _ in range(args.runs)]
    first = statistics.median(r["first-window"] for r in ours)
    main_window = statistics.median(r["main-window"] for r in ours)
    floor = statistics.median(base)
    print(f"bare Qt window (baseline):        {floor:6.2f} s  (median of {args.runs})")
    print(f"svtgui first window (splash):     {first:6.2f} s  ratio to baseline {first / floor:5.2f}")
    print(f"svtgui main window shown:         {main_window:6.2f} s  "
          f"ratio to baseline {main_window / floor:5.2f}")
    print(f"startup: first_window={first:.2f}s main_window={main_window:.2f}s target_first<=1.5s "
          f"{'met' if first <= 1.5 else 'NOT met'}")


if __name__ == "__main__":
    main()
