"""Spark (local[2], one session for the whole test run) answers exactly as memory and DuckDB do.

The session is started once (about 10 s) and shared by every test here; queries on tiny data take
a fraction of a second each, so the module stays well under its 2-minute budget.
"""

from __future__ import annotations

from pathlib import Path

import pyspark  # the test extra installs it; a missing PySpark must fail, not skip
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from svtgui.data.engines import EngineError, open_dataset
from svtgui.data.errors import DatasetError
from svtgui.data.evaluate import evaluate
from svtgui.data.fingerprint import new_key
from svtgui.data.predicates import Condition
from svtgui.data.queries import Count, RangeCount
from tests.data.engines_support import assert_same, frames, queries, universe_cells, write

SPECS = ["c", "a@0,5,10,20"]


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(frame=frames(), batch=st.lists(queries(), min_size=1, max_size=20), tiny=st.booleans())
def test_three_engines_answer_random_batches_alike(spark, tmp_path_factory, frame, batch, tiny) -> None:
    path = write(frame, tmp_path_factory.mktemp("spark"))
    memory = open_dataset(path, engine="memory")
    engines = [open_dataset(path, engine="duckdb"),
               open_dataset(path, engine="spark", spark_master="local[2]")]
    expected = evaluate(memory, batch)
    for ds in engines:
        if tiny:  # the aggregates-per-scan fallback
            ds.planner.limit = 1
        assert_same(expected, evaluate(ds, batch), batch)
    assert universe_cells(engines[1], SPECS) == universe_cells(memory, SPECS)
    key = new_key()  # the same identity from the three engines (Spark: per partition, merged)
    assert engines[0].fingerprint(key) == engines[1].fingerprint(key) == memory.fingerprint(key)


def test_catalogue_table_and_fingerprint(spark, tmp_path: Path) -> None:
    import pandas as pd

    frame = pd.DataFrame({"age": [20, 35, 35, 70], "sex": ["F", "M", "F", None]})
    path = write(frame, tmp_path)
    spark.read.parquet(str(path)).createOrReplaceTempView("people")
    ds = open_dataset("table:people", spark_master="local[2]")
    assert ds.engine == "spark" and ds.n_rows == 4 and ds.reason == "a catalogue table is read by Spark"
    batch = [RangeCount("age", 30, 40), Count(Condition("sex", "=", "F"))]
    assert list(evaluate(ds, batch)) == [2.0, 2.0]
    key = new_key()
    assert ds.content_fingerprint(key) == open_dataset(path, engine="memory").content_fingerprint(key)
    assert len(ds.preview(2)) == 2


def test_missing_table_and_path_are_clear_errors(spark, tmp_path: Path) -> None:
    with pytest.raises(EngineError, match="Spark failed \\(reading the source\\).*no_such_table"):
        open_dataset("table:no_such_table", spark_master="local[2]")
    with pytest.raises(DatasetError, match="no such file"):
        open_dataset(tmp_path / "gone.parquet", engine="spark", spark_master="local[2]")


def test_a_job_past_the_timeout_is_cancelled_with_a_clear_message(spark, tmp_path: Path) -> None:
    import pandas as pd

    path = write(pd.DataFrame({"age": list(range(100))}), tmp_path)
    ds = open_dataset(path, engine="spark", spark_master="local[2]")
    ds.table.timeout = 1e-6
    with pytest.raises(EngineError, match="did not answer within"):
        evaluate(ds, [RangeCount("age", 0, 50)])
    with pytest.raises(EngineError, match="did not answer within .* \\(fingerprinting the rows\\)"):
        ds.fingerprint(new_key())  # an EngineError is a DatasetError: svtgui-cli exits 2


def test_cli_run_on_a_spark_table(spark, tmp_path: Path, capsys) -> None:
    import pandas as pd

    from svtgui.cli import main

    path = write(pd.DataFrame({"age": [20 + i % 60 for i in range(600)]}), tmp_path)
    spark.read.parquet(str(path)).createOrReplaceTempView("ages")
    queries = tmp_path / "q.json"
    assert main(["queries", "generate", "range-sweep", "--column", "age", "--start", "20", "--stop", "80",
                 "--width", "10", "--out", str(queries)]) == 0
    code = main(["run", "--engine", "spark", "--spark-master", "local[2]", "--data", "table:ages",
                 "--queries", str(queries), "--mechanism", "sparse", "--epsilon", "1", "--threshold", "50",
                 "--cutoff", "2", "--ledger", str(tmp_path / "l.db"), "--budget-epsilon", "3"])
    assert code == 0, capsys.readouterr().err


def test_an_unreachable_master_exits_2_and_charges_nothing(tmp_path: Path) -> None:
    """In its own process (one SparkContext per process): nothing listens on port 9."""
    import subprocess
    import sys

    import pandas as pd

    data = write(pd.DataFrame({"age": [20, 30, 40]}), tmp_path)
    queries = tmp_path / "q.json"
    queries.write_text('[{"kind": "range", "column": "age", "low": 20, "high": 30}]', encoding="utf-8")
    ledger = tmp_path / "l.db"
    done = subprocess.run(
        [sys.executable, "-m", "svtgui.cli", "run", "--engine", "spark", "--spark-master", "spark://127.0.0.1:9",
         "--spark-timeout", "15", "--data", str(data), "--queries", str(queries), "--mechanism", "sparse",
         "--epsilon", "1", "--threshold", "1", "--cutoff", "1", "--ledger", str(ledger),
         "--budget-epsilon", "2"],
        capture_output=True, text=True, timeout=240)
    assert done.returncode == 2
    assert "svtgui-cli run: error: --data: Spark did not" in done.stderr
    assert "spark://127.0.0.1:9" in done.stderr
    assert not ledger.exists()  # nothing charged, nothing written


def test_cancel_stops_the_fingerprint_job_and_the_session_goes_on(spark, tmp_path: Path) -> None:
    """The window's Cancel reaches a running Spark job (the fingerprint of a large table takes long)."""
    import time

    import pandas as pd

    from svtgui.data.errors import LoadCancelled

    tracker = spark.sparkContext.statusTracker()

    class CancelledWhileAJobRuns:
        """Cancels at the first look that finds a Spark job running (the fingerprint makes several:
        a Cancel between two of them would stop none, and the test would prove nothing)."""

        def __init__(self) -> None:
            self.jobs: list[int] = []

        def set_progress(self, fraction, text=""):
            pass

        def is_cancelled(self):
            self.jobs = list(tracker.getActiveJobsIds())
            return bool(self.jobs)

    path = write(pd.DataFrame({"age": range(2_000_000)}), tmp_path)
    ds = open_dataset(path, engine="spark", spark_master="local[2]")
    cancel = CancelledWhileAJobRuns()
    with pytest.raises(LoadCancelled):
        ds.fingerprint(new_key(), cancel)
    deadline = time.monotonic() + 60
    while any(tracker.getJobInfo(j).status == "RUNNING" for j in cancel.jobs) and time.monotonic() < deadline:
        time.sleep(0.05)  # polling the job's state, not waiting a fixed time
    assert cancel.jobs and all(tracker.getJobInfo(j).status == "FAILED" for j in cancel.jobs)
    batch = [RangeCount("age", 0, 99)]
    assert list(evaluate(ds, batch)) == list(evaluate(open_dataset(path, engine="memory"), batch))


def test_the_fingerprint_warns_nothing_the_curator_did_not_ask_for(spark, tmp_path: Path) -> None:
    # mapInArrow checks pandas' version: PySpark's FutureWarning about pandas 3 printed two lines on
    # stderr beside a new dataset's run ('svtgui-cli run --engine spark'), unasked
    import warnings

    import pandas as pd

    ds = open_dataset(write(pd.DataFrame({"age": [20, 35, 70]}), tmp_path), engine="spark",
                      spark_master="local[2]")
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        ds.content_fingerprint(new_key())
    assert [str(w.message) for w in seen if issubclass(w.category, FutureWarning)] == []


def test_py4j_s_log_of_an_interruption_stays_off_the_terminal(monkeypatch, tmp_path: Path, capsys) -> None:
    # a SIGTERM while py4j waited on the JVM printed 'ERROR:root:KeyboardInterrupt while sending
    # command.' and a 12-line traceback above the "interrupted" line (py4j logs with the root logger)
    import logging

    from svtgui.data.engines import spark_engine

    root = logging.getLogger()
    monkeypatch.setattr(root, "handlers", [])
    spark_engine._py4j_logs_hidden()
    gateway = str(Path(pyspark.__file__).parent.parent / "py4j" / "java_gateway.py")
    root.handle(root.makeRecord("root", logging.ERROR, gateway, 1070, "KeyboardInterrupt while sending "
                                "command.", (), None))
    root.handle(root.makeRecord("svtgui.app.runs", logging.WARNING, __file__, 1, "ours", (), None))
    err = capsys.readouterr().err
    assert "KeyboardInterrupt" not in err and "ours" in err
    monkeypatch.setenv(spark_engine.SPARK_LOG, str(tmp_path / "spark.log"))
    root.handle(root.makeRecord("root", logging.ERROR, gateway, 1070, "kept when asked", (), None))
    assert "kept when asked" in (tmp_path / "spark.log").read_text() and capsys.readouterr().err == ""
