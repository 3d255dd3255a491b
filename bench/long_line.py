"""Load time against the length of one line: linear, not quadratic (issue 13).

A valid CSV followed by a run of L bytes without a newline (the shape of a truncated or corrupt
export). Before the fix the ragged-row check re-scanned the unfinished line on every read, so
time grew with L²: 16/32/64/128 MB took 1.2/3.0/9.9/38.9 s. A line over 64 MiB is now refused
as soon as it is read past the cap. Prints each time and the ratio
t(2L)/t(L): about 2 for linear handling, about 4 for quadratic.

    nice .venv/bin/python bench/long_line.py [MB ...]   (default 8 16 32 64)
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from svtgui.data import DatasetError, load_dataset


def _time_one(folder: Path, megabytes: int) -> float:
    path = folder / f"long_{megabytes}.csv"
    with path.open("wb") as f:
        f.write(b"age,sex\n" + b"34,F\n" * 1000)
        chunk = b"x" * (1 << 20)
        for _ in range(megabytes):
            f.write(chunk)
    start = time.perf_counter()
    try:
        load_dataset(path)
    except DatasetError as exc:  # one field where the header has two, or over the line cap
        assert "ragged row" in str(exc) or "longer than" in str(exc), exc
    elapsed = time.perf_counter() - start
    path.unlink()
    return elapsed


def main(sizes: list[int]) -> None:
    with tempfile.TemporaryDirectory() as d:
        times = [_time_one(Path(d), mb) for mb in sizes]
    for i, (mb, t) in enumerate(zip(sizes, times, strict=True)):
        ratio = f"  ratio to {sizes[i - 1]} MB: {t / times[i - 1]:.2f} (size ratio {mb / sizes[i - 1]:.0f})" \
            if i else ""
        print(f"{mb:5d} MB line: {t:6.2f} s{ratio}")


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [8, 16, 32, 64])
