"""A Parquet file's footer read by DuckDB: the row count, and the verdict when the footer alone gives it.

Why: every engine refuses the same Parquet files in the same words (``loaders.check_parquet``, which
reads the footer through pyarrow). Importing pyarrow costs about 0.045 s, a tenth of a DuckDB
re-open whose fingerprint is cached, which otherwise needs no pyarrow at all. So the DuckDB and Spark
engines first ask DuckDB's own footer reader (a few milliseconds, DuckDB is loaded anyway) whether
the file is *plain*: one level of columns, each of a type every engine reads alike and accepts, no
Arrow schema stored beside the columns (pandas and pyarrow store one, and it can make an integer
column a duration or a text a category for pyarrow), distinct non-empty names, at least one row.
A plain file is accepted as ``check_parquet`` would accept it; anything else, or any doubt, goes to
``check_parquet``, whose words are every engine's.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from svtgui.data import textio
from svtgui.data.engines.base import duckdb_file

_INT32 = frozenset({None, "INT_8", "INT_16", "INT_32", "UINT_8", "UINT_16", "UINT_32", "DATE"})
_INT64 = frozenset({None, "INT_64", "UINT_64", "TIMESTAMP_MICROS", "TIMESTAMP_MILLIS"})
PLAIN_TYPES: dict[str, frozenset[str | None]] = {
    "BOOLEAN": frozenset({None}), "INT32": _INT32, "INT64": _INT64, "FLOAT": frozenset({None}),
    "DOUBLE": frozenset({None}), "BYTE_ARRAY": frozenset({"UTF8"}),
}
"""Physical type → the converted types (Parquet's older annotation) a plain column may carry: whole
numbers, fractions, true/false, texts, dates and micro- or millisecond timestamps. Decimals, times
of day, nanosecond timestamps, binary data, lists and groups are left to ``check_parquet``."""
_LOGICAL = ("IntType(", "DateType(", "StringType(", "TimestampType(")
"""The newer annotation, beside a converted type of the same meaning (a nanosecond timestamp has no
converted type, so it never gets this far)."""
ARROW_SCHEMA = b"ARROW:schema"


def plain_rows(path: Path) -> int | None:
    """The row count of ``path`` when its footer is plain (see the module docstring), else None:
    then ``check_parquet`` must read the footer and give the verdict."""
    import duckdb

    with textio.open_regular(path):  # a FIFO or a device is refused before DuckDB could block on it
        pass
    literal = duckdb_file(path)
    try:
        con = duckdb.connect(":memory:", config={"threads": 1})
    except duckdb.Error:
        return None
    try:
        schema = con.execute("SELECT type, repetition_type, num_children, converted_type, logical_type, name "
                             f"FROM parquet_schema({literal})").fetchall()
        keys = {k for (k,) in con.execute(f"SELECT key FROM parquet_kv_metadata({literal})").fetchall()}
        rows = con.execute(f"SELECT num_rows FROM parquet_file_metadata({literal})").fetchall()
    except duckdb.Error:  # unreadable, truncated, not Parquet: check_parquet names it
        return None
    finally:
        con.close()
    if len(rows) != 1 or not isinstance(rows[0][0], int) or rows[0][0] <= 0:
        return None
    if any(k == ARROW_SCHEMA or (isinstance(k, str) and k.encode() == ARROW_SCHEMA) for k in keys):
        return None
    return rows[0][0] if _plain_columns(schema) else None


def _plain_columns(schema: list[tuple[Any, ...]]) -> bool:
    """Whether the footer's schema (the root, then one row per element) is one level of plain
    columns with distinct, non-empty names."""
    if len(schema) < 2 or schema[0][2] != len(schema) - 1:
        return False
    seen: set[str] = set()
    for physical, repetition, children, converted, logical, name in schema[1:]:
        if children is not None or repetition not in ("REQUIRED", "OPTIONAL"):
            return False
        if converted not in PLAIN_TYPES.get(physical, ()):
            return False
        if logical is not None and (converted is None or not str(logical).startswith(_LOGICAL)):
            return False
        text = name.strip() if isinstance(name, str) else ""
        if not text or text.casefold() in seen:
            return False
        seen.add(text.casefold())
    return True
