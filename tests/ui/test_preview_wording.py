"""The Mechanism page's preview as a curator reads it: words that follow what is released, plain
numbers, an exact and monotone P[⊤] curve."""

from __future__ import annotations

import re

import numpy as np

EXPONENT = re.compile(r"\d[eE][+-]?\d")


def _preview(win):
    win.mechanism.flush()
    return win.mechanism.preview


def test_sparse_on_the_census_sample_says_no_numbers_and_draws_an_exact_monotone_curve(qtbot, window, act):
    act.load(qtbot, window)
    window.show_page("mechanism")
    window.mechanism.picker.select("sparse")
    preview = _preview(window)
    text = preview.statement.text()
    assert "no numbers" in text and "released number" not in text
    assert not EXPONENT.search(text) and "queries queued" not in text  # the sample comes with a queue
    x, p = preview.curve_x, preview.curve_p
    assert len(x) > 50 and np.all(np.diff(x) > 0) and np.all(np.diff(p) >= 0)  # smooth: no zig-zag
    assert p[0] < 0.01 and p[-1] > 0.99
    assert "Exact chance" in preview.note.text()


def test_numeric_mechanisms_say_numbers_and_an_empty_queue_says_so(qtbot, window, act):
    act.load(qtbot, window)
    window.show_page("mechanism")
    window.mechanism.picker.select("numeric_sparse")
    assert "released number is within" in _preview(window).statement.text()
    window.workspace.set_queries([])
    text = _preview(window).statement.text()
    assert "no queries queued" in text and "1 queries" not in text


def test_em_has_no_threshold_curve(qtbot, window, act):
    act.load(qtbot, window)
    window.show_page("mechanism")
    window.mechanism.picker.select("em_top_c")
    preview = _preview(window)
    assert "exponential mechanism selects" in preview.statement.text()
    assert len(preview.curve_x) == 0 and "No P[⊤] curve" in preview.note.text()


def test_another_dataset_does_not_inherit_the_samples_threshold(qtbot, window, act, tmp_path):
    act.load(qtbot, window)
    t = window.mechanism.form.editors["threshold"]
    assert t.text() == "21000"  # the census sample's own starting T
    data = tmp_path / "other.csv"
    rows = "".join(f"{20 + i % 50},{i % 60}\n" for i in range(400))
    data.write_text("age,hours\n" + rows, encoding="utf-8")
    first = window.ds
    window.open_path(data)
    qtbot.waitUntil(lambda: window.ds is not None and window.ds is not first, timeout=30_000)
    window.mechanism.flush()
    assert t.text() == "" and "never from the data" in t.placeholderText()
    assert window.workspace.entry("threshold") is None


def test_compare_mechanisms_side_by_side_and_use_one(qtbot, window, act):
    act.load(qtbot, window)
    window.show_page("mechanism")
    window.mechanism.picker.select("sparse")
    dialog = window.mechanism.open_comparison()
    qtbot.addWidget(dialog)
    table = dialog.table
    qtbot.waitExposed(dialog)  # shown at its size: the wrapped rows fit it, none left 100 px tall
    assert sum(table.rowHeight(i) for i in range(table.rowCount())) <= table.viewport().height()
    names = [table.item(i, 0).text() for i in range(table.rowCount())]
    assert names[:2] == ["Sparse", "NumericSparse"] and len(names) == 4
    assert "2,000 queued queries" in dialog.header.text() and "T = 21,000" in dialog.header.text()
    assert table.item(0, 4).text().endswith("%")  # x defaults to T: P[⊤] there
    dialog.x.setText("not a number")
    assert "x must be a number" in dialog.x_error.text() and table.item(0, 4).text() == "type x"
    dialog.x.setText("30000")
    assert table.item(0, 4).text() == "> 99.9%" and table.item(0, 5).text() == "at most 5"
    table.selectRow(2)
    dialog.use.click()
    assert window.workspace.mechanism_id == "standard_svt"
    assert window.mechanism.picker.currentItem() is window.mechanism.picker.items["standard_svt"]


def test_without_a_curve_no_chart_is_left_over(qtbot, window, act):
    """EM has no threshold test and an empty ε gives no preview: the chart then goes, instead of
    showing the last mechanism's T and T ± α lines over an empty plot, and no stale note stays."""
    act.load(qtbot, window)
    window.show_page("mechanism")
    window.mechanism.picker.select("sparse")
    preview = _preview(window)
    assert preview.plot.isVisible()
    window.mechanism.picker.select("em_top_c")
    assert _preview(window).plot.isHidden()
    window.mechanism.picker.select("sparse")
    act.set_param(window, "epsilon", "")
    preview = _preview(window)
    assert preview.statement.text().startswith("No preview") and "empty" in preview.statement.text()
    assert preview.plot.isHidden() and preview.note.text() == ""
    act.set_param(window, "epsilon", "1")
    assert _preview(window).plot.isVisible() and "Exact chance" in preview.note.text()


def test_chart_axes_read_as_plain_numbers(qtbot, window, act):
    act.load(qtbot, window)
    window.show_page("mechanism")
    window.mechanism.picker.select("sparse")
    act.set_param(window, "threshold", "3000000")
    preview = _preview(window)
    axis = preview.plot.getAxis("bottom")
    assert axis.tickStrings([2_999_500.0, 3_000_000.0], 1.0, 500.0) == ["2,999,500", "3,000,000"]
    assert "(x" not in axis.labelString() and not EXPONENT.search(axis.labelString())
    chart_axis = window.run_page.chart.plot.getAxis("bottom")
    assert chart_axis.tickStrings([1_000_000.0], 1.0, 1.0) == ["1,000,000"]  # a long run's query numbers


def test_compare_without_epsilon_or_t_says_what_to_type(qtbot, window, act, tmp_path):
    data = tmp_path / "ages.csv"
    data.write_text("age\n" + "".join(f"{20 + i % 50}\n" for i in range(200)), encoding="utf-8")
    window.open_path(data)
    qtbot.waitUntil(lambda: window.ds is not None, timeout=30_000)
    act.set_param(window, "epsilon", "")
    dialog = window.mechanism.open_comparison()
    qtbot.addWidget(dialog)
    notes = [dialog.table.item(i, 6).text() for i in range(dialog.table.rowCount())]
    assert notes[:3] == ["type ε and T on the Mechanism page"] * 3  # not "sparse needs parameter 'epsilon'"
    assert notes[3] == "type ε on the Mechanism page"  # EM has no threshold


def test_over_the_budget_the_preview_stays_and_says_why(qtbot, window, act):
    """ε beyond what the dataset has left: the preview still shows what that ε buys, with the reason
    the run cannot start (it used to vanish; issue 24 §5)."""
    from svtgui.app import dataset_identity

    act.load(qtbot, window)
    dataset_identity.register(window.run_model.ledger, window.ds, "0.5")
    window.run_model.refresh_budget()
    window.show_page("mechanism")
    window.mechanism.picker.select("sparse")
    act.set_param(window, "epsilon", "1")
    preview = _preview(window)
    assert preview.curve_x.size > 0 and not preview.statement.text().startswith("No preview")
    assert "Cannot run as it stands" in preview.note.text() and "does not fit" in preview.note.text()
    act.set_param(window, "epsilon", "0.25")
    assert "Cannot run" not in _preview(window).note.text()
