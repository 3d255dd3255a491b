"""Step 1: the dataset — what was loaded, a progress bar with Cancel, errors, and the preview.

The preview is the curator's own private data, shown to the curator only; it is a virtual
model (:class:`FrameModel`), so a million rows scroll smoothly. For data kept by DuckDB or Spark
it shows the first rows only. The engine line says who evaluates the queries and why; its chooser
asks the window to reopen the file on another engine (``engine_requested``).
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QProgressBar,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from svtgui.core.wording import count
from svtgui.ui.common.theme import named
from svtgui.ui.setup.frame_model import FrameModel
from svtgui.ui.setup.param_form import ErrorLabel

ENGINE_NAMES = {"auto": "Automatic", "memory": "Memory (pandas)", "duckdb": "DuckDB (file read in place)",
                "spark": "Spark…"}
PREVIEW_ROWS = 1000


class DatasetPanel(QWidget):
    """Header, engine line, load progress, inline error and the virtual preview table."""

    cancel_requested = Signal()
    engine_requested = Signal(str)  # auto, memory, duckdb or spark: reopen the dataset there

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
        self.engine = named(QLabel(""), "Engine", "Who evaluates the queries on these rows, and why")
        self.engine.setWordWrap(True)
        self.engine_choice = named(QComboBox(), "Evaluate with",
                                   "Reopen this dataset on another engine (nothing is charged)")
        for key, text in ENGINE_NAMES.items():
            self.engine_choice.addItem(text, key)
        self.engine_choice.activated.connect(
            lambda i: self.engine_requested.emit(self.engine_choice.itemData(i)))
        self.requested_engine = "auto"  # what the next show_dataset was asked for
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
        engine_row = QHBoxLayout()
        engine_row.addWidget(self.engine, 1)
        engine_row.addWidget(QLabel("Evaluate with:"))
        engine_row.addWidget(self.engine_choice)
        self.engine_box = QWidget()
        self.engine_box.setLayout(engine_row)
        self.engine_box.hide()
        lay.addWidget(self.engine_box)
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
            f"{count(ds.n_rows, 'row')} × {count(len(ds.schema.columns), 'column')} · {ds.format} · {where}"
        )
        self._show_engine(ds)
        if ds.engine == "memory":
            self.model.set_frame(ds.frame)
        else:
            self.model.set_frame(ds.preview(PREVIEW_ROWS))

    def _show_engine(self, ds) -> None:
        from svtgui.data.engines import choose_engine

        if ds.engine != "memory":
            reason = ds.reason
        elif self.requested_engine == "memory":
            reason = "chosen by you"
        elif ds.path is not None:
            reason = choose_engine(ds.path).reason
        else:
            reason = "data made in memory"
        names = {"memory": "in memory (pandas)", "duckdb": "by DuckDB, in place", "spark": "by Spark"}
        # a CSV file on DuckDB is read from a copy that keeps no row order: not "the first" rows
        preview = f" Preview: {PREVIEW_ROWS:,} rows." if ds.engine != "memory" else ""
        self.engine.setText(f"Evaluated {names[ds.engine]}: {reason}.{preview}")
        self.engine_choice.setCurrentIndex(self.engine_choice.findData(
            ds.engine if self.requested_engine != "auto" or ds.engine == "spark" else "auto"))
        self.engine_choice.setEnabled(ds.path is not None or ds.engine == "spark")
        self.engine_box.show()
        self.requested_engine = "auto"
