"""The rules that type a column from its texts (``svtgui.data.inference``): the pandas reading (the
memory engine) and the SQL reading (DuckDB, and through it Spark) give every column the same kind,
and that kind is the documented one."""

from __future__ import annotations

import duckdb
import pandas as pd
import pytest

from svtgui.data import inference
from svtgui.data.engines.base import DUCKDB

CASES = [
    ([], "empty"),
    (["007", "+1", "-2", "0"], "integer"),
    (["9223372036854775807", "-9223372036854775808"], "integer"),
    (["9223372036854775808", "1"], "number"),  # past 64 bits: the nearest double
    (["-999999999999999999", "+000000000000000001"], "integer"),  # 19 characters: cast to be sure
    (["99999999999999999999"], "number"),
    (["1" + "0" * 400], "number"),  # past every double: infinity, as pandas reads it
    (["1e5", ".5", "1.", "+.5E-3", "-0"], "number"),
    (["inf", "-Infinity", "+INF", "3"], "number"),
    (["1e400"], "number"),
    (["0x10", "1"], "text"),  # DuckDB reads 0x10 as 16
    (["1_000"], "text"),  # DuckDB reads 1_000 as 1000
    (["+-1"], "text"),  # DuckDB reads +-1 as -1.0
    (["nan", "1"], "text"),  # DuckDB reads nan as a double
    (["TRUE", "false", "tRuE"], "boolean"),
    (["yes", "no"], "text"),
    (["true", "1"], "text"),
    (["2020-01-02", "2020-01-03T10:00", "2020-01-04 10:00:00.123456"], "datetime"),
    (["2020-01-02 10:00:00.1234567"], "text"),  # past the microsecond DuckDB holds
    (["2020-02-30"], "text"),
    (["1500-01-01"], "text"),
    (["2020-01-02T10:00:00Z"], "text"),
    (["01/02/2020"], "text"),
    (["10:00:00"], "text"),
    (["20200102", "2020-1-2"], "text"),
]


def _sql_kind(texts: list[str], numbers: bool) -> str:
    con = duckdb.connect()
    try:
        con.execute("CREATE TABLE t (c VARCHAR)")
        con.executemany("INSERT INTO t VALUES (?)", [(t,) for t in texts] + [(None,)])
        found = con.execute(f"SELECT {', '.join(inference.kind_checks(DUCKDB.ident('c'), numbers))} FROM t")
        return inference.kind_from_checks(found.fetchone())
    finally:
        con.close()


@pytest.mark.parametrize("texts, kind", CASES, ids=[" ".join(t) or "none" for t, _ in CASES])
def test_pandas_and_sql_give_a_column_the_documented_kind(texts: list[str], kind: str) -> None:
    assert inference.kind_of_texts(pd.Index(texts, dtype=object), numbers=True) == kind
    assert _sql_kind(texts, numbers=True) == kind


@pytest.mark.parametrize("texts, kind", [(["7", "8"], "text"), (["1e5"], "text"),
                                         (["true", "FALSE"], "boolean"), (["2020-01-02"], "datetime"),
                                         ([], "empty")])
def test_json_texts_are_numbers_never(texts: list[str], kind: str) -> None:
    """JSON writes numbers unquoted: a text "7" is the text 7 on every engine."""
    assert inference.kind_of_texts(pd.Index(texts, dtype=object), numbers=False) == kind
    assert _sql_kind(texts, numbers=False) == kind


def test_a_typed_column_holds_the_values_sql_casts_to() -> None:
    texts = ["007", "1e5", "TRUE", "2020-01-03T10:00", "0.1000000000000000055511151231257827"]
    for text in texts:
        s = pd.Series(pd.Categorical([text, None]))
        kind = inference.kind_of_texts(s.cat.categories, numbers=True)
        ours = inference.typed_column(s, numbers=True).iloc[0]
        con = duckdb.connect()
        theirs = con.execute(f"SELECT {inference.cast_sql('?', kind)}", [text]).fetchone()[0]
        con.close()
        assert pd.Timestamp(ours) == pd.Timestamp(theirs) if kind == "datetime" else ours == theirs, text
