"""The DuckDB engine against the memory engine: same answers for every query kind, few scans,
clear refusals and errors (issue 16). Spark has its own module (one shared session)."""

from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from svtgui.data.engines import EngineRefused, choose_engine, open_dataset
from svtgui.data.engines.base import HISTOGRAM_LIMIT
from svtgui.data.errors import DatasetError
from svtgui.data.evaluate import evaluate
from svtgui.data.fingerprint import new_key
from svtgui.data.predicates import Condition
from svtgui.data.queries import ClippedSum, Count, ItemSupport, RangeCount
from svtgui.data.schema import ColumnKind
from svtgui.data.universe import Universe
from tests.data.engines_support import assert_same, frames, queries, universe_cells, write
from tests.data.test_engines_verdicts import verdict

KEY = new_key()

SPECS = ["c", "a@0,5,10,20"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(frame=frames(), batch=st.lists(queries(), min_size=1, max_size=25), tiny=st.booleans())
def test_duckdb_answers_random_batches_as_memory_does(tmp_path: Path, frame, batch, tiny) -> None:
    path = write(frame, tmp_path)
    memory = open_dataset(path, engine="memory")
    duck = open_dataset(path, engine="duckdb")
    if tiny:  # every histogram "too large": the aggregates-per-scan fallback answers
        duck.planner.limit = 1
    assert_same(evaluate(memory, batch), evaluate(duck, batch), batch)
    assert universe_cells(duck, SPECS) == universe_cells(memory, SPECS)
    assert duck.fingerprint(KEY) == memory.fingerprint(KEY)  # one identity, whichever engine reads it


def census(rows: int, seed: int = 1) -> pd.DataFrame:
    r = np.random.default_rng(seed)
    return pd.DataFrame({"age": r.integers(17, 91, rows), "sex": r.choice(["Male", "Female"], rows),
                         "capital_gain": np.where(r.random(rows) < 0.9, 0, r.integers(1, 99_999, rows))})


def test_a_batch_costs_a_few_scans_not_one_per_query(tmp_path: Path) -> None:
    ds = open_dataset(write(census(5000), tmp_path), engine="duckdb")
    batch = [RangeCount("age", lo, lo + w) for lo in range(17, 80) for w in range(1, 6)] + \
            [Count(Condition("sex", "=", s)) for s in ("Male", "Female")] + \
            [ClippedSum("capital_gain", 0, b) for b in range(0, 100_000, 1000)]
    evaluate(ds, batch)
    # the histograms of age and capital_gain (no distinct-count estimate before them: issue 25 §2),
    # one aggregate scan for the two counts on sex (a histogram would cost two scans for them)
    assert ds.planner.scans == 3 < len(batch)
    before = ds.planner.scans
    evaluate(ds, [RangeCount("age", 30, 40)])  # an adaptive query on a seen column: cached
    assert ds.planner.scans == before
    evaluate(ds, [Count(Condition("age", ">", 50))])  # a new kind on a seen column: one scan
    assert ds.planner.scans == before + 1
    evaluate(ds, [Count(Condition("age", "<", 30))])  # asked again: the histogram is built
    evaluate(ds, [Count(Condition("age", "<", 40))])  # and answers from then on
    assert ds.planner.scans == before + 2


def spy_sql(monkeypatch, table) -> list[str]:
    """Every statement ``table`` runs from now on: through ``sql`` (frames) and ``sql_arrays`` (the
    numeric histogram's numpy arrays)."""
    seen: list[str] = []
    for name in ("sql", "sql_arrays"):
        real = getattr(table, name)
        monkeypatch.setattr(table, name, lambda text, real=real: seen.append(text) or real(text))
    return seen


def test_plans_spend_no_pass_on_estimates_and_fall_back_on_overflow(tmp_path: Path, monkeypatch) -> None:
    """Issue 25 §2: no approx_count_distinct pre-scan; a histogram larger than the limit is found
    by its own bounded GROUP BY (one pass, remembered), and aggregates answer instead."""
    ds = open_dataset(write(census(4000), tmp_path), engine="duckdb")
    seen = spy_sql(monkeypatch, ds.table)
    ds.planner.limit = 50  # age has 74 distinct values: too many; sex has 2
    batch = [RangeCount("age", lo, lo + 5) for lo in range(17, 80)] + \
            [Count(Condition("sex", "=", s)) for s in ("Male", "Female", "x", "Male", "y", "z")]
    expected = evaluate(open_dataset(tmp_path / "data.parquet", engine="memory"), batch)
    assert list(evaluate(ds, batch)) == list(expected)
    assert not any("approx_count_distinct" in s for s in seen)
    assert sum("GROUP BY" in s for s in seen) == 2  # age (overflowed, then aggregates), sex
    assert any("LIMIT 51" in s for s in seen)
    before = len(seen)
    assert list(evaluate(ds, batch[:60])) == list(expected[:60])
    assert not any("GROUP BY" in s for s in seen[before:])  # the overflow is remembered


def test_a_numeric_histogram_on_duckdb_reads_no_text_column(tmp_path: Path, monkeypatch) -> None:
    """Issue 25 §5: the view's missing-marker test on text columns was an ``IN`` list, which DuckDB
    plans as a join and never prunes: a GROUP BY of age read and trimmed sex and education on every
    row, 3x the hand-written GROUP BY. The planner's statement, explained, reads age, not sex."""
    ds = open_dataset(write(census(3000), tmp_path), engine="duckdb")
    seen = spy_sql(monkeypatch, ds.table)
    batch = [RangeCount("age", lo, lo + 10) for lo in range(17, 80, 3)]
    expected = evaluate(open_dataset(tmp_path / "data.parquet", engine="memory"), batch)
    assert list(evaluate(ds, batch)) == list(expected)
    [histogram] = [s for s in seen if "GROUP BY" in s]
    plan = " ".join(ds.table.sql(f"EXPLAIN {histogram}").astype(str).to_numpy().ravel())
    assert "age" in plan and "sex" not in plan


def test_a_declared_integer_range_sets_duckdbs_perfect_hash_threshold(tmp_path: Path) -> None:
    path = write(census(2000), tmp_path, "people.parquet")
    (tmp_path / "people.schema.json").write_text(
        '{"format": "svtgui-schema", "version": 1, "columns": [{"name": "capital_gain", "kind": "numeric", '
        '"lower": 0, "upper": 199999}]}', encoding="utf-8")
    ds = open_dataset(path, engine="duckdb")
    setting = "SELECT current_setting('perfect_ht_threshold') AS v"
    assert int(ds.table.sql(setting)["v"][0]) == 12  # DuckDB's default
    evaluate(ds, [ClippedSum("capital_gain", 0, b) for b in (10, 100, 1000)])
    assert int(ds.table.sql(setting)["v"][0]) == 18  # 200,001 values and NULL
    evaluate(ds, [RangeCount("age", 20, 30)] * 5)  # no declared range: DuckDB's default again
    assert int(ds.table.sql(setting)["v"][0]) == 12


def test_content_fingerprint_is_the_memory_engines(tmp_path: Path) -> None:
    path = write(census(3000), tmp_path)
    key = new_key()
    seen: list[float] = []

    class Watch:
        def set_progress(self, fraction, text=""):
            seen.append(fraction)

        def is_cancelled(self):
            return False

    duck = open_dataset(path, engine="duckdb")
    memory = open_dataset(path, engine="memory")
    assert duck.content_fingerprint(key, Watch()) == memory.content_fingerprint(key)
    assert seen and seen[-1] == 1.0


@pytest.mark.parametrize("coded_texts", [0, 2, 1 << 16])
def test_texts_sent_as_codes_or_as_texts_give_the_memory_engines_fingerprint(tmp_path: Path, monkeypatch,
                                                                               coded_texts: int) -> None:
    """DuckDB sends a text column of few distinct values as codes into its distinct texts (joined in
    SQL) and the others as texts: either way, with blanks, markers, numbers spelled as text and
    missing cells (a column of nothing else too), the fingerprint is the memory engine's."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from svtgui.data.engines import duckdb_engine

    monkeypatch.setattr(duckdb_engine, "CODED_TEXTS", coded_texts)
    rng = np.random.default_rng(7)
    few = rng.choice([" a", "b ", "NA", "?", "39", "Zürich, CH", "", None], 500).tolist()
    pq.write_table(pa.table({"few": pa.array(few, pa.string()), "two": rng.choice(["x", "y"], 500),
                             "none": pa.array([None] * 500, pa.string()), "n": rng.integers(0, 5, 500)}),
                   path := tmp_path / "t.parquet")
    assert open_dataset(path, engine="duckdb").fingerprint(KEY) == \
        open_dataset(path, engine="memory").fingerprint(KEY)


def _layouts(monkeypatch) -> list[list]:
    """Each fingerprint pass's layout as DuckDB hands it to the hashing (which column is in which block)."""
    from svtgui.data.engines import duckdb_engine

    layouts: list[list] = []
    spied = duckdb_engine.sums_in_threads
    monkeypatch.setattr(duckdb_engine, "sums_in_threads",
                        lambda *a: (layouts.append(list(a[-1])), spied(*a))[1])
    return layouts


@pytest.mark.parametrize("rows", [1, 400])
@pytest.mark.parametrize("block_codes", [1, 1 << 18])
def test_columns_coded_by_duckdb_give_the_memory_engines_fingerprint(tmp_path: Path, monkeypatch, rows: int,
                                                                     block_codes: int) -> None:
    """DuckDB sends whole numbers of a small range, true/false and few-valued texts as codes, several
    columns in one code (a fingerprint.Block; with ``block_codes`` 1, a column each), the texts as
    the file has them, cleaned once per distinct text: with negative numbers, integers past 2**53,
    missing cells, a column of nothing but missing cells, a range too wide to code, blanks, standard
    and custom markers, a one-row file, the fingerprint is the memory engine's (an empty file is
    refused at open)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from svtgui.data import fingerprint
    from svtgui.data.loaders import LoadOptions

    monkeypatch.setattr(fingerprint, "BLOCK_CODES", block_codes)
    layouts = _layouts(monkeypatch)
    rng = np.random.default_rng(rows)

    def some(values: list, missing: float = 0.2) -> list:
        return [None if rng.random() < missing else v for v in values]

    table = pa.table({
        "small": pa.array(some(rng.integers(-5, 5, rows).tolist()), pa.int8()),
        "big": pa.array((2**53 + rng.integers(0, 10, rows)).tolist(), pa.int64()),
        "none": pa.array([None] * rows, pa.int32()),
        "wide": pa.array(rng.integers(0, 10**9, rows)),
        "flag": pa.array(some(rng.integers(0, 2, rows).astype(bool).tolist()), pa.bool_()),
        "text": pa.array(some(rng.choice([" a", "a", "b ", "NA", "?", "-", "39", "", "x\t"], rows).tolist())
                         if rows > 1 else [None], pa.string()),
        "x": pa.array(some(rng.normal(size=rows).tolist(), 0.1), pa.float64())})
    pq.write_table(table, path := tmp_path / "coded.parquet")
    options = LoadOptions(missing=("?", "-"))
    assert open_dataset(path, options, engine="duckdb").fingerprint(KEY) == \
        open_dataset(path, options, engine="memory").fingerprint(KEY)
    (layout,) = layouts
    coded = sorted(j for part in layout if isinstance(part, fingerprint.Block) for j in part.columns)
    # whole numbers of a small range (a lone row's "wide" too) unless every cell is missing (no
    # bounds), true/false and the texts; never the floats
    whole = (0, 1) if rows > 1 else (0, 1, 3)
    assert coded == [j for j in whole if table.column(j).null_count < rows] + [4, 5]
    blocks = sum(isinstance(part, fingerprint.Block) for part in layout)
    assert blocks == (len(coded) if block_codes == 1 else 1)


def test_distinct_counts_estimated_on_a_sample_still_code_the_few_valued_texts_only(tmp_path: Path,
                                                                                   monkeypatch) -> None:
    """On a large file the texts' distinct counts are estimated on a 10% sample of DuckDB's vectors:
    a text column of few values is still coded, one of a distinct text per row (400,000 rows: the
    sample sees about 40,000 of them; none in 10^9 runs) is not, and the fingerprint is the memory
    engine's."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from svtgui.data import fingerprint
    from svtgui.data.engines import duckdb_engine

    monkeypatch.setattr(duckdb_engine, "SAMPLED_ESTIMATE_ROWS", 0)
    monkeypatch.setattr(duckdb_engine, "CODED_TEXTS", 1000)
    queries: list[str] = []
    run = duckdb_engine.DuckDBTable._run
    monkeypatch.setattr(duckdb_engine.DuckDBTable, "_run",
                        lambda self, text, fetch: (queries.append(text), run(self, text, fetch))[1])
    layouts = _layouts(monkeypatch)
    rows = 400_000
    rng = np.random.default_rng(5)
    pq.write_table(pa.table({"id": pa.array([f"p{i}" for i in rng.permutation(rows)]),
                             "few": pa.array(rng.choice(["a", " b", "NA", "c"], rows))}),
                   path := tmp_path / "t.parquet")
    assert open_dataset(path, engine="duckdb").fingerprint(KEY) == \
        open_dataset(path, engine="memory").fingerprint(KEY)
    assert any("approx_count_distinct" in q and "USING SAMPLE 10% (system)" in q for q in queries)
    (layout,) = layouts
    assert [part.columns for part in layout if isinstance(part, fingerprint.Block)] == [(1,)]


def test_a_parquet_file_rewritten_while_fingerprinted_is_refused(tmp_path: Path, monkeypatch) -> None:
    """The fingerprint reads the file in several queries (bounds, texts, the codes): a file rewritten
    between them (here with an age past the bounds found, which would alias another block code) is
    refused with one line, and no fingerprint comes out."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from svtgui.data.engines import duckdb_engine
    from svtgui.data.engines.base import EngineError

    pq.write_table(pa.table({"age": [20, 30, 40], "sex": ["F", "M", "F"]}), path := tmp_path / "p.parquet")
    ds = open_dataset(path, engine="duckdb")
    real = duckdb_engine.DuckDBTable._integer_bounds

    def then_rewritten(self):
        found = real(self)
        pq.write_table(pa.table({"age": [20, 30, 41], "sex": ["F", "M", "F"]}), path)
        return found

    monkeypatch.setattr(duckdb_engine.DuckDBTable, "_integer_bounds", then_rewritten)
    with pytest.raises(EngineError, match="p.parquet: the file changed while it was read$"):
        ds.fingerprint(KEY)
    assert ds.known_fingerprint(KEY) is None


def test_fingerprint_cancel_stops_the_pass(tmp_path: Path) -> None:
    from svtgui.data.errors import LoadCancelled

    class Cancelled:
        def set_progress(self, fraction, text=""):
            pass

        def is_cancelled(self):
            return True

    duck = open_dataset(write(census(100), tmp_path), engine="duckdb")
    with pytest.raises(LoadCancelled):
        duck.content_fingerprint(new_key(), Cancelled())


def test_schema_count_and_preview_without_loading(tmp_path: Path) -> None:
    frame = census(2000)
    ds = open_dataset(write(frame, tmp_path), engine="duckdb")
    assert ds.engine == "duckdb" and ds.n_rows == 2000
    assert [c.kind.value for c in ds.schema.columns] == ["numeric", "categorical", "numeric"]
    pd.testing.assert_frame_equal(ds.preview(5)[["age"]], frame.head(5)[["age"]])
    with pytest.raises(EngineRefused, match="evaluated by duckdb"):
        ds.frame  # noqa: B018 - the refusal is the point


def test_declared_bounds_from_a_sidecar_apply(tmp_path: Path) -> None:
    path = write(census(500), tmp_path, "people.parquet")
    (tmp_path / "people.schema.json").write_text(
        '{"format": "svtgui-schema", "version": 1, "columns": [{"name": "age", "kind": "numeric", '
        '"lower": 0, "upper": 100}]}', encoding="utf-8")
    ds = open_dataset(path, engine="duckdb")
    assert ds.schema.column("age").bounds() == (0.0, 100.0)
    assert evaluate(ds, [ClippedSum("age")])[0] == evaluate(open_dataset(path, engine="memory"),
                                                            [ClippedSum("age")])[0]


def test_csv_and_jsonl_on_duckdb_match_memory(tmp_path: Path) -> None:
    frame = census(800)
    csv = tmp_path / "c.csv"
    frame.to_csv(csv, index=False)
    jsonl = tmp_path / "c.jsonl"
    frame.to_json(jsonl, orient="records", lines=True)
    batch = [RangeCount("age", 20, 40), Count(Condition("sex", "=", "Male")),
             ClippedSum("capital_gain", 0, 500)]
    frame.to_parquet(parquet := tmp_path / "c.parquet")
    identity = open_dataset(parquet, engine="duckdb").fingerprint(KEY)
    for path in (csv, jsonl):
        assert_same(evaluate(open_dataset(path, engine="memory"), batch),
                    evaluate(open_dataset(path, engine="duckdb"), batch), batch)
        assert open_dataset(path, engine="memory").fingerprint(KEY) == identity
        assert open_dataset(path, engine="duckdb").fingerprint(KEY) == identity


def test_a_copy_for_the_run_process_reconnects(tmp_path: Path) -> None:
    ds = open_dataset(write(census(500), tmp_path), engine="duckdb")
    batch = [RangeCount("age", 20, 40)]
    expected = evaluate(ds, batch)
    copy = pickle.loads(pickle.dumps(ds))
    assert copy.table._con is None or copy.table._con is not ds.table._con
    np.testing.assert_array_equal(evaluate(copy, batch), expected)


def test_universe_histogram_of_a_large_universe_matches(tmp_path: Path) -> None:
    path = write(census(3000), tmp_path)
    specs = ["sex", "age@17,30,45,60,91"]
    duck, memory = open_dataset(path, engine="duckdb"), open_dataset(path, engine="memory")
    assert universe_cells(duck, specs) == universe_cells(memory, specs)
    assert Universe.of(duck, ["sex"]).axes[0].levels == Universe.of(memory, ["sex"]).axes[0].levels


# -- choosing an engine ------------------------------------------------------------------------------


def test_automatic_choice_by_size_and_rows(tmp_path: Path, monkeypatch) -> None:
    path = write(census(100), tmp_path)
    assert choose_engine(path).engine == "memory"
    assert choose_engine(path, large_file_bytes=10).engine == "duckdb"
    assert "rows" in choose_engine(path, large_file_bytes=10).reason or "file is" in choose_engine(
        path, large_file_bytes=10).reason
    monkeypatch.setattr("svtgui.data.engines.open.LARGE_PARQUET_ROWS", 50)
    choice = choose_engine(path)
    assert choice.engine == "duckdb" and "100 rows" in choice.reason
    assert choose_engine(path, "memory").reason == "chosen by you"
    assert choose_engine("table:people").engine == "spark"
    with pytest.raises(EngineRefused, match="Spark catalogue"):
        choose_engine("table:people", "duckdb")
    assert HISTOGRAM_LIMIT > 10**5


# -- failures ------------------------------------------------------------------------------------------


def test_missing_file_is_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="no such file"):
        open_dataset(tmp_path / "gone.parquet", engine="duckdb")


def test_unreadable_parquet_names_the_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(b"PAR1 this is not parquet")
    with pytest.raises(DatasetError, match="bad.parquet: not a readable Parquet file") as duck:
        open_dataset(bad, engine="duckdb")
    with pytest.raises(DatasetError) as memory:
        open_dataset(bad, engine="memory")
    assert str(duck.value) == str(memory.value)  # the loader's one line (issue 22 §2)


def test_unsupported_column_type_names_the_column(tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path / "nested.parquet"
    pq.write_table(pa.table({"ok": [1, 2], "nested": [{"k": 1}, {"k": 2}]}), path)
    with pytest.raises(DatasetError, match="column 'nested': the column holds a struct"):
        open_dataset(path, engine="duckdb")


def test_item_column_with_only_empty_baskets_is_an_item_column(tmp_path: Path) -> None:
    """Parquet types such a column list<null>; DuckDB 2 reads that as "NULL"[] (1.x as INTEGER[])."""
    path = write(pd.DataFrame({"a": [1, 2], "items": pd.Series([[], []], dtype=object)}), tmp_path)
    batch = [ItemSupport((1,)), Count(None)]
    memory, duck = (open_dataset(path, engine=e) for e in ("memory", "duckdb"))
    assert duck.schema.column("items").kind == memory.schema.column("items").kind == ColumnKind.ITEMSET
    assert list(evaluate(duck, batch)) == list(evaluate(memory, batch)) == [0.0, 2.0]


def test_excel_and_fimi_are_refused_by_duckdb(tmp_path: Path) -> None:
    fimi = tmp_path / "baskets.dat"
    fimi.write_text("1 2 3\n2 3\n", encoding="utf-8")
    with pytest.raises(EngineRefused, match="fimi files are read by the memory engine only, not by duckdb"):
        open_dataset(fimi, engine="duckdb")
    assert choose_engine(fimi).engine == "memory"


# -- CSV on DuckDB: one validating pass into a private columnar copy (issue 25 §3) --------------------


def _census_csv(folder: Path, rows: int, tail: str = "") -> Path:
    path = folder / "census.csv"
    census(rows).to_csv(path, index=False)
    if tail:
        with path.open("a", encoding="utf-8") as f:
            f.write(tail)
    return path


def test_csv_on_duckdb_is_read_once_into_a_private_copy(tmp_path: Path, monkeypatch) -> None:
    from svtgui.data import textio

    path = _census_csv(tmp_path, 3000)
    fed: list[int] = []
    real = textio.FieldCounter.feed
    monkeypatch.setattr(textio.FieldCounter, "feed", lambda self, data, final=False: fed.append(1) or
                        real(self, data, final))
    ds = open_dataset(path, engine="duckdb")
    assert not fed  # no Python pass over the records: DuckDB validates while it copies
    copy = ds.table.copy
    assert copy.suffix == ".parquet" and oct(copy.parent.stat().st_mode & 0o777) == "0o700"
    seen = spy_sql(monkeypatch, ds.table)
    batch = [RangeCount("age", 20, 40), Count(Condition("sex", "=", "Male")),
             ClippedSum("capital_gain", 0, 500)]
    assert_same(evaluate(open_dataset(path, engine="memory"), batch), evaluate(ds, batch), batch)
    assert seen and not any("read_csv" in s for s in seen)  # every later pass reads the copy
    ds.table.close()
    assert not copy.exists()


def test_a_ragged_row_after_duckdbs_sample_gets_the_loaders_line(tmp_path: Path) -> None:
    path = _census_csv(tmp_path, 30_000, tail="40,Male\n")  # line 30,002, past DuckDB's 20,480-row sniff
    with pytest.raises(DatasetError) as duck:
        open_dataset(path, engine="duckdb")
    with pytest.raises(DatasetError) as memory:
        open_dataset(path, engine="memory")
    assert str(duck.value) == str(memory.value) and duck.value.line == 30_002
    assert "ragged row: 2 fields where the header has 3" in str(duck.value)


def test_a_type_broken_after_duckdbs_sample_is_read_as_the_loader_reads_it(tmp_path: Path) -> None:
    path = _census_csv(tmp_path, 30_000, tail="unknown,Male,0\n")  # age: numbers, then a text
    duck, memory = open_dataset(path, engine="duckdb"), open_dataset(path, engine="memory")
    assert duck.schema.column("age").kind == memory.schema.column("age").kind == ColumnKind.CATEGORICAL
    batch = [Count(Condition("age", "=", "unknown")), Count(Condition("age", "=", 40))]
    assert list(evaluate(duck, batch)) == list(evaluate(memory, batch))


def test_a_cancelled_copy_stops_duckdb_and_leaves_no_file(tmp_path: Path) -> None:
    from svtgui.data.engines import scratch
    from svtgui.data.errors import LoadCancelled

    path = _census_csv(tmp_path, 2000)

    class Cancelled:
        def set_progress(self, fraction, text=""):
            pass

        def is_cancelled(self):
            return True

    before = set(scratch.folder().iterdir())
    with pytest.raises(LoadCancelled):
        open_dataset(path, None, Cancelled(), engine="duckdb")
    assert set(scratch.folder().iterdir()) == before


@pytest.mark.parametrize("tail", ["41,Male,0\n", "unknown,Male,0\n"], ids=["a row more", "a text age"])
def test_a_csv_that_changes_between_duckdbs_two_reads_is_refused(tmp_path: Path, monkeypatch, tail) -> None:
    """The open reads the file more than once (the kinds of a sample, or of every row when the sample
    misled, then the typed copy): a file rewritten between the reads must not give a copy other than
    the file that was validated and typed."""
    from svtgui.data.engines import csv_copy, scratch
    from svtgui.data.engines.base import EngineError

    path = _census_csv(tmp_path, 2000)
    real = csv_copy._kinds

    def then_appended(*args, **kwargs):
        found = real(*args, **kwargs)
        with path.open("a", encoding="utf-8") as f:
            f.write(tail)
        return found

    monkeypatch.setattr(csv_copy, "_kinds", then_appended)
    before = set(scratch.folder().iterdir())
    with pytest.raises(EngineError, match="the file changed while it was read"):
        open_dataset(path, engine="duckdb")
    assert set(scratch.folder().iterdir()) == before


def test_a_csv_whose_sample_tells_its_kinds_is_parsed_once(tmp_path: Path, monkeypatch) -> None:
    """Issue 25 §3: the open parses the file once, the copy checking every cell against the kinds
    of a sample of the rows (it used to parse it twice: the kinds' aggregate, then the copy)."""
    from svtgui.data.engines import csv_copy

    path = _census_csv(tmp_path, 3000)
    statements: list[str] = []
    real = csv_copy._interruptible
    monkeypatch.setattr(csv_copy, "_interruptible",
                        lambda text, *a: statements.append(text) or real(text, *a))
    ds = open_dataset(path, engine="duckdb")
    whole = [s for s in statements if f"LIMIT {csv_copy.SAMPLE_ROWS}" not in s]
    assert len(whole) == 1 and whole[0].startswith("COPY"), statements
    batch = [RangeCount("age", 20, 40), Count(Condition("sex", "=", "Male"))]
    assert_same(evaluate(open_dataset(path, engine="memory"), batch), evaluate(ds, batch), batch)


def test_a_column_that_turns_in_the_last_lines_is_typed_in_one_parse(tmp_path: Path, monkeypatch) -> None:
    """The guess reads the file's last lines too: a text after 3,000 numbers (rows appended, a
    sorted file) is typed without the second read the first rows alone would send the open to."""
    from svtgui.data.engines import csv_copy

    monkeypatch.setattr(csv_copy, "SAMPLE_ROWS", 100)
    monkeypatch.setattr(csv_copy, "TAIL_BYTES", 4096)
    path = _census_csv(tmp_path, 3000, tail="unknown,Male,0\n")
    statements: list[str] = []
    real = csv_copy._interruptible
    monkeypatch.setattr(csv_copy, "_interruptible",
                        lambda text, *a: statements.append(text) or real(text, *a))
    ds = open_dataset(path, engine="duckdb")
    assert ds.schema.column("age").kind == ColumnKind.CATEGORICAL
    assert [s.split()[0] for s in statements] == ["SELECT", "COPY"], statements
    assert verdict(path, "duckdb") == verdict(path, "memory")


@pytest.mark.parametrize("newline, header_bytes, sampled", [("\n", 5, True), ("\r", 5, False),
                                                         ("\n", 200, False)],
                         ids=["lines", "a lone CR ends them", "a header longer than the tail"])
def test_the_tail_is_sampled_only_after_a_header_line_within_its_bytes(tmp_path: Path, monkeypatch, newline,
                                                                        header_bytes, sampled) -> None:
    """The header line is read to copy it before the tail; a file of CR-ended lines has no such
    line end, and its whole text would have been read as one line."""
    from svtgui.data.cells import missing_markers
    from svtgui.data.engines import csv_copy

    monkeypatch.setattr(csv_copy, "TAIL_BYTES", 64)
    path = tmp_path / "t.csv"
    lines = ["a" * (header_bytes - 2) + ",b", *(f"{i},x" for i in range(100))]
    path.write_text(newline.join(lines) + newline, encoding="utf-8", newline="")
    markers = missing_markers(("?",))
    reading = csv_copy._reading(path, ",", markers, True)
    tail = csv_copy._tail(reading, ",", markers, True)
    assert (tail is not None) is sampled
    if tail is not None:
        csv_copy.scratch.remove(tail.file)


@pytest.mark.parametrize("late, kind", [(" 41 ", ColumnKind.NUMERIC), ("\tNA", ColumnKind.NUMERIC),
                                        ("-1", ColumnKind.NUMERIC), ("4.5", ColumnKind.NUMERIC),
                                        ("x", ColumnKind.CATEGORICAL), ("", ColumnKind.NUMERIC)],
                         ids=["blanks", "a marker in blanks", "a marker like a number", "a fraction",
                              "a text", "empty"])
@pytest.mark.parametrize("width", [1, 2])
def test_cells_past_the_sample_are_read_as_the_loader_reads_them(tmp_path: Path, monkeypatch, late, kind,
                                                                 width) -> None:
    """A cell the sample did not see is cleaned and typed by the loader's rules: cells read as they
    are written only when they need no cleaning (a marker is missing, blanks go), and a cell
    that does not allow the sample's kind makes the open read the whole file for the kinds."""
    from svtgui.data.engines import csv_copy
    from svtgui.data.loaders import LoadOptions

    monkeypatch.setattr(csv_copy, "SAMPLE_ROWS", 2)
    path = tmp_path / "late.csv"
    lines = ["age", "7", "8", "9", late, "-1", "10"]
    path.write_text("".join(line + (",x" if width == 2 else "") + "\n" for line in lines), encoding="utf-8")
    options = LoadOptions(missing=("?", "-1"))
    assert verdict(path, "duckdb", options) == verdict(path, "memory", options)
    assert open_dataset(path, options, engine="duckdb").schema.column("age").kind == kind


def test_spark_learns_a_csvs_types_without_a_copy(tmp_path: Path, monkeypatch) -> None:
    """``column_types`` (Spark's typing of a CSV) is the validating pass alone: no file is written."""
    from svtgui.data.cells import missing_markers
    from svtgui.data.engines import csv_copy, scratch
    from svtgui.data.loaders import LoadOptions

    path = _census_csv(tmp_path, 2000)
    written: list[Path] = []
    real = scratch.new_path
    monkeypatch.setattr(scratch, "new_path", lambda *a: written.append(real(*a)) or written[-1])
    types = csv_copy.column_types(path, LoadOptions(), missing_markers(("?",)))
    assert dict(types)["age"] == "BIGINT" and dict(types)["sex"] == "VARCHAR"
    assert not written


@pytest.mark.parametrize("text, ends", [("a,b\n1,2\n", False), ("a,b\n1,\n", True), ("a,b\r\n1,\r\n", True),
                                         ("a,b\n1,2,", True), ("a,b\n1,2", False), ("a,b\n \n", True),
                                         ("a,b\r\n\t1,2", True), (" a,b\n1,2", True)])
def test_what_the_loader_must_count_is_found_across_the_scans_blocks(tmp_path: Path, monkeypatch, text,
                                                                     ends) -> None:
    from svtgui.data.engines import csv_copy

    path = tmp_path / "x.csv"
    path.write_text(text, encoding="utf-8")
    for block in (1, 2, 3, 64):
        monkeypatch.setattr(csv_copy, "SCAN_BYTES", block)
        assert csv_copy._loader_must_count(path, ",") is ends, block


def test_the_search_for_what_the_loader_must_count_holds_no_more_than_a_block(tmp_path: Path) -> None:
    """The search read the whole file mapped in memory: a 1.45 GB CSV made a run peak at 1.5 GB."""
    import subprocess
    import sys

    path = tmp_path / "big.csv"
    with path.open("wb") as f:
        f.write(b"a,b\n" + b"123456789012,34\n" * ((96 << 20) // 16))  # 96 MiB, no delimiter at an end
    probe = ("import sys; from pathlib import Path; from svtgui.data.engines import csv_copy\n"
             "def peak():\n"
             "    return int(next(x for x in open('/proc/self/status') if 'VmHWM' in x).split()[1])\n"
             "before = peak(); assert not csv_copy._loader_must_count(Path(sys.argv[1]), ',')\n"
             "print((peak() - before) // 1024)")
    grown = subprocess.run([sys.executable, "-c", probe, str(path)], capture_output=True, text=True,
                           check=True, cwd=Path(__file__).resolve().parents[2])
    assert int(grown.stdout) < 48, grown.stdout  # MiB: all 96 were resident while mapped


def test_dates_blanks_and_markers_give_one_fingerprint_on_every_engine_and_format(tmp_path: Path) -> None:
    frame = pd.DataFrame({"when": ["2020-01-01", "2021-06-30", "2020-01-01", ""], "n": [1, 2, 3, 4],
                          "t": [" a", "b ", "NA", "?"]})
    frame.to_csv(csv := tmp_path / "x.csv", index=False)
    pd.read_csv(csv, parse_dates=["when"]).to_parquet(parquet := tmp_path / "x.parquet")
    prints = {open_dataset(path, engine=engine).fingerprint(KEY)
              for path in (csv, parquet) for engine in ("memory", "duckdb")}
    assert len(prints) == 1


def test_dates_past_2262_fingerprint_on_every_engine(tmp_path: Path) -> None:
    """Nanoseconds end in April 2262; a curator's far-future dates (a 'valid until 9999-12-31') must not."""
    import datetime as dt

    import pyarrow as pa
    import pyarrow.parquet as pq

    when = [dt.datetime(9999, 12, 31), dt.datetime(2020, 1, 1), None]
    pq.write_table(pa.table({"until": pa.array(when, pa.timestamp("us")), "n": [1, 2, 3]}),
                   path := tmp_path / "far.parquet")
    assert open_dataset(path, engine="duckdb").fingerprint(KEY) == \
        open_dataset(path, engine="memory").fingerprint(KEY)


def test_a_copy_goes_with_its_dataset_and_never_with_a_child_processes_copy(tmp_path: Path) -> None:
    import gc

    ds = open_dataset(_census_csv(tmp_path, 500), engine="duckdb")
    copy = ds.table.copy
    clone = pickle.loads(pickle.dumps(ds))  # what the run's child process receives
    assert evaluate(clone, [RangeCount("age", 20, 40)])[0] == evaluate(ds, [RangeCount("age", 20, 40)])[0]
    clone.table.close()
    assert copy.exists()  # only the process that made the copy removes it
    del ds, clone
    gc.collect()
    assert not copy.exists()  # the window dropped the dataset (another file opened): the copy is gone


def test_a_json_table_sent_to_the_run_process_reuses_the_kinds_of_its_text_fields(tmp_path, monkeypatch):
    """Typing a JSON field of texts scans the file once, at open; the run's process reconnects
    without scanning it again (its copy of the table carries the kinds)."""
    from svtgui.data import inference

    path = tmp_path / "t.jsonl"
    path.write_text('{"a": "TRUE", "b": 1}\n{"a": "false", "b": 2}\n')
    table = open_dataset(path, engine="duckdb").table
    copy = pickle.loads(pickle.dumps(table))
    monkeypatch.setattr(inference, "kind_checks", lambda *_: pytest.fail("the file was scanned again"))
    assert [(c.name, c.kind) for c in copy.columns()] == [("a", "boolean"), ("b", "numeric")]
