"""Rows new to the ledger that look like a known dataset: the curator says which dataset they are.

A file with the name and columns of a known dataset but different rows (a corrected export, or an
unrelated file that happens to share a name) must never silently get a fresh budget. Before its
first charge the curator chooses: a different dataset (its own new budget) or the known one
(sharing its budget). The Run page asks before the spend confirmation is worded; the run model
(:mod:`svtgui.app.runs.dataset_budget`) carries the answer out just before the charge.
"""

from __future__ import annotations

from PySide6.QtWidgets import QMessageBox, QWidget

from svtgui.ledger import DatasetRecord

DIFFERENT = "different"


def ask(parent: QWidget | None, name: str, known: DatasetRecord) -> str | None:
    """``DIFFERENT``, the known dataset's id (the same dataset), or None (cancelled)."""
    box = QMessageBox(parent)
    box.setIcon(QMessageBox.Icon.Question)
    box.setWindowTitle("Which dataset is this?")
    box.setText(f"The ledger already has a dataset named “{name}” with these columns "
                f"({known.dataset_id}, registered {known.registered_at[:10]}), but these rows are different.")
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

