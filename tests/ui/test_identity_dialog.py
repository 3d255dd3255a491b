"""Rows that look like a known dataset: the window asks which dataset they are before any charge."""

from __future__ import annotations

import pandas as pd
import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMessageBox

from svtgui.app.dataset_identity import register
from svtgui.data import Dataset
from svtgui.ledger import Ledger
from svtgui.ui.run.identity_dialog import DIFFERENT, ask


def _people(shift: int = 0) -> Dataset:
    return Dataset.from_frame(pd.DataFrame({"age": [30 + shift, 41, 52], "sex": ["F", "M", "F"]}), "people")


@pytest.fixture
def led(tmp_path):
    with Ledger.open(tmp_path / "ledger.sqlite") as ledger:
        yield ledger


def _answer_with(qtbot, label_start: str | None) -> None:
    """Click the button whose text starts with ``label_start`` (None: Cancel) once the box is up."""
    def click() -> None:
        box = QApplication.activeModalWidget()
        if not isinstance(box, QMessageBox):
            QTimer.singleShot(20, click)
            return
        for button in box.buttons():
            if (label_start is None and box.buttonRole(button) == QMessageBox.ButtonRole.RejectRole) or \
                    (label_start is not None and button.text().startswith(label_start)):
                button.click()
                return
    QTimer.singleShot(20, click)


@pytest.mark.parametrize("label, expected", [("Same dataset as", "id"), ("A different dataset", DIFFERENT),
                                             (None, None)])
def test_the_dialog_offers_same_different_or_cancel(qtbot, led, label, expected):
    known = register(led, _people(), 2)
    _answer_with(qtbot, label)
    choice = ask(None, "people", known)
    assert choice == (known.dataset_id if expected == "id" else expected)

