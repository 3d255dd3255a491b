"""The queue and the threshold stay with the dataset (issue 23 §6): opening another dataset, or
quitting, keeps them; opening the same rows again brings them back; a quit that would lose them asks."""

from __future__ import annotations

from PySide6.QtWidgets import QMessageBox

from svtgui.ui.main_window import MainWindow

ASK_ON_QUIT = MainWindow._quit_anyway  # the window fixture answers it; the quit test asks for real


def _open(qtbot, win, sample: str) -> None:
    win.open_sample(sample)
    qtbot.waitUntil(lambda: win.ds is not None and win.ds.name == sample, timeout=30_000)


def test_the_work_on_a_dataset_comes_back_when_it_is_opened_again(qtbot, window, act):
    win = window
    _open(qtbot, win, "census")
    kept = list(win.queries.queries[5:12])
    win.queries.set_queries(kept)
    win.mechanism.picker.select("numeric_sparse")
    act.set_param(win, "threshold", "12345")
    _open(qtbot, win, "baskets")
    assert len(win.workspace.queries) == 0  # the baskets sample comes without a queue
    _open(qtbot, win, "census")
    assert list(win.workspace.queries) == kept  # not the sample's 2,000 default queries
    assert win.workspace.mechanism_id == "numeric_sparse" and float(win.workspace.entry("threshold")) == 12345
    assert "back as you left them" in win.status_label.text()
    win.close()  # quitting keeps it too: a new window, a new session
    later = MainWindow()
    qtbot.addWidget(later)
    _open(qtbot, later, "census")
    assert list(later.workspace.queries) == kept and later.workspace.mechanism_id == "numeric_sparse"
    later.run_presenter.shutdown()


def test_a_quit_that_would_lose_the_queue_asks_first(qtbot, window, monkeypatch):
    win = window
    monkeypatch.setattr(MainWindow, "_quit_anyway", ASK_ON_QUIT)
    _open(qtbot, win, "census")
    monkeypatch.setattr(win.work, "keep", lambda *a: "the queue and parameters of “census” could not be "
                                                     "kept: [Errno 28] No space left on device")
    asked = []

    def answer(choice):
        def question(_parent, _title, text, *_args):
            asked.append(text)
            return choice
        return question

    monkeypatch.setattr(QMessageBox, "question", answer(QMessageBox.StandardButton.No))
    assert not win.close() and win.isVisible()  # stayed: nothing lost
    assert "No space left on device" in asked[-1] and "Export the queries" in asked[-1]
    monkeypatch.setattr(QMessageBox, "question", answer(QMessageBox.StandardButton.Yes))
    assert win.close()
