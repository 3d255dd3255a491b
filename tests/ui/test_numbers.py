"""Numbers in the window: fields show exactly what was set (reading them back gives the same number),
labels show it grouped, and neither uses an exponent (issue 15 §3: no "e+05" style numbers)."""

from __future__ import annotations

import re
from fractions import Fraction

import numpy as np

from svtgui.app.numbers import amount, exact, field_text
from svtgui.data.queries import queries_from_json
from svtgui.data.schema import Column, Schema

EXPONENT = re.compile(r"\d[eE][+-]?\d")


def test_a_field_reads_back_as_the_number_it_was_given():
    rng = np.random.default_rng(15)  # fixed seed: the same 3,000 numbers on every run
    values = np.concatenate([rng.uniform(-1e7, 1e7, 1000), 10.0 ** rng.uniform(-9, 15, 1000),
                             np.round(rng.uniform(0, 1e6, 1000), 2)])
    for v in values:
        text = field_text(float(v))
        assert float(text) == v and not EXPONENT.search(text) and "," not in text, (v, text)
    assert [field_text(v) for v in (1234567.0, 1e-6, 21000.0, 2.5, -0.0, 7)] == [
        "1234567", "0.000001", "21000", "2.5", "0", "7"]


def test_labels_group_thousands_and_budget_amounts_stay_exact():
    assert [exact(v) for v in (1234567.0, 1161408.8125, -1234.5, 0.000001)] == [
        "1,234,567", "1,161,408.8125", "−1,234.5", "0.000001"]
    assert amount(Fraction(1, 100_000)) == "0.00001"  # was "1e-05"
    big = Fraction(12_345_678)
    assert amount(big) == "12,345,678" and amount(big, grouped=False) == "12345678"
    assert amount(Fraction(1, 3)) == "0.333333 (1/3)"  # no finite decimal: the fraction itself as well
    for k in range(0, 120, 7):  # every digit of a power-of-two or power-of-five amount is kept
        for x in (Fraction(3, 2**k), Fraction(7, 5**k)):
            assert Fraction(amount(x, grouped=False)) == x


def _wide_schema(win) -> Schema:
    """The census schema with a declared upper bound a :g format would round (1,234,567 → 1.23457e+06)."""
    cols = tuple(Column(c.name, c.kind, lower=0.0, upper=1_234_567.0, categories=c.categories)
                 if c.name == "capital_gain" else c for c in win.ds.schema.columns)
    return Schema(cols, neighbouring=win.ds.schema.neighbouring, n=win.ds.schema.n)


def test_large_declared_bounds_and_sensitivities_are_shown_in_full(qtbot, window, act):
    act.load(qtbot, window)
    schema = _wide_schema(window)
    window.schema_editor.set_schema(schema, window.ds.n_rows, dataset=window.ds)
    window._schema_changed(schema)
    row = [c.name for c in schema.columns].index("capital_gain")
    table = window.schema_editor.table
    cells = [item.text() for col in range(table.columnCount()) if (item := table.item(row, col))]
    assert "1234567" in cells and "✓ bounded to [0, 1,234,567]" in cells
    # the generator's defaults come from the declared bounds, in full
    dlg = window.generate_queries()
    qtbot.addWidget(dlg)
    dlg.fields["rr_col"].setCurrentText("capital_gain")
    assert dlg.fields["rr_high"].text() == "1234567"
    dlg.reject()
    # Δ of a clipped sum up to the bound, and a threshold set as a number, in their fields
    window.workspace.set_queries(queries_from_json(
        [{"kind": "sum", "column": "capital_gain", "lower": 0, "upper": 1_234_567}]))
    window.mechanism.picker.select("numeric_sparse")
    window.workspace.set_entries({"threshold": 2_345_678.0})
    window.mechanism.flush()
    form = window.mechanism.form.editors
    assert form["sensitivity"].text() == "1234567" and form["threshold"].text() == "2345678"
    assert "Δ = 1,234,567" in window.queries.summary.text()


def test_sparse_project_defaults_and_messages_read_as_words(qtbot, window, act):
    act.load(qtbot, window)
    window.mechanism.picker.select("sparse_project")
    delta = window.mechanism.form.editors["delta"].text()
    assert not EXPONENT.search(delta) and float(delta) > 0
    window.workspace.set_entries({"universe": []})
    window.mechanism.flush()
    said = window.mechanism.preview.statement.text()
    assert "choose at least one column" in said and "[" not in said and '"' not in said  # no Python list


def test_the_data_preview_shows_floats_without_exponents():
    from svtgui.ui.setup.frame_model import format_cell

    assert [format_cell(v) for v in (1234567.5, 0.25, float("nan"), 38.0)] == ["1,234,568", "0.25", "—", "38"]


def test_dates_in_the_preview_fit_their_column():
    """numpy's '2024-03-01T00:00:00.000000000' was cut off in the preview (issue 24 §5)."""
    import numpy as np
    import pandas as pd

    from svtgui.ui.setup.frame_model import format_cell

    days = pd.to_datetime(["2024-03-01", "2024-03-02 14:05:09", None], format="mixed").to_numpy()
    assert [format_cell(v) for v in days] == ["2024-03-01", "2024-03-02 14:05:09", "—"]
    assert format_cell(pd.Timestamp("2024-03-01 01:02:03")) == "2024-03-01 01:02:03"
    assert format_cell(pd.NaT) == "—" and format_cell(np.datetime64("NaT")) == "—"
