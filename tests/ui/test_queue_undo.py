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
    assert len(page.queries) == len(full) - 1 and "Removed 1 query" in page.summary.text()
    qtbot.mouseClick(page.clear, LEFT)
    assert page.queries == [] and f"Cleared {len(full) - 1:,} queries" in page.summary.text()
    assert "Undo (Ctrl+Z)" in page.summary.text() and page.undo_button.isEnabled()
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
