"""What the dataset fingerprint costs, as ratios against a plain DuckDB column scan in the same run.

    nice .venv/bin/python bench/fingerprint.py [--rows N] [--cache DIR] [--spark]

On the census-like Parquet file of bench/scale.py (N rows, default 5×10^7, generated once into the
cache folder), in this one process:

* **scan**: DuckDB reading every value once (``sum`` of each number, ``max(length)`` of each text),
  the floor any pass over the rows pays; and DuckDB streaming every row to Python as Arrow batches;
* **first open**: ``open_dataset(engine="duckdb")`` and the fingerprint through a fresh ledger
  (``fingerprint_of``: computed, then cached in the ledger);
* **re-open**: the same file opened again through the same ledger (the cached fingerprint);
* **old path**: the schema-5 row fingerprint (pandas frames from Arrow, the pre-issue-25 cost), once;
* with ``--spark``: Spark ``local[2]`` with default settings (no driver memory raised), the same
  fingerprint by ``mapInArrow`` against a Spark SQL scan of every column, and the whole batch of
  ``bench/scale.py`` (a fresh open, the fingerprint, 11,000 age-range counts) against hand-written
  Spark SQL (one ``GROUP BY age`` and numpy; the faster of two runs); the answers are compared. The
  batch runs once through a ledger that has not seen the file (the fingerprint computed) and then
  again through the same ledger (the fingerprint read from its cache, as every later run pays it).

Every figure is printed in seconds and as a ratio to the scan; the fingerprints of the engines are
checked to be identical. Ends with ``fingerprint: rows=N first_open_ratio=… reopen_ratio=…`` (and
``spark_batch_ratio=… spark_reopen_ratio=…`` with ``--spark``: issue 25's goal is ≤ 3).
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH.parent))
sys.path.insert(0, str(BENCH))

from scale import census_parquet  # noqa: E402

from svtgui.app.dataset_identity import fingerprint_of  # noqa: E402
from svtgui.data.engines import open_dataset  # noqa: E402
from svtgui.ledger import Ledger  # noqa: E402

RANGES = 11_000


def _timed(fn):  # noqa: ANN001, ANN202 - a bench helper
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def duckdb_scan(path: Path, to_python: bool = False) -> float:
    """Every value of every column read once by DuckDB: ``sum`` of each number, ``max(length)`` of each
    text (``min``/``max`` alone would be answered from the Parquet statistics without a scan); with
    ``to_python``, every row streamed to Python as Arrow batches instead (what any pass in Python pays)."""
    import duckdb

    con = duckdb.connect()
    con.execute("SET enable_progress_bar = false")
    kinds = con.execute(f"DESCRIBE SELECT * FROM read_parquet('{path}')").fetchall()
    aggregates = [f"max(length({n}))" if t == "VARCHAR" else f"sum({n})" for n, t, *_ in kinds]
    if to_python:
        rel = con.sql(f"SELECT * FROM read_parquet('{path}')")
        # DuckDB 2 renamed fetch_arrow_reader (which every 1.x has) to to_arrow_reader
        reader = rel.to_arrow_reader if hasattr(rel, "to_arrow_reader") else rel.fetch_arrow_reader
        seconds, _ = _timed(lambda: sum(b.num_rows for b in reader(500_000)))
    else:
        sql = f"SELECT {', '.join(aggregates)} FROM read_parquet('{path}')"
        seconds, _ = _timed(lambda: con.execute(sql).fetchall())
    con.close()
    return seconds


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=5 * 10**7)
    ap.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "svtgui-bench")
    ap.add_argument("--spark", action="store_true", help="also Spark local[2], default settings")
    ap.add_argument("--no-old", action="store_true", help="skip the schema-5 (pandas) path")
    args = ap.parse_args()
    path = census_parquet(args.cache, args.rows)
    print(f"file: {path} ({path.stat().st_size / 1e9:.2f} GB, {args.rows:,} rows)", flush=True)
    duckdb_scan(path)  # warm the page cache: every figure below reads a file already in memory
    scan = duckdb_scan(path)

    def show(what: str, seconds: float) -> None:
        print(f"  {what:<48} {seconds:8.2f} s  {seconds / scan:6.2f}× the scan", flush=True)

    show("DuckDB scan of every column (baseline)", scan)
    show("DuckDB streaming every row to Python (Arrow)", duckdb_scan(path, to_python=True))
    with tempfile.TemporaryDirectory() as tmp, Ledger.open(Path(tmp) / "ledger.sqlite") as led:
        first, fp = _timed(lambda: fingerprint_of(led, open_dataset(path, engine="duckdb")))
        show("first open + fingerprint (DuckDB, cached after)", first)
        again, fp2 = _timed(lambda: fingerprint_of(led, open_dataset(path, engine="duckdb")))
        show("re-open + fingerprint (from the ledger's cache)", again)
        assert fp2 == fp
        if not args.no_old:
            old, _ = _timed(lambda: open_dataset(path, engine="duckdb").legacy_fingerprint(led.content_key()))
            show("schema-5 row fingerprint (pandas frames, before)", old)
        spark = spark_part(path, led, fp, show) if args.spark else None
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"fingerprint: rows={args.rows} first_open_ratio={first / scan:.2f} "
          f"reopen_ratio={again / scan:.3f} peak_rss_mb={peak:.0f}"
          + ("" if spark is None else f" spark_batch_ratio={spark[0]:.2f} spark_reopen_ratio={spark[1]:.2f}"))


def spark_part(path: Path, led: Ledger, expected, show) -> tuple[float, float]:  # noqa: ANN001 - a bench helper
    """Spark ``local[2]``, default settings: the fingerprint against a scan, and the whole batch (open,
    fingerprint, :data:`RANGES` age-range counts) against hand-written Spark SQL, first with the
    fingerprint computed, then with it read from the ledger's cache; returns the two ratios."""
    import numpy as np

    from svtgui.data.evaluate import evaluate
    from svtgui.data.queries import RangeCount

    ds = open_dataset(path, engine="spark", spark_master="local[2]")
    ds.n_rows  # noqa: B018 - start the session and count before timing
    spark = ds.table.session()
    names = [c.name for c in ds.table.columns()]
    sql = f"SELECT {', '.join(f'min(`{n}`)' for n in names)} FROM {ds.table.relation}"
    scan, _ = _timed(lambda: spark.sql(sql).collect())
    print(f"  Spark local[2], default settings: SQL scan of every column {scan:.2f} s", flush=True)
    seconds, fp = _timed(lambda: ds.fingerprint(led.content_key()))
    print(f"  Spark fingerprint (mapInArrow, merged on the driver) {seconds:8.2f} s  "
          f"{seconds / scan:6.2f}× Spark's scan", flush=True)
    assert fp == expected, "Spark's fingerprint differs from DuckDB's"
    print("  Spark's fingerprint is DuckDB's (identical)", flush=True)
    rng = np.random.default_rng(25)  # bench/scale.py's ranges
    lows, widths = rng.integers(17, 90, RANGES), rng.integers(1, 20, RANGES)
    queries = [RangeCount("age", int(a), int(a + w)) for a, w in zip(lows, widths, strict=True)]

    def hand_written() -> np.ndarray:
        """What a Spark expert writes: one GROUP BY age, numpy for the ranges."""
        h = spark.read.parquet(str(path)).where("age IS NOT NULL").groupBy("age").count().toPandas()
        h = h.sort_values("age")
        values = h["age"].to_numpy(np.float64)
        rows = np.concatenate(([0], np.cumsum(h["count"].to_numpy())))
        return rows[np.searchsorted(values, high, "left")] - rows[np.searchsorted(values, low, "left")]

    low = np.array([q.low for q in queries], np.float64)
    high = np.array([q.high for q in queries], np.float64)

    def batch(ledger: Ledger) -> np.ndarray:
        """What a run pays: a fresh open, the fingerprint through ``ledger`` (computed, or read from its
        cache when the file is known there), the ranges."""
        fresh = open_dataset(path, engine="spark", spark_master="local[2]")
        fingerprint_of(ledger, fresh)
        return evaluate(fresh, queries)

    hand, expected_answers = _timed(hand_written)
    with tempfile.TemporaryDirectory() as tmp, Ledger.open(Path(tmp) / "spark.sqlite") as own:
        ours, answers = _timed(lambda: batch(own))  # a ledger that has not seen the file: fingerprinted
        again = min(_timed(lambda: batch(own))[0] for _ in range(2))  # the file's fingerprint cached
    hand = min(hand, _timed(hand_written)[0])
    assert np.array_equal(np.asarray(answers, np.int64), expected_answers.astype(np.int64))
    print(f"  Spark hand-written batch (GROUP BY age + numpy) {hand:8.2f} s", flush=True)
    print(f"  Spark batch: open + fingerprint + {RANGES:,} ranges {ours:8.2f} s  "
          f"{ours / hand:6.2f}× hand-written", flush=True)
    print(f"  Spark batch again: open + cached fingerprint + ranges {again:8.2f} s  "
          f"{again / hand:6.2f}× hand-written", flush=True)
    return ours / hand, again / hand


if __name__ == "__main__":
    main()
