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
  fingerprint by ``mapInArrow`` against ``count(*)`` and a Spark SQL scan of every column.

Every figure is printed in seconds and as a ratio to the scan; the fingerprints of the engines are
checked to be identical. Ends with ``fingerprint: rows=N first_open_ratio=… reopen_ratio=…``.
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

from scale import generate  # noqa: E402

from svtgui.app.dataset_identity import fingerprint_of  # noqa: E402
from svtgui.data.engines import open_dataset  # noqa: E402
from svtgui.ledger import Ledger  # noqa: E402


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
    path = args.cache / f"census-{args.rows}.parquet"
    if not path.exists():
        print(f"generating {path} (once) …", flush=True)
        generate(path, args.rows)
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
        if args.spark:
            spark_part(path, led, fp, show)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"fingerprint: rows={args.rows} first_open_ratio={first / scan:.2f} "
          f"reopen_ratio={again / scan:.3f} peak_rss_mb={peak:.0f}")


def spark_part(path: Path, led: Ledger, expected, show) -> None:  # noqa: ANN001 - a bench helper
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


if __name__ == "__main__":
    main()
