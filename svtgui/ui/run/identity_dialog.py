"""Rows new to the ledger that look like a known dataset: the curator says which dataset they are.

A file with the name and columns of a known dataset but different rows (a corrected export, or an
unrelated file that happens to share a name) must never silently get a fresh budget. Before its
first charge the curator chooses: a different dataset (its own new budget) or the known one
(sharing its budget). The decision itself is made by :mod:`svtgui.app.dataset_identity`.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QMessageBox, QWidget

from svtgui.app import dataset_identity
from svtgui.ledger import DatasetRecord, Ledger

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


def register_or_bind(parent: QWidget | None, ledger: Ledger, ds: Any, total_epsilon: str,
                     total_delta: str) -> DatasetRecord | None:
    """Register new rows with the declared totals, asking first when they look like a known dataset.

    None when the curator cancelled (nothing written). Raises ``ValueError`` for a bad total.
    """
    identity = dataset_identity.identify(ledger, ds)
    if identity.record is not None:
        return identity.record
    if identity.needs_decision:
        choice = ask(parent, ds.name, identity.lookalikes[0])
        if choice is None:
            return None
        if choice != DIFFERENT:
            return dataset_identity.bind(ledger, ds, choice)
    return dataset_identity.register(ledger, ds, total_epsilon, total_delta, different=True)
