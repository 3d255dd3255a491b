"""History and Export release on a run of 200,000 responses leave the GUI thread.

Before, both ran on the GUI thread: reading the rows took ~1 s, and typesetting the PDF alone
~2.5 s, all of it a frozen window. Now History reads the rows in a task and Export writes the report
in a task that waits for a child process (svtgui.app.tasks, svtgui.app.reports.process): each call
returns at once, a busy indicator shows, and the outcome lands when the job is done.

These tests check that behaviour, waiting on conditions. How long the GUI thread waits meanwhile is a
timing claim: bench/gui_responsive.py measures it (a heartbeat timer against baselines measured in
the same run), not the default suite.
"""

from __future__ import annotations

import pytest
from session_gui_helpers import wait_export, wait_rows

from svtgui.app.dataset_identity import register
from svtgui.ledger import Ledger, ResponseBatch

N = 200_000
pytestmark = pytest.mark.slow


def big_run(ds) -> int:
    """A finished NumericSparse run of N released rows (one ⊤ with its value in every 500)."""
    with Ledger.open() as led:
        dataset_id = register(led, ds, 10).dataset_id
        params = {"epsilon": 1.0, "threshold": 100.0, "cutoff": 400}
        run = led.start_run(dataset_id, "numeric_sparse", params, 1, secure=True,
                            noise_description="OS CSPRNG")
        for start in range(0, N, 50_000):
            led.record(run.id, ResponseBatch.of([(i, f"count of rows where age ≥ {i % 90}", i % 500 == 0,
                                 1000 + i if i % 500 == 0 else None, None)
                                for i in range(start, start + 50_000)]))
        led.finish_run(run.id, "finished")
    return run.id


@pytest.fixture
def big(qtbot, window, act):
    act.load(qtbot, window)
    return window, big_run(window.ds)


def test_history_reads_a_large_run_off_the_gui_thread(qtbot, big):
    win, run_id = big
    panel = win.sessions.show_history()  # returns while the rows are still being read
    assert panel.selected_run().id == run_id
    assert panel.rows_loading and panel.loading.isVisible() and "reading" in panel.rows_title.text()
    wait_rows(qtbot, panel)
    assert panel.rows_model.rowCount() == N and not panel.loading.isVisible()
    assert f"released {N:,} rows" in panel.rows_title.text()


@pytest.mark.parametrize("suffix", [".html", ".pdf"])
def test_exporting_a_large_run_happens_off_the_gui_thread(qtbot, big, tmp_path, suffix):
    win, run_id = big
    out = tmp_path / f"big{suffix}"
    assert win.sessions.export_release(out, run_id=run_id) is None  # started, not finished
    assert win.sessions.busy.isVisible() and not win.sessions.act_export_release.isEnabled()
    wait_export(qtbot, win)
    assert win.sessions.notice.ok, win.sessions.notice.informativeText()
    assert out.stat().st_size > 10_000
