"""Pieces every teaching page shares: the toy-data banner, chart styling, glossary-linked labels."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QLabel, QWidget

from svtgui.ui.common.theme import WARNING_COLOR, named
from svtgui.ui.teaching.glossary import GLOSSARY, tip

TOY_NOTICE = ("TOY DATA — invented for teaching. This mode shows the secret internals (noisy threshold, "
              "noisy answers, true answers) that a real release never shows.")


def banner() -> QLabel:
    """The toy-data notice shown on top of every page."""
    label = named(QLabel(TOY_NOTICE), "Toy data notice")
    label.setWordWrap(True)
    label.setStyleSheet(f"QLabel {{ border: 1px solid {WARNING_COLOR.name()}; border-radius: 4px; "
                        f"padding: 4px 8px; color: {WARNING_COLOR.name()}; font-weight: bold; }}")
    return label


def term(word: str, key: str) -> str:
    """``word`` as dotted-underlined rich text; the page's tooltip explains glossary ``key``."""
    assert key in GLOSSARY, key
    return f"<span style='text-decoration: underline dotted;'>{word}</span>"


def glossary_label(html: str, *keys: str, name: str) -> QLabel:
    """A wrapped rich-text label whose tooltip is the glossary entries of ``keys``."""
    label = named(QLabel(html), name, "<br><br>".join(tip(k) for k in keys) if keys else None)
    label.setWordWrap(True)
    return label


def styled_plot(widget: QWidget, name: str, description: str) -> pg.PlotWidget:
    """A pyqtgraph plot in the palette's colours with an accessible name and description."""
    pal = widget.palette()
    plot = pg.PlotWidget(background=pal.color(QPalette.ColorRole.Base))
    named(plot, name, description)
    fg = pal.color(QPalette.ColorRole.Text)
    for axis in ("left", "bottom"):
        ax = plot.getAxis(axis)
        ax.setTextPen(fg)
        ax.setPen(fg)
    plot.showGrid(x=True, y=True, alpha=0.15)
    plot.setMenuEnabled(False)
    plot.setMouseEnabled(x=False, y=False)
    plot.hideButtons()
    return plot
