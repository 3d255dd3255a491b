"""File → Open on Spark… and the Dataset page's engine switch (issue 16).

The dialog asks for a Spark master URL (``local[*]`` by default: Spark inside this machine), a
source (a path Spark can read, or ``table:NAME`` from the catalogue) and optional configuration
lines (``key=value``). Opening, like any open, runs off the GUI thread and charges nothing; an
unreachable master or a timeout is shown on the Dataset page as one line.

:class:`EngineActions` wires the action and the engine chooser into the window through its public
pieces (``add_action``, ``dataset_panel``, ``ds``) and its one loading entry point (``_load``).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLineEdit,
    QMenu,
    QPlainTextEdit,
    QPushButton,
    QWidget,
)

from svtgui.data.engines import DEFAULT_MASTER
from svtgui.ui.common.theme import named
from svtgui.ui.setup.param_form import ErrorLabel


def parse_conf(text: str) -> dict[str, str]:
    """``key=value`` lines (blank lines and ``#`` comments skipped); ValueError names the bad line."""
    conf: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        key, sep, value = line.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"configuration line {number}: write key=value, got {line!r}")
        conf[key.strip()] = value.strip()
    return conf


class SparkDialog(QDialog):
    """Master URL, source and configuration lines; ``accepted`` only with valid entries."""

    def __init__(self, parent: QWidget | None = None, source: str = "") -> None:
        super().__init__(parent)
        self.setWindowTitle("Open on Spark")
        self.master = named(QLineEdit(DEFAULT_MASTER), "Spark master",
                            "local[*] (this machine), spark://host:7077, yarn, "
                            "or sc://host:15002 (Spark Connect)")
        self.source = named(QLineEdit(source), "Source",
                            "A path Spark can read (Parquet, CSV, JSON lines; hdfs://, s3a://) or table:NAME")
        self.source.setPlaceholderText("/data/census.parquet  or  table:census")
        browse = named(QPushButton("Browse…"), "Browse for a file")
        browse.clicked.connect(self._browse)
        row = QHBoxLayout()
        row.addWidget(self.source, 1)
        row.addWidget(browse)
        self.conf = named(QPlainTextEdit(), "Spark configuration",
                          "Optional key=value lines, e.g. spark.executor.memory=4g")
        self.conf.setPlaceholderText("spark.executor.memory=4g\nspark.sql.shuffle.partitions=64")
        self.conf.setMaximumHeight(90)
        self.error = ErrorLabel("Open on Spark")
        std = QDialogButtonBox.StandardButton
        buttons = QDialogButtonBox(std.Open | std.Cancel)
        buttons.accepted.connect(self._accept)
        buttons.rejected.connect(self.reject)
        form = QFormLayout(self)
        form.addRow("Master URL:", self.master)
        form.addRow("Path or table:NAME:", row)
        form.addRow("Configuration:", self.conf)
        form.addRow(self.error)
        form.addRow(buttons)
        self.engine: dict[str, Any] = {}

    def _browse(self) -> None:
        kinds = "Data (*.parquet *.pq *.csv *.tsv *.jsonl *.ndjson);;All files (*)"
        path, _ = QFileDialog.getOpenFileName(self, "Data for Spark", "", kinds)
        if path:
            self.source.setText(path)

    def _accept(self) -> None:
        if not self.source.text().strip():
            self.error.show_error("Give a path, or table:NAME for a table in Spark's catalogue.")
            return
        if not self.master.text().strip():
            self.error.show_error("Give a master URL (local[*] runs Spark on this machine).")
            return
        try:
            conf = parse_conf(self.conf.toPlainText())
        except ValueError as exc:
            self.error.show_error(str(exc))
            return
        self.engine = {"engine": "spark", "spark_master": self.master.text().strip(), "spark_conf": conf}
        self.accept()


class EngineActions(QObject):
    """File → Open on Spark… and the Dataset page's "Evaluate with" chooser of one window."""

    def __init__(self, win: Any, menu: QMenu) -> None:
        super().__init__(win)
        self.win = win
        self.dialog: SparkDialog | None = None  # the open dialog (tests fill it in)
        self.action = win.add_action("Open on S&park…", "Ctrl+Alt+O",
                                     "Open a dataset kept by Spark (a cluster, or Spark on this machine)",
                                     lambda: self.open_on_spark(), menu)
        win.dataset_panel.engine_requested.connect(self.reopen)

    def open_on_spark(self, source: str = "") -> bool:
        """Ask for master, source and configuration, then open; False if cancelled."""
        self.dialog = SparkDialog(self.win, source)
        accepted = self.dialog.exec() == QDialog.DialogCode.Accepted
        if accepted:
            self.open_with(self.dialog.source.text().strip(), self.dialog.engine)
        self.dialog = None
        return accepted

    def open_with(self, source: str, engine: dict[str, Any]) -> None:
        self.win.dataset_panel.requested_engine = engine.get("engine") or "auto"
        self.win._load(source, remember=False, engine=engine)

    def reopen(self, engine: str) -> None:
        """The curator picked another engine for the open dataset: reopen it there."""
        ds = self.win.ds
        source = str(ds.path) if ds is not None and ds.path is not None else ""
        if engine == "spark":
            self.open_on_spark(source)
        elif source:
            self.open_with(source, {"engine": None if engine == "auto" else engine})
