"""Every parser of untrusted input, fuzzed: it accepts or raises its one documented error, nothing else.

Seeded (``derandomize=True``), so a failure reproduces. Inputs per parser: at least 10,000 (batches
of mutated seeds, see :mod:`tests.data.fuzzing`) for the queries, schema, session, config and
release-file parsers and for each dataset loader (CSV, TSV, JSON lines, FIMI, Parquet, Excel).
The loaders cost 0.5–5 ms an input, about 2 minutes of CPU for all six; ``SVTGUI_FUZZ_SCALE=N``
multiplies every count by N for a longer search.

Documented errors: ``QueryError`` (queries), ``SchemaError`` (schema), ``SessionError`` (session
files), ``CliError`` (``--config``), ``ValueError`` (release files), ``DatasetError`` (datasets).
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from fuzzing import BATCH, Fuzzer

from svtgui.app.project_file import SessionError
from svtgui.app.project_file import load as load_session
from svtgui.cli.config import read_config
from svtgui.cli.errors import CliError
from svtgui.core.gf2hash import PolynomialHash
from svtgui.core.mechanisms.sparse_project import ProjectionRelease
from svtgui.data import DatasetError, LoadOptions, load_dataset
from svtgui.data.predicates import QueryError
from svtgui.data.queries import queries_from_json
from svtgui.data.schema import Schema, SchemaError

TARGET = 10_000 * int(os.environ.get("SVTGUI_FUZZ_SCALE", "1"))
EXAMPLES = -(-TARGET // BATCH)  # hypothesis examples for TARGET inputs

SCHEMA = {
    "format": "svtgui-schema", "version": 1, "neighbouring": "add_remove",
    "columns": [
        {"name": "age", "kind": "numeric", "lower": 0, "upper": 120},
        {"name": "sex", "kind": "categorical", "categories": ["F", "M"]},
        {"name": "items", "kind": "itemset"},
        {"name": "ok", "kind": "boolean"},
    ],
}
QUERIES = {
    "format": "svtgui-queries", "version": 1,
    "queries": [
        {"kind": "count", "where": {"and": [{"column": "age", "op": "between", "value": [20, 30]},
                                            {"or": [{"column": "sex", "op": "in", "value": ["F"]},
                                                    {"column": "ok", "op": "is_missing"}]}]}},
        {"kind": "range", "column": "age", "low": 1, "high": 5, "closed": "left"},
        {"kind": "sum", "column": "age", "lower": 0, "upper": 100},
        {"kind": "clip_diff", "column": "age", "bound": 10, "step": 5, "normalised": True},
        {"kind": "item_support", "items": [1, 2, "x"], "column": "items"},
        {"kind": "mean", "where": {"column": "sex", "op": "=", "value": "M"}},
    ],
}


def _session(version: int) -> dict[str, Any]:
    dataset = {"path": "/nowhere/people.csv", "name": "people", "schema": SCHEMA}
    if version == 2:
        dataset["fingerprint"] = "0123456789abcdef" * 4
    else:
        dataset["dataset_id"] = "ds-0123456789abcdef"
    return {"format": "svtgui-session", "version": version, "saved_by": "svtgui test", "dataset": dataset,
            "mechanism": {"id": "sparse", "params": {"epsilon": 1.0, "threshold": 5.0, "cutoff": 2}},
            "monotonic": False, "queries": QUERIES["queries"][:3]}


def _valid(parse, seeds: list[bytes]) -> None:
    """The seeds parse: mutations start from real documents, not from junk."""
    for seed in seeds:
        parse(seed)


def _run(fuzzer: Fuzzer, seeds: list[Any], examples: int = EXAMPLES, **kw) -> None:
    fuzzer.run(seeds, examples, **kw)
    print(f"{fuzzer.target.__name__}: {fuzzer.inputs} inputs, {fuzzer.refused} refused")
    assert fuzzer.inputs >= examples * BATCH


def test_fuzz_queries():
    def parse_queries(data: bytes) -> object:
        return queries_from_json(data.decode("utf-8", "replace"))

    _valid(parse_queries, [json.dumps(QUERIES).encode()])
    _run(Fuzzer(parse_queries, (QueryError,)), [QUERIES, QUERIES["queries"]])


def test_fuzz_schema():
    def parse_schema(data: bytes) -> object:
        return Schema.from_json(data.decode("utf-8", "replace"))

    _valid(parse_schema, [json.dumps(SCHEMA).encode()])
    _run(Fuzzer(parse_schema, (SchemaError,)), [SCHEMA])


def test_fuzz_session_files(tmp_path):
    path = tmp_path / "s.svtsession"

    def parse_session(data: bytes) -> object:
        path.write_bytes(data)
        return load_session(path)

    seeds = [_session(2), _session(3)]
    _valid(parse_session, [json.dumps(s).encode() for s in seeds])
    _run(Fuzzer(parse_session, (SessionError,)), seeds)


def _toml(doc: dict[str, Any]) -> str:
    """A small TOML writer for the fuzzer's documents (tables only one level deep)."""
    def value(v: Any) -> str:
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, float) and not math.isfinite(v):
            return "nan" if v != v else ("inf" if v > 0 else "-inf")
        if isinstance(v, int | float):
            return repr(v)
        if isinstance(v, list):
            return "[" + ", ".join(value(x) for x in v if x is not None) + "]"
        if isinstance(v, dict):
            pairs = (f"{json.dumps(str(k))} = {value(x)}" for k, x in v.items() if x is not None)
            return "{" + ", ".join(pairs) + "}"
        return json.dumps(str(v), ensure_ascii=False)

    lines = [f"{json.dumps(str(k))} = {value(v)}" for k, v in doc.items() if v is not None]
    return "\n".join(lines) + "\n"


CONFIG = {"data": "people.csv", "queries": "q.json", "mechanism": "sparse", "epsilon": 0.5, "threshold": -3.5,
          "cutoff": 2, "report": ["r.html", "r.json"], "budget_epsilon": "2", "monotonic": True,
          "params": {"sensitivity": 1}, "universe": ["sex", "age@0,50,120"]}
CONFIG_KEYS = ("data", "queries", "schema", "mechanism", "epsilon", "delta", "threshold", "cutoff", "ledger",
               "report", "budget_epsilon", "budget_delta", "monotonic", "batch_size", "params", "universe",
               "release_out")


def test_fuzz_run_config(tmp_path):
    path = tmp_path / "run.toml"

    def parse_config(data: bytes) -> object:
        path.write_bytes(data)
        return read_config(path, CONFIG_KEYS, ("data", "queries", "report"))

    class TomlFuzzer(Fuzzer):
        def feed(self, data: bytes) -> None:  # structured mutations arrive as JSON: write them as TOML
            try:
                doc = json.loads(data)
            except (ValueError, RecursionError):
                doc = None
            super().feed(_toml(doc).encode() if isinstance(doc, dict) else data)

    seeds = [_toml(CONFIG).encode()]
    _valid(parse_config, seeds)
    _run(TomlFuzzer(parse_config, (CliError,)), [CONFIG, seeds[0]])


def _release_bytes(folder: Path) -> bytes:
    """A small, valid, checksummed release file (made from seeded numbers, no data)."""
    rng = np.random.default_rng(5)
    release = ProjectionRelease(
        PolynomialHash(8, tuple(int(c) for c in rng.integers(0, 256, 4))), 16, 4,
        rng.integers(-50, 50, 16).astype(np.int64), 3,
        {"mechanism": "sparse_project", "epsilon": 1.0, "delta": 1e-6, "neighbouring": "add_remove",
         "noise": "gaussian", "noise_scale_u": 5.0, "n_is_noisy": True, "sparsity": 4, "queries": 10,
         "accuracy": {"alpha": 0.1, "beta": 0.05}, "metadata": {}},
    )
    return release.save(folder / "seed.npz").read_bytes()


def test_fuzz_release_files(tmp_path):
    path = tmp_path / "r.npz"

    def parse_release(data: bytes) -> object:
        path.write_bytes(data)
        return ProjectionRelease.load(path)

    seed = _release_bytes(tmp_path)
    _valid(parse_release, [seed])
    _run(Fuzzer(parse_release, (ValueError,)), [seed])


# -- dataset loaders --------------------------------------------------------------------------------

CSV = b'age,sex,"note, quoted"\n34,F,"a ""b"""\n51,M,\n\n29,F,x\n'
JSONL = b'{"age": 34, "sex": "F", "items": [1, 2]}\n{"age": 51, "sex": null, "items": [3]}\n'
FIMI = b"1 2 3\n4 5\n\n6\n"
LOADER_SEEDS = [(".csv", CSV), (".tsv", CSV.replace(b",", b"\t")), (".jsonl", JSONL), (".dat", FIMI)]


@pytest.mark.parametrize("suffix, seed", LOADER_SEEDS, ids=[s for s, _ in LOADER_SEEDS])
def test_fuzz_dataset_loaders(tmp_path, suffix, seed):
    path = tmp_path / f"d{suffix}"

    fed = 0

    def load_dataset_file(data: bytes) -> object:
        nonlocal fed
        fed += 1
        path.write_bytes(data)
        # every other input in chunks of two rows: chunk boundaries fall inside even tiny files
        return load_dataset(path, LoadOptions(chunk_rows=2) if fed % 2 else LoadOptions())

    _valid(load_dataset_file, [seed])
    _run(Fuzzer(load_dataset_file, (DatasetError,)), [seed])


def _binary_seeds(folder: Path) -> list[tuple[str, bytes]]:
    import openpyxl
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"age": [1, 2, 3], "sex": ["F", "M", "F"], "items": [[1], [2, 3], []]}),
                   folder / "seed.parquet")
    wb = openpyxl.Workbook()
    for row in (["age", "sex"], [1, "F"], [2, "M"]):
        wb.active.append(row)
    wb.save(folder / "seed.xlsx")
    return [(s, (folder / f"seed{s}").read_bytes()) for s in (".parquet", ".xlsx")]


@pytest.mark.parametrize("suffix", [".parquet", ".xlsx"])
def test_fuzz_binary_dataset_loaders(tmp_path, suffix):
    seed = dict(_binary_seeds(tmp_path))[suffix]
    path = tmp_path / f"d{suffix}"

    def load_binary_file(data: bytes) -> object:
        path.write_bytes(data)
        return load_dataset(path)

    _valid(load_binary_file, [seed])
    _run(Fuzzer(load_binary_file, (DatasetError,)), [seed])


@pytest.mark.parametrize("header", [b"age,age.1\n1,2\n", b"a,b\n1,2\n"])
def test_headers_that_look_like_repeats_are_valid(tmp_path, header):
    path = tmp_path / "h.csv"
    path.write_bytes(header)
    assert list(load_dataset(path).frame.columns) == header.split(b"\n")[0].decode().split(",")


@pytest.mark.parametrize("chunk_rows", [1, 2, 3, 100])
def test_json_records_naming_different_fields_load_alike_in_any_chunking(tmp_path, chunk_rows):
    """Found by the fuzzer: a field first named in a later chunk raised KeyError."""
    path = tmp_path / "drift.jsonl"
    path.write_text('{"a": 1}\n{"a": 2}\n{"b": "x"}\n{}\n{"a": 3, "b": "y"}\n')
    frame = load_dataset(path, LoadOptions(chunk_rows=chunk_rows)).frame
    assert frame["a"].dtype == np.float64 and frame["a"].isna().tolist() == [False, False, True, True, False]
    assert [None if pd.isna(v) else v for v in frame["b"]] == [None, None, "x", None, "y"]


def test_a_json_field_with_an_empty_name_is_refused(tmp_path):
    """Found by the fuzzer: an empty key escaped as a SchemaError from schema inference."""
    path = tmp_path / "d.jsonl"
    path.write_text('{"age": 34}\n{"age": 51, "": null}\n')
    with pytest.raises(DatasetError, match="empty name") as info:
        load_dataset(path)
    assert info.value.line == 2
