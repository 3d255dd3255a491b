"""The footer read by DuckDB (``engines.parquet_footer``) accepts only what ``check_parquet`` accepts.

A plain footer is accepted without pyarrow (a re-open on DuckDB then imports none); anything else goes
to ``check_parquet``, whose words every engine gives. The danger is a false acceptance, so every
Parquet file of the engines' bad-file corpus is tried as written (pyarrow stores its Arrow schema), as
pyarrow writes it without that schema, and as DuckDB rewrites it: wherever the fast path accepts,
``check_parquet`` must accept too and count the same rows.
"""

from __future__ import annotations

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from svtgui.data.engines.parquet_footer import plain_rows
from svtgui.data.errors import DatasetError
from svtgui.data.loaders import check_parquet
from tests.data.bad_files import engine_corpus

PARQUET = [(name, make) for name, make in engine_corpus() if name.endswith(".parquet")]


def _variants(tmp_path, name, content):
    """The file as given, and rewritten without pyarrow's stored schema and by DuckDB (where readable)."""
    given = tmp_path / name
    given.write_bytes(content)
    yield given
    try:
        table = pq.read_table(given)
    except (pa.ArrowException, OSError, ValueError):
        return
    bare = tmp_path / f"bare-{name}"
    pq.write_table(table, bare, store_schema=False)
    yield bare
    rewritten = tmp_path / f"duckdb-{name}"
    try:
        duckdb.sql(f"COPY (SELECT * FROM read_parquet('{bare}')) TO '{rewritten}' (FORMAT parquet)")
    except duckdb.Error:
        return
    yield rewritten


@pytest.mark.parametrize("name, make", PARQUET, ids=[n for n, _ in PARQUET])
def test_the_fast_path_never_accepts_what_check_parquet_refuses(tmp_path, name, make) -> None:
    for path in _variants(tmp_path, name, make()):
        rows = plain_rows(path)
        if rows is None:
            continue
        try:
            check_parquet(path)
        except DatasetError as e:
            pytest.fail(f"{path.name}: accepted by the footer, refused by check_parquet: {e}")
        assert rows == pq.ParquetFile(path).metadata.num_rows


def test_a_plain_file_of_every_plain_type_is_accepted_without_pyarrow(tmp_path) -> None:
    path = tmp_path / "plain.parquet"
    duckdb.sql("COPY (SELECT 1::TINYINT a, 2::SMALLINT b, 3 c, 4::BIGINT d, 5::UTINYINT e, 6::UBIGINT f, "
               "1.5::FLOAT g, 2.5::DOUBLE h, 'x' s, true t, DATE '2020-01-02' dt, "
               "TIMESTAMP '2020-01-02 03:04:05' ts, TIMESTAMPTZ '2020-01-02 03:04:05' tz, "
               "'2020-01-02'::TIMESTAMP_MS ms, NULL::INTEGER n "
               f"FROM range(3)) TO '{path}' (FORMAT parquet)")
    assert plain_rows(path) == 3
    check_parquet(path)  # and the shared check agrees


@pytest.mark.parametrize("column", [
    "1.25::DECIMAL(10, 2)", "TIME '10:00:00'", "'2020-01-02'::TIMESTAMP_NS", "[1, 2]", "'a'::BLOB",
    "{'k': 1}", "uuid()", "'{}'::JSON", "INTERVAL 1 DAY"])
def test_anything_but_a_plain_type_goes_to_check_parquet(tmp_path, column) -> None:
    path = tmp_path / "other.parquet"
    duckdb.sql(f"COPY (SELECT 1 ok, {column} other) TO '{path}' (FORMAT parquet)")
    assert plain_rows(path) is None


def test_pyarrows_files_go_to_check_parquet(tmp_path) -> None:
    """pyarrow stores an Arrow schema that can change what a column is (a duration stored as integers)."""
    path = tmp_path / "durations.parquet"
    pq.write_table(pa.table({"a": pa.array([5, 6], pa.duration("s"))}), path)
    assert plain_rows(path) is None
    with pytest.raises(DatasetError, match="durations"):
        check_parquet(path)


@pytest.mark.parametrize("names", [("a", "A"), ("a", " a"), ("a", " ")])
def test_names_a_check_would_refuse_go_to_check_parquet(tmp_path, names) -> None:
    path = tmp_path / "names.parquet"
    pq.write_table(pa.table({n: [1, 2] for n in names}), path, store_schema=False)
    assert plain_rows(path) is None
    with pytest.raises(DatasetError):  # and the shared check refuses them, naming why
        check_parquet(path)
