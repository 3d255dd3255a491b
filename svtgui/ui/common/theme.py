"""Colours, palettes and the small helpers every widget uses (accessible names, tooltips).

⊤/⊥ use the Okabe–Ito pair blue/orange, distinguishable under every common colour-vision
deficiency, and are *always* paired with a symbol and a word so colour is never the only cue.
"""

from __future__ import annotations

import os
from typing import TypeVar

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication, QWidget

W = TypeVar("W", bound=QWidget)

ABOVE_COLOR = QColor("#0072B2")  # Okabe–Ito blue
BELOW_COLOR = QColor("#E69F00")  # Okabe–Ito orange
THRESHOLD_COLOR = QColor("#009E73")  # Okabe–Ito bluish green
WARNING_COLOR = QColor("#D55E00")  # Okabe–Ito vermillion

ABOVE_TEXT = "▲ ⊤ above"
BELOW_TEXT = "▽ ⊥ below"


def named(widget: W, name: str, tip: str | None = None) -> W:
    """Give ``widget`` an accessible name (screen readers, tests) and, optionally, a tooltip."""
    widget.setAccessibleName(name)
    widget.setObjectName(name.replace(" ", "_"))
    if tip:
        widget.setToolTip(tip)
    return widget


def focus_visible(view: W) -> W:
    """Mark ``view``'s keyboard focus with a border in the highlight colour. Fusion draws a focused
    table's or list's frame like an unfocused one, so a curator tabbing through the window lost
    track of where the keyboard was. Per widget, not application-wide: an application style sheet
    changes every widget's size hints, and laid-out pages no longer fit small screens."""
    name = type(view).__name__
    view.setStyleSheet(f"{name}:focus {{ border: 2px solid palette(highlight); }}")
    return view


def is_dark() -> bool:
    """Dark palette? ``$SVTGUI_THEME`` (light/dark) overrides the system colour scheme."""
    forced = os.environ.get("SVTGUI_THEME", "").lower()
    if forced in ("light", "dark"):
        return forced == "dark"
    hints = QGuiApplication.styleHints()
    return hints.colorScheme() == Qt.ColorScheme.Dark


def dark_palette() -> QPalette:
    p = QPalette()
    base, window, text = QColor("#1e1f22"), QColor("#2b2d30"), QColor("#dfe1e5")
    for group in (QPalette.ColorGroup.Active, QPalette.ColorGroup.Inactive):
        p.setColor(group, QPalette.ColorRole.Window, window)
        p.setColor(group, QPalette.ColorRole.WindowText, text)
        p.setColor(group, QPalette.ColorRole.Base, base)
        p.setColor(group, QPalette.ColorRole.AlternateBase, QColor("#26282b"))
        p.setColor(group, QPalette.ColorRole.Text, text)
        p.setColor(group, QPalette.ColorRole.Button, QColor("#3c3f41"))
        p.setColor(group, QPalette.ColorRole.ButtonText, text)
        p.setColor(group, QPalette.ColorRole.ToolTipBase, QColor("#3c3f41"))
        p.setColor(group, QPalette.ColorRole.ToolTipText, text)
        p.setColor(group, QPalette.ColorRole.Highlight, QColor("#2f65ca"))
        p.setColor(group, QPalette.ColorRole.HighlightedText, QColor("#ffffff"))
        p.setColor(group, QPalette.ColorRole.Link, QColor("#56B4E9"))
        p.setColor(group, QPalette.ColorRole.PlaceholderText, QColor("#8c8f94"))
    disabled = QColor("#7a7d82")
    for role in (QPalette.ColorRole.WindowText, QPalette.ColorRole.Text, QPalette.ColorRole.ButtonText):
        p.setColor(QPalette.ColorGroup.Disabled, role, disabled)
    p.setColor(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Button, QColor("#313335"))
    p.setColor(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Base, base)
    p.setColor(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Window, window)
    return p


def apply_palette(app: QApplication) -> None:
    """Fusion style with a light or dark palette matching the system (re-run on scheme changes)."""
    app.setStyle("Fusion")
    app.setPalette(dark_palette() if is_dark() else app.style().standardPalette())


def muted(widget: QWidget) -> str:
    """A colour for secondary text that reads on the current palette."""
    return widget.palette().color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.WindowText).name()
