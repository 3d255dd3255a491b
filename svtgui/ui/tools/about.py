"""Help → About: version, licence, and the citation of every mechanism the app offers.

The citations come from the live catalogue (:func:`svtgui.core.mechanisms.catalog`), so a new
mechanism appears here the moment it registers. "Copy details" puts the version information on the
clipboard for bug reports.
"""

from __future__ import annotations

import html
import platform
import sys
from importlib import metadata
from pathlib import Path

from PySide6 import __version__ as pyside_version
from PySide6.QtCore import Qt, qVersion
from PySide6.QtGui import QGuiApplication, QPixmap
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QTabWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from svtgui import __version__
from svtgui.core import mechanisms
from svtgui.ui.common.app_icon import APP_ID, icon_path
from svtgui.ui.common.theme import named

LICENCE_NAME = "MIT"


def licence_text() -> str:
    """Full text of the licence shipped with this copy (bundle, source checkout or installed wheel)."""
    candidates = [Path(__file__).resolve().parents[2] / "LICENSE"]
    frozen = getattr(sys, "_MEIPASS", None)
    if frozen:
        candidates.insert(0, Path(frozen) / "LICENSE")
    for path in candidates:
        if path.is_file():
            return path.read_text(encoding="utf-8")
    try:
        for f in metadata.distribution("svtgui").files or ():
            if f.name == "LICENSE":
                return f.read_text(encoding="utf-8")
    except metadata.PackageNotFoundError:
        pass
    return f"{LICENCE_NAME} License. The full text ships as LICENSE with every copy of SVT Studio."


def system_details() -> str:
    """Plain-text version details to paste into a bug report."""
    return (f"SVT Studio {__version__} ({APP_ID})\n"
            f"Python {platform.python_version()}, Qt {qVersion()}, PySide6 {pyside_version}\n"
            f"{platform.platform()}{' (bundle)' if getattr(sys, 'frozen', False) else ''}")


def citations_html() -> str:
    """Every catalogue entry with its guarantee and citation; non-private ones flagged in words."""
    items = []
    for entry in mechanisms.catalog():
        flag = ""
        if entry.status != mechanisms.PRIVATE:
            flag = (" <b>— known NOT private; teaching example only.</b> "
                    f"{html.escape(entry.why_not_private or '')}")
        items.append(
            f"<li style='margin-bottom:6px'><b>{html.escape(entry.name)}</b> "
            f"(<code>{html.escape(entry.id)}</code>), "
            f"{html.escape(entry.guarantee)}{flag}<br>{html.escape(entry.citation)}</li>")
    return "<p>The mechanisms and the papers they come from:</p><ul>" + "".join(items) + "</ul>"


class AboutDialog(QDialog):
    """Modal About box: ``AboutDialog(parent).exec()``."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("About SVT Studio")
        named(self, "About SVT Studio")
        self.resize(640, 520)

        logo = QLabel()
        logo.setPixmap(QPixmap(str(icon_path(64))))
        version = html.escape(__version__)
        title = named(QLabel(f"<h2>SVT Studio</h2><p>Version {version}</p>"), "Application name and version")
        header = QHBoxLayout()
        header.addWidget(logo)
        header.addWidget(title, 1)

        tabs = named(QTabWidget(), "About sections")
        tabs.addTab(self._browser(self._about_html(), "About text"), "About")
        tabs.addTab(self._browser(citations_html(), "Mechanism citations"), "Mechanisms")
        licence = self._browser("", "Licence text")
        licence.setPlainText(licence_text())
        tabs.addTab(licence, "Licence")

        copy = named(QPushButton("Copy details"), "Copy details",
                     "Copy the version details to the clipboard, for a bug report")
        copy.clicked.connect(lambda: QGuiApplication.clipboard().setText(system_details()))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.addButton(copy, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.rejected.connect(self.reject)

        layout = QVBoxLayout(self)
        layout.addLayout(header)
        layout.addWidget(tabs, 1)
        layout.addWidget(buttons)

    @staticmethod
    def _browser(content: str, name: str) -> QTextBrowser:
        browser = named(QTextBrowser(), name)
        browser.setOpenExternalLinks(True)
        browser.setHtml(content)
        browser.setTextInteractionFlags(Qt.TextInteractionFlag.TextBrowserInteraction)
        return browser

    @staticmethod
    def _about_html() -> str:
        details = html.escape(system_details()).replace("\n", "<br>")
        return (
            "<p>Release statistics about a private dataset under differential privacy with the "
            "Sparse Vector Technique, and watch it work.</p>"
            f"<p>Licensed under the {LICENCE_NAME} licence (see the Licence tab).<br>"
            "Copyright © 2026 SVT Studio developers.</p>"
            "<p>SVT Studio has no public repository yet. To report a bug, send the SVT Studio "
            "developers the details below (“Copy details”), the steps that led to it and the exact "
            "message. Never attach private data, your ledger or a report about private data.</p>"
            f"<p><small>{details}</small></p>")
