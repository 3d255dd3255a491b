"""Rows new to the ledger that look like a known dataset: the curator says which dataset they are.

A file that resembles a known dataset — its name, or columns holding that dataset's values under any
header (a corrected export, a column dropped or renamed, or an unrelated file that happens to share a
name) — must never silently get a fresh budget. Before its
first charge the curator chooses: a different dataset (its own new budget) or the known one
(sharing its budget). The Run page asks before the spend confirmation is worded; the run model
(:mod:`svtgui.app.runs.dataset_budget`) carries the answer out just before the charge.
"""

from __future__ import annotations

from PySide6.QtWidgets import QMessageBox, QWidget

from svtgui.app.dataset_identity import RESEMBLES
from svtgui.ledger import DatasetRecord

DIFFERENT = "different"


def ask(parent: QWidget | None, name: str, known: DatasetRecord) -> str | None:
    """``DIFFERENT``, the known dataset's id (the same dataset), or None (cancelled)."""
    box = QMessageBox(parent)
    box.setIcon(QMessageBox.Icon.Question)
    box.setWindowTitle("Which dataset is this?")
    box.setText(f"“{name}” is new to the ledger, but it resembles {known.dataset_id} (“{known.name}”, "
                f"registered {known.registered_at[:10]}): {RESEMBLES}.")
    box.setInformativeText("If this is a changed version of that dataset, it must share its budget: "
                           "spending on it spends on the same people. Choose “different dataset” only if "
                           "these rows are about other people.")
    same = box.addButton(f"Same dataset as {known.dataset_id}", QMessageBox.ButtonRole.AcceptRole)
    other = box.addButton("A different dataset (new budget)", QMessageBox.ButtonRole.DestructiveRole)
    box.addButton(QMessageBox.StandardButton.Cancel)
    box.setDefaultButton(same)
    box.exec()
    clicked = box.clickedButton()
    if clicked is same:
        return known.dataset_id
    return DIFFERENT if clicked is other else None

