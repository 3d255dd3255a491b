"""The window's responsiveness while History reads, and Export writes, a run of 200,000 responses.

A 10 ms QTimer heartbeat runs on the GUI thread; the bench prints the longest and the 99th-percentile
wait between its ticks in each phase, against baselines measured in the same run:

* idle: the heartbeat with nothing else happening (what this machine's scheduling costs anyway);
* on the GUI thread: the same ledger read done on the GUI thread, as the window did before History
  moved to a task (the heartbeat waits at least this long then).

    QT_QPA_PLATFORM=offscreen .venv/bin/python bench/gui_responsive.py [--rows N]

It uses a throw-away ledger and settings (never the curator's) and the bundled census sample.
The default suite checks the behaviour (work leaves the GUI thread, busy indicators, the files
written: tests/ui/test_responsive.py); the timing lives here, on a machine of the reader's choice.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


class Heartbeat:
    """A 10 ms timer on the GUI thread recording how long it waited between ticks."""

    def __init__(self) -> None:
        from PySide6.QtCore import QTimer

        self.gaps: list[float] = []
        self.last = time.perf_counter()
        self.timer = QTimer(interval=10)
        self.timer.timeout.connect(self._tick)
        self.timer.start()

    def _tick(self) -> None:
        now = time.perf_counter()
        self.gaps.append(now - self.last)
        self.last = now

    def stop(self) -> tuple[float, float]:
        """(longest, 99th percentile) wait in seconds."""
        self.timer.stop()
        self._tick()
        return max(self.gaps), float(np.percentile(self.gaps, 99))


def fill(dataset_id: str, rows: int) -> int:
    """A finished NumericSparse run of ``rows`` responses (one ⊤ with its value in every 500)."""
    from svtgui.ledger import Ledger, ResponseBatch

    with Ledger.open() as led:
        run = led.start_run(dataset_id, "numeric_sparse", {"epsilon": 1.0, "threshold": 100.0, "cutoff": 400},
                            1, secure=True, noise_description="OS CSPRNG")
        chunk = 50_000
        for start in range(0, rows, chunk):
            led.record(run.id, ResponseBatch.of([(i, f"count of rows where age ≥ {i % 90}", i % 500 == 0,
                                 1000 + i if i % 500 == 0 else None, None)
                                for i in range(start, min(start + chunk, rows))]))
        led.finish_run(run.id, "finished")
    return run.id


def measure(action, done) -> tuple[float, float, float]:
    """Start ``action`` under a heartbeat, process events until ``done()``; (seconds, longest, p99)."""
    from svtgui.ui.screenshots import wait_until

    beat = Heartbeat()
    t0 = time.perf_counter()
    action()
    assert wait_until(done, 600), "the job did not finish within 10 minutes"
    seconds = time.perf_counter() - t0
    longest, p99 = beat.stop()
    return seconds, longest, p99


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=200_000)
    args = parser.parse_args()
    from svtgui.app.demo import throwaway_ledger

    with throwaway_ledger() as ledger:
        os.environ["SVTGUI_CONFIG_DIR"] = str(ledger.parent / "config")  # nor the curator's settings
        return run(ledger.parent, args.rows)


def run(tmp: Path, rows: int) -> int:
    from svtgui.app.dataset_identity import register
    from svtgui.ledger import Ledger
    from svtgui.ui.app import create_app
    from svtgui.ui.main_window import MainWindow
    from svtgui.ui.screenshots import wait_until

    create_app()
    win = MainWindow()
    win.show()
    win.open_sample("census")
    assert wait_until(lambda: win.ds is not None, 120)
    with Ledger.open() as led:
        record = register(led, win.ds, 10)
    run_id = fill(record.dataset_id, rows)
    print(f"run {run_id}: {rows:,} responses in a throw-away ledger")

    quiet_until = time.perf_counter() + 1.0
    phases = [("idle (baseline)", *measure(lambda: None, lambda: time.perf_counter() >= quiet_until))]
    t0 = time.perf_counter()
    with Ledger.open() as led:
        led.responses(run_id)
    on_gui = time.perf_counter() - t0
    phases.append(("History rows, read on the GUI thread (before)", on_gui, on_gui, on_gui))
    phases.append(("History rows, read by a task (now)",
                   *measure(win.sessions.show_history, lambda: not win.sessions.history.rows_loading)))
    for suffix in (".html", ".pdf"):
        out = tmp / f"big{suffix}"
        phases.append((f"Export {suffix[1:].upper()} (task + child process)",
                       *measure(lambda out=out: win.sessions.export_release(out, run_id=run_id),
                                lambda: win.sessions.exporting is None)))
    print(f"{'phase':48} {'seconds':>8} {'longest wait':>13} {'p99 wait':>9}")
    for name, seconds, longest, p99 in phases:
        print(f"{name:48} {seconds:8.2f} {longest * 1000:10.0f} ms {p99 * 1000:6.0f} ms")
    idle, task = phases[0][2], phases[2][2]
    print(f"longest heartbeat wait while History reads: {task * 1000:.0f} ms = {task / on_gui:.2f}x the "
          f"read on the GUI thread, {task / idle:.1f}x the idle baseline")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
