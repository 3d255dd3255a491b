"""Tools ▸ Preferences…: where the ledger is — this computer, or a team's server (issue 26).

The choice is the same as ``--ledger`` / ``$SVTGUI_LEDGER`` in the CLI (:mod:`svtgui.app.ledger_choice`):
a file path, or a ``postgresql://`` URL. *Test connection* opens the ledger off the GUI thread and
says in one line what it is and what this login may do (curator or custodian), or why it cannot be
used. OK saves the choice and applies it at once: the window reopens its ledger there.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtWidgets import (
    QButtonGroup,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from svtgui.app import ledger_choice
from svtgui.app.outputs import Inputs
from svtgui.ledger import default_path, is_server
from svtgui.ui.common.background import Background
from svtgui.ui.common.settings import Settings
from svtgui.ui.common.theme import named
from svtgui.ui.setup.param_form import ErrorLabel


class PreferencesDialog(QDialog):
    """Preferences → Ledger: this computer (a file) or a server (a URL), with a connection test."""

    def __init__(self, settings: Settings, current: str, applied: Callable[[str], None],
                 parent: QWidget | None = None, reads: Inputs | None = None) -> None:
        """``current``: the location in use now; ``applied(location)`` is called after OK; ``reads``:
        the files the window reads, none of which may be chosen as the ledger."""
        super().__init__(parent)
        named(self, "Preferences")
        self.setWindowTitle("Preferences — SVT Studio")
        self.settings, self._applied, self._reads = settings, applied, reads
        self.local = named(QRadioButton("This computer"), "Ledger on this computer",
                           "One ledger file for you alone (the default)")
        self.server = named(QRadioButton("A server (PostgreSQL, shared by a team)"), "Ledger on a server",
                            "One budget per dataset for every curator of the team")
        group = QButtonGroup(self)
        group.addButton(self.local)
        group.addButton(self.server)
        self.path = named(QLineEdit(), "Ledger file", "Empty: the default file")
        self.path.setPlaceholderText(str(default_path()))
        self.browse = named(QPushButton("Choose…"), "Choose the ledger file")
        self.url = named(QLineEdit(), "Server ledger URL",
                         "postgresql://login@host/database; passwords belong in ~/.pgpass")
        self.url.setPlaceholderText("postgresql://ana@db.example.org/svt")
        self.test = named(QPushButton("Test connection"), "Test the ledger connection",
                          "Open the ledger once and say what this login may do there")
        self.result = named(QLabel(""), "Ledger connection result")
        self.result.setWordWrap(True)
        self.error = ErrorLabel("Ledger")
        ok_cancel = QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        self.buttons = QDialogButtonBox(ok_cancel)
        self.tester = Background("ledger test", self)

        box = QGroupBox("Ledger: where every dataset's budget and every release is recorded")
        form = QFormLayout(box)
        file_row = QHBoxLayout()
        file_row.addWidget(self.path, 1)
        file_row.addWidget(self.browse)
        form.addRow(self.local)
        form.addRow("File", file_row)
        form.addRow(self.server)
        form.addRow("URL", self.url)
        test_row = QHBoxLayout()
        test_row.addWidget(self.test)
        test_row.addWidget(self.result, 1)
        form.addRow(test_row)
        form.addRow(self.error)
        lay = QVBoxLayout(self)
        lay.addWidget(box)
        lay.addWidget(self.buttons)

        (self.server if is_server(current) else self.local).setChecked(True)
        shown = "" if current == str(default_path()) else current  # the default file: the placeholder says it
        (self.url if is_server(current) else self.path).setText(shown)
        self.local.toggled.connect(self._chosen)
        self.browse.clicked.connect(self._browse)
        self.test.clicked.connect(self.test_connection)
        self.buttons.accepted.connect(self.accept_choice)
        self.buttons.rejected.connect(self.reject)
        self._chosen()

    def location(self) -> str:
        return (self.url if self.server.isChecked() else self.path).text().strip()

    def _chosen(self) -> None:
        on_server = self.server.isChecked()
        self.url.setEnabled(on_server)
        for w in (self.path, self.browse):
            w.setEnabled(not on_server)
        self.result.setText("")
        self.error.show_error(None)

    def _browse(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Ledger file", self.path.text() or str(default_path()),
                                              "SQLite ledger (*.sqlite);;All files (*)",
                                              options=QFileDialog.Option.DontConfirmOverwrite)
        if path:
            self.path.setText(path)

    def _problem(self) -> str | None:
        wrong = ledger_choice.problem(self.location(), self.server.isChecked(), self._reads)
        if self.server.isChecked() and not self.location():
            wrong = "type the server ledger's URL"
        self.error.show_error(wrong)
        return wrong

    def test_connection(self) -> None:
        """Open the ledger off the GUI thread; its one-line answer (or refusal) shows below."""
        if self._problem():
            return
        self.result.setText("Connecting…")
        self.test.setEnabled(False)
        self.tester.start(_check, self._tested, self._failed, self.location())

    def _tested(self, summary: str) -> None:
        self.test.setEnabled(True)
        self.result.setText(f"✓ {summary}")

    def _failed(self, exc: BaseException) -> None:
        self.test.setEnabled(True)
        self.result.setText("")
        self.error.show_error(str(exc))

    def accept_choice(self) -> None:
        """OK: save the choice and use it now (the window reopens its ledger there)."""
        if self._problem():
            return
        location = self.location()
        self.settings.ledger_location = location
        ledger_choice.use(location)
        self._applied(location)
        self.accept()


def _check(_state: Any, location: str) -> str:
    return ledger_choice.check(location)
