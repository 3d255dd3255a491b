"""The window bound to its workspace (issue 15 §2): parameters that stay across mechanisms, a gauge
that shows the current cutoff, Monotonic queries offered when the queue allows it, the plan's
warning about a wide query, and a query that cannot run refused before anything is spent."""

from __future__ import annotations

from svtgui.data.queries import queries_from_json


def test_switching_mechanisms_keeps_what_means_the_same(qtbot, window, act):
    act.load(qtbot, window)
    window.mechanism.picker.select("sparse")
    act.set_param(window, "epsilon", "0.7")
    act.set_param(window, "threshold", "1234")
    act.set_param(window, "cutoff", 6)
    for mid in ("numeric_sparse", "standard_svt", "sparse"):
        window.mechanism.picker.select(mid)
        form = window.mechanism.form.editors
        assert form["epsilon"].text() == "0.7" and form["threshold"].text() == "1234", mid
        assert form["cutoff"].value() == 6, mid


def test_the_gauge_shows_the_cutoff_of_the_current_settings(qtbot, window, act):
    act.load(qtbot, window)
    window.mechanism.picker.select("sparse")
    act.set_param(window, "cutoff", 5)
    assert window.run_page.gauge.cutoff_bar.format() == "⊤ used: 0 of c = 5"
    act.set_param(window, "cutoff", 3)
    assert window.run_page.gauge.cutoff_bar.format() == "⊤ used: 0 of c = 3"
    window.mechanism.picker.select("above_threshold")  # halts at its first ⊤: c = 1, never "no cutoff"
    assert window.run_page.gauge.cutoff_bar.format() == "⊤ used: 0 of c = 1"


def test_monotonic_queries_are_offered_when_the_queue_is_monotonic(qtbot, window, act):
    act.load(qtbot, window)  # the census sample's age-range counts: all monotonic
    window.mechanism.picker.select("standard_svt")
    assert "all monotonic" in window.queries.summary.text()
    mono = window.mechanism.form.editors["monotonic"]
    assert mono.isEnabled() and mono.isChecked()
    assert window.workspace.plan.params["monotonic"] is True
    mono.setChecked(False)  # the curator's choice is kept
    assert window.workspace.plan.params["monotonic"] is False


def test_a_wide_query_in_the_queue_is_said_on_the_mechanism_page(qtbot, window, act):
    act.load(qtbot, window)
    wide = {"kind": "sum", "column": "capital_gain", "lower": 0, "upper": 5000}
    window.queries.add(queries_from_json([wide]))
    window.mechanism.flush()
    warning = window.mechanism.warning
    assert not warning.isHidden() and "Δ = 5,000" in warning.text() and "split" in warning.text()


def test_a_query_comparing_a_number_with_text_disables_run(qtbot, window, act):
    act.load(qtbot, window)
    bad = {"kind": "count", "where": {"column": "age", "op": ">=", "value": "abc"}}
    window.queries.add(queries_from_json([bad]))
    assert not window.run_page.run_button.isEnabled()
    error = window.run_page.run_error.text()
    assert "Queries" in error and "not a number" in error
    assert window.run_presenter.confirm_run() is False


def test_parameter_tooltips_give_advice(qtbot, window, act):
    act.load(qtbot, window)
    window.mechanism.picker.select("sparse")
    tips = {name: editor.toolTip() for name, editor in window.mechanism.form.editors.items()}
    assert "never from this data" in tips["threshold"] and tips["threshold"] != "Public threshold T"
    assert "noise grows with c" in tips["cutoff"] and "more noise" in tips["epsilon"]
    window.mechanism.picker.select("standard_svt")
    mono = window.mechanism.form.editors["monotonic"].toolTip()
    assert mono == "Every query only grows when a row is added: the query noise can be halved."
    window.mechanism.picker.select("pmw")  # PMW's T is an error in rows: its own words, not the advice
    assert "never from this data" not in window.mechanism.form.editors["threshold"].toolTip()
