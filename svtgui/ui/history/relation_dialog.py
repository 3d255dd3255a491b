"""History ▸ Neighbouring relation…: keep a dataset's budget under another relation (issue 21 §3).

The window's twin of ``svtgui-cli ledger set-relation``: the curator picks the relation (and, under
replace-one, the public n), types the reason, and reads what the change means for the runs already
charged *before* confirming. The change is logged in the ledger with the reason. The dialog keeps
the choice as the widgets' signals report it (never reading a value back out of a widget):
:meth:`RelationDialog.choice` returns it.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from svtgui.app.dataset_identity import RELATION_NAMES, relation_consequence, relation_text
from svtgui.ledger import DatasetRecord
from svtgui.ui.common.theme import named

MAX_N = 2**31 - 1  # the spin box's limit; n beyond it is set with svtgui-cli ledger set-relation


@dataclass(frozen=True)
class RelationChoice:
    """What the curator confirmed: the relation, its public n (replace-one only) and the reason."""

    neighbouring: str
    public_n: int | None
    reason: str


class RelationDialog(QDialog):
    """Choose the relation, its n and the reason; the consequence is shown as the choice changes."""

    def __init__(self, record: DatasetRecord, runs: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        named(self, "Neighbouring relation")
        self.setWindowTitle("Neighbouring relation — SVT Studio")
        self._runs = runs
        self.relation = named(QComboBox(), "Relation")
        for key, text in RELATION_NAMES.items():
            self.relation.addItem(text, key)
        self.relation.setCurrentIndex(list(RELATION_NAMES).index(record.neighbouring)
                                      if record.neighbouring in RELATION_NAMES else 0)
        self.n = named(QSpinBox(), "Public n", "The public number of rows (replace-one only)")
        self.n.setRange(1, MAX_N)
        self.n.setValue(min(record.public_n or 1, MAX_N))
        self.reason = named(QLineEdit(), "Reason", "Why the relation changes (kept in the ledger)")
        self.consequence = named(QLabel(""), "Consequence")
        self.consequence.setWordWrap(True)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                        | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        form = QFormLayout()
        now = relation_text(record.neighbouring, record.public_n)
        form.addRow(QLabel(f"Kept under {now} neighbours now."))
        form.addRow("Relation", self.relation)
        form.addRow("Public n", self.n)
        form.addRow("Reason", self.reason)
        lay = QVBoxLayout(self)
        lay.addLayout(form)
        lay.addWidget(self.consequence)
        lay.addWidget(self.buttons)
        self._current = (record.neighbouring, record.public_n)
        self._neighbouring, self._n, self._reason = record.neighbouring, record.public_n or 1, ""
        keys = list(RELATION_NAMES)
        self.relation.currentIndexChanged.connect(lambda i: self._update(neighbouring=keys[i]))
        self.n.valueChanged.connect(lambda v: self._update(n=v))
        self.reason.textChanged.connect(lambda t: self._update(reason=t))
        self._update()

    def choice(self) -> RelationChoice:
        """The relation, n and reason as chosen."""
        key = self._neighbouring
        return RelationChoice(key, self._n if key == "replace" else None, self._reason.strip())

    def _update(self, *, neighbouring: str | None = None, n: int | None = None,
                reason: str | None = None) -> None:
        """Take in what a widget reported, then show what the choice means."""
        self._neighbouring = self._neighbouring if neighbouring is None else neighbouring
        self._n = self._n if n is None else n
        self._reason = self._reason if reason is None else reason
        c = self.choice()
        self.n.setEnabled(c.neighbouring == "replace")
        changed = (c.neighbouring, c.public_n) != self._current
        self.consequence.setText(relation_consequence(c.neighbouring, self._runs) if changed
                                 else "This is the relation the budget is kept under now.")
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(changed and bool(c.reason))
