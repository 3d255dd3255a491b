"""Data of any size: a census-like Parquet file of N rows on DuckDB, and the memory engine on 10^7.

    nice .venv/bin/python bench/scale.py [--rows N] [--sample M] [--cache DIR]

Generates once, with DuckDB, ``census-N.parquet`` (age, sex, education, income, capital_gain,
hours_per_week; default N = 10^8) in a cache folder outside the repository (default
``~/.cache/svtgui-bench``) and a sample of its first M rows (default 10^7). Then, in this one
process, measures on the automatic engine (DuckDB for the large file): open (schema, row count,
preview), the content fingerprint (one pass), 10,000 random age-range counts, the 30,000-query
clip-bound search on capital_gain, 1,000 two-condition counts, and the latency of one adaptive
query on a column not seen before; then the same on the memory engine for the sample, for
comparison (in a child process whose peak is printed separately). Ends with
``scale: rows=N seconds=S peak_rss_mb=M`` (S: the whole run; M: this process's peak resident
memory). Issue 16's targets at 10^8 rows on a 2-core machine: S ≤ 60, M ≤ 2,000.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from svtgui.data.engines import open_dataset  # noqa: E402
from svtgui.data.evaluate import evaluate  # noqa: E402
from svtgui.data.fingerprint import new_key  # noqa: E402
from svtgui.data.generators import clip_bound_sweep  # noqa: E402
from svtgui.data.predicates import Condition, Junction  # noqa: E402
from svtgui.data.queries import Count, RangeCount  # noqa: E402

EDUCATION = ["HS-grad", "Some-college", "Bachelors", "Masters", "Assoc-voc", "11th", "Doctorate", "9th"]


def generate(path: Path, rows: int, source: Path | None = None) -> None:
    """The census-like file (or, with ``source``, its first ``rows`` rows), written by DuckDB."""
    import duckdb

    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    edu = "[" + ", ".join(f"'{e}'" for e in EDUCATION) + "]"
    body = (f"SELECT * FROM read_parquet('{source}') LIMIT {rows}" if source is not None else
            f"SELECT (17 + floor(random() * 74))::INTEGER AS age, "
            f"CASE WHEN random() < 0.48 THEN 'Female' ELSE 'Male' END AS sex, "
            f"{edu}[1 + floor(random() * {len(EDUCATION)})::INTEGER] AS education, "
            f"floor(random() * 200000)::INTEGER AS income, "
            f"CASE WHEN random() < 0.92 THEN 0 ELSE floor(exp(7 + random() * 4))::INTEGER END "
            f"AS capital_gain, "
            f"(1 + floor(random() * 98))::INTEGER AS hours_per_week FROM range({rows})")
    con = duckdb.connect()
    con.execute("SET enable_progress_bar = false")
    con.execute("SELECT setseed(0.16)")
    con.execute(f"COPY ({body}) TO '{tmp}' (FORMAT parquet, ROW_GROUP_SIZE 1000000)")
    con.close()
    tmp.rename(path)


def cached(cache: Path, rows: int, sample: int) -> tuple[Path, Path]:
    big = cache / f"census-{rows}.parquet"
    small = cache / f"census-{rows}-first-{sample}.parquet"
    if not big.exists():
        print(f"generating {big} (once) …", flush=True)
        generate(big, rows)
    if not small.exists():
        generate(small, sample, source=big)
    return big, small


def measure(path: Path, label: str, rng: np.random.Generator) -> None:
    """Open, fingerprint and the three query batches plus one adaptive query, each timed."""
    def step(name: str, t0: float, extra: str = "") -> float:
        now = time.perf_counter()
        print(f"  {label:<7} {name:<38} {now - t0:8.2f} s  {extra}", flush=True)
        return now

    t = time.perf_counter()
    ds = open_dataset(path)
    names = [c.name for c in ds.schema.columns]
    n = ds.n_rows
    preview = ds.preview(20) if ds.engine != "memory" else ds.frame.head(20)
    t = step("open (schema, count, preview)", t, f"engine={ds.engine} rows={n:,} columns={len(names)} "
             f"preview={len(preview)} rows")
    ds.content_fingerprint(new_key())
    t = step("content fingerprint (one pass)", t)
    lo = rng.integers(17, 90, 10_000)
    widths = rng.integers(1, 20, 10_000)
    ranges = [RangeCount("age", int(a), int(a + w)) for a, w in zip(lo, widths, strict=True)]
    evaluate(ds, ranges)
    t = step("10,000 age-range counts", t)
    sweep = clip_bound_sweep("capital_gain", 1, 150_000, 5)
    evaluate(ds, sweep)
    t = step(f"clip-bound search ({len(sweep):,} queries)", t)
    pairs = [Count(Junction("and", (Condition("education", "=", str(rng.choice(EDUCATION))),
                                    Condition("hours_per_week", ">=", int(h)))))
             for h in rng.integers(1, 99, 1000)]
    evaluate(ds, pairs)
    t = step("1,000 two-condition counts", t)
    adaptive = Junction("and", (Condition("income", ">=", 150_000), Condition("sex", "=", "Female")))
    evaluate(ds, [Count(adaptive)])
    step("one adaptive query (new columns)", t)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=10**8)
    ap.add_argument("--sample", type=int, default=10**7)
    ap.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "svtgui-bench")
    args = ap.parse_args()
    sample = min(args.sample, args.rows)
    big, small = cached(args.cache, args.rows, sample)
    start = time.perf_counter()
    rng = np.random.default_rng(16)
    print(f"file: {big} ({big.stat().st_size / 1e9:.2f} GB)")
    measure(big, "auto", rng)
    print(f"  peak resident memory so far (the large file's part): {_peak_mb():.0f} MB", flush=True)
    size = small.stat().st_size / 1e9
    print(f"memory engine on the first {sample:,} rows ({size:.2f} GB), for comparison "
          "(in a child process, so its pandas frame does not count towards this process's peak):")
    with ProcessPoolExecutor(1, mp_context=get_context("spawn")) as pool:
        child_peak = pool.submit(_measure_memory, small).result()
    print(f"  peak resident memory of the memory engine's process: {child_peak:.0f} MB", flush=True)
    seconds = time.perf_counter() - start
    print(f"scale: rows={args.rows} seconds={seconds:.1f} peak_rss_mb={_peak_mb():.0f}")


def _measure_memory(path: Path) -> float:
    measure(path, "memory", np.random.default_rng(16))
    return _peak_mb()


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


if __name__ == "__main__":
    main()
