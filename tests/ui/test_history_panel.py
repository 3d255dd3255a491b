"""View → History: the current dataset's runs and released rows, read from the ledger."""

from __future__ import annotations

import json

from PySide6.QtCore import Qt
from session_gui_helpers import answer_dialog, ledger_runs, new_window, wait_export, wait_rows

from svtgui.data import load_dataset
from svtgui.ui.common.theme import ABOVE_TEXT, BELOW_TEXT
from svtgui.ui.main_window import sample_path

LEFT = Qt.MouseButton.LeftButton


def cells(model, row: int) -> list[str]:
    return [model.data(model.index(row, c)) for c in range(model.columnCount())]


def test_history_shows_interrupted_and_running_runs_from_the_ledger(qtbot, window, act, tmp_path,
                                                                   monkeypatch):
    ds = load_dataset(sample_path("census"))
    crashed, running = ledger_runs(ds)
    act.load(qtbot, window)
    window.sessions.act_history.trigger()
    panel = window.sessions.history
    assert panel.isVisible() and not panel.isModal()
    runs = panel.runs_model
    assert runs.rowCount() == 2
    first, second = cells(runs, 0), cells(runs, 1)
    assert first[0] == str(crashed) and first[1] == "NumericSparse" and first[2] == "2"
    assert first[4] == "⚠ interrupted" and first[5] == "1 ⊤ of 3"
    # its headline statistic: the released value with its exact 95 % interval; none for a running run
    assert first[6].startswith("count of rows where age ≥ 20: 24,871 (") and first[6].endswith(", 95 %)")
    assert second[6] == ""
    assert "budget stays spent" in runs.data(runs.index(0, 4), Qt.ItemDataRole.ToolTipRole)
    assert second[4] == "● running" and second[2] == "0.5"
    # Budget totals: the same figures the gauge shows (ε 2 + 0.5 spent of 10), interrupted named.
    gauge_text = window.run_page.gauge.dataset_bar.format()
    assert gauge_text == "ε spent 2.5 of 10"
    assert gauge_text in panel.budget.text() and "1 interrupted" in panel.budget.text()
    assert "δ" not in panel.budget.text()  # no δ budget declared: no "δ spent 0 of 0"

    # The newest run is selected: still running, so it cannot be exported — and the panel says why.
    assert panel.selected_run().id == running
    assert not panel.export.isEnabled() and "still running" in panel.reason.text()
    # Select the interrupted run: its released rows, ⊥ without a value.
    panel.runs_view.selectRow(0)
    wait_rows(qtbot, panel)
    rows = panel.rows_model
    assert [cells(rows, r) for r in range(rows.rowCount())] == [
        ["1", "count of rows where age ≥ 40", BELOW_TEXT, "", cells(rows, 0)[4]],
        ["2", "count of rows where age ≥ 20", ABOVE_TEXT, "24,871", cells(rows, 1)[4]],
        ["3", "count of rows where age ≥ 90", BELOW_TEXT, "", cells(rows, 2)[4]],
    ]
    assert "interrupted" in panel.rows_title.text() and "3 rows, 1 ⊤" in panel.rows_title.text()
    qtbot.mouseClick(panel.only_above, LEFT)
    wait_rows(qtbot, panel)
    assert rows.rowCount() == 1 and cells(rows, 0)[2] == ABOVE_TEXT

    # Export release… of that run, from the panel.
    assert panel.export.isEnabled(), panel.reason.text()
    out = tmp_path / "crashed.json"
    answer_dialog(monkeypatch, "getSaveFileName", out)
    qtbot.mouseClick(panel.export, LEFT)
    wait_export(qtbot, window)
    data = json.loads(out.read_text())
    assert data["run"]["status"] == "interrupted" and len(data["rows"]) == 3
    assert window.sessions.notice.ok


def test_history_follows_the_window_run_and_keeps_totals_in_step(qtbot, window, act):
    act.load(qtbot, window)
    panel = window.sessions.show_history()
    assert panel.runs_model.rowCount() == 0 and not panel.export.isEnabled()
    assert "not in the ledger yet" in panel.budget.text()
    window.queries.set_queries(window.queries.queries[:30])
    act.set_param(window, "epsilon", "0.25")
    act.run_to_end(qtbot, window)
    qtbot.mouseClick(window.run_page.stop_button, LEFT)
    qtbot.waitUntil(lambda: window.run_model.state == "ended", timeout=10_000)
    # The open panel refreshed itself when the run ended.
    assert panel.runs_model.rowCount() == 1
    run = cells(panel.runs_model, 0)
    assert run[2] == "0.25" and run[4] in ("✓ finished", "■ halted at c", "■ stopped")
    assert window.run_page.gauge.dataset_bar.format() in panel.budget.text()
    wait_rows(qtbot, panel)
    assert panel.rows_model.rowCount() == window.store.n
    assert [r.above for r in panel.rows_model.rows] == list(window.store.above[: window.store.n])


def test_history_without_a_dataset_says_so(qtbot, window):
    panel = window.sessions.show_history()
    assert panel.runs_model.rowCount() == 0
    assert "Open a dataset" in panel.budget.text()
    assert not panel.export.isEnabled()


def test_reopened_session_shows_its_history_from_the_ledger(qtbot, window, act, tmp_path):
    """A session file holds no budget: after reopening, the open History window shows the ledger's runs."""
    act.load(qtbot, window)
    saved = window.sessions.save_session(tmp_path / "s.svtsession")
    crashed, _ = ledger_runs(window.ds)
    window.close()
    win = new_window(qtbot)
    panel = win.sessions.show_history()
    assert panel.runs_model.rowCount() == 0  # no dataset yet
    assert win.sessions.open_session(saved)
    qtbot.waitUntil(lambda: win.ds is not None, timeout=30_000)
    assert [r.id for r in panel.runs_model.runs] == [crashed, crashed + 1]
    assert "2 runs in the ledger" in win.status_label.text()
    assert win.run_page.gauge.dataset_bar.format() == "ε spent 2.5 of 10"
    assert win.run_page.gauge.dataset_bar.format() in panel.budget.text()
    win.close()


def test_a_huge_run_lists_only_its_top_rows(qtbot, window, act, monkeypatch):
    from svtgui.ui.history import history_panel

    monkeypatch.setattr(history_panel, "MAX_ROWS_SHOWN", 2)  # the interrupted run's 3 rows are "too many"
    ds = load_dataset(sample_path("census"))
    crashed, _ = ledger_runs(ds)
    act.load(qtbot, window)
    panel = window.sessions.show_history()
    panel.select_run(crashed)
    wait_rows(qtbot, panel)
    assert [r.above for r in panel.rows_model.rows] == [True]
    assert "export the CSV for all of them" in panel.rows_title.text()


def test_history_names_a_recipe_as_the_curator_knows_it():
    from svtgui.ui.history.history_panel import mechanism_name

    assert mechanism_name("recipe_auto_mean") == "Auto-clipped mean (recipe)"  # not the ledger's id
    from svtgui.ledger import RunRecord
    from svtgui.ui.history.history_panel import RunsModel

    run = RunRecord(1, "ds-1", "recipe_auto_mean", {"column": "age"}, 1, 0, "secure", "", "finished",
                    "2026-01-01", None, None, "0")
    assert RunsModel().cell(run, 1) == "Auto-clipped mean (recipe) · age"  # and what it was run on
    assert mechanism_name("numeric_sparse") == "NumericSparse"


def test_build_release_over_the_selected_runs(qtbot, window, act, tmp_path, monkeypatch):
    """History: select several ended runs of the dataset, Build release… writes one document over them."""
    from svtgui.ledger import Ledger

    ds = load_dataset(sample_path("census"))
    crashed, running = ledger_runs(ds)
    act.load(qtbot, window)
    panel = window.sessions.show_history()
    panel.runs_view.selectAll()
    assert not panel.build_release.isEnabled() and "still running" in panel.build_release.toolTip()
    with Ledger.open() as led:
        led.finish_run(running, "stopped")
    panel.refresh()
    panel.runs_view.selectAll()
    assert [r.id for r in panel.selected_runs()] == [crashed, running]
    assert panel.build_release.isEnabled(), panel.build_release.toolTip()
    out = tmp_path / "release.json"
    answer_dialog(monkeypatch, "getSaveFileName", out)
    qtbot.mouseClick(panel.build_release, LEFT)
    wait_export(qtbot, window)
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["format"] == "svtgui-release" and [r["id"] for r in data["runs"]] == [crashed, running]
    assert data["guarantee"]["epsilon"] == "2.5" and data["statistics"][0]["value"] == 24871
    assert window.sessions.notice.ok and f"runs {crashed} and {running}" in window.sessions.notice.text()


def test_file_export_reproducible_script_of_the_window_run(qtbot, window, act, tmp_path, monkeypatch):
    """File → Export reproducible script writes the replay of the run just made; a run the ledger kept
    no plan for (made outside SVT Studio's run paths) is refused with the reason, nothing written."""
    _run_thirty_queries(qtbot, window, act)
    assert window.sessions.act_export_script.isEnabled()
    out = tmp_path / "replay.py"
    answer_dialog(monkeypatch, "getSaveFileName", out)
    window.sessions.act_export_script.trigger()
    assert window.sessions.notice.ok, window.sessions.notice.informativeText()
    text = out.read_text(encoding="utf-8")
    assert "SPENDS PRIVACY BUDGET" in text and text.count("kind") == 30  # the 30 queries of the run
    crashed, _running = ledger_runs(window.ds)
    refused = tmp_path / "old.py"
    window.sessions.export_script(refused, [crashed])
    assert not window.sessions.notice.ok and "cannot be replayed" in window.sessions.notice.text()
    assert not refused.exists()


def test_the_release_pictures_of_the_guide(qtbot, window, act, tmp_path):
    """svtgui --screenshot --page release|release-document: after a run, an auto-clipped mean joins it;
    History selects both, and the release document holds both runs' statistics."""
    _run_thirty_queries(qtbot, window, act)
    panel = window.sessions.screenshot_widget("release", tmp_path)
    assert len(panel.selected_runs()) == 2 and panel.build_release.isEnabled()
    document = window.sessions.screenshot_widget("release-document", tmp_path).toPlainText()
    assert document.startswith("Release — ") and "mean of age clipped to" in document
    assert "Total privacy cost: ε = 2.25" in document  # 0.25 + 1 + 1: the run and two recipes


def _run_thirty_queries(qtbot, window, act) -> None:
    """A window run of the sample's first 30 queries at ε = 0.25, ended."""
    act.load(qtbot, window)
    window.queries.set_queries(window.queries.queries[:30])
    act.set_param(window, "epsilon", "0.25")
    act.run_to_end(qtbot, window)
    qtbot.mouseClick(window.run_page.stop_button, LEFT)
    qtbot.waitUntil(lambda: window.run_model.state == "ended", timeout=10_000)


def test_history_sets_the_public_name_reports_use(qtbot, window, act, tmp_path, monkeypatch):
    """Public name… in History (the window's twin of `ledger set-name`): logged in the ledger, shown in the
    title, and the name the next export publishes; the file's name ("census") never is."""
    from PySide6.QtWidgets import QInputDialog

    from svtgui.ledger import Ledger

    _run_thirty_queries(qtbot, window, act)
    panel = window.sessions.show_history()
    assert panel.rename.isEnabled() and "add/remove-one neighbours" in panel.title.text()
    monkeypatch.setattr(QInputDialog, "getText", staticmethod(lambda *a, **k: ("Synthetic survey", True)))
    qtbot.mouseClick(panel.rename, LEFT)
    assert "reports name it “Synthetic survey”" in panel.title.text()
    with Ledger.open() as led:
        assert led.dataset(panel.dataset_id).public_name == "Synthetic survey"
    # a name whose override would make the report show other text than it holds: refused, as in the CLI
    monkeypatch.setattr(QInputDialog, "getText", staticmethod(lambda *a, **k: ("Survey \u202eyevrus", True)))
    qtbot.mouseClick(panel.rename, LEFT)
    assert "U+202E" in panel.reason.text() and "reports name it “Synthetic survey”" in panel.title.text()
    with Ledger.open() as led:
        assert led.dataset(panel.dataset_id).public_name == "Synthetic survey"
    panel.select_run(panel.runs_model.runs[-1].id)
    out = tmp_path / "named.json"
    answer_dialog(monkeypatch, "getSaveFileName", out)
    qtbot.mouseClick(panel.export, LEFT)
    wait_export(qtbot, window)
    assert json.loads(out.read_text(encoding="utf-8"))["dataset"]["name"] == "Synthetic survey"


def test_history_changes_the_relation_with_its_consequence_and_logs_it(qtbot, window, act, monkeypatch):
    """Neighbouring relation… (the window's twin of `ledger set-relation`): the dialog says what the
    change means for the run already charged before OK is possible; the change is logged with the reason."""
    from PySide6.QtWidgets import QDialog, QDialogButtonBox

    from svtgui.ledger import Ledger
    from svtgui.ui.history.relation_dialog import RelationDialog

    _run_thirty_queries(qtbot, window, act)
    panel = window.sessions.show_history()
    seen = {}

    def confirm(dialog):
        ok = dialog.buttons.button(QDialogButtonBox.StandardButton.Ok)
        seen["unchanged"] = ok.isEnabled()
        dialog.relation.setCurrentIndex(1)  # replace-one
        dialog.n.setValue(30_000)
        seen["without_reason"] = ok.isEnabled()
        dialog.reason.setText("n is published with the survey")
        seen["consequence"], seen["ready"] = dialog.consequence.text(), ok.isEnabled()
        return QDialog.DialogCode.Accepted

    monkeypatch.setattr(RelationDialog, "exec", confirm)
    qtbot.mouseClick(panel.relation, LEFT)
    assert seen["ready"] and not seen["unchanged"] and not seen["without_reason"]
    assert "1 run charged before" in seen["consequence"] and "twice" in seen["consequence"]
    assert "replace-one with n = 30,000 neighbours" in panel.title.text()
    assert "n is published with the survey" in panel.budget.text()
    with Ledger.open() as led:
        event = led.relation_events(panel.dataset_id)[-1]
    assert (event.kind, event.neighbouring, event.public_n) == ("change", "replace", 30_000)


def test_a_window_run_under_another_relation_is_refused_by_the_gate(qtbot, window, act):
    """The window charges through the same gate as the CLI: after the dataset's budget was set to be kept
    under replace-one, a run still declaring add/remove-one is refused, nothing charged."""
    from svtgui.ledger import Ledger

    _run_thirty_queries(qtbot, window, act)
    dataset_id = window.sessions.show_history().dataset_id
    with Ledger.open() as led:
        led.set_relation(dataset_id, "replace", 30_000, reason="n is published")
        before = len(led.runs(dataset_id))
    window.show_page("run")
    qtbot.mouseClick(window.run_page.run_button, LEFT)
    if window.run_page.confirm.isVisible():
        qtbot.mouseClick(window.run_page.confirm.spend, LEFT)
    qtbot.waitUntil(lambda: "budgeted under replace-one" in window.run_page.run_error.text(), timeout=30_000)
    with Ledger.open() as led:
        assert len(led.runs(dataset_id)) == before


def test_history_reads_only_the_first_statistics_of_a_long_run(qtbot, window, act, monkeypatch):
    """The Statistics column needs the first statistic and a count: a run of thousands of released
    numbers is not read whole on the window's thread (only HEADLINE_ROWS of its rows)."""
    from svtgui.ledger import Ledger, ResponseBatch
    from svtgui.ui.history import history_panel

    monkeypatch.setattr(history_panel, "HEADLINE_ROWS", 2)
    ds = load_dataset(sample_path("census"))
    with Ledger.open() as led:
        from svtgui.app.dataset_identity import register

        key = register(led, ds, 10).dataset_id
        run = led.start_run(key, "numeric_sparse", {"epsilon": 2.0, "threshold": 100.0, "cutoff": 5}, 2,
                            secure=True, noise_description="OS CSPRNG")
        led.record(run.id, ResponseBatch.of([(i, f"count {i}", True, 1000 + i, None) for i in range(5)]))
        led.finish_run(run.id, "halted")
    act.load(qtbot, window)
    panel = window.sessions.show_history()
    assert len(panel.runs_model.statistics[run.id]) == 2  # read: the first two
    headline = cells(panel.runs_model, 0)[6]
    assert headline.startswith("count 0: 1,000 (") and headline.endswith("; 4 more statistics")
