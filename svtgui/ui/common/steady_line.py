"""A one-line label whose size never follows its text, for figures that change on every edit.

Why not a ``QLabel``: every ``QLabel.setText`` asks its layout to be done again, and a word-wrapped
label's height depends on its text, so the layout of its page, and of the window around it, was
done again and the whole page repainted: measured in ``bench/queue_edit.py``, the queue's summary
line ("200,001 queries · Δ = 1 · …") cost most of the ~8 ms an append to a queue of 200,000 held
the GUI thread. A :class:`SteadyLine` is one line high whatever it says: new text repaints the line
alone. A text wider than the line ends with "…"; the whole text is its tooltip and its accessible
description, so a screen reader reads it whole.
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QPainter, QPaintEvent
from PySide6.QtWidgets import QSizePolicy, QWidget

from svtgui.ui.common.theme import named


class SteadyLine(QWidget):
    """One line of text, elided to its width; setting it repaints the line and lays out nothing."""

    MIN_WIDTH = 80  # never widens the page it sits in: the layout gives it the width there is

    def __init__(self, text: str, name: str) -> None:
        super().__init__()
        named(self, name)
        self._text = ""
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.setText(text)

    def text(self) -> str:
        """The whole text (the line may show it shortened)."""
        return self._text

    def setText(self, text: str) -> None:  # noqa: N802 - the name QLabel gives it
        if text != self._text:
            self._text = text
            self.setToolTip(text)
            self.setAccessibleDescription(text)
            self.update()

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt override
        return QSize(self.MIN_WIDTH, self.fontMetrics().height() + 2)

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt override
        return self.sizeHint()

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 - Qt override
        painter = QPainter(self)
        shown = self.fontMetrics().elidedText(self._text, Qt.TextElideMode.ElideRight, self.width())
        painter.drawText(self.rect(), Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, shown)
