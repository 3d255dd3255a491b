"""Declared bounds and levels are remembered per rows (keyed like the budget) and come back on reopening."""

from __future__ import annotations

from svtgui.app import dataset_identity
from svtgui.data import LoadOptions, load_dataset
from svtgui.ledger import Ledger
from svtgui.ui.main_window import MainWindow
from svtgui.ui.setup.schema_editor import COL_LOWER, COL_UPPER

ROWS = "age,colour\n" + "".join(f"{20 + i % 50},{('red', 'blue', 'green')[i % 3]}\n" for i in range(300))


def _open(qtbot, win, path):
    win.open_path(path)
    qtbot.waitUntil(lambda: win.ds is not None and win.ds.path is not None
                    and str(win.ds.path) == str(path), timeout=30_000)


def test_bounds_declared_once_come_back_for_the_same_rows_saved_again(qtbot, window, tmp_path):
    first = tmp_path / "ages.csv"
    first.write_text(ROWS)
    _open(qtbot, window, first)
    ed = window.schema_editor
    row = ed.schema.names.index("age")
    ed.table.item(row, COL_LOWER).setText("0")
    ed.table.item(row, COL_UPPER).setText("120")
    assert window.ds.schema.column("age").bounds() == (0.0, 120.0)

    again = tmp_path / "elsewhere" / "renamed.csv"
    again.parent.mkdir()
    again.write_bytes(ROWS.replace("\n", "\r\n").encode())  # the same rows, CRLF, another name
    second = MainWindow()
    qtbot.addWidget(second)
    _open(qtbot, second, again)
    assert second.ds.schema.column("age").bounds() == (0.0, 120.0)
    assert "restored" in second.status_label.text()
    second.run_presenter.shutdown()


def test_other_rows_and_files_with_their_own_schema_are_left_alone(tmp_path):
    first = tmp_path / "a.csv"
    first.write_text(ROWS)
    other = tmp_path / "b.csv"
    other.write_text(ROWS.replace("20,", "21,", 1))  # one value differs: other rows
    with Ledger.open(tmp_path / "l.sqlite") as led:
        ds = load_dataset(first, LoadOptions())
        declared = ds.schema.with_bounds("age", 0, 120)
        dataset_identity.remember_declared(led, ds, declared)
        assert dataset_identity.recall_declared(led, load_dataset(first, LoadOptions())) == declared
        assert dataset_identity.recall_declared(led, load_dataset(other, LoadOptions())) is None
        sidecar = load_dataset(first, LoadOptions()).with_schema(declared.with_bounds("age", 1, 99))
        assert dataset_identity.recall_declared(led, sidecar) is None  # a schema of its own stands
