"""The ledger's speed on both backends, in one run: charges per second and responses recorded per second.

    .venv/bin/python bench/ledger.py [--server postgresql://…] [--charges 200] [--responses 1000000]
                                     [--batch 5000]

A *charge* is what every run does before its first answer: check the remaining budget and commit
the run, in one write transaction (then end it). *Responses recorded* is the write-ahead log of a
run: ``--responses`` responses committed in batches of ``--batch`` (the run loop sizes its batches
to about 0.25 s of work; 5,000 is a small one for fast counting queries), each batch durable before
it could be shown. Both are measured on a fresh file ledger and on a fresh schema of the server
ledger (``--server``, default ``$SVTGUI_TEST_POSTGRES``; without one, only the file is measured and
the line says so). The last line compares the time to record a 10^6-query run (issue 26: the server
must take at most 1.5× the file's time).
"""

from __future__ import annotations

import argparse
import os
import secrets
import sys
import tempfile
import time
from pathlib import Path

from svtgui.ledger import Ledger, ResponseBatch


def _charges(led: Ledger, dataset_id: str, n: int) -> float:
    start = time.perf_counter()
    for _ in range(n):
        run = led.start_run(dataset_id, "sparse", {"epsilon": 0.001}, "0.001", secure=True,
                            noise_description="bench")
        led.finish_run(run.id, "finished")
    return n / (time.perf_counter() - start)


def _responses(led: Ledger, dataset_id: str, n: int, batch: int) -> float:
    run = led.start_run(dataset_id, "sparse", {"epsilon": 0.001}, "0.001", secure=True,
                        noise_description="bench")
    rows = [(i, f"count of rows where x in [{i}, {i + 1})", i % 7 == 0, float(i) if i % 7 == 0 else None,
             None) for i in range(n)]
    start = time.perf_counter()
    for lo in range(0, n, batch):
        led.record(run.id, ResponseBatch.of(rows[lo:lo + batch]))
    seconds = time.perf_counter() - start
    led.finish_run(run.id, "finished")
    return n / seconds


def measure(location: str | Path, args: argparse.Namespace) -> tuple[float, float]:
    with Ledger.open(location) as led:
        ds = led.register_dataset(secrets.token_hex(32), "bench", 10**6)[0].dataset_id
        return _charges(led, ds, args.charges), _responses(led, ds, args.responses, args.batch)


def _server_schema(url: str) -> tuple[str, str]:
    """A fresh schema on the server for this run (dropped afterwards), as a ledger URL."""
    import psycopg

    schema = "svtgui_bench_" + secrets.token_hex(4)
    with psycopg.connect(url, autocommit=True) as c:
        c.execute(f"CREATE SCHEMA {schema}")
    return schema, f"{url}{'&' if '?' in url else '?'}options=-csearch_path%3D{schema}"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--server", default=os.environ.get("SVTGUI_TEST_POSTGRES"),
                   help="a PostgreSQL URL whose login may create a schema (default: $SVTGUI_TEST_POSTGRES)")
    p.add_argument("--charges", type=int, default=200)
    p.add_argument("--responses", type=int, default=10**6)
    p.add_argument("--batch", type=int, default=5000)
    args = p.parse_args()
    os.environ.setdefault("SVTGUI_STATE_DIR", tempfile.mkdtemp(prefix="svtgui-bench-state-"))
    results = {}
    with tempfile.TemporaryDirectory(prefix="svtgui-bench-") as folder:
        results["file (SQLite)"] = measure(Path(folder) / "ledger.sqlite", args)
    if args.server:
        import psycopg

        schema, url = _server_schema(args.server)
        try:
            results["server (PostgreSQL)"] = measure(url, args)
        finally:
            with psycopg.connect(args.server, autocommit=True) as c:
                c.execute(f"DROP SCHEMA {schema} CASCADE")
    print(f"{'backend':22} {'charges/s':>10} {'responses recorded/s':>21}   (batches of {args.batch:,})")
    for name, (charges, responses) in results.items():
        print(f"{name:22} {charges:10,.1f} {responses:21,.0f}")
    if len(results) < 2:
        print("server: not measured (give --server postgresql://… or set SVTGUI_TEST_POSTGRES)")
        return 0
    (_, file_rate), (_, server_rate) = results.values()
    print(f"recording a 10^6-query run: file {10**6 / file_rate:.1f} s, server {10**6 / server_rate:.1f} s "
          f"(server / file = {file_rate / server_rate:.2f}; target ≤ 1.5)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
