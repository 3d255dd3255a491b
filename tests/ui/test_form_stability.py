"""A warning under a parameter does not move the fields below it."""

from __future__ import annotations

from PySide6.QtCore import QPoint
from PySide6.QtWidgets import QApplication


def _positions(window, form, names) -> dict[str, int]:
    """Where each field is once every pending layout request has been carried out."""
    for _ in range(3):  # a layout can post another one (nested boxes): run them out
        QApplication.sendPostedEvents()
        window.layout().activate()
    return {n: form.editors[n].mapTo(window, QPoint(0, 0)).y() for n in names}


def test_a_warning_appearing_under_epsilon_moves_nothing(qtbot, window, act):
    act.load(qtbot, window)
    window.show_page("mechanism")
    form = window.mechanism.form
    below = [name for name in form.editors if name != "epsilon"]
    assert below, "the form has fields after ε"
    before = _positions(window, form, below)
    assert len(set(before.values())) == len(below)  # laid out: every field at its own height
    form.editors["epsilon"].setText("abc")
    window.mechanism.flush()
    qtbot.waitUntil(form.errors["epsilon"].isVisible, timeout=5000)
    assert _positions(window, form, below) == before
    form.editors["epsilon"].setText("1")
    window.mechanism.flush()
    qtbot.waitUntil(lambda: not form.errors["epsilon"].isVisible(), timeout=5000)
    assert _positions(window, form, below) == before
