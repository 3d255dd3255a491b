"""Helpers shared by the session, history and export GUI tests (imported like tests/core/core_stats.py)."""

from __future__ import annotations

from PySide6.QtWidgets import QFileDialog

from svtgui.app.dataset_identity import register
from svtgui.ledger import Ledger, ResponseBatch
from svtgui.ui.app import create_app
from svtgui.ui.main_window import MainWindow


def new_window(qtbot) -> MainWindow:
    """A second main window (same settings and ledger as the test's ``window``), as after a restart."""
    create_app()
    win = MainWindow()
    qtbot.addWidget(win)
    win.show()
    return win


def answer_dialog(monkeypatch, method: str, path, selected_filter: str = "") -> list[str]:
    """The user picks ``path`` in ``QFileDialog.<method>``; returns the filter strings it was shown."""
    asked: list[str] = []

    def fake(parent, caption, start="", filters="", initial="", *rest, **kw):
        asked.append(filters)
        return str(path), selected_filter

    monkeypatch.setattr(QFileDialog, method, staticmethod(fake))
    return asked


def ledger_runs(ds) -> tuple[int, int]:
    """Two runs made outside the window (as the CLI or a crashed window would): one interrupted
    after three released rows (ε = 2), one still running (ε = 0.5). Returns their ids."""
    with Ledger.open() as led:
        fingerprint = register(led, ds, 10).dataset_id
        params = {"epsilon": 2.0, "threshold": 100.0, "cutoff": 2}
        crashed = led.start_run(fingerprint, "numeric_sparse", params, 2, secure=True,
                                noise_description="OS CSPRNG")
        led.record(crashed.id, ResponseBatch.of([(0, "count of rows where age ≥ 40", False, None, None),
                                (1, "count of rows where age ≥ 20", True, 24871, None),
                                (2, "count of rows where age ≥ 90", False, None, None)]))
        led.finish_run(crashed.id, "interrupted")
        running = led.start_run(fingerprint, "sparse", {"epsilon": 1.0, "threshold": 5.0, "cutoff": 1}, "0.5",
                                secure=True, noise_description="OS CSPRNG")
    return crashed.id, running.id


def wait_rows(qtbot, panel) -> None:
    """History reads a run's rows on a worker thread: wait until they are shown."""
    qtbot.waitUntil(lambda: not panel.rows_loading, timeout=30_000)


def wait_export(qtbot, win) -> None:
    """Reports are written on a worker thread: wait until the notice says how it went."""
    qtbot.waitUntil(lambda: win.sessions.exporting is None, timeout=60_000)
