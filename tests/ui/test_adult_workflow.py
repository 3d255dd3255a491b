"""A curator's session on UCI Adult, from opening the file to a stopped run's report (issue 15).

The samples' tests cover each step on the bundled census data; this one walks the same steps on the
real file a curator brings (its column names have hyphens, its numbers no declared bounds), in the
order a curator takes them, so a step that only works on the sample shows here.
"""

from __future__ import annotations

import re

from PySide6.QtCore import Qt

from svtgui.app.reports import export
from svtgui.data.queries import ClippedSum, RangeCount
from svtgui.ui.setup.schema_editor import COL_LOWER, COL_STATUS, COL_UPPER

LEFT = Qt.MouseButton.LeftButton
EXPONENT = re.compile(r"\d[eE][+-]\d")  # "1e-05", "6.952e+05"; not a colour or a hex id


def _open(qtbot, win, path) -> None:
    before = win.ds
    win.open_path(path)
    qtbot.waitUntil(lambda: win.ds is not None and win.ds is not before, timeout=30_000)


def _declare_bounds(win, column: str, lower: str, upper: str) -> str:
    ed = win.schema_editor
    row = ed.schema.names.index(column)
    ed.table.item(row, COL_LOWER).setText(lower)
    ed.table.item(row, COL_UPPER).setText(upper)
    return ed.table.item(row, COL_STATUS).text()


def _fields(win) -> dict[str, str]:
    out = {}
    for name, editor in win.mechanism.form.editors.items():
        out[name] = str(editor.value()) if hasattr(editor, "value") else getattr(editor, "text", lambda: "")()
    return out


def test_a_session_on_adult_from_open_to_a_stopped_runs_report(qtbot, window, act, shared_data, tmp_path):
    win, adult = window, shared_data / "adult.csv"
    act.load(qtbot, win)  # the census sample first: its T must not follow the curator to Adult
    assert win.mechanism.form.editors["threshold"].text() == "21000"
    _open(qtbot, win, adult)
    assert win.windowTitle() == "adult — SVT Studio"
    assert win.mechanism.form.editors["threshold"].text() == "" and win.workspace.entry("threshold") is None

    # Schema: bounds declared in place, an impossible pair refused on its own row, levels declared.
    assert _declare_bounds(win, "age", "17", "90") == "✓ bounded to [17, 90]"
    assert _declare_bounds(win, "capital-gain", "0", "99999") == "✓ bounded to [0, 99,999]"
    status = _declare_bounds(win, "hours-per-week", "99", "1")
    assert status.startswith("⚠") and "exceeds" in status
    assert not win.ds.schema.column("hours-per-week").bounded
    levels = win.schema_editor.edit_levels("sex")
    levels.text.setPlainText("Male\nFemale")
    levels.buttons.accepted.emit()
    assert win.ds.schema.column("sex").categories == ("Male", "Female")

    # The generator starts from the declared bounds.
    gen = win.generate_queries()
    qtbot.addWidget(gen)
    gen.fields["rr_col"].setCurrentText("age")
    assert (gen.fields["rr_low"].text(), gen.fields["rr_high"].text()) == ("17", "90")
    gen.reject()

    # A queue of counts plus one clipped sum: the mixed sensitivities are said, and a split offered.
    counts = [RangeCount("age", a, a + 10) for a in range(17, 90, 3)]
    page = win.queries
    page.set_queries([*counts, ClippedSum("capital-gain", 0, 5000)])
    assert "Mixed sensitivities: Δ = 5,000" in page.notes.text() and page.split.isVisibleTo(page)
    assert page.split_by_sensitivity(tmp_path / "wide.queries.json")
    assert page.queries == counts and win.workspace.facts.sensitivity == 1

    # Parameters typed once survive a tour of the mechanisms; Δ follows the queue.
    win.mechanism.picker.select("sparse")
    act.set_param(win, "epsilon", "0.5")
    act.set_param(win, "delta", "0.001")
    act.set_param(win, "threshold", "1500")
    act.set_param(win, "cutoff", 4)
    for mid in ("numeric_sparse", "standard_svt", "em_top_c", "sparse"):
        win.mechanism.picker.select(mid)
        shown = _fields(win)
        assert shown["epsilon"] == "0.5" and shown["cutoff"] == "4" and shown["sensitivity"] == "1", mid
        assert shown.get("threshold", "1500") == "1500" and shown.get("delta", "0.001") == "0.001", mid
        if mid == "standard_svt":  # every query is a count: Monotonic queries is offered and ticked
            mono = win.mechanism.form.editors["monotonic"]
            assert mono.isEnabled() and mono.isChecked()
    assert win.run_page.gauge.cutoff_bar.format() == "⊤ used: 0 of c = 4"

    # Queue → Clear is undone.
    qtbot.mouseClick(page.clear, LEFT)
    assert page.queries == []
    qtbot.mouseClick(page.undo_button, LEFT)
    assert page.queries == counts

    # A run, paused after its first answers and stopped: the window and the report say how far it
    # got. At 2 queries a second the 100 planned would take 50 s: the pause lands long before the end.
    page.set_queries(counts * 4)
    act.set_param(win, "threshold", "1000000")  # far above every count: no ⊤, the run cannot halt
    win.run_page.totals.epsilon.setText("10")
    win.run_page.totals.delta.setText("0.01")
    win.run_page.set_pace_rate(2.0)
    c = win.run_model
    win.show_page("run")
    qtbot.mouseClick(win.run_page.run_button, LEFT)
    qtbot.mouseClick(win.run_page.confirm.spend, LEFT)
    qtbot.waitUntil(lambda: win.store.n >= 2, timeout=30_000)  # a few rows for the report
    qtbot.mouseClick(win.run_page.pause_button, LEFT)
    qtbot.mouseClick(win.run_page.stop_button, LEFT)
    qtbot.waitUntil(lambda: c.state == "ended", timeout=30_000)
    n = win.store.n
    assert f"Stopped by you after {n:,} of 100 planned queries" in win.run_page.status.text()
    html = export(c.ledger, c.run.id, tmp_path / "adult.html").read_text(encoding="utf-8")
    assert "age 17 – 90" in html and "capital-gain 0 – 99999" in html  # the declared bounds
    assert f"Stopped by the curator after {n:,} of 100 planned queries" in html
    numbers = [int(m) for m in re.findall(r"<tr><td[^>]*>(\d+)</td><td[^>]*>count of rows", html)]
    assert n >= 2 and numbers == list(range(1, n + 1))  # rows numbered as in the window, from 1
    for wrong in ("secure: secure", "integer = True", "released answers within"):
        assert wrong not in html
    assert not EXPONENT.search(html.split("<svg", 1)[0])

    # The same rows opened again: bounds and levels come back, T does not carry over from census.
    act.load(qtbot, win)
    _open(qtbot, win, adult)
    schema = win.ds.schema
    assert schema.column("age").bounds() == (17.0, 90.0)
    assert schema.column("sex").categories == ("Male", "Female")
    assert "restored" in win.status_label.text()
