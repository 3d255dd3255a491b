"""Shared by the data tests: one local Spark session for the whole test run (about 10 s to start)."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def spark():
    import pyspark  # noqa: F401 - the test extra installs it; a missing PySpark must fail, not skip

    from svtgui.data.engines.spark_engine import SparkTable

    session = SparkTable("local[2]", "", "parquet", conf={"spark.sql.shuffle.partitions": "2"}).session()
    session.conf.set("spark.sql.shuffle.partitions", "2")
    yield session
    session.stop()
