"""PMW and SparseProject through the window, as a curator would drive them (pytest-qt, offscreen).

Load the census sample, pick the mechanism, choose universe columns, queue count queries, Run,
confirm the spend, wait for the end; then check the table (free/paid), the ledger, the release
file and the "Answer from a release file" dialog (no dataset needed). Bad inputs disable Run and
say why, next to the field at fault.
"""

from __future__ import annotations

import re

import pytest
from PySide6.QtCore import Qt
from session_gui_helpers import wait_rows

from svtgui.app.workspace import RunOptions
from svtgui.core.wording import plain
from svtgui.data import generators
from svtgui.data.evaluate import evaluate
from svtgui.ledger import Ledger
from svtgui.ui.run.live_chart import FREE_LABEL, PAID_LABEL
from svtgui.ui.run.results_model import COL_ANSWER, COL_VALUE, FREE_TEXT, PAID_TEXT
from svtgui.ui.tools.linear_answer import ReleaseAnswerDialog

LEFT = Qt.MouseButton.LeftButton
UNIVERSE = ["age@17,25,35,45,55,65,91", "education", "sex", "income"]


def _choose(qtbot, win, mechanism_id: str, specs: list[str]) -> None:
    win.show_page("mechanism")
    win.mechanism.picker.select(mechanism_id)
    win.mechanism.linear.universe.set_specs(specs)
    win.mechanism.flush()


def _marginals(win) -> list:
    return generators.marginals(win.ds.schema, ["education", "sex", "income"], k=2)


def test_pmw_run_through_the_window(qtbot, window, act):
    act.load(qtbot, window)
    _choose(qtbot, window, "pmw", UNIVERSE)
    uni = window.mechanism.linear.universe
    assert uni.isVisible() and "|X| = 2,016 cells" in uni.size_label.text()
    assert "neighbouring" not in window.mechanism.form.editors  # the schema's, never typed
    for name, value in (("epsilon", 1), ("delta", 0), ("threshold", 1500), ("cutoff", 30)):
        act.set_param(window, name, value)
    # the sample's default queue (age ranges at 80, 86, …) does not fit the bins: Run says why
    assert not window.run_page.run_button.isEnabled()
    assert "cuts a bin" in window.run_page.run_error.text()
    queries = _marginals(window)
    window.queries.set_queries(queries)
    window.workspace.set_options(RunOptions(seed=11))  # reproducible (NOT secure) noise for the test
    preview = window.mechanism.preview.statement.text()
    assert "free answer" in preview and "paid answer" in preview
    assert window.run_page.run_button.isEnabled(), window.run_page.run_error.text()
    act.run_to_end(qtbot, window)
    c = window.run_model
    if c.state == "drained":
        c.stop()
        qtbot.waitUntil(lambda: c.state == "ended", timeout=10_000)
    model = window.run_page.model
    assert model.rowCount() == len(queries)
    badges = [model.index(r, COL_ANSWER).data() for r in range(model.rowCount())]
    assert set(badges) == {FREE_TEXT, PAID_TEXT}
    with Ledger.open() as led:
        run = led.runs()[-1]
        rows = led.responses(run.id)
        assert run.mechanism_id == "pmw" and sorted(run.params["universe"]) == sorted(UNIVERSE)
        assert [r.answered_from_simulation for r in rows] == [b == FREE_TEXT for b in badges]
        n_hat = led.facts(run.id)["n_released"]
    # free rows show the value recorded in the ledger; every value shown is a recorded release
    shown = [model.index(r, COL_VALUE).data() for r in range(model.rowCount())]
    assert all(s for s in shown)
    assert shown == [plain(r.value, 6) for r in rows]  # six significant digits, grouped, no exponent
    note = window.linear_note.text()
    assert window.linear_note.isVisible() and f"n̂ = {n_hat:,}" in note
    _check_pmw_chart(window.run_page.chart, rows)
    # History shows the same released values, free answers' included (they are releases too)
    panel = window.sessions.show_history()
    wait_rows(qtbot, panel)
    history = [panel.rows_model.cell(r, 3) for r in panel.rows_model.rows]
    assert all(history) and [float(h.replace(",", "")) for h in history] == [r.value for r in rows]
    # leak check: no cell of the table equals a true answer where the released value differs from it
    truth = evaluate(window.ds, queries)
    cells = [(r, col) for r in range(model.rowCount()) for col in range(model.columnCount())]
    texts = {model.index(r, col).data() for r, col in cells}
    leaked = [t for t, r in zip(truth, rows, strict=True) if r.value != t and f"{int(t):,}" in texts]
    assert not [t for t in leaked if t > 99]  # small counts may coincide with an index or a value by chance


def _check_pmw_chart(chart, rows) -> None:
    """T bounds a free answer's error, so it is not drawn as a line on the answers' scale; every
    released answer is plotted, paid (▲, blue) and free (○, orange) told apart by symbol and colour."""
    assert not chart.threshold_line.isVisible()
    labels = chart.legend_labels()
    assert PAID_LABEL in labels and FREE_LABEL in labels and "public threshold" not in labels
    assert chart.caption.isVisible() and "T = 1,500 rows" in chart.caption.text()
    assert "error of a free answer" in chart.caption.text()
    paid = [r for r in rows if not r.answered_from_simulation]
    free = [r for r in rows if r.answered_from_simulation]
    assert paid and free
    assert list(chart.xs) == [r.index + 1 for r in paid] and list(chart.ys) == [r.value for r in paid]
    assert list(chart.free_xs) == [r.index + 1 for r in free]
    assert list(chart.free_ys) == [r.value for r in free]
    assert chart.tops.opts["symbol"] != chart.frees.opts["symbol"]
    assert chart.tops.opts["brush"].color() != chart.frees.opts["pen"].color()


def test_sparse_project_release_then_answer_without_data(qtbot, window, act, tmp_path):
    act.load(qtbot, window)
    _choose(qtbot, window, "sparse_project", UNIVERSE)
    act.set_param(window, "epsilon", 1)
    window.run_page.totals.delta.setText("1e-5")  # the dataset's total δ: SparseProject needs δ > 0
    builder = window.mechanism.linear.release
    assert builder.isVisible()
    assert "release" in window.run_page.run_error.text()  # no output file yet: Run disabled, says why
    out = tmp_path / "census.npz"
    builder.path.setText(str(out))
    act.set_param(window, "projection_size", 256)
    assert "the paper's would be" in builder.paper.text() and "256 (yours)" in builder.paper.text()
    window.workspace.set_options(RunOptions(seed=5))
    assert window.run_page.run_button.isEnabled(), window.run_page.run_error.text()
    act.run_to_end(qtbot, window)
    c = window.run_model
    qtbot.waitUntil(lambda: c.state == "ended", timeout=30_000)
    assert out.exists() and window.run_page.model.rowCount() == 0
    assert "Release written to census.npz" in window.linear_note.text()
    with Ledger.open() as led:
        (run,) = [r for r in led.runs() if r.mechanism_id == "sparse_project"]
        assert run.status == "finished" and float(run.epsilon) == 1.0
        runs_before = len(led.runs())
    # Tools ▸ Answer from a release file: no dataset, no ledger entry
    dlg = window.answer_from_release(str(out))
    qtbot.addWidget(dlg)
    assert "projection size 256" in dlg.header.text() and dlg.builder.isEnabled()
    numbers = re.sub(r"\bds-[0-9a-f]+", "", dlg.header.text())  # the dataset's random hex id may hold "1e7"
    assert "T = " not in numbers and not re.search(r"\d[eE][+-]?\d", numbers)  # no number in e-notation
    b = dlg.builder
    b.kind.setCurrentIndex(b.kind.findData("count"))
    b.predicate.rows[0].column.setCurrentText("sex")
    b.predicate.rows[0].value.setText("Female")
    b.submit()
    assert dlg.table.rowCount() == 1, b.error.text()
    fraction = float(dlg.table.item(0, 1).text())
    true = evaluate(window.ds, [b.query()])[0] / window.ds.n_rows
    import numpy as np

    from svtgui.core.mechanisms.sparse_project import ProjectionRelease

    alpha = ProjectionRelease.load(out).header["accuracy"]["alpha"]
    assert abs(fraction - true) < alpha and np.isfinite(fraction)  # holds with probability ≥ 0.95 (seeded)
    with Ledger.open() as led:
        assert len(led.runs()) == runs_before


def test_release_dialog_refuses_a_bad_file_and_changes_nothing(qtbot, tmp_path):
    bad = tmp_path / "x.npz"
    bad.write_bytes(b"not a release")
    dlg = ReleaseAnswerDialog(None)
    qtbot.addWidget(dlg)
    assert not dlg.load(bad)
    assert "not a SparseProject release" in dlg.error.text() and not dlg.builder.isEnabled()
    assert not dlg.load(tmp_path / "missing.npz") and "no such release file" in dlg.error.text()


@pytest.mark.parametrize(("specs", "words"), [
    ([], "choose at least one"),
    (["age@30,20"], "increasing edges"),
])
def test_bad_universe_disables_run_and_says_why(qtbot, window, act, specs, words):
    act.load(qtbot, window)
    _choose(qtbot, window, "pmw", specs)
    for name, value in (("epsilon", 1), ("threshold", 1500)):
        act.set_param(window, name, value)
    window.queries.set_queries(_marginals(window))
    assert not window.run_page.run_button.isEnabled()
    assert words in window.run_page.run_error.text()
    assert words in window.mechanism.linear.universe.error.text()


def test_undeclared_levels_cannot_be_chosen(qtbot, window, act):
    act.load(qtbot, window)
    schema = window.ds.schema.with_categories("occupation", None)
    window.workspace.set_schema(schema)  # declared in the Schema step: the mechanism page follows
    use, _, _ = window.mechanism.linear.universe.rows["occupation"]
    assert not use.isEnabled() and "declare them in the Schema step" in use.toolTip()


def test_sparse_project_needs_no_query_list_and_the_confirmation_names_the_release(qtbot, window, act,
                                                                                     tmp_path):
    act.load(qtbot, window)
    window.queries.set_queries([])  # a release answers queries later: an empty queue is fine
    _choose(qtbot, window, "sparse_project", UNIVERSE)
    act.set_param(window, "epsilon", 1)
    act.set_param(window, "projection_size", 256)
    window.run_page.totals.delta.setText("1e-5")
    out = tmp_path / "empty-queue.npz"
    window.mechanism.linear.release.path.setText(str(out))
    window.workspace.set_options(RunOptions(seed=5))
    page = window.run_page
    assert page.run_button.isEnabled(), page.run_error.text()
    assert "up front" not in page.run_error.text() and "up front" not in page.run_button.toolTip()
    qtbot.mouseClick(page.run_button, LEFT)
    text = page.confirm.text.text()
    assert "planned queries" not in text
    assert "SparseProject release" in text and "2,016 cells" in text and str(out) in text
    assert "later" in text
    qtbot.mouseClick(page.confirm.spend, LEFT)
    c = window.run_model
    qtbot.waitUntil(lambda: c.state == "ended", timeout=30_000)
    assert out.exists() and c.run.status == "finished"
    status = page.status.text()
    assert "Release written" in status and "every planned query" not in status


def test_top_c_selection_still_needs_its_queries(qtbot, window, act):
    act.load(qtbot, window)
    window.show_page("mechanism")
    window.mechanism.picker.select("em_top_c")
    act.set_param(window, "epsilon", 1)
    act.set_param(window, "cutoff", 3)
    window.queries.set_queries([])
    assert not window.run_page.run_button.isEnabled()
    assert "whole query list up front" in window.run_page.run_error.text()
