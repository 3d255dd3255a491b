"""The Queries step's notice of domains read off the data, and the curator's override (issue 21 §4).

Shown only while the current set-up depends on such a domain (the queue's own provenance, schema
levels read from the data, a universe over observed levels — whatever the workspace's plan found).
It names them, says the release is refused, and offers the override: a check box, then an inline
confirmation that the release will be recorded and reported as NOT differentially private. Only
"Allow" in that confirmation writes the override into the workspace; the check box mirrors it.
"""

from __future__ import annotations

from PySide6.QtWidgets import QGroupBox, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from svtgui.app.domains import OVERRIDE_LABEL, listing
from svtgui.app.workspace import Workspace
from svtgui.ui.common.theme import WARNING_COLOR, named

CONFIRM_TEXT = ("Allow this release? It will be charged like any run, and the ledger, the History and every "
                "report will say it is NOT differentially private: the values it was built from were read "
                "from the private data.")


class DomainsBox(QGroupBox):
    """Which domains were read from the data, and the override with its confirmation."""

    def __init__(self, workspace: Workspace, parent: QWidget | None = None) -> None:
        super().__init__("Domains read from the data", parent)
        named(self, "Domains read from the data",
              "Values that occur in the private data are not public: a release built on them is refused "
              "unless you allow it, and is then NOT differentially private")
        self.workspace = workspace
        self.notes = named(QLabel(), "Domains read from the data list")
        self.notes.setWordWrap(True)
        self.notes.setStyleSheet(f"color: {WARNING_COLOR.name()}; font-weight: bold;")
        self.allow = named(QPushButton(OVERRIDE_LABEL), "Allow domains read from the data",
                           "Release anyway, recorded and reported as NOT differentially private "
                           "(asks for confirmation)")
        self.allow.setCheckable(True)
        self.confirm_text = named(QLabel(CONFIRM_TEXT), "Allow domains confirmation")
        self.confirm_text.setWordWrap(True)
        self.confirm = named(QPushButton("Allow: NOT differentially private"), "Confirm allow domains")
        self.cancel = named(QPushButton("Cancel"), "Cancel allow domains")
        confirm_row = QHBoxLayout()
        confirm_row.addWidget(self.confirm)
        confirm_row.addWidget(self.cancel)
        confirm_row.addStretch(1)
        lay = QVBoxLayout(self)
        lay.addWidget(self.notes)
        lay.addWidget(self.allow)
        lay.addWidget(self.confirm_text)
        lay.addLayout(confirm_row)
        self._confirming(False)
        self.allow.clicked.connect(self._toggled)
        self.confirm.clicked.connect(lambda: self._decide(True))
        self.cancel.clicked.connect(lambda: self._decide(False))
        workspace.subscribe(lambda _what: self.refresh())
        self.refresh()

    def _confirming(self, shown: bool) -> None:
        for w in (self.confirm_text, self.confirm, self.cancel):
            w.setVisible(shown)

    def _toggled(self, checked: bool) -> None:
        if checked:  # asked for: confirm first; the workspace changes only on "Allow"
            self.allow.setChecked(False)
            self._confirming(True)
        else:
            self._decide(False)

    def _decide(self, allowed: bool) -> None:
        self._confirming(False)
        self.workspace.set_allow_from_data(allowed)
        self.refresh()

    def refresh(self) -> None:
        """Show the domains the current plan depends on (hidden when none), the override as it is."""
        notes = self.workspace.plan.domains_from_data if self.workspace.dataset is not None else ()
        self.setVisible(bool(notes))
        allowed = self.workspace.allow_from_data
        self.allow.setChecked(allowed)
        if not notes:
            self._confirming(False)
            return
        state = ("You allowed it: the release will be recorded and reported as NOT differentially private."
                 if allowed else "A release that uses them is refused.")
        self.notes.setText(f"⚠ This set-up depends on {listing(notes)}, read from the private data: they "
                           f"are NOT public. {state}")
