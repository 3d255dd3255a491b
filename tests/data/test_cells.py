"""One definition of a cell's value, missing-ness and category match (issue 21 §9), held by every
engine and both evaluation paths: the grouped histogram evaluated in pandas, and ``SUM(CASE …)``
in SQL (a batch's size picks one or the other, so the answer must not depend on it).

The expected counts come from the definition itself (``svtgui.data.cells``), computed here cell by
cell from the texts written to the file; the engines must all agree with it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from svtgui.data.cells import BLANKS, category_text, missing_markers
from svtgui.data.engines import open_dataset, scratch
from svtgui.data.evaluate import evaluate
from svtgui.data.predicates import Condition
from svtgui.data.queries import Count

MARKERS = missing_markers(("?",))
WORDS = ["a", "b", "Male", "13", "13.0", "2.5", "-4", "NA", "null", "?", "n/a", "", "x y"]
cells = st.builds(lambda pad, w, post: pad + w + post, st.sampled_from(["", " ", "  "]),
                  st.sampled_from(WORDS), st.sampled_from(["", " ", "\t"]))
values = st.sampled_from([*WORDS, " a", 13, 13.0, -4, 2.5, "zz"])


def expected(texts: list[str], op: str, wanted: list) -> int:
    """The definition, cell by cell: strip blanks, markers are missing, match by category text."""
    keys = {category_text(v) for v in wanted}
    clean = [t.strip(BLANKS) for t in texts]
    present = [c for c in clean if c not in MARKERS]
    if op == "!=":
        return sum(c not in keys for c in present)
    return sum(c in keys for c in present)


def _csv(folder: Path, texts: list[str], declared: bool) -> Path:
    path = folder / "cells.csv"
    rows = "".join(f'"{t}",{i}\n' for i, t in enumerate(texts))
    path.write_text("c,i\n" + rows, encoding="utf-8")
    if declared:  # a column of numbers the curator declares categorical (codes)
        schema = {"format": "svtgui-schema", "version": 1, "columns": [{"name": "c", "kind": "categorical"}]}
        (folder / "cells.schema.json").write_text(json.dumps(schema), encoding="utf-8")
    return path


def _answers(path: Path, batch: list[Count]) -> dict[str, list[float]]:
    memory = open_dataset(path, engine="memory")
    sql = open_dataset(path, engine="duckdb")
    sql.planner.limit = 1  # every histogram "too large": the SUM(CASE …) path
    grouped = open_dataset(path, engine="duckdb")
    grouped.planner.scanned.add(frozenset(["c"]))  # not a first small batch: the histogram path
    return {"memory": list(evaluate(memory, batch)), "duckdb SQL": list(evaluate(sql, batch)),
            "duckdb histogram": list(evaluate(grouped, batch)),
            "duckdb one by one": [evaluate(grouped, [q])[0] for q in batch]}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(texts=st.lists(cells, min_size=1, max_size=12),
       queries=st.lists(st.tuples(st.sampled_from(["=", "!=", "in"]),
                                  st.lists(values, min_size=1, max_size=3)), min_size=1, max_size=6))
def test_text_cells_mean_the_same_on_every_engine_and_path(tmp_path_factory, texts, queries) -> None:
    folder = tmp_path_factory.mktemp("cells")
    path = _csv(folder, texts, declared=True)  # categorical even when every cell is a number
    batch = [Count(Condition("c", op, vs if op == "in" else vs[0])) for op, vs in queries]
    want = [float(expected(texts, op, vs if op == "in" else vs[:1])) for op, vs in queries]
    for name, got in _answers(path, batch).items():
        assert got == want, f"{name}: {got} != {want} for cells {texts!r}"


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(numbers=st.lists(st.sampled_from(["13", "2.5", "-4", "7", "NA", ""]), min_size=1, max_size=10),
       queries=st.lists(st.tuples(st.sampled_from(["=", "!="]), values), min_size=1, max_size=6))
def test_a_numeric_column_declared_categorical_matches_by_category_text(tmp_path_factory, numbers,
                                                                        queries) -> None:
    """13 matches 13, 13.0 and "13" but not "13.0", in pandas and SQL alike (it matched in SQL only)."""
    folder = tmp_path_factory.mktemp("codes")
    texts = [*numbers, "1"]  # at least one number: the column is stored as numbers
    path = _csv(folder, texts, declared=True)
    batch = [Count(Condition("c", op, v)) for op, v in queries]
    want = [float(expected(texts, op, [v])) for op, v in queries]
    for name, got in _answers(path, batch).items():
        assert got == want, f"{name}: {got} != {want} for cells {texts!r}"


def test_markers_are_missing_in_every_format(tmp_path: Path) -> None:
    """A marker is missing whatever the format: Parquet and JSON lines too, not only CSV."""
    texts = ["a", " NA", "null ", "?", "b "]
    pd.DataFrame({"c": texts}).to_parquet(tmp_path / "m.parquet")
    (tmp_path / "m.jsonl").write_text("".join(json.dumps({"c": t}) + "\n" for t in texts), encoding="utf-8")
    batch = [Count(Condition("c", "is_missing")), Count(Condition("c", "=", "b"))]
    for name in ("m.parquet", "m.jsonl"):
        for engine in ("memory", "duckdb"):
            ds = open_dataset(tmp_path / name, engine=engine)
            assert list(evaluate(ds, batch)) == [3.0, 1.0], (name, engine)


def test_working_copies_live_in_a_private_folder_removed_when_stale(tmp_path: Path) -> None:
    mine = scratch.folder()
    assert oct(mine.stat().st_mode & 0o777) == "0o700"
    dead = tmp_path / f"{scratch.PREFIX}999999999-x"  # no process has this id
    alive = tmp_path / f"{scratch.PREFIX}{__import__('os').getpid()}-y"
    dead.mkdir()
    alive.mkdir()
    (dead / "copy.csv").write_text("private", encoding="utf-8")
    assert scratch.remove_stale(tmp_path) == [dead]
    assert not dead.exists() and alive.exists()


def test_nan_in_parquet_is_missing_and_codes_match_by_text_on_every_path(tmp_path: Path) -> None:
    """A float column with NaN (and a null) declared categorical: NaN is missing, 13.0 is "13"."""
    import numpy as np

    pd.DataFrame({"c": [13.0, np.nan, 2.5, 13.0, None, -4.0]}).to_parquet(tmp_path / "codes.parquet")
    schema = {"format": "svtgui-schema", "version": 1, "columns": [{"name": "c", "kind": "categorical"}]}
    (tmp_path / "codes.schema.json").write_text(json.dumps(schema), encoding="utf-8")
    batch = [Count(Condition("c", "is_missing")), Count(Condition("c", "=", "13")),
             Count(Condition("c", "=", 13)), Count(Condition("c", "=", "13.0")),
             Count(Condition("c", "!=", 2.5)), Count(Condition("c", "in", ["2.5", "-4"]))]
    for name, got in _answers(tmp_path / "codes.parquet", batch).items():
        assert got == [2.0, 2.0, 2.0, 0.0, 3.0, 2.0], name
