"""A Parquet footer whose statistics contradict the values: the DuckDB engine refuses it in one line.

DuckDB trusts a Parquet file's statistics (a minimum and maximum per column and row group): it answers
``min``/``max`` from them, sizes groupings by them and skips row groups by them. The fingerprint's
codes of whole-number columns are offsets from the bounds the statistics give, so a footer that states
[1, 5] for a column holding 1000 used to end the open in an internal error (a code past its block) or,
for other layouts, in a code that reads as another column's value. Such a file is damaged; the
fingerprint now finds the value outside its column's stated range and refuses the file, naming it.
"""

from __future__ import annotations

import struct
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from svtgui.data.engines import open_dataset
from svtgui.data.errors import DatasetError
from svtgui.data.fingerprint import new_key


def lying_footer(path: Path, columns: dict[str, list[int]], stated_max: int, true_max: int) -> Path:
    """A Parquet file of ``columns`` whose footer states ``stated_max`` where the values reach
    ``true_max`` (every 4-byte little-endian copy of it in the footer, i.e. its statistics)."""
    pq.write_table(pa.table({k: pa.array(v, pa.int32()) for k, v in columns.items()}), path,
                   store_schema=False)
    data = bytearray(path.read_bytes())
    length = struct.unpack("<I", data[-8:-4])[0]
    start = len(data) - 8 - length
    footer = bytes(data[start:-8])
    old, new = struct.pack("<i", true_max), struct.pack("<i", stated_max)
    assert footer.count(old) >= 1, "the value to misstate is not in the footer"
    data[start:-8] = footer.replace(old, new)
    path.write_bytes(data)
    return path


@pytest.mark.parametrize("other", [None, "sex"], ids=["alone", "in-a-block"])
@pytest.mark.parametrize("true_max", [1000, 6], ids=["far", "next"])
def test_a_value_outside_the_stated_range_refuses_the_file_in_one_line(tmp_path, other, true_max) -> None:
    """``next``: one past the stated range, the offset lands on the code of a missing cell (a wrong
    digest without an error, before); ``far``: past the block (an internal error, before)."""
    columns = {"age": [1, 2, 3, true_max] * 50}
    if other:  # coded with age in one block: a wrong offset there would read as the other column's value
        columns[other] = [0, 1] * 100
    path = lying_footer(tmp_path / "lies.parquet", columns, stated_max=5, true_max=true_max)
    assert pq.read_table(path).column("age").to_pylist()[3] == true_max  # the values are intact
    ds = open_dataset(path, engine="duckdb")
    with pytest.raises(DatasetError) as e:
        ds.fingerprint(new_key())
    message = str(e.value)
    assert "\n" not in message and str(path) in message and "'age'" in message
    assert "statistics" in message


def test_an_honest_footer_still_fingerprints_as_memory_does(tmp_path) -> None:
    path = tmp_path / "honest.parquet"
    pq.write_table(pa.table({"age": pa.array([1, 2, 3, 1000] * 50, pa.int32()),
                             "sex": pa.array([0, 1] * 100, pa.int32())}), path, store_schema=False)
    key = new_key()
    duck, memory = open_dataset(path, engine="duckdb"), open_dataset(path, engine="memory")
    assert duck.fingerprint(key) == memory.fingerprint(key)
