"""Schema editor: categorical levels declared in the window, and impossible bounds shown on their row."""

from __future__ import annotations

import pandas as pd
import pytest
from PySide6.QtCore import Qt

from svtgui.data.dataset import Dataset
from svtgui.data.schema import ColumnKind, infer_schema
from svtgui.ui.app import create_app
from svtgui.ui.setup.levels_dialog import parse_levels
from svtgui.ui.setup.schema_editor import (
    COL_LEVELS,
    COL_LOWER,
    COL_STATUS,
    COL_UPPER,
    LEVELS_FROM_DATA,
    SchemaEditor,
)


@pytest.fixture
def editor(qtbot):
    create_app()
    frame = pd.DataFrame({"age": [20, 30, 41, 55] * 10, "colour": ["red", "blue", "red", "green"] * 10})
    schema = infer_schema(frame).with_kind("colour", ColumnKind.CATEGORICAL)
    ds = Dataset.from_frame(frame, "toy", schema)
    ed = SchemaEditor()
    qtbot.addWidget(ed)
    ed.set_schema(schema, ds.n_rows, dataset=ds)
    ed.show()
    return ed


def _row(ed, name):
    return ed.schema.names.index(name)


def test_lower_above_upper_is_an_error_on_its_own_row(editor):
    r = _row(editor, "age")
    editor.table.item(r, COL_LOWER).setText("90")
    editor.table.item(r, COL_UPPER).setText("17")
    status = editor.table.item(r, COL_STATUS).text()
    assert status.startswith("⚠") and "no declared bounds" not in status and "90" in status
    assert "age" not in status  # the row names the column
    assert editor.error.isVisible() and editor.error.text().count("age") == 1  # said once, not twice
    editor.table.item(r, COL_LOWER).setText("0")
    assert editor.table.item(r, COL_STATUS).text().startswith("✓") and not editor.error.isVisible()


def test_levels_are_typed_in_a_dialog_and_become_the_declared_categories(qtbot, editor):
    changed = []
    editor.schema_changed.connect(changed.append)
    button = editor.table.cellWidget(_row(editor, "colour"), COL_LEVELS)
    assert button.text() == "Declare…"
    assert editor.table.item(_row(editor, "colour"), COL_STATUS).text().startswith("no declared levels")
    dlg = editor.edit_levels("colour")
    dlg.text.setPlainText("red\nblue, green\n\nyellow")
    dlg.buttons.accepted.emit()
    assert editor.schema.column("colour").categories == ("red", "blue", "green", "yellow")
    assert changed and changed[-1].column("colour").categories == ("red", "blue", "green", "yellow")
    assert editor.table.cellWidget(_row(editor, "colour"), COL_LEVELS).text() == "4 levels…"
    assert "4 declared categories" in editor.table.item(_row(editor, "colour"), COL_STATUS).text()


def test_levels_read_from_the_data_carry_a_warning_that_stays_on_the_row(qtbot, editor):
    dlg = editor.edit_levels("colour")
    assert not dlg.warning.isVisible()
    qtbot.mouseClick(dlg.read_button, Qt.MouseButton.LeftButton)
    assert dlg.warning.isVisible() and "NOT public" in dlg.warning.text()
    assert sorted(parse_levels(dlg.text.toPlainText())) == ["blue", "green", "red"]
    dlg.buttons.accepted.emit()
    assert editor.table.item(_row(editor, "colour"), COL_STATUS).text() == LEVELS_FROM_DATA
    assert editor.schema.column("colour").levels_from_data  # the provenance is in the schema itself
    reopened = editor.edit_levels("colour")  # opening the dialog and pressing OK keeps the mark
    assert reopened.read_mark.isChecked() and reopened.warning.isVisible()
    reopened.text.setPlainText("red\nblue\ngreen\nyellow")  # typing over them does not launder them
    reopened.buttons.accepted.emit()
    assert editor.schema.column("colour").levels_from_data
    again = editor.edit_levels("colour")  # the curator's explicit word that the levels are public
    again.text.setPlainText("red\nblue\ngreen\nyellow")
    again.read_mark.setChecked(False)
    again.buttons.accepted.emit()
    assert editor.table.item(_row(editor, "colour"), COL_STATUS).text() != LEVELS_FROM_DATA
    assert not editor.schema.column("colour").levels_from_data


def test_a_repeated_level_is_refused_in_the_dialog(editor):
    dlg = editor.edit_levels("colour")
    dlg.text.setPlainText("red\nred")
    dlg.buttons.accepted.emit()
    assert dlg.isVisible() and "twice" in dlg.error.text()
    assert editor.schema.column("colour").categories is None
