"""The seven ways the Run page misled curators (issue 23), each driven as a curator would: the page
now shows the run model of the open dataset, and nothing of another dataset or an earlier run."""

from __future__ import annotations

import pandas as pd
from PySide6.QtCore import Qt

from svtgui.app.dataset_identity import register
from svtgui.app.numbers import amount
from svtgui.data import Dataset
from svtgui.ledger import Ledger
from svtgui.ui.main_window import sample_path
from svtgui.ui.run import identity_dialog

LEFT = Qt.MouseButton.LeftButton


def _small_run(qtbot, win, act, total: str = "5") -> None:
    """Open census, declare ``total``, and run three planned queries (ε = 1) to their end."""
    act.load(qtbot, win, total_epsilon=total)
    win.queries.set_queries(win.queries.queries[:3])
    act.set_param(win, "threshold", "1000000")
    act.run_to_end(qtbot, win)
    if win.run_page.stop_button.isEnabled():  # drained: end it
        qtbot.mouseClick(win.run_page.stop_button, LEFT)
        qtbot.waitUntil(lambda: not win.run_page.stop_button.isEnabled(), timeout=30_000)


def _open_baskets(qtbot, win) -> None:
    win.open_sample("baskets")
    qtbot.waitUntil(lambda: win.ds is not None and win.ds.name == "baskets", timeout=30_000)
    win.show_page("run")


def test_a_recipe_charge_reaches_the_run_pages_gauge(qtbot, window, act):
    win = window
    _small_run(qtbot, win, act)
    dlg = win.open_recipes()
    with qtbot.waitSignal(dlg.ran, timeout=60_000):
        qtbot.mouseClick(dlg.run_button, LEFT)
    spent = Ledger.open().budget(win.ds.dataset_id).spent_epsilon
    assert spent > 1  # the recipe spent on top of the run
    assert win.run_page.gauge.dataset_bar.format() == f"ε spent {amount(spent)} of 5"


def test_a_newly_opened_dataset_gets_no_total_of_the_previous_one(qtbot, window, act):
    win = window
    _small_run(qtbot, win, act, total="7")
    totals = win.run_page.totals
    assert totals.epsilon.text() == "7" and totals.epsilon.isReadOnly()
    _open_baskets(qtbot, win)
    assert totals.is_new and totals.epsilon.text() == "" and not totals.epsilon.isReadOnly()
    assert not win.run_page.run_button.isEnabled()
    assert "declare its total budget" in win.run_page.run_error.text()


def test_another_dataset_shows_none_of_the_last_run(qtbot, window, act):
    win = window
    _small_run(qtbot, win, act)
    page = win.run_page
    assert page.model.rowCount() == 3 and "charged" in page.gauge.run_label.text()
    _open_baskets(qtbot, win)
    assert page.model.rowCount() == 0 and win.store.n == 0
    assert page.gauge.run_label.text() == "No run yet." and page.counts.text() == ""
    assert len(page.chart.xs) == 0
    assert not page.status.text().startswith(("Finished", "Stopped", "Halted"))
    assert page.gauge.dataset_bar.format() == "not in the ledger yet"


def test_a_run_refused_by_the_ledger_says_nothing_was_charged(qtbot, window, act):
    win = window
    _small_run(qtbot, win, act, total="2")
    page = win.run_page
    qtbot.mouseClick(page.run_button, LEFT)
    assert page.confirm.isVisible()
    with Ledger.open() as led:  # meanwhile another process spends what was left
        led.start_run(win.ds.dataset_id, "sparse", {}, 1, secure=True, noise_description="elsewhere")
    qtbot.mouseClick(page.confirm.spend, LEFT)
    qtbot.waitUntil(lambda: not page.stop_button.isEnabled(), timeout=30_000)  # the run process answered
    said = win.status_label.text()
    assert "Running" not in said and "nothing was charged" in said.lower()
    assert "Overspend refused, nothing was charged" in page.run_error.text()
    assert not page.status.text().startswith(("Running", "Ready"))
    assert "charged before" not in page.gauge.run_label.text()
    assert page.model.rowCount() == 0
    assert len(Ledger.open().runs(win.ds.dataset_id)) == 2  # the first run and the other process's


def test_an_adaptive_refusal_does_not_survive_into_the_next_run(qtbot, window, act):
    win = window
    act.load(qtbot, win)
    win.queries.set_queries(win.queries.queries[:3])
    act.set_param(win, "threshold", "1000000")
    act.run_to_end(qtbot, win)
    ask = win.run_page.ask
    ask.kind.setCurrentIndex(ask.kind.findData("sum"))
    ask.sum_col.setCurrentText("age")
    qtbot.mouseClick(ask.action, LEFT)
    qtbot.waitUntil(ask.error.isVisible, timeout=30_000)
    qtbot.mouseClick(win.run_page.stop_button, LEFT)
    qtbot.waitUntil(lambda: not win.run_page.stop_button.isEnabled(), timeout=30_000)
    act.run_to_end(qtbot, win)
    assert not ask.error.isVisible(), ask.error.text()


def test_ready_is_never_said_next_to_run_is_disabled(qtbot, window, act):
    win = window
    act.load(qtbot, win, total_epsilon=None)
    win.show_page("run")
    page = win.run_page
    assert not page.run_button.isEnabled() and "Run is disabled" in page.run_error.text()
    assert not page.status.text().startswith("Ready"), page.status.text()
    page.totals.epsilon.setText("5")
    assert page.run_button.isEnabled() and page.status.text().startswith("Ready")


def test_lookalike_rows_are_asked_about_before_the_confirmation_words_them(qtbot, window, act, monkeypatch):
    frame = pd.read_csv(sample_path("census")).iloc[:-5]  # same name and columns, other rows
    with Ledger.open() as led:
        known = register(led, Dataset.from_frame(frame, "census"), "8")
    win = window
    act.load(qtbot, win, total_epsilon="3")
    page = win.run_page
    asked = []

    def ask(_parent, _name, record):
        asked.append(page.confirm.isVisible())
        return record.dataset_id  # the same dataset

    monkeypatch.setattr(identity_dialog, "ask", ask)
    win.show_page("run")
    qtbot.mouseClick(page.run_button, LEFT)
    assert asked == [False]  # asked first, before any confirmation showed
    said = page.confirm.text.text()
    assert page.confirm.isVisible() and "new dataset" not in said
    assert known.dataset_id in said and "Remaining before this run: ε = 8" in said
