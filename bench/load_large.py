"""Loading a 1,000,000-row CSV: time vs plain pandas, progress callbacks, peak memory vs the frame.

    .venv/bin/python bench/load_large.py [--rows N]

Writes a synthetic census-like CSV (seeded) to a temporary folder, then measures
(1) ``pandas.read_csv`` of the same file (the baseline), (2) ``load_dataset`` with a progress
callback (chunked read + hashing + checks), and the ``tracemalloc`` peak of (2) as a multiple of
the loaded frame's own memory (the issue's limit: about 3x). Then it cancels a load at 30 %.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from svtgui.app.tasks import TaskState  # noqa: E402
from svtgui.data import LoadCancelled, load_dataset  # noqa: E402


def make(path: Path, n: int) -> None:
    rng = np.random.default_rng(0)
    edu = np.array(["HS-grad", "Bachelors", "Some-college", "Masters", "Doctorate", "11th"])
    frame = pd.DataFrame(
        {
            "age": rng.integers(17, 91, n),
            "sex": rng.choice(["Male", "Female"], n),
            "education": rng.choice(edu, n),
            "hours": rng.integers(1, 100, n),
            "gain": np.where(rng.random(n) < 0.08, rng.lognormal(8, 1, n).round(), 0).astype(int),
            "occupation": rng.choice(["Sales", "Tech-support", "?", "Craft-repair"], n),
            "weight": rng.random(n),
        }
    )
    frame.to_csv(path, index=False, sep=",")


class Counting(TaskState):
    """The window's task state, counting reports and cancelling itself at ``cancel_at``."""

    def __init__(self, cancel_at: float = 2.0) -> None:
        super().__init__()
        self.calls, self.cancel_at = 0, cancel_at

    def set_progress(self, fraction: float | None, text: str = "") -> None:
        self.calls += 1
        super().set_progress(fraction, text)
        if fraction is not None and fraction >= self.cancel_at:
            self.cancel()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.csv"
        make(path, args.rows)
        print(f"file: {args.rows:,} rows, {path.stat().st_size / 1e6:.1f} MB")
        t0 = time.perf_counter()
        pd.read_csv(path, na_values=["?"])
        t_pandas = time.perf_counter() - t0
        progress = Counting()
        t0 = time.perf_counter()
        load_dataset(path, progress=progress)
        t_ours = time.perf_counter() - t0
        tracemalloc.start()
        ds = load_dataset(path)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        frame_mb = ds.frame.memory_usage(deep=True).sum() / 1e6
        print(f"pandas.read_csv (baseline)  : {t_pandas:6.2f} s")
        print(
            f"load_dataset                : {t_ours:6.2f} s  ({t_ours / t_pandas:.2f}x the baseline: chunked,"
            f" hashed, checked, text as categoricals), {progress.calls} progress reports"
        )
        ratio = peak / 1e6 / frame_mb
        print(
            f"frame {frame_mb:.1f} MB, traced peak while loading {peak / 1e6:.1f} MB = {ratio:.2f}x the frame"
        )
        progress = Counting(cancel_at=0.3)
        t0 = time.perf_counter()
        try:
            load_dataset(path, progress=progress)
            print("cancel: NOT honoured")
            return 1
        except LoadCancelled:
            print(f"cancel at 30 %: honoured after {time.perf_counter() - t0:.2f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
