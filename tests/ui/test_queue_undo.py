"""Queue → Clear and Remove can be undone: a 10,001-query queue is never one click from gone."""

from __future__ import annotations

from PySide6.QtCore import Qt

LEFT = Qt.MouseButton.LeftButton


def test_clear_and_remove_are_undone_in_reverse_order(qtbot, window, act):
    act.load(qtbot, window)
    page = window.queries
    first = list(page.queries)
    page.set_queries(first * 5 + first[:1])
    full = list(page.queries)
    assert not page.undo_button.isEnabled()
    page.list.selectionModel().select(page.model.index(0), page.list.selectionModel().SelectionFlag.Select)
    qtbot.mouseClick(page.remove, LEFT)
    assert len(page.queries) == len(full) - 1
    assert "Removed 1 query. Undo (Ctrl+Z) brings it back" in page.notes.text()
    qtbot.mouseClick(page.clear, LEFT)
    assert page.queries == [] and f"Cleared {len(full) - 1:,} queries" in page.notes.text()
    assert "Undo (Ctrl+Z)" in page.notes.text() and page.undo_button.isEnabled()
    assert window.workspace.queries == []
    qtbot.mouseClick(page.undo_button, LEFT)
    assert page.queries == full[1:] and window.workspace.queries == full[1:]
    qtbot.mouseClick(page.undo_button, LEFT)
    assert page.queries == full and not page.undo_button.isEnabled()


def test_clearing_an_empty_queue_leaves_nothing_to_undo(qtbot, window, act):
    act.load(qtbot, window)
    page = window.queries
    page.set_queries([])
    qtbot.mouseClick(page.clear, LEFT)
    assert not page.undo_button.isEnabled()


def test_another_dataset_forgets_what_was_removed_from_the_last(qtbot, window, act):
    act.load(qtbot, window)
    page = window.queries
    qtbot.mouseClick(page.clear, LEFT)
    assert page.undo_button.isEnabled()
    window.open_sample("baskets")
    qtbot.waitUntil(lambda: window.ds is not None and window.ds.name == "baskets", timeout=30_000)
    assert not page.undo_button.isEnabled()


def test_a_queue_of_mixed_sensitivities_offers_to_split_it(qtbot, window, act, tmp_path):
    from svtgui.data.queries import ClippedSum, read_queries

    act.load(qtbot, window)
    page = window.queries
    counts = list(page.queries[:3])
    wide = ClippedSum("capital_gain", 0, 5000)
    page.set_queries([*counts, wide])
    assert page.split.isVisible() or page.split.isVisibleTo(page)
    assert "Mixed sensitivities" in page.notes.text() and "5000" in page.notes.text()
    out = tmp_path / "wide.queries.json"
    assert page.split_by_sensitivity(out)
    assert page.queries == counts and window.workspace.facts.sensitivity == 1
    assert [q.describe() for q in read_queries(out).queries] == [wide.describe()]
    assert not page.split.isVisibleTo(page) and "wide.queries.json" in page.notes.text()
    qtbot.mouseClick(page.undo_button, LEFT)
    assert page.queries == [*counts, wide]


def test_a_split_that_cannot_be_saved_changes_nothing(qtbot, window, act, tmp_path):
    from svtgui.data.queries import ClippedSum

    act.load(qtbot, window)
    page = window.queries
    mixed = [*page.queries[:2], ClippedSum("capital_gain", 0, 5000)]
    page.set_queries(mixed)
    assert not page.split_by_sensitivity(tmp_path / "missing" / "wide.json")
    assert page.queries == mixed and "the queue is unchanged" in page.error.text()


def test_queue_numbers_line_up_past_nine(qapp):
    """The numbers are right-aligned with spaces as wide as digits: "9." and "10." end at the same
    pixel, as "999." and "1,000." do (plain spaces are narrower than digits in a proportional font)."""
    from PySide6.QtGui import QFontMetricsF
    from PySide6.QtWidgets import QApplication

    from svtgui.ui.setup.query_queue import number_column

    metrics = QFontMetricsF(QApplication.font())
    numbers = (1, 9, 10, 99, 100, 999, 1000, 54321)
    widths = {metrics.horizontalAdvance(number_column(n) + ".") for n in numbers}
    assert max(widths) - min(widths) < 0.5, widths


def test_a_split_saves_one_file_per_wider_sensitivity(qtbot, window, act, tmp_path, monkeypatch):
    """Wider queries of several Δ go to one file each (a mixed file would pay the same price again);
    the save dialog says why the narrow ones stay (issue 24 §5)."""
    from PySide6.QtWidgets import QFileDialog

    from svtgui.data.queries import ClippedSum, read_queries

    act.load(qtbot, window)
    page = window.queries
    counts = list(page.queries[:3])
    gains = [ClippedSum("capital_gain", 0, 5000), ClippedSum("capital_gain", 0, 5000)]
    hours = ClippedSum("hours_per_week", 0, 99)
    page.set_queries([*counts, gains[0], hours, gains[1]])
    titles = []
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(
        lambda parent, title, *a: (titles.append(title), (str(tmp_path / "wider.queries.json"), ""))[1]))
    assert page.split_by_sensitivity()
    assert "a run's noise follows its widest query" in titles[0] and "Δ = 1 stay here" in titles[0]
    assert page.queries == counts
    assert [q.describe() for q in read_queries(tmp_path / "wider-delta-99.queries.json").queries] == \
        [hours.describe()]
    assert len(read_queries(tmp_path / "wider-delta-5000.queries.json").queries) == 2
    assert not (tmp_path / "wider.queries.json").exists()
