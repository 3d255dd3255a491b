"""Declare the levels of a categorical column: typed, pasted, or read from the data with a warning.

Why levels are declared: "every value of a column" and the PMW/SparseProject universes need the
column's domain. A domain typed from public knowledge (the census codebook) is public; a domain
read off the data is not — it reveals which values occur (a rare level names its one row) — so
that choice says so in words and is marked in the schema (``Column.levels_from_data``), where it
stays through edits, saving and reopening. Typing over such levels does not make them public: only
the curator's explicit word does (unticking "read from the data" states that they come from public
knowledge), so opening the dialog and pressing OK never loses the mark.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from svtgui.ui.common.theme import WARNING_COLOR, named

FROM_DATA_WARNING = ("These levels were read from the data: they are NOT public. Publishing queries or a "
                     "release built on them reveals which values occur. Replace them with the levels of a "
                     "public codebook where you can.")


def parse_levels(text: str) -> list[str]:
    """One level per line (commas also separate); blanks dropped, order kept, repeats refused."""
    parts = [p.strip() for line in text.splitlines() for p in line.split(",")]
    levels = [p for p in parts if p]
    seen: set[str] = set()
    for level in levels:
        if level in seen:
            raise ValueError(f"the level {level!r} is listed twice")
        seen.add(level)
    return levels


class LevelsDialog(QDialog):
    """Edits one categorical column's declared levels; ``levels`` holds the accepted list."""

    def __init__(self, column: str, current: list[str] | None, read_from_data: Any,
                 parent: QWidget | None = None, *, current_from_data: bool = False) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Levels of {column}")
        self.column, self._read = column, read_from_data
        self.levels: list[str] | None = None
        intro = QLabel(f"Type or paste the possible values of <b>{column}</b>, one per line (or separated "
                       "by commas), from public knowledge of the domain — a codebook, a form's choices.")
        intro.setWordWrap(True)
        self.text = named(QPlainTextEdit("\n".join(current or [])), f"Levels of {column}",
                          "One level per line; commas also separate levels")
        self.read_button = named(QPushButton("Read the levels that occur in the data…"),
                                 "Read levels from data",
                                 "Fills the list from the data; such levels are not public (see the warning)")
        self.read_mark = named(QCheckBox("These levels were read from the data (NOT public)"),
                               "Levels read from the data",
                               "Ticked when the levels come from the data; untick only if you declare them "
                               "from public knowledge (a codebook)")
        self.warning = named(QLabel(FROM_DATA_WARNING), "Levels from data warning")
        self.warning.setWordWrap(True)
        self.warning.setStyleSheet(f"color: {WARNING_COLOR.name()}; font-weight: bold;")
        self.read_mark.toggled.connect(self.warning.setVisible)
        self.read_mark.setChecked(current_from_data)
        self.warning.setVisible(current_from_data)
        self.error = named(QLabel(), "Levels error")
        self.error.setStyleSheet(f"color: {WARNING_COLOR.name()};")
        self.error.hide()
        ok_cancel = QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        self.buttons = QDialogButtonBox(ok_cancel)
        self.buttons.accepted.connect(self._accept)
        self.buttons.rejected.connect(self.reject)
        self.read_button.clicked.connect(self._read_from_data)
        self.text.textChanged.connect(self.error.hide)
        lay = QVBoxLayout(self)
        for w in (intro, self.text, self.read_button, self.read_mark, self.warning, self.error, self.buttons):
            lay.addWidget(w)
        self.resize(460, 420)

    @property
    def from_data(self) -> bool:
        """Whether the accepted levels count as read from the data (the curator's word, or the button)."""
        return self.read_mark.isChecked()

    def _read_from_data(self) -> None:
        self.text.setPlainText("\n".join(str(v) for v in self._read()))
        self.read_mark.setChecked(True)

    def _accept(self) -> None:
        try:
            levels = parse_levels(self.text.toPlainText())
        except ValueError as exc:
            self.error.setText(f"⚠ {exc}")
            self.error.show()
            return
        self.levels = levels or None
        self.accept()
