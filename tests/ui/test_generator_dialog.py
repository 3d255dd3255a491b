"""Generate queries…: defaults from declared bounds, errors that clear, long lists with progress, Cancel."""

from __future__ import annotations

from PySide6.QtCore import Qt

LEFT = Qt.MouseButton.LeftButton


def _ok(dlg):
    return dlg.buttons.button(dlg.buttons.StandardButton.Ok)


def test_defaults_follow_the_selected_columns_declared_bounds(qtbot, window, act):
    act.load(qtbot, window)
    dlg = window.generate_queries()
    f = dlg.fields
    assert (f["rr_low"].text(), f["rr_high"].text()) == ("17", "90")
    f["rr_col"].setCurrentText("hours_per_week")
    assert (f["rr_low"].text(), f["rr_high"].text()) == ("1", "99")
    # the clip-bound sweep starts from the declared bound, not the notebook's 1 … 150000 step 5
    f["cb_col"].setCurrentText("age")
    stop, step = float(f["cb_stop"].text()), float(f["cb_step"].text())
    assert 90 < stop < 150_000 and step == 1
    f["cb_col"].setCurrentText("capital_gain")
    assert float(f["cb_stop"].text()) > 99_999 and float(f["cb_step"].text()) > 1
    dlg.reject()


def test_random_ranges_can_count_the_declared_upper_bound(qtbot, window, act):
    act.load(qtbot, window)
    dlg = window.generate_queries()
    dlg.select("Random ranges")
    dlg.fields["rr_k"].setValue(2000)
    queries = dlg.queries()
    assert max(q.high for q in queries) == 91  # [a, 91): age 90 is counted
    dlg.reject()


def test_an_error_clears_when_its_input_is_edited(qtbot, window, act):
    act.load(qtbot, window)
    dlg = window.generate_queries()
    dlg.select("Range sweep")
    dlg.fields["rs_width"].setText("abc")
    qtbot.mouseClick(_ok(dlg), LEFT)
    assert dlg.error.isVisible() and "width" in dlg.error.text().lower()
    dlg.fields["rs_width"].setText("5")
    assert not dlg.error.isVisible()
    dlg.fields["rs_width"].setText("abc")
    qtbot.mouseClick(_ok(dlg), LEFT)
    dlg.select("Random ranges")
    assert not dlg.error.isVisible()
    dlg.reject()


def test_a_long_list_shows_progress_and_can_be_cancelled_without_adding_anything(qtbot, window, act):
    act.load(qtbot, window)
    before = len(window.queries.queries)
    dlg = window.generate_queries()
    dlg.select("Random ranges")
    dlg.fields["rr_k"].setValue(2_000_000)
    qtbot.mouseClick(_ok(dlg), LEFT)
    assert dlg.progress.isVisible() and dlg.cancel_button.isVisible() and not _ok(dlg).isEnabled()
    qtbot.waitUntil(lambda: dlg.progress.maximum() == 1000 and dlg.progress.value() > 0, timeout=60_000)
    qtbot.mouseClick(dlg.cancel_button, LEFT)
    qtbot.waitUntil(dlg.error.isVisible, timeout=60_000)
    assert "cancelled" in dlg.error.text() and dlg.isVisible() and _ok(dlg).isEnabled()
    assert not dlg.progress.isVisible() and len(window.queries.queries) == before
    dlg.fields["rr_k"].setValue(500)
    qtbot.mouseClick(_ok(dlg), LEFT)
    qtbot.waitUntil(lambda: not dlg.isVisible(), timeout=30_000)
    assert len(window.queries.queries) == before + 500


def test_a_column_without_declared_levels_says_where_to_declare_them(qtbot, window, tmp_path):
    from svtgui.data.schema import ColumnKind

    data = tmp_path / "jobs.csv"
    data.write_text("job,age\n" + "".join(f"{j},{30 + i}\n" for i, j in enumerate("abcab")), encoding="utf-8")
    window.open_path(data)
    qtbot.waitUntil(lambda: window.ds is not None, timeout=30_000)
    job = window.ds.schema.column("job")
    assert job.kind == ColumnKind.CATEGORICAL and not job.categories
    dlg = window.generate_queries()
    dlg.select("Every value")
    qtbot.mouseClick(_ok(dlg), LEFT)
    said = dlg.error.text()  # the window's way to declare them, not the CLI's "pass the values explicitly"
    assert "no declared levels" in said and "Schema page" in said and "explicitly" not in said
    dlg.reject()
