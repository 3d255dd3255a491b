"""The Run page around a run: declaring a new dataset's total budget, the logged raise, the status
bar, the run controls, and the non-interactive mechanisms end to end (pytest-qt, offscreen)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from svtgui.ledger import Ledger
from svtgui.ui.run.live_chart import SELECTED_LABEL

LEFT = Qt.MouseButton.LeftButton


def test_a_new_dataset_asks_for_its_total_budget_before_the_first_run(qtbot, window, act):
    win = window
    act.load(qtbot, win, total_epsilon=None)
    totals, page = win.run_page.totals, win.run_page
    win.show_page("run")
    # Nothing is assumed: the prompt is shown, the field is empty, Run is disabled and says why.
    assert totals.is_new and totals.declare.isVisible() and "declare" in totals.declare.text()
    assert totals.epsilon.text() == "" and not totals.epsilon.isReadOnly()
    assert not totals.raise_.isVisible()
    assert not page.run_button.isEnabled()
    assert "declare its total budget" in page.run_error.text()
    assert "declare" in page.run_button.toolTip()
    # Nonsense is refused next to the field, still before anything is recorded.
    totals.epsilon.setText("-3")
    assert not page.run_button.isEnabled() and totals.error.isVisible()
    totals.epsilon.setText("4")
    totals.delta.setText("1e-6")
    assert page.run_button.isEnabled(), page.run_error.text()
    assert Ledger.open().datasets() == []  # typing records nothing
    # The confirmation names the total that the first run will record.
    qtbot.mouseClick(page.run_button, LEFT)
    assert "ε = 4, δ = 1e-6" in page.confirm.text.text()
    win.queries.set_queries(win.queries.queries[:3])
    act.set_param(win, "threshold", "1000000")
    act.run_to_end(qtbot, win)
    rec = Ledger.open().dataset(win.ds.dataset_id)
    assert rec is not None and (float(rec.total_epsilon), float(rec.total_delta)) == (4.0, 1e-6)
    # Recorded: the total is read-only now and only Raise… changes it.
    assert not totals.declare.isVisible() and totals.epsilon.isReadOnly() and totals.raise_.isVisible()


def test_raise_is_an_explicit_confirmed_and_logged_step(qtbot, window, act):
    win = window
    act.load(qtbot, win, total_epsilon="2")
    win.queries.set_queries(win.queries.queries[:3])
    act.set_param(win, "threshold", "1000000")
    act.run_to_end(qtbot, win)
    totals = win.run_page.totals
    box = totals.raise_box
    fp = win.ds.dataset_id
    assert not box.isVisible()
    qtbot.mouseClick(totals.raise_, LEFT)
    assert box.isVisible() and "logged" in box.text.text() and "cannot be undone" in box.text.text()
    assert box.epsilon.text() == "2"  # starts from the current total
    # Cancel changes nothing.
    qtbot.mouseClick(box.cancel, LEFT)
    assert not box.isVisible() and float(Ledger.open().budget(fp).total_epsilon) == 2.0
    # Lowering is refused next to the field; nothing is recorded and the confirmation stays open.
    qtbot.mouseClick(totals.raise_, LEFT)
    box.epsilon.setText("1")
    qtbot.mouseClick(box.apply, LEFT)
    assert totals.error.isVisible() and box.isVisible()
    assert [e.kind for e in Ledger.open().budget_events(fp)] == ["register"]
    # A real raise is written to the ledger's budget log and shown at once.
    box.epsilon.setText("5")
    qtbot.mouseClick(box.apply, LEFT)
    assert not box.isVisible() and not totals.error.isVisible()
    events = Ledger.open().budget_events(fp)
    assert [e.kind for e in events] == ["register", "raise"]
    assert (float(events[-1].previous_epsilon), float(events[-1].epsilon)) == (2.0, 5.0)
    assert totals.epsilon.text() == "5" and totals.epsilon.isReadOnly()
    assert "of 5" in win.run_page.gauge.dataset_bar.format()


def test_status_bar_follows_the_run_and_controls_have_icons(qtbot, window, act):
    win = window
    for b in (win.run_page.run_button, win.run_page.pause_button, win.run_page.step_button,
              win.run_page.stop_button):
        assert not b.icon().isNull(), b.text()
    for a in (win.act_run, win.act_pause, win.act_step, win.act_stop):
        assert not a.icon().isNull(), a.text()
    act.load(qtbot, win)
    assert "rows" in win.status_label.text()
    win.queries.set_queries(win.queries.queries[:5])
    act.set_param(win, "threshold", "1000000")
    act.run_to_end(qtbot, win)
    assert "All 5 planned queries answered" in win.status_label.text()
    qtbot.mouseClick(win.run_page.stop_button, LEFT)
    qtbot.waitUntil(lambda: win.run_model.state == "ended", timeout=10_000)
    assert win.status_label.text() == win.run_page.status.text()
    assert win.status_label.text().startswith("Finished")


@pytest.mark.parametrize(
    "mechanism_id, params",
    [("em_top_c", {"epsilon": "1", "cutoff": 3}), ("svt_retraversal", {"epsilon": "1", "threshold": "20000",
                                                                       "cutoff": 3})],
)
def test_non_interactive_mechanisms_run_end_to_end(qtbot, window, act, mechanism_id, params):
    win = window
    act.load(qtbot, win)
    win.show_page("mechanism")
    win.mechanism.picker.select(mechanism_id)
    assert win.mechanism.mechanism_id == mechanism_id
    for name, value in params.items():
        act.set_param(win, name, value)
    queries = win.queries.queries[:400]
    win.queries.set_queries(queries)
    assert win.run_page.run_button.isEnabled(), win.run_page.run_error.text()
    act.run_to_end(qtbot, win)
    c, store = win.run_model, win.store
    assert c.state == "ended" and c.run.status == "finished", win.run_page.run_error.text()
    # The whole list is answered at once: every query has a row, exactly c of them ⊤ (selected).
    assert store.n == len(queries) and store.n_tops == 3
    assert win.run_page.model.rowCount() == len(queries)
    rows = Ledger.open().responses(c.run.id)
    assert [r.above for r in rows] == list(store.above[: store.n])
    assert sorted(r.index for r in rows) == list(range(len(queries)))
    gauge = win.run_page.gauge
    assert "3 of c = 3" in gauge.cutoff_bar.format() and "halted" not in gauge.cutoff_bar.format()
    assert win.run_page.status.text().startswith("Finished")
    chart = win.run_page.chart
    assert len(chart.xs) == 3
    has_threshold = "threshold" in params
    assert chart.threshold_line.isVisible() == has_threshold
    assert (chart.legend.items[1][1].text == SELECTED_LABEL) != has_threshold


def test_a_killed_run_process_ends_the_run_as_interrupted_with_everything_shown_recorded(qtbot, window, act):
    win = window
    act.load(qtbot, win)
    q = win.queries.queries[0]
    win.queries.set_queries([q] * 300_000)  # long enough to be killed mid-stream
    act.set_param(win, "threshold", "1000000")
    c = win.run_model
    win.show_page("run")
    qtbot.mouseClick(win.run_page.run_button, LEFT)
    qtbot.mouseClick(win.run_page.confirm.spend, LEFT)
    qtbot.waitUntil(lambda: win.store.n > 0, timeout=30_000)
    c.worker._proc.kill()  # as if the OS killed it (out of memory, kill -9)
    qtbot.waitUntil(lambda: c.state == "ended", timeout=10_000)
    error = win.run_page.run_error.text()
    assert "interrupted" in error and "budget stays spent" in error and "exited unexpectedly" in error
    assert c.run.status == "interrupted"
    led = Ledger.open()
    assert led.run(c.run.id).status == "interrupted"
    # Write-ahead: every row the window shows was committed before it was sent.
    recorded = led.response_counts(c.run.id)[0]
    assert 0 < win.store.n <= recorded < 300_000
    assert float(led.budget(win.ds.dataset_id).spent_epsilon) > 0  # never refunded


def _same_run_state(win) -> None:
    button, action = win.run_page.run_button, win.act_run
    assert action.isEnabled() == button.isEnabled()
    assert action.toolTip() == button.toolTip()


def test_toolbar_run_action_follows_the_run_button_and_its_reason(qtbot, window, act):
    win = window
    _same_run_state(win)  # no dataset: both disabled
    act.load(qtbot, win, total_epsilon=None)
    # A dataset is open but its total budget is undeclared: the button is disabled, so is Run… (F5).
    assert not win.run_page.run_button.isEnabled()
    _same_run_state(win)
    assert "declare" in win.act_run.toolTip()
    win.run_page.totals.epsilon.setText("10")
    assert win.act_run.isEnabled()
    _same_run_state(win)
    act.set_param(win, "epsilon", "-1")  # an invalid parameter: both disabled, the same reason
    assert not win.act_run.isEnabled() and "ε" in win.act_run.toolTip()
    _same_run_state(win)
    win.act_run.trigger()  # a disabled action does nothing
    assert not win.run_page.confirm.isVisible()
    act.set_param(win, "epsilon", "1")
    win.queries.set_queries(win.queries.queries[:3])
    act.set_param(win, "threshold", "1000000")
    _same_run_state(win)
    act.run_to_end(qtbot, win)  # drained: still live, so neither can start another run
    assert not win.act_run.isEnabled() and "in progress" in win.act_run.toolTip()
    _same_run_state(win)
    qtbot.mouseClick(win.run_page.stop_button, LEFT)
    qtbot.waitUntil(lambda: win.run_model.state == "ended", timeout=10_000)
    assert win.act_run.isEnabled()
    _same_run_state(win)
