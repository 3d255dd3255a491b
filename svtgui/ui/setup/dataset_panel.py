"""Step 1: the dataset — what was loaded, a progress bar with Cancel, errors, and the preview.

The preview is the curator's own private data, shown to the curator only; it is a virtual
model (:class:`FrameModel`), so a million rows scroll smoothly.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QProgressBar,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from svtgui.ui.common.theme import named
from svtgui.ui.setup.frame_model import FrameModel
from svtgui.ui.setup.param_form import ErrorLabel


class DatasetPanel(QWidget):
    """Header, load progress, inline error and the virtual preview table."""

    cancel_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title = named(QLabel("No dataset"), "Dataset name")
        font = self.title.font()
        font.setPointSizeF(font.pointSizeF() * 1.3)
        font.setBold(True)
        self.title.setFont(font)
        self.details = named(QLabel(""), "Dataset details")
        self.details.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.progress = named(QProgressBar(), "Loading progress")
        self.progress.setRange(0, 100)
        self.cancel = named(QPushButton("Cancel"), "Cancel loading", "Stop loading this file (Esc)")
        self.cancel.setShortcut("Esc")
        self.cancel.clicked.connect(self.cancel_requested)
        self.error = ErrorLabel("Dataset")
        self.model = FrameModel(parent=self)
        self.table = named(
            QTableView(), "Data preview", "Your private rows, shown only to you. Nothing here is released."
        )
        self.table.setModel(self.model)
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(False)
        vh = self.table.verticalHeader()
        vh.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        vh.setDefaultSectionSize(self.fontMetrics().height() + 6)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.table.horizontalHeader().setDefaultSectionSize(120)
        self.note = QLabel(
            "Preview of your private data — for your eyes only; nothing on this page is released."
        )
        self.note.setEnabled(False)

        prog_row = QHBoxLayout()
        prog_row.addWidget(self.progress, 1)
        prog_row.addWidget(self.cancel)
        self.progress_box = QWidget()
        self.progress_box.setLayout(prog_row)
        self.progress_box.hide()
        lay = QVBoxLayout(self)
        lay.addWidget(self.title)
        lay.addWidget(self.details)
        lay.addWidget(self.progress_box)
        lay.addWidget(self.error)
        lay.addWidget(self.table, 1)
        lay.addWidget(self.note)

    def show_loading(self, path: str) -> None:
        self.error.show_error(None)
        self.progress.setValue(0)
        self.progress.setFormat(f"Loading {path} … %p%")
        self.progress_box.show()

    def set_progress(self, fraction: float) -> None:
        self.progress.setValue(round(fraction * 100))

    def hide_progress(self) -> None:
        self.progress_box.hide()

    def show_error(self, message: str) -> None:
        self.hide_progress()
        self.error.show_error(message)

    def show_dataset(self, ds) -> None:
        self.hide_progress()
        self.error.show_error(None)
        self.title.setText(ds.name)
        where = str(ds.path) if ds.path else "in memory"
        self.details.setText(
            f"{ds.n_rows:,} rows × {len(ds.schema.columns)} columns · {ds.format} · {where}"
        )
        self.model.set_frame(ds.frame)
