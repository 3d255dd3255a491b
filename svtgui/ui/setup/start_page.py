"""The start page: open a file, pick a bundled sample, reopen a recent file, or learn in teaching mode."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QGridLayout,
    QGroupBox,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from svtgui.ui.common.theme import named

SAMPLES = {
    "census": ("Census (synthetic, 30,000 people)", "age, sex, education, hours, income, capital gain…"),
    "baskets": ("Shopping baskets (synthetic transactions)", "one basket of item ids per row"),
}


class StartPage(QWidget):
    open_file = Signal()
    open_sample = Signal(str)
    open_recent = Signal(str)
    open_teaching = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        title = QLabel("<h1>SVT Studio</h1>")
        subtitle = QLabel(
            "Release statistics about a private dataset with the Sparse Vector Technique: "
            "ask many questions, pay only for the few answers above your threshold."
        )
        subtitle.setWordWrap(True)
        self.open_button = named(
            QPushButton("Open a dataset…"),
            "Open a dataset",
            "Open a CSV, TSV, Parquet, Excel, JSON Lines or .dat file (Ctrl+O). "
            "You can also drop a file on this window.",
        )
        self.open_button.setMinimumHeight(40)
        self.open_button.clicked.connect(self.open_file)
        self.teach_button = named(
            QPushButton("Teaching mode…"),
            "Teaching mode",
            "Watch SVT work step by step on toy data, internals shown (Ctrl+T)",
        )
        self.teach_button.setMinimumHeight(40)
        self.teach_button.clicked.connect(self.open_teaching)
        self.samples = named(QListWidget(), "Bundled samples", "Synthetic datasets shipped with SVT Studio")
        for key, (name, detail) in SAMPLES.items():
            item = QListWidgetItem(f"{name}\n    {detail}")
            item.setData(Qt.ItemDataRole.UserRole, key)
            self.samples.addItem(item)
        self.samples.itemActivated.connect(
            lambda it: self.open_sample.emit(it.data(Qt.ItemDataRole.UserRole))
        )
        self.samples.itemClicked.connect(lambda it: self.open_sample.emit(it.data(Qt.ItemDataRole.UserRole)))
        self.recent = named(QListWidget(), "Recent files", "Files you opened before")
        self.recent.itemActivated.connect(lambda it: self.open_recent.emit(it.data(Qt.ItemDataRole.UserRole)))
        self.recent.itemClicked.connect(lambda it: self.open_recent.emit(it.data(Qt.ItemDataRole.UserRole)))
        samples_box = QGroupBox("Bundled samples")
        QVBoxLayout(samples_box).addWidget(self.samples)
        recent_box = QGroupBox("Recent files")
        QVBoxLayout(recent_box).addWidget(self.recent)
        grid = QGridLayout()
        grid.addWidget(self.open_button, 0, 0)
        grid.addWidget(self.teach_button, 0, 1)
        grid.addWidget(samples_box, 1, 0)
        grid.addWidget(recent_box, 1, 1)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(48, 32, 48, 32)
        lay.addWidget(title)
        lay.addWidget(subtitle)
        lay.addSpacing(16)
        lay.addLayout(grid, 1)

    def set_recent(self, files: list[str]) -> None:
        self.recent.clear()
        for f in files:
            item = QListWidgetItem(f"{Path(f).name}\n    {Path(f).parent}")
            item.setData(Qt.ItemDataRole.UserRole, f)
            item.setToolTip(f)
            self.recent.addItem(item)
        if not files:
            item = QListWidgetItem("No recent files yet.")
            item.setFlags(Qt.ItemFlag.NoItemFlags)
            self.recent.addItem(item)
