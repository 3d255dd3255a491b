"""The window's parts on their own: settings, stores and models, actions, picker, queue, schema editor."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDropEvent
from PySide6.QtWidgets import QAbstractButton

from svtgui.core import mechanisms
from svtgui.data.queries import RangeCount
from svtgui.ui.common.settings import MAX_RECENT, Settings
from svtgui.ui.run.live_chart import FREE_LABEL, LiveChart
from svtgui.ui.setup.frame_model import FrameModel
from svtgui.ui.setup.mechanism_panel import offered


def test_settings_are_typed_isolated_and_persistent(tmp_path, monkeypatch, qapp):
    monkeypatch.setenv("SVTGUI_CONFIG_DIR", str(tmp_path / "cfg"))
    s = Settings()
    assert s.location.startswith(str(tmp_path / "cfg"))
    assert s.recent_files == [] and s.last_mechanism is None and s.last_params("sparse") == {}
    for i in range(MAX_RECENT + 3):
        s.add_recent_file(tmp_path / f"f{i}.csv")
    s.add_recent_file(tmp_path / "f5.csv")  # re-opening moves it to the front, no duplicate
    files = s.recent_files
    assert len(files) == MAX_RECENT and files[0].endswith("f5.csv") and len(set(files)) == MAX_RECENT
    s.remove_recent_file(tmp_path / "f5.csv")
    s.last_mechanism = "standard_svt"
    s.set_last_params("standard_svt", {"epsilon": 0.5, "cutoff": 3})
    s.sync()
    again = Settings()
    assert again.last_mechanism == "standard_svt"
    assert again.last_params("standard_svt") == {"epsilon": 0.5, "cutoff": 3}
    assert not any(f.endswith("f5.csv") for f in again.recent_files)


def test_last_parameters_come_back_in_a_new_window(qtbot, window, act):
    act.load(qtbot, window)
    window.mechanism.picker.select("numeric_sparse")
    act.set_param(window, "epsilon", "0.25")
    act.set_param(window, "cutoff", 7)
    window.close()
    from svtgui.ui.main_window import MainWindow

    second = MainWindow()
    qtbot.addWidget(second)
    assert second.mechanism.mechanism_id == "numeric_sparse"
    assert second.mechanism.form.editors["epsilon"].text() == "0.25"
    assert second.mechanism.form.editors["cutoff"].value() == 7


def test_chart_switches_between_a_threshold_line_and_pmw_free_paid(qapp):
    chart = LiveChart()
    chart.set_pmw(1500)
    assert not chart.threshold_line.isVisible() and chart.caption.isVisibleTo(chart)
    assert FREE_LABEL in chart.legend_labels() and "public threshold" not in chart.legend_labels()
    chart.set_threshold(40.0)  # the next run is an ordinary SVT run: T is a line again
    assert chart.threshold_line.isVisible() and not chart.caption.isVisibleTo(chart)
    assert FREE_LABEL not in chart.legend_labels() and "public threshold" in chart.legend_labels()
    chart.update_from(np.array([4]), np.array([90.0]), 10, np.empty(0, np.int64), np.empty(0))
    lo, hi = chart.plot.getViewBox().viewRange()[1]
    assert lo < 40.0 < 90.0 < hi  # the y range holds T and the ⊤


def test_frame_model_is_virtual_over_a_million_rows(qapp):
    n = 1_000_000
    frame = pd.DataFrame({"x": np.arange(n, dtype=np.int64), "y": np.linspace(0, 1, n)})
    model = FrameModel(frame)
    assert model.rowCount() == n and model.columnCount() == 2
    assert model.data(model.index(n - 1, 0)) == str(n - 1)
    assert model.headerData(n - 1, Qt.Orientation.Vertical) == f"{n:,}"
    # The model reads the frame's own memory: no per-row objects, no copy.
    assert np.shares_memory(model._columns[0], frame["x"].to_numpy())


def test_every_action_has_a_shortcut_and_a_tooltip_and_buttons_have_names(window):
    actions = [a for a in window.actions() if a.text()]
    assert len(actions) > 15
    for a in actions:
        assert not a.shortcut().isEmpty(), a.text()
        assert a.toolTip() and a.toolTip() != a.text().replace("&", ""), a.text()
    for b in window.findChildren(QAbstractButton):
        if b.isVisibleTo(window) and b.text():
            assert b.accessibleName(), b.text()


def test_only_private_mechanisms_are_offered_grouped_by_setting(window):
    ids = set(window.mechanism.picker.items)
    private = {m.id for m in mechanisms.catalog() if m.status == mechanisms.PRIVATE}
    assert ids == private == {m.id for m in offered()}
    assert "lecture_sparse_2011" not in ids
    picker = window.mechanism.picker
    interactive, batch = picker.topLevelItem(0), picker.topLevelItem(1)
    for group, flag in ((interactive, True), (batch, False)):
        for i in range(group.childCount()):
            mid = group.child(i).data(0, Qt.ItemDataRole.UserRole)
            assert mechanisms.info(mid).interactive is flag
    picker.select("em_top_c")
    assert "c largest" in window.mechanism.summary.text()
    assert "McSherry" in window.mechanism.citation.text()


def test_queue_builds_reorders_and_round_trips_json(qtbot, window, act, tmp_path):
    act.load(qtbot, window)
    page = window.queries
    page.set_queries([])
    b = page.builder
    b.kind.setCurrentIndex(b.kind.findData("range"))
    b.range_col.setCurrentText("age")
    b.range_low.setText("20")
    b.range_high.setText("30")
    qtbot.mouseClick(b.action, Qt.MouseButton.LeftButton)
    b.kind.setCurrentIndex(b.kind.findData("sum"))
    b.sum_col.setCurrentText("hours_per_week")
    qtbot.mouseClick(b.action, Qt.MouseButton.LeftButton)
    assert [q.kind for q in page.queries] == ["range", "sum"]
    assert page.queries[0] == RangeCount("age", 20.0, 30.0)
    page.list.setCurrentIndex(page.model.index(1))
    qtbot.mouseClick(page.up, Qt.MouseButton.LeftButton)
    assert [q.kind for q in page.queries] == ["sum", "range"]
    out = tmp_path / "q.json"
    assert page.export_json(out)
    doc = json.loads(out.read_text())
    assert [q["kind"] for q in doc["queries"]] == ["sum", "range"]
    page.set_queries([])
    assert page.import_json(out) and [q.kind for q in page.queries] == ["sum", "range"]
    bad = tmp_path / "bad.json"
    bad.write_text(
        '{"format": "svtgui-queries", "version": 1, "queries": [{"kind": "range", "column": "nope", '
        '"low": 1, "high": 2}]}'
    )
    assert not page.import_json(bad)
    assert "nope" in page.error.text() and "bad.json" in page.error.text()
    assert [q.kind for q in page.queries] == ["sum", "range"]  # a bad file changes nothing


def test_schema_editor_warns_about_missing_bounds(qtbot, window, act):
    act.load(qtbot, window)
    window.show_page("schema")
    ed = window.schema_editor
    assert not ed.warning.isVisible()  # the sample declares every numeric bound
    row = ed.schema.names.index("capital_gain")
    ed.table.item(row, 3).setText("")
    ed.table.item(row, 2).setText("")
    assert ed.warning.isVisible() and "capital_gain" in ed.warning.text()
    assert not window.ds.schema.column("capital_gain").bounded
    ed.table.item(row, 2).setText("abc")  # the first thing said is what is wrong with what was typed
    assert ed.error.isVisible() and "must be a number" in ed.error.text()
    assert "type both" not in ed.error.text()
    ed.table.item(row, 2).setText("5")
    assert "type both" in ed.error.text()  # then what is missing
    ed.table.item(row, 2).setText("abc")
    ed.table.item(row, 3).setText("100000")
    assert "must be a number" in ed.error.text()
    ed.table.item(row, 2).setText("0")
    assert not ed.error.isVisible()
    assert window.ds.schema.column("capital_gain").bounds() == (0.0, 100000.0)
    assert not ed.warning.isVisible()


def test_generator_dialog_reports_bad_input_next_to_it(qtbot, window, act):
    act.load(qtbot, window)
    dlg = window.generate_queries()
    dlg.select("Range sweep")
    dlg.fields["rs_width"].setText("-5")
    before = len(window.queries.queries)
    qtbot.mouseClick(dlg.buttons.button(dlg.buttons.StandardButton.Ok), Qt.MouseButton.LeftButton)
    qtbot.waitUntil(dlg.error.isVisible, timeout=10_000)  # the list is built as a background task
    assert dlg.isVisible() and "width" in dlg.error.text()
    assert len(window.queries.queries) == before
    dlg.reject()


def test_dropping_a_file_opens_it(qtbot, window, tmp_path):
    path = tmp_path / "toy.csv"
    path.write_text("a,b\n1,x\n2,y\n3,z\n")
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(path))])
    event = QDropEvent(
        QPointF(10, 10),
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    window.dropEvent(event)
    qtbot.waitUntil(lambda: window.ds is not None, timeout=10_000)
    assert window.ds.n_rows == 3
    assert window.settings.recent_files[0] == str(path.resolve())
    assert window.start.recent.item(0).data(Qt.ItemDataRole.UserRole) == str(path.resolve())


def test_cancelling_a_long_load_keeps_nothing(qtbot, window, tmp_path):
    path = tmp_path / "big.csv"
    n = 400_000
    pd.DataFrame({"a": np.arange(n), "b": np.arange(n) % 7}).to_csv(path, index=False)
    window.open_path(path)
    assert window.dataset_panel.progress_box.isVisible()
    window.dataset_panel.cancel.click()
    qtbot.waitUntil(lambda: not window.dataset_panel.progress_box.isVisible(), timeout=20_000)
    assert window.ds is None
    assert "cancelled" in window.status_label.text()


@pytest.mark.parametrize("page", ["start", "run"])
def test_screenshot_command_writes_a_png(tmp_path, qapp, page):
    from PySide6.QtGui import QImage

    from svtgui.__main__ import main

    out = tmp_path / f"{page}.png"
    args = ["--screenshot", str(out), "--page", page] + (["--run"] if page == "run" else [])
    assert main(args) == 0
    img = QImage(str(out))
    assert img.width() >= 1000 and img.height() >= 600
    # Not a blank image: antialiased text alone gives dozens of shades (a blank window has 1–5).
    colours = {img.pixel(x, y) for x in range(0, img.width(), 3) for y in range(0, img.height(), 3)}
    assert len(colours) > 20


def test_file_open_starts_in_the_folder_of_the_last_file(qtbot, window, tmp_path, monkeypatch):
    """Not the folder the program was started from (issue 24 §5); a folder since removed is skipped."""
    from PySide6.QtWidgets import QFileDialog

    data, gone = tmp_path / "data", tmp_path / "gone"
    data.mkdir()
    window.settings.add_recent_file(data / "adult.csv")
    window.settings.add_recent_file(gone / "old.csv")  # the newest, but its folder no longer exists
    seen = []
    monkeypatch.setattr(QFileDialog, "getOpenFileName",
                        staticmethod(lambda parent, title, start, filters: (seen.append(start), ("", ""))[1]))
    window.open_file()
    assert seen == [str(data)]


def test_the_schema_page_summarises_missing_values(qtbot):
    """How many rows lack a value, per column, on the Schema page (issue 24 §5): by the engines' own
    definition of a missing cell (empty, NA, NaN), shown only where there are some."""
    import numpy as np
    import pandas as pd

    from svtgui.data import Dataset
    from svtgui.ui.setup.schema_editor import COL_STATUS, SchemaEditor

    frame = pd.DataFrame({"age": [30.0, np.nan, 41.0, np.nan], "job": ["a", None, "b", "c"],
                          "full": [1, 2, 3, 4]})
    ds = Dataset.from_frame(frame, name="gaps")
    editor = SchemaEditor()
    qtbot.addWidget(editor)
    editor.set_schema(ds.schema, ds.n_rows, ds)
    status = {editor.table.item(r, 0).text(): editor.table.item(r, COL_STATUS).text()
              for r in range(editor.table.rowCount())}
    assert status["age"].endswith("2 missing (50.0%)") and status["job"].endswith("1 missing (25.0%)")
    assert "missing" not in status["full"]


def test_keyboard_focus_is_visible_on_the_queue(qtbot, window, act):
    """Fusion drew the focused queue's frame like an unfocused one (issue 24 §5): it is marked in the
    highlight colour when Tab reaches it."""
    act.load(qtbot, window)
    window.show_page("queries")
    window.activateWindow()
    qtbot.waitActive(window)
    queue, other = window.queries.list, window.queries.clear
    other.setFocus()
    qtbot.waitUntil(other.hasFocus)
    unfocused = queue.grab().toImage().pixelColor(0, 0)
    queue.setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.waitUntil(queue.hasFocus)
    focused = queue.grab().toImage().pixelColor(0, 0)
    highlight = queue.palette().color(queue.palette().ColorRole.Highlight)
    assert focused == highlight and unfocused != highlight
