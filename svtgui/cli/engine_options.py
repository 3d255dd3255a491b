"""``--engine`` and the Spark options, shared by every command that reads a dataset (issue 16).

``--engine auto`` (the default) lets the size decide (see ``svtgui.data.engines.open``); a
``table:NAME`` dataset or a ``--spark-master`` means Spark. Failures (missing file, unsupported
column type, unreachable master, timeout) are one line and exit code 2, before anything is charged.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from typing import Any

from svtgui.cli.errors import CliError

ENGINE_KEYS = ("engine", "spark_master", "spark_conf", "spark_timeout")


def add_engine_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("engine (who evaluates the data; see docs/scale.md)")
    g.add_argument("--engine", choices=("auto", "memory", "duckdb", "spark"),
                   help="memory: load into pandas; duckdb: read the file in place (larger than memory); "
                        "spark: a Spark session (--spark-master). Default auto: duckdb above 1 GB or "
                        "10^7 Parquet rows, else memory")
    g.add_argument("--spark-master", metavar="URL",
                   help="Spark master: local[*] (default with --engine spark), spark://host:7077, yarn, or "
                        "sc://host:15002 (Spark Connect); --data may then be a path or table:NAME")
    g.add_argument("--spark-conf", action="append", metavar="KEY=VALUE",
                   help="a Spark configuration entry (repeatable), e.g. spark.executor.memory=4g")
    g.add_argument("--spark-timeout", type=float, metavar="SECONDS",
                   help="give up on a Spark job after this long (default 600)")


def engine_kwargs(values: Mapping[str, Any] | argparse.Namespace) -> dict[str, Any]:
    """Keyword arguments for :func:`svtgui.data.engines.open_dataset` from parsed options."""

    get = values.get if isinstance(values, Mapping) else lambda k: getattr(values, k, None)
    conf: dict[str, str] = {}
    for item in get("spark_conf") or []:
        key, sep, value = str(item).partition("=")
        if not sep or not key.strip():
            raise CliError(f"--spark-conf must look like KEY=VALUE, got {item!r}")
        conf[key.strip()] = value.strip()
    timeout = get("spark_timeout")
    if timeout is not None and not timeout > 0:
        raise CliError(f"--spark-timeout must be a positive number of seconds, got {timeout!r}")
    engine = get("engine")
    if get("spark_master") and engine not in (None, "auto", "spark"):
        raise CliError(f"--spark-master is for the spark engine, not --engine {engine}")
    return {"engine": engine, "spark_master": get("spark_master"), "spark_conf": conf,
            "spark_timeout": timeout}
