"""``svtgui PATH`` opens that file at start, as File → Open does: off the GUI thread, a failure said in
a sentence on the Dataset page, the window titled after the data."""

from __future__ import annotations

import pytest

from svtgui.__main__ import build_parser, open_at_start


def test_a_dataset_named_on_the_command_line_is_opened(qtbot, window, shared_data):
    args = build_parser().parse_args([str(shared_data / "adult.csv")])
    open_at_start(window, args)
    assert window.loader.busy  # loading in the background: the window is not held up
    qtbot.waitUntil(lambda: window.ds is not None, timeout=30_000)
    assert window.ds.n_rows == 32_561
    assert window.windowTitle() == "adult — SVT Studio"
    assert window.current_page() == "dataset"


def test_a_relative_path_is_read_from_the_current_folder(qtbot, window, tmp_path, monkeypatch):
    (tmp_path / "ages.csv").write_text("age\n31\n45\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    open_at_start(window, build_parser().parse_args(["ages.csv"]))
    qtbot.waitUntil(lambda: window.ds is not None, timeout=30_000)
    assert window.ds.n_rows == 2 and window.windowTitle() == "ages — SVT Studio"
    assert window.dataset_panel.details.text().startswith("2 rows × 1 column ·")  # not "1 columns"


def test_a_file_that_cannot_be_opened_is_said_on_the_dataset_page(qtbot, window, tmp_path):
    missing = tmp_path / "nowhere.csv"
    open_at_start(window, build_parser().parse_args([str(missing)]))
    error = window.dataset_panel.error
    qtbot.waitUntil(error.isVisible, timeout=30_000)
    assert str(missing) in error.text() and "no such file" in error.text()
    assert window.ds is None and window.windowTitle() == "SVT Studio"


def test_a_path_and_a_sample_together_are_refused(capsys):
    from svtgui.__main__ import main

    with pytest.raises(SystemExit) as stop:
        main(["data.csv", "--sample", "census"])
    assert stop.value.code == 2
    assert "give a PATH or --sample, not both" in capsys.readouterr().err


def test_no_path_and_no_sample_leave_the_start_page(qtbot, window):
    window.show_page("start")
    open_at_start(window, build_parser().parse_args([]))
    assert window.current_page() == "start" and not window.loader.busy
