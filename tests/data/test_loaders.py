"""Loaders: real files, every format, detection, progress/cancel, fingerprints, and bad input."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from svtgui.data import DatasetError, LoadCancelled, LoadOptions, load_dataset
from svtgui.data.schema import ColumnKind
from tests.data.bad_files import REFUSED


def write(path: Path, data: str | bytes, encoding: str = "utf-8") -> Path:
    path.write_bytes(data if isinstance(data, bytes) else data.encode(encoding))
    return path


# -- the real files ----------------------------------------------------------------------------------


def test_adult_loads_with_types_and_missing_values(shared_data):
    ds = load_dataset(shared_data / "adult.csv")
    assert ds.n_rows == 32561
    assert ds.schema.names[0] == "age" and ds.schema.names[-1] == "Salary"  # ", " separators stripped
    kinds = {c.name: c.kind for c in ds.schema.columns}
    for col in ("age", "fnlwgt", "education-num", "capital-gain", "capital-loss", "hours-per-week"):
        assert kinds[col] == ColumnKind.NUMERIC and ds.frame[col].dtype == np.int64
    for col in ("workclass", "education", "sex", "native-country", "Salary"):
        assert kinds[col] == ColumnKind.CATEGORICAL
    # "?" is missing, not a category; leading spaces are gone from values
    assert "?" not in set(ds.frame["workclass"].cat.categories)
    assert ds.frame["workclass"].isna().sum() == 1836
    assert set(ds.frame["sex"].cat.categories) == {"Female", "Male"}
    assert all(c.lower is None for c in ds.schema.columns)  # no bounds taken from the data
    assert ds.legacy_file_sha256 == hashlib.sha256((shared_data / "adult.csv").read_bytes()).hexdigest()


def test_retail_loads_as_baskets(shared_data):
    raw = [ln for ln in (shared_data / "retail.dat").read_text().splitlines() if ln.strip()]
    ds = load_dataset(shared_data / "retail.dat")
    assert ds.is_transactions and ds.schema.column("items").kind == ColumnKind.ITEMSET
    assert ds.n_rows == len(raw)  # the blank first line is ignored
    assert ds.frame["items"].iloc[0] == tuple(sorted(set(map(int, raw[0].split()))))


# -- formats -----------------------------------------------------------------------------------------

FRAME = pd.DataFrame({"age": [30, 41, 52], "sex": ["F", "M", None], "w": [1.5, 2.0, np.nan]})


def _check_frame(ds):
    assert ds.n_rows == 3
    assert ds.frame["age"].tolist() == [30, 41, 52]
    assert ds.frame["sex"].isna().tolist() == [False, False, True]
    assert ds.schema.column("sex").kind == ColumnKind.CATEGORICAL
    assert ds.schema.column("w").kind == ColumnKind.NUMERIC


def test_parquet(tmp_path):
    path = tmp_path / "d.parquet"
    FRAME.to_parquet(path)
    ds = load_dataset(path)
    _check_frame(ds)
    assert ds.format == "parquet" and ds.legacy_file_sha256 == hashlib.sha256(path.read_bytes()).hexdigest()


def test_parquet_text_that_is_not_utf8_names_the_column(tmp_path):
    """Found by the loader fuzzer: pyarrow reads a damaged string page unchecked, and converting it
    failed later with a bare ArrowException ("Wrapping ... failed")."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    offsets = pa.py_buffer(np.array([0, 1, 2], dtype=np.int32).tobytes())
    damaged = pa.Array.from_buffers(pa.string(), 2, [None, offsets, pa.py_buffer(b"a\xff")])
    path = tmp_path / "d.parquet"
    pq.write_table(pa.table({"age": [1, 2], "sex": damaged}), path)
    with pytest.raises(DatasetError, match="damaged values.*Invalid UTF8") as info:
        load_dataset(path)
    assert info.value.column == "sex"


def test_excel(tmp_path):
    path = tmp_path / "d.xlsx"
    FRAME.to_excel(path, index=False)
    _check_frame(load_dataset(path))


def test_json_lines_with_item_lists(tmp_path):
    path = write(
        tmp_path / "d.jsonl",
        '{"age": 30, "sex": "F", "w": 1.5, "basket": [1, 2]}\n\n'
        '{"age": 41, "sex": "M", "w": 2.0, "basket": [3]}\n'
        '{"age": 52, "sex": null, "w": null, "basket": []}\n',
    )
    ds = load_dataset(path)
    _check_frame(ds)
    assert ds.schema.column("basket").kind == ColumnKind.ITEMSET
    assert ds.frame["basket"].tolist() == [(1, 2), (3,), ()]


@pytest.mark.parametrize(
    "sep, suffix", [(",", ".csv"), (";", ".csv"), ("\t", ".tsv"), ("|", ".txt"), ("\t", ".csv")]
)
def test_delimiter_detection(tmp_path, sep, suffix):
    text = (
        sep.join(["age", "sex", "w"])
        + "\n"
        + "\n".join(
            sep.join(["" if v is None or v != v else str(v) for v in row])
            for row in FRAME.itertuples(index=False)
        )
    )
    _check_frame(load_dataset(write(tmp_path / f"d{suffix}", text + "\n")))


@pytest.mark.parametrize("encoding", ["utf-8", "utf-8-sig", "cp1252", "utf-16"])
def test_encoding_detection(tmp_path, encoding):
    path = write(tmp_path / "d.csv", "name,city\nJosé,Zürich\nRené,Besançon\n", encoding)
    ds = load_dataset(path)
    assert ds.schema.names == ["name", "city"]
    assert ds.frame["city"].tolist() == ["Zürich", "Besançon"]


def test_late_non_utf8_byte_falls_back_to_cp1252(tmp_path):
    ascii_rows = "".join(f"{i},plain\n" for i in range(20000))  # > 64 KiB of ASCII before the é
    path = write(tmp_path / "d.csv", ("id,word\n" + ascii_rows + "20000,caf\xe9\n").encode("cp1252"))
    ds = load_dataset(path)
    assert ds.frame["word"].iloc[-1] == "café"


def test_custom_missing_markers_and_standard_markers_switch(tmp_path):
    path = write(tmp_path / "d.csv", "a,b\n1,NA\n2,-\n3,x\n")
    ds = load_dataset(path, LoadOptions(missing=("-",)))
    assert ds.frame["b"].isna().tolist() == [True, True, False]
    ds = load_dataset(path, LoadOptions(missing=(), standard_missing=False))
    assert ds.frame["b"].isna().tolist() == [False, False, False]


def test_booleans_and_dates_are_recognised(tmp_path):
    path = write(tmp_path / "d.csv", "when,flag\n2021-03-04,true\n2022-12-31,FALSE\n,\n")
    ds = load_dataset(path)
    assert ds.schema.column("when").kind == ColumnKind.DATETIME
    assert ds.schema.column("flag").kind == ColumnKind.BOOLEAN
    assert ds.frame["flag"].tolist()[:2] == [True, False] and ds.frame["flag"].isna().iloc[2]


def test_chunked_load_equals_one_chunk_and_reconciles_types(tmp_path):
    rows = [f"{i},{'x' if i == 7 else i},{'a' if i % 3 else 'b'}" for i in range(20)]
    path = write(tmp_path / "d.csv", "n,mixed,c\n" + "\n".join(rows) + "\n")
    small = load_dataset(path, LoadOptions(chunk_rows=3))
    whole = load_dataset(path)
    pd.testing.assert_frame_equal(small.frame, whole.frame, check_categorical=False)
    assert small.schema.column("mixed").kind == ColumnKind.CATEGORICAL  # one text cell makes it text
    assert small.frame["mixed"].iloc[0] == "0"


def test_quoted_fields_with_delimiters(tmp_path):
    path = write(tmp_path / "d.csv", 'a,b\n1,"x, y"\n2,"z"\n')
    assert load_dataset(path).frame["b"].tolist() == ["x, y", "z"]


def test_fimi_blank_lines_and_text_items(tmp_path):
    ds = load_dataset(write(tmp_path / "t.dat", "3 1 2\n\n  \n2 2 5\n"))
    assert ds.frame["items"].tolist() == [(1, 2, 3), (2, 5)]
    ds = load_dataset(write(tmp_path / "u.dat", "milk eggs\nbread\n"))
    assert ds.frame["items"].tolist() == [("eggs", "milk"), ("bread",)]


def test_format_option_overrides_suffix(tmp_path):
    ds = load_dataset(write(tmp_path / "baskets.txt", "1 2\n3\n"), LoadOptions(format="fimi"))
    assert ds.is_transactions


def test_header_option(tmp_path):
    ds = load_dataset(write(tmp_path / "d.csv", "1,2\n3,4\n"), LoadOptions(header=False))
    assert ds.schema.names == ["column 1", "column 2"] and ds.n_rows == 2


# -- fingerprint, progress, cancel -------------------------------------------------------------------


def test_fingerprint_is_of_the_rows_and_survives_renaming(tmp_path):
    a = write(tmp_path / "a.csv", "x,y\n1,2\n")
    b = tmp_path / "renamed.csv"
    shutil.copy(a, b)
    c = write(tmp_path / "c.csv", "x,y\n1,3\n")
    key = bytes(range(32))
    assert load_dataset(a).content_fingerprint(key) == load_dataset(b).content_fingerprint(key)
    assert load_dataset(c).content_fingerprint(key) != load_dataset(a).content_fingerprint(key)
    # the old file hash is kept only for migrated 0.1 ledgers, never as the identity
    assert load_dataset(a).legacy_file_sha256 == hashlib.sha256(a.read_bytes()).hexdigest()


def _big_csv(tmp_path: Path, n: int) -> Path:
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(
        {"a": rng.integers(0, 100, n), "b": rng.choice(["x", "y", "z"], n), "c": rng.random(n)}
    )
    path = tmp_path / "big.csv"
    frame.to_csv(path, index=False)
    return path


class Recorder:
    """A progress state (:class:`svtgui.core.progress.ProgressState`) that keeps every report and
    cancels once the fraction passes ``cancel_at``."""

    def __init__(self, cancel_at: float = 2.0) -> None:
        self.seen: list[float] = []
        self.cancel_at = cancel_at

    def set_progress(self, fraction: float | None, text: str = "") -> None:
        self.seen.append(fraction)

    def is_cancelled(self) -> bool:
        return bool(self.seen) and self.seen[-1] > self.cancel_at


def test_progress_reports_increasing_fractions_up_to_one(tmp_path):
    path = _big_csv(tmp_path, 150_000)  # ~3 MB: a dozen 256 KiB reads
    progress = Recorder()
    ds = load_dataset(path, LoadOptions(chunk_rows=5_000), progress)
    seen = progress.seen
    assert ds.n_rows == 150_000
    assert len(seen) >= 5 and seen == sorted(seen) and seen[-1] == 1.0 and 0 <= seen[0] < 0.5


def test_cancel_stops_the_load(tmp_path):
    path = _big_csv(tmp_path, 60_000)
    progress = Recorder(cancel_at=0.2)
    with pytest.raises(LoadCancelled):
        load_dataset(path, LoadOptions(chunk_rows=5_000), progress)
    assert progress.is_cancelled() and progress.seen[-1] < 1.0


@pytest.mark.slow
def test_memory_peak_is_a_small_multiple_of_the_frame(tmp_path):
    import tracemalloc

    path = _big_csv(tmp_path, 300_000)
    tracemalloc.start()
    ds = load_dataset(path)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    frame_bytes = ds.frame.memory_usage(deep=True).sum()
    assert peak <= 3 * frame_bytes, (peak, frame_bytes)  # the limit: ~3x the frame


# -- sidecar schema ----------------------------------------------------------------------------------


def test_sidecar_schema_declares_bounds(tmp_path):
    path = write(tmp_path / "d.csv", "age,sex\n30,F\n")
    write(
        tmp_path / "d.schema.json",
        json.dumps(
            {
                "columns": [{"name": "age", "kind": "numeric", "lower": 0, "upper": 120}],
                "neighbouring": "replace",
                "n": 1,
            }
        ),
    )
    ds = load_dataset(path)
    assert ds.schema.column("age").bounds() == (0, 120)
    assert ds.schema.neighbouring.value == "replace" and ds.schema.public_n == 1
    assert ds.schema.column("sex").kind == ColumnKind.CATEGORICAL


def test_bad_sidecar_names_the_schema_file(tmp_path):
    path = write(tmp_path / "d.csv", "age\n30\n")
    side = write(tmp_path / "d.schema.json", json.dumps({"columns": [{"name": "height", "kind": "numeric"}]}))
    with pytest.raises(DatasetError, match="height") as e:
        load_dataset(path)
    assert e.value.path == side


# -- bad input ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("name, content, message, line", REFUSED, ids=[r[0] for r in REFUSED])
def test_bad_files_raise_one_clear_error(tmp_path, name, content, message, line):
    path = write(tmp_path / name, content)
    with pytest.raises(DatasetError, match=message) as e:
        load_dataset(path)
    assert e.value.path == path and e.value.line == line
    assert str(path) in str(e.value)


def test_missing_path_and_directory(tmp_path):
    with pytest.raises(DatasetError, match="no such file"):
        load_dataset(tmp_path / "nope.csv")
    with pytest.raises(DatasetError, match="folder"):
        load_dataset(tmp_path)


def test_unknown_and_wrong_encodings(tmp_path):
    path = write(tmp_path / "d.csv", "a,b\n1,caf\xe9\n", "latin-1")
    with pytest.raises(DatasetError, match="unknown encoding 'klingon'"):
        load_dataset(path, LoadOptions(encoding="klingon"))
    with pytest.raises(DatasetError, match="cannot be decoded as utf-8") as e:
        load_dataset(path, LoadOptions(encoding="utf-8"))
    assert e.value.line == 2


def test_excel_missing_sheet(tmp_path):
    path = tmp_path / "d.xlsx"
    FRAME.to_excel(path, index=False)
    with pytest.raises(DatasetError, match="nope"):
        load_dataset(path, LoadOptions(sheet="nope"))


@pytest.mark.parametrize(
    "kwargs, field",
    [({"format": "xls"}, "format"), ({"delimiter": "::"}, "delimiter"), ({"chunk_rows": 0}, "chunk_rows")],
)
def test_bad_load_options(kwargs, field):
    with pytest.raises(ValueError, match=field):
        LoadOptions(**kwargs)
