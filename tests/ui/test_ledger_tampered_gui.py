"""The window and the ledger: a tampered ledger refused in the CLI's words (issue 21 §7); History
shows what the ledger logged (accepted findings, raises with who and why: issue 26)."""

from __future__ import annotations

import sqlite3

from svtgui.ledger import Ledger, LedgerTampered, default_path
from tests.ui.conftest import load


def test_a_tampered_ledger_is_refused_on_the_run_page_in_the_clis_words(qtbot, window):
    with Ledger.open() as led:  # $SVTGUI_LEDGER: the window's ledger
        ds = led.register_dataset("d" * 64, "other", 5)[0].dataset_id
        led.start_run(ds, "sparse", {}, 1, secure=True, noise_description="secure")
    c = sqlite3.connect(default_path())
    c.execute("DROP TRIGGER runs_no_delete")
    c.execute("DELETE FROM runs")
    c.commit()
    c.close()
    try:
        Ledger.open()
    except LedgerTampered as exc:
        refusal = str(exc)
    load(qtbot, window, total_epsilon=None)
    window.show_page("run")
    shown = window.run_page.totals.error
    qtbot.waitUntil(lambda: shown.isVisible(), timeout=10_000)
    assert shown.text() == f"⚠ {refusal}" and "run 1 was deleted" in refusal
    window.run_page.totals.epsilon.setText("10")  # a total typed: Run still waits for a usable ledger
    assert shown.text() == f"⚠ {refusal}" and not window.run_page.run_button.isEnabled()
    assert window.run_page.run_error.text() == f"⚠ Run is disabled — Ledger: {refusal}"


def test_history_shows_an_accepted_finding(qtbot, window):
    from session_gui_helpers import ledger_runs

    from svtgui.data import load_dataset
    from svtgui.ui.main_window import sample_path

    ledger_runs(load_dataset(sample_path("census")))
    c = sqlite3.connect(default_path())
    c.execute("DROP TRIGGER events_no_delete")
    c.commit()
    c.close()
    Ledger.open(accept="restored the triggers after a migration script").close()
    load(qtbot, window)
    panel = window.sessions.show_history()
    text = panel.budget.text()
    assert "accepted that the ledger was changed outside SVT Studio" in text
    assert "events_no_delete" in text and "restored the triggers after a migration script" in text


def test_history_shows_a_raise_with_who_and_why(qtbot, window):
    from session_gui_helpers import ledger_runs

    from svtgui.data import load_dataset
    from svtgui.ui.main_window import sample_path

    ledger_runs(load_dataset(sample_path("census")))
    with Ledger.open() as led:
        (ds,) = led.datasets()
        led.raise_total(ds.dataset_id, 20, note="second wave approved by the data board")
        raised = led.budget_events(ds.dataset_id)[-1]
    load(qtbot, window)
    text = window.sessions.show_history().budget.text()
    assert f"{raised.login} raised the total from ε 10 to ε 20" in text
    assert "second wave approved by the data board" in text


def test_the_window_and_the_cli_show_the_same_budget_from_a_server_ledger(qtbot, window, server_url,
                                                                          monkeypatch, capsys):
    import json

    from session_gui_helpers import ledger_runs

    from svtgui.cli import main
    from svtgui.data import load_dataset
    from svtgui.ui.main_window import sample_path

    monkeypatch.setenv("SVTGUI_LEDGER", server_url)  # as Preferences → Ledger → A server sets it
    ledger_runs(load_dataset(sample_path("census")))  # ε 2 + 0.5 charged on the server
    load(qtbot, window)
    assert window.run_model.budget.ledger_path == server_url
    assert window.run_page.gauge.dataset_bar.format() == "ε spent 2.5 of 10"
    assert main(["ledger", "--json"]) == 0
    (shown,) = json.loads(capsys.readouterr().out)["datasets"]
    assert (shown["spent_epsilon"], shown["remaining_epsilon"]) == ("2.5", "7.5")


def test_a_window_run_charges_and_records_on_the_server_ledger(qtbot, server_url, monkeypatch, act):
    """The run process the window starts opens the server ledger by its URL, as the window does."""
    from svtgui.ui.app import create_app
    from svtgui.ui.main_window import MainWindow

    monkeypatch.setenv("SVTGUI_LEDGER", server_url)
    create_app()
    win = MainWindow()
    qtbot.addWidget(win)
    win.show()
    try:
        act.load(qtbot, win)
        win.queries.set_queries(win.queries.queries[:300])
        act.run_to_end(qtbot, win)
        run = win.run_model.run
        assert run.status in ("finished", "halted"), win.run_page.run_error.text()
        with Ledger.open(server_url) as team:
            assert team.run(run.id).status == run.status
            assert [r.above for r in team.responses(run.id)] == list(win.store.above[: win.store.n])
            spent = team.budget(team.run(run.id).dataset_id).spent_epsilon
        assert win.run_page.gauge.dataset_bar.format() == f"ε spent {spent} of 10"
    finally:
        win.run_model.shutdown()
