"""Fixtures for the window tests: an isolated MainWindow and a helper that loads a sample.

tests/conftest.py already points the ledger and the settings at a per-test temporary directory
and sets QT_QPA_PLATFORM=offscreen.
"""

from __future__ import annotations

import gc

import pytest
from PySide6.QtCore import QCoreApplication

from svtgui.ui.app import create_app
from svtgui.ui.common.collector import GuiThreadCollector
from svtgui.ui.main_window import MainWindow


@pytest.fixture(autouse=True)
def _automatic_collection_after_the_windows():
    """A window hands cycle collection to the GUI thread for the rest of the process (the app's
    life); the tests that follow in this process may have no event loop, so each window test ends
    by collecting here, on the GUI thread, and turning automatic collection back on."""
    yield
    app = QCoreApplication.instance()
    found = app.findChild(GuiThreadCollector) if app is not None else None
    if found is not None:
        found.setParent(None)  # Python's now: deleted with its timer when the name goes
        del found
        gc.collect()
        gc.enable()


@pytest.fixture
def window(qtbot, monkeypatch):
    # Closed by the test harness, a window never waits on "Quit and lose the queue?" (asked when its
    # work in progress cannot be kept, e.g. with a ledger a test made unusable); the question's own
    # test puts the real one back.
    monkeypatch.setattr(MainWindow, "_quit_anyway", lambda _self, _why: True)
    create_app()
    win = MainWindow()
    qtbot.addWidget(win)
    win.show()
    yield win
    win.run_presenter.shutdown()


def load(qtbot, win: MainWindow, sample: str = "census", total_epsilon: str | None = "10") -> None:
    """Open a bundled sample the way the start page does and wait for it; then, as a curator must
    before a new dataset's first run, type its total ε (``None``: leave it undeclared)."""
    win.open_sample(sample)
    qtbot.waitUntil(lambda: win.ds is not None, timeout=30_000)
    totals = win.run_page.totals
    if total_epsilon is not None and totals.is_new:
        totals.epsilon.setText(total_epsilon)


def set_param(win: MainWindow, name: str, value) -> None:
    """Type into the generated parameter form (line edits get text, spin boxes values)."""
    win.show_page("mechanism")
    editor = win.mechanism.form.editors[name]
    if hasattr(editor, "setText"):
        editor.setText(str(value))
    else:
        editor.setValue(value)
    win.mechanism.flush()


def run_to_end(qtbot, win: MainWindow, timeout: int = 60_000) -> None:
    """Press Run, confirm the spend, and wait until the run ends or drains."""
    c = win.run_model
    win.show_page("run")
    qtbot.mouseClick(win.run_page.run_button, _left())
    assert win.run_page.confirm.isVisible(), win.run_page.run_error.text()
    qtbot.mouseClick(win.run_page.confirm.spend, _left())
    qtbot.waitUntil(lambda: c.state in ("ended", "drained"), timeout=timeout)


def _left():
    from PySide6.QtCore import Qt

    return Qt.MouseButton.LeftButton


@pytest.fixture
def act():
    """The user's actions as plain functions (pytest fixtures cannot be imported as a module)."""
    from types import SimpleNamespace

    return SimpleNamespace(load=load, set_param=set_param, run_to_end=run_to_end)
