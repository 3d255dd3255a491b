"""The Dataset page on DuckDB: the engine line, the switch, File → Open on Spark…'s checks, and a
streamed run on a DuckDB-backed dataset (issue 16)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from svtgui.ui.app import create_app
from svtgui.ui.main_window import SAMPLE_PARAMS
from svtgui.ui.setup.spark_open import SparkDialog, parse_conf


@pytest.fixture
def census(tmp_path: Path) -> Path:
    r = np.random.default_rng(5)
    path = tmp_path / "people.parquet"
    pd.DataFrame({"age": r.integers(17, 91, 3000), "sex": r.choice(["F", "M"], 3000)}).to_parquet(path)
    return path


def test_duckdb_dataset_page_says_who_evaluates_and_switches(qtbot, window, census: Path) -> None:
    window.engines.open_with(str(census), {"engine": "duckdb"})
    qtbot.waitUntil(lambda: window.ds is not None, timeout=30_000)
    panel = window.dataset_panel
    assert window.ds.engine == "duckdb"
    assert panel.engine.text().startswith("Evaluated by DuckDB, in place: chosen by you.")
    assert panel.model.rowCount() == 1000  # the first rows only
    assert panel.engine_choice.currentData() == "duckdb"
    panel.engine_requested.emit("memory")  # what picking "Memory" in the chooser does
    qtbot.waitUntil(lambda: window.ds.engine == "memory", timeout=30_000)
    assert panel.engine.text().startswith("Evaluated in memory (pandas): chosen by you.")
    assert panel.model.rowCount() == 3000
    panel.engine_requested.emit("auto")
    qtbot.waitUntil(lambda: panel.engine_choice.currentData() == "auto", timeout=30_000)
    assert "loaded into memory" in panel.engine.text()


def test_open_failure_is_shown_on_the_page(qtbot, window, tmp_path: Path) -> None:
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(b"PAR1 not really")
    window.engines.open_with(str(bad), {"engine": "duckdb"})
    qtbot.waitUntil(lambda: window.dataset_panel.error.isVisible(), timeout=30_000)
    assert "not a readable Parquet file" in window.dataset_panel.error.text() and window.ds is None


def test_spark_dialog_checks_its_entries(qtbot) -> None:
    create_app()
    dialog = SparkDialog(source="")
    qtbot.addWidget(dialog)
    dialog._accept()
    assert "table:NAME" in dialog.error.text() and not dialog.engine
    dialog.source.setText("table:census")
    dialog.conf.setPlainText("spark.executor.memory=4g\nnot a line")
    dialog._accept()
    assert "configuration line 2" in dialog.error.text()
    dialog.conf.setPlainText("# tuned\nspark.executor.memory = 4g\n")
    dialog._accept()
    assert dialog.engine == {"engine": "spark", "spark_master": "local[*]",
                             "spark_conf": {"spark.executor.memory": "4g"}}
    with pytest.raises(ValueError, match="line 1"):
        parse_conf("=x")


def test_a_run_on_duckdb_streams_to_the_end_in_the_child_process(qtbot, window, tmp_path: Path) -> None:
    import shutil

    from PySide6.QtCore import Qt

    from svtgui.assets import asset
    from svtgui.data.queries import queries_from_json

    samples = Path(asset("samples/census.csv")).parent
    data = tmp_path / "census.parquet"
    pd.read_csv(samples / "census.csv").to_parquet(data)
    shutil.copy(samples / "census.schema.json", tmp_path / "census.schema.json")
    window.engines.open_with(str(data), {"engine": "duckdb"})
    qtbot.waitUntil(lambda: window.ds is not None, timeout=30_000)
    assert window.ds.engine == "duckdb"
    for name, value in SAMPLE_PARAMS["census"].items():  # typed as a curator would
        editor = window.mechanism.form.editors[name]
        editor.setText(str(value)) if hasattr(editor, "setText") else editor.setValue(int(value))
    window.mechanism.flush()
    queries = queries_from_json((samples / "census.queries.json").read_text(encoding="utf-8"))[:200]
    window.queries.set_queries(queries)
    if window.run_page.totals.is_new:
        window.run_page.totals.epsilon.setText("10")
    window.show_page("run")
    qtbot.mouseClick(window.run_page.run_button, Qt.MouseButton.LeftButton)
    assert window.run_page.confirm.isVisible(), window.run_page.run_error.text()
    qtbot.mouseClick(window.run_page.confirm.spend, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: window.run_model.state in ("ended", "drained"), timeout=90_000)
    c = window.run_model
    assert c.run is not None and c.run.status in ("halted", "finished", "running"), c.outcome
    assert c.store.n > 0  # released rows reached the window
