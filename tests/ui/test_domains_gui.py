"""Issue 21 §4 in the window: provenance shown where domains are chosen, the release refused until
the curator allows it (with a confirmation), reminders at Generate, the spend confirmation, History
and export; the builder's pick list of declared levels refuses a value outside them."""

from __future__ import annotations

from PySide6.QtCore import Qt
from session_gui_helpers import answer_dialog, wait_export

from svtgui.app.domains import recorded
from svtgui.app.project_file import Session, load, save
from svtgui.data import generators, provenance

LEFT = Qt.MouseButton.LeftButton


def test_the_builder_offers_declared_levels_and_refuses_a_typo(qtbot, window, act):
    act.load(qtbot, window)
    window.show_page("queries")
    builder = window.queries.builder
    row = builder.predicate.rows[0]
    row.column.setCurrentText("sex")
    assert row.levels.isVisible()
    assert [row.levels.itemText(i) for i in range(1, row.levels.count())] == ["Female", "Male"]
    row.value.setText("female")  # a typo: would count nothing and still spend budget
    got = []
    builder.submitted.connect(got.append)
    qtbot.mouseClick(builder.action, LEFT)
    assert got == [] and "'female' is not a declared level of column 'sex'" in builder.error.text()
    row.value.clear()
    row.levels.activated.emit(1)  # picked from the list
    assert row.value.text() == "Female"
    qtbot.mouseClick(builder.action, LEFT)
    assert len(got) == 1 and got[0].where.value == "Female"
    row.column.setCurrentText("age")  # a numeric column has no levels to pick
    assert not row.levels.isVisible()


def test_a_list_from_levels_read_from_the_data_is_refused_until_allowed(qtbot, window, act, monkeypatch,
                                                                        tmp_path):
    act.load(qtbot, window)
    ws = window.workspace
    levels = [str(v) for v in generators.observed_values(ws.dataset, "occupation")]
    # the levels dialog's "read the levels that occur": the schema carries the mark
    window.workspace.set_schema(ws.schema.with_categories("occupation", levels, from_data=True))
    dlg = window.generate_queries()
    dlg.select("Every value")
    dlg.fields["ev_col"].setCurrentText("occupation")
    assert dlg.reminder.isVisible()
    assert "the levels of column 'occupation' in the schema" in dlg.reminder.text()
    dlg.fields["ev_col"].setCurrentText("sex")  # declared from the codebook: no reminder
    assert not dlg.reminder.isVisible()
    dlg.fields["ev_col"].setCurrentText("occupation")
    qtbot.mouseClick(dlg.buttons.button(dlg.buttons.StandardButton.Ok), LEFT)
    qtbot.waitUntil(lambda: not dlg.isVisible(), timeout=10_000)
    note = provenance.levels_note("occupation")
    assert note in ws.queries_from_data
    box = window.queries.domains
    window.show_page("queries")
    assert box.isVisible() and "occupation" in box.notes.text()
    assert ws.plan.by_field().get("domains")
    window.show_page("run")
    assert not window.run_page.run_button.isEnabled()
    assert "read from the private data" in window.run_page.run_error.text()
    # the override asks first; Cancel changes nothing
    window.show_page("queries")
    qtbot.mouseClick(box.allow, LEFT)
    assert box.confirm.isVisible() and not ws.allow_from_data
    qtbot.mouseClick(box.cancel, LEFT)
    assert not ws.allow_from_data and not box.allow.isChecked()
    qtbot.mouseClick(box.allow, LEFT)
    qtbot.mouseClick(box.confirm, LEFT)
    assert ws.allow_from_data and box.allow.isChecked() and ws.plan.ok
    window.show_page("run")
    qtbot.mouseClick(window.run_page.run_button, LEFT)
    assert "NOT differentially private" in window.run_page.confirm.text.text()  # at the spend
    qtbot.mouseClick(window.run_page.confirm.spend, LEFT)
    qtbot.waitUntil(lambda: window.run_model.state in ("ended", "drained"), timeout=60_000)
    led = window.run_model.ledger
    run = led.runs(ws.dataset.dataset_id)[-1]
    assert note in recorded(led.declarations(run.id))
    window.sessions.act_history.trigger()
    runs = window.sessions.history.runs_model
    noise = runs.data(runs.index(runs.rowCount() - 1, runs.NOISE))
    assert "NOT DP: domains read from the data" in noise
    # at export: the notice repeats that the release is NOT differentially private
    answer_dialog(monkeypatch, "getSaveFileName", tmp_path / "release.html", "")
    window.sessions.act_export_release.trigger()
    wait_export(qtbot, window)
    notice = window.sessions.notice
    assert notice.ok and "NOT differentially private" in notice.informativeText()


def test_a_saved_session_reopens_with_its_provenance(qtbot, window, act, tmp_path):
    act.load(qtbot, window)
    ws = window.workspace
    window.queries.clear.click()  # the sample's own queue
    window.queries.add(generators.every_value(ws.schema, "sex"), (provenance.values_note("sex"),))
    assert ws.queries_from_data == (provenance.values_note("sex"),)
    session, _ = Session.from_workspace(ws)
    path = save(session, tmp_path / "s")
    assert load(path).domains_from_data == (provenance.values_note("sex"),)
    window.queries.clear.click()  # clear, then undo: the provenance comes back with the queries
    assert ws.queries_from_data == ()
    window.queries.undo()
    assert ws.queries_from_data == (provenance.values_note("sex"),)
    window.queries.clear.click()
    assert window.sessions.open_session(path)
    qtbot.waitUntil(lambda: len(ws.queries) == 2, timeout=30_000)
    assert ws.queries_from_data == (provenance.values_note("sex"),)
    assert ws.plan.by_field().get("domains")


def test_the_recipes_dialog_refuses_the_items_that_occur_until_allowed(qtbot, tmp_path):
    import pandas as pd

    from svtgui.app import dataset_identity
    from svtgui.data.dataset import Dataset
    from svtgui.ledger import Ledger
    from svtgui.ui.app import create_app
    from svtgui.ui.setup.recipes_dialog import RecipesDialog

    baskets = Dataset.from_frame(pd.DataFrame({"items": [(i % 7, (i * 3) % 11) for i in range(300)]}),
                                 name="baskets")
    path = tmp_path / "l.sqlite"
    with Ledger.open(path) as led:
        dataset_id = dataset_identity.register(led, baskets, "5").dataset_id
    create_app()
    dlg = RecipesDialog(baskets, path, dataset_id, lambda: None)
    qtbot.addWidget(dlg)
    dlg.show()
    dlg.picker.setCurrentIndex(dlg.picker.findData("frequent_items"))
    dlg.items_from_data.setChecked(True)
    assert dlg.items_allow.isVisible() and not dlg.run_button.isEnabled()
    assert "the items of column 'items', read from the private data" in dlg.cost.text()
    dlg.items_allow.setChecked(True)
    assert dlg.run_button.isEnabled() and "NOT differentially private" in dlg.cost.text()
    with qtbot.waitSignal(dlg.ran, timeout=30_000) as ran:
        qtbot.mouseClick(dlg.run_button, LEFT)
    with Ledger.open(path) as led:
        assert recorded(led.declarations(ran.args[0])) == (provenance.items_note("items"),)
    dlg.items_from_data.setChecked(False)  # the public domain again: the override is dropped with it
    assert not dlg.items_allow.isChecked()


def test_the_universe_chooser_shows_levels_read_from_the_data(qtbot, window, act):
    from svtgui.ui.setup.linear_universe import COL_LEVELS

    act.load(qtbot, window)
    ws = window.workspace
    levels = [str(v) for v in generators.observed_values(ws.dataset, "occupation")]
    chooser = window.mechanism.linear.universe
    chooser.set_schema(ws.schema.with_categories("occupation", levels, from_data=True))
    names = [chooser.table.item(r, 1).text() for r in range(chooser.table.rowCount())]
    marked = chooser.table.item(names.index("occupation"), COL_LEVELS).text()
    declared = chooser.table.item(names.index("sex"), COL_LEVELS).text()
    assert marked.startswith("⚠") and "levels read from the data (NOT public)" in marked
    assert "declared levels" in declared and "NOT public" not in declared
