"""The curator's whole workflow, driven through the widgets as a user would."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt

from svtgui.ledger import Ledger
from svtgui.ui.run.results_model import COL_ANSWER, COL_QUERY, COL_VALUE

LEFT = Qt.MouseButton.LeftButton


def generate_random_ranges(qtbot, win, k: int) -> None:
    dlg = win.generate_queries()
    dlg.select("Random ranges")
    dlg.fields["rr_k"].setValue(k)
    qtbot.mouseClick(dlg.buttons.button(dlg.buttons.StandardButton.Ok), LEFT)
    qtbot.waitUntil(lambda: not dlg.isVisible() or dlg.error.isVisible(), timeout=30_000)  # built off-thread
    assert not dlg.isVisible(), dlg.error.text()


def test_sparse_session_of_10000_queries_halts_at_c(qtbot, window, act):
    win = window
    act.load(qtbot, win)
    assert win.ds.n_rows == 30_000
    win.mechanism.picker.select("sparse")
    win.queries.set_queries([])  # replace the sample's default list with a generated one
    generate_random_ranges(qtbot, win, 10_000)
    assert len(win.queries.queries) == 10_000
    act.set_param(win, "epsilon", "1")
    act.set_param(win, "threshold", "20000")
    act.set_param(win, "cutoff", 4)
    assert win.run_page.run_button.isEnabled(), win.run_page.run_error.text()
    act.run_to_end(qtbot, win)

    c, store = win.run_model, win.store
    assert c.state == "ended" and c.run.status == "halted"
    assert store.n_tops == 4
    assert store.n < 10_000  # halted before the end of the stream
    # Badges: the table shows ⊤/⊥ with symbol and word, and ⊥ rows never show a value.
    model = win.run_page.model
    assert model.rowCount() == store.n
    answers = [model.data(model.index(r, COL_ANSWER)) for r in range(model.rowCount())]
    assert sum("⊤" in a for a in answers) == 4
    assert all(a in ("▲ ⊤ above", "▽ ⊥ below") for a in answers)
    assert all(
        model.data(model.index(r, COL_VALUE)) == "" for r in range(model.rowCount()) if "⊥" in answers[r]
    )
    assert model.data(model.index(0, COL_QUERY)) == win.queries.queries[0].describe()
    # The last answer is the c-th ⊤ (the run halts right after it).
    assert "⊤" in answers[-1]
    # Gauge: ⊤ used of c, ⊥ counted as free, dataset budget spent 1 of 10.
    gauge = win.run_page.gauge
    assert gauge.cutoff_bar.value() == 4 and gauge.cutoff_bar.maximum() == 4
    assert f"⊥ {store.n - 4:,}" in gauge.free_label.text() and "free" in gauge.free_label.text()
    assert "spent 1 of 10" in gauge.dataset_bar.format()
    # Chart: one ⊤ mark per ⊤ answer, at its query number, on the threshold (Sparse releases no number).
    top_rows = np.flatnonzero(store.above[: store.n])
    np.testing.assert_array_equal(win.run_page.chart.xs, store.index[top_rows] + 1)
    np.testing.assert_array_equal(win.run_page.chart.ys, np.full(4, 20000.0))
    assert win.run_page.chart.threshold_line.value() == 20000.0
    assert win.run_page.chart.threshold_line.label.toPlainText() == "T = 20,000"  # grouped, never 2e+04
    # Everything shown is in the ledger, with the same outcomes.
    led = Ledger.open()
    rows = led.responses(c.run.id)
    assert len(rows) == store.n
    assert [r.above for r in rows] == list(store.above[: store.n])
    assert led.run(c.run.id).status == "halted"
    # "Only ⊤" filter.
    win.run_page.only_above.setChecked(True)
    assert model.rowCount() == 4
    assert all("⊤" in model.data(model.index(r, COL_ANSWER)) for r in range(4))


def barrier(qtbot, model) -> None:
    """Wait until the run process has handled every message sent so far and the window has taken
    everything it sent before (its ``sync`` barrier, echoed in order): an event, not a delay."""
    worker = model.worker
    token = worker.sync()
    qtbot.waitUntil(lambda: worker.synced >= token, timeout=30_000)


def test_pause_step_stop(qtbot, window, act):
    win = window
    clock = ClockWithPauses()  # the run page's clock of running time: a pause can last an hour at once
    win.run_model.clock = clock
    act.load(qtbot, win)
    q = win.queries.queries[0]
    win.queries.set_queries([q] * 300_000)  # one cheap query repeated: a long stream that never halts
    act.set_param(win, "threshold", "1000000")
    c, store = win.run_model, win.store
    win.show_page("run")
    qtbot.mouseClick(win.run_page.run_button, LEFT)
    qtbot.mouseClick(win.run_page.confirm.spend, LEFT)
    qtbot.mouseClick(win.run_page.pause_button, LEFT)
    assert c.state == "paused"
    assert win.run_page.pause_button.text() == "Resume"
    clock.skip(3600.0)  # an hour's pause is not running time
    barrier(qtbot, c)  # batches already answered (at most one being computed + those in flight) land
    before = store.n
    barrier(qtbot, c)  # the process went round its loop again, paused: it answered nothing meanwhile
    assert store.n == before
    assert before < 300_000
    qtbot.mouseClick(win.run_page.step_button, LEFT)
    qtbot.waitUntil(lambda: store.n == before + 1, timeout=30_000)
    barrier(qtbot, c)
    assert store.n == before + 1  # exactly one
    qtbot.mouseClick(win.run_page.pause_button, LEFT)  # resume
    assert c.state == "running"
    qtbot.mouseClick(win.run_page.stop_button, LEFT)
    qtbot.waitUntil(lambda: c.state == "ended", timeout=30_000)
    assert c.run.status == "stopped"
    assert Ledger.open().run(c.run.id).status == "stopped"
    status = win.run_page.status.text()
    assert f"Stopped by you after {store.n:,} of 300,000 planned queries" in status
    assert "(pauses left out)" in status and c.elapsed < 3600.0
    assert store.n < 300_000


class ClockWithPauses:
    """time.perf_counter, plus however many seconds a test says have passed."""

    def __init__(self) -> None:
        import time

        self.real, self.skipped = time.perf_counter, 0.0

    def __call__(self) -> float:
        return self.real() + self.skipped

    def skip(self, seconds: float) -> None:
        self.skipped += seconds


def test_adaptive_query_after_seeing_answers(qtbot, window, act):
    win = window
    act.load(qtbot, win)
    win.queries.set_queries(win.queries.queries[:5])
    act.set_param(win, "threshold", "1000000")
    act.run_to_end(qtbot, win)
    c = win.run_model
    assert c.state == "drained"  # planned queries done, the run stays open for adaptive ones
    assert "Ask another query" in win.run_page.status.text()
    ask = win.run_page.ask
    ask.kind.setCurrentIndex(ask.kind.findData("count"))
    row = ask.predicate.rows[0]
    row.column.setCurrentText("age")
    row.op.setCurrentIndex(row.op.findData(">="))
    row.value.setText("40")
    assert ask.action.isEnabled()
    qtbot.mouseClick(ask.action, LEFT)
    qtbot.waitUntil(lambda: win.store.n == 6, timeout=30_000)
    win.run_presenter.refresh()
    text = win.run_page.model.data(win.run_page.model.index(5, COL_QUERY))
    assert text == "(adaptive) count of rows where age ≥ 40"
    # A query that does not fit the run (Δ above the run's Δ = 1) is refused next to the line.
    ask.kind.setCurrentIndex(ask.kind.findData("sum"))
    ask.sum_col.setCurrentText("age")
    qtbot.mouseClick(ask.action, LEFT)
    qtbot.waitUntil(ask.error.isVisible, timeout=30_000)
    assert "sensitivity" in ask.error.text()
    assert win.store.n == 6
    qtbot.mouseClick(win.run_page.stop_button, LEFT)
    qtbot.waitUntil(lambda: c.state == "ended", timeout=30_000)
    assert c.run.status == "finished"


def test_bad_file_shows_error_next_to_dataset(qtbot, window, tmp_path):
    bad = tmp_path / "empty.csv"
    bad.write_bytes(b"")
    window.open_path(bad)
    qtbot.waitUntil(window.dataset_panel.error.isVisible, timeout=10_000)
    assert "empty.csv" in window.dataset_panel.error.text()
    assert window.ds is None
    assert str(bad) not in window.settings.recent_files
    assert not window.run_page.run_button.isEnabled()


@pytest.mark.parametrize(
    "text, words", [("-1", "≥ 0"), ("abc", "must be a number"), ("0", "> 0"), ("", "empty")]
)
def test_invalid_epsilon_disables_run_and_says_why(qtbot, window, act, text, words):
    act.load(qtbot, window)
    act.set_param(window, "epsilon", text)
    err = window.mechanism.form.errors["epsilon"]
    assert err.isVisible() and words in err.full_text()
    assert not window.run_page.run_button.isEnabled()
    said = window.run_page.run_error.text()
    assert "ε" in said and said.count("Privacy budget ε") <= 1, said  # the field named once
    act.set_param(window, "epsilon", "0.5")
    assert not err.isVisible()
    assert window.run_page.run_button.isEnabled()


def test_overspend_is_refused_and_charges_nothing(qtbot, window, act):
    win = window
    act.load(qtbot, win)
    win.queries.set_queries(win.queries.queries[:20])
    win.run_page.totals.epsilon.setText("1.5")
    act.set_param(win, "epsilon", "1")
    act.run_to_end(qtbot, win)
    if win.run_model.state == "drained":
        qtbot.mouseClick(win.run_page.stop_button, LEFT)
        qtbot.waitUntil(lambda: win.run_model.state == "ended", timeout=30_000)
    led = Ledger.open()
    assert len(led.runs()) == 1
    assert win.run_page.totals.epsilon.isReadOnly()  # recorded in the ledger: raise only, never retype
    # A second run of ε = 1 would spend 2 > 1.5: Run is disabled and the ε field says why.
    assert not win.run_page.run_button.isEnabled()
    assert "does not fit" in win.run_page.run_error.text()
    win.show_page("mechanism")
    assert win.mechanism.form.errors["epsilon"].isVisible()
    assert "remains" in win.mechanism.form.errors["epsilon"].full_text()
    # Forcing the spend anyway (the keyboard path) is refused too, and nothing is charged.
    win.show_page("run")
    assert win.run_presenter.confirm_run() is False
    assert win.run_model.state == "ended"
    assert "does not fit" in win.run_page.run_error.text()
    assert len(Ledger.open().runs()) == 1
    assert float(Ledger.open().budget(win.ds.dataset_id).spent_epsilon) == 1.0
    # A smaller ε that fits is accepted again.
    act.set_param(win, "epsilon", "0.5")
    assert win.run_page.run_button.isEnabled(), win.run_page.run_error.text()


def test_a_run_ending_at_its_first_answer_says_1_answer(qtbot, window, act):
    act.load(qtbot, window)
    window.queries.set_queries(window.queries.queries[:5])
    window.mechanism.picker.select("above_threshold")
    act.set_param(window, "threshold", "-1000000")  # every count is far above: ⊤ at once (P[⊥] < e^-1000)
    act.run_to_end(qtbot, window)
    status = window.run_page.status.text()
    assert status.startswith("Halted: the cutoff c was reached — 1 answer, 1 ⊤ (c = 1); running time"), status


def test_a_run_with_nothing_queued_says_so_before_and_after(qtbot, window, act):
    """The baskets sample comes without a queue: an interactive run then takes only adaptive queries,
    and no sentence speaks of "0 planned queries" or "every planned query was answered"."""
    act.load(qtbot, window, "baskets")
    assert window.queries.queries == []
    window.show_page("run")
    qtbot.mouseClick(window.run_page.run_button, LEFT)
    said = window.run_page.confirm.text.text()
    assert "with no queries queued" in said and "0 planned" not in said
    qtbot.mouseClick(window.run_page.confirm.spend, LEFT)
    c = window.run_model
    qtbot.waitUntil(lambda: c.state == "drained", timeout=30_000)
    assert window.run_page.status.text().startswith("No queries were queued: ask one below")
    qtbot.mouseClick(window.run_page.stop_button, LEFT)
    qtbot.waitUntil(lambda: c.state == "ended", timeout=30_000)
    status = window.run_page.status.text()
    assert status.startswith("Stopped by you — no query was asked") and "planned" not in status
