"""The memory engine: today's path, the whole file parsed into a pandas frame by ``data.loaders`` and
evaluated by ``data.evaluate`` (sorted columns, prefix sums, masks). Best below the size threshold:
no per-batch SQL, and every feature (recipes, generators reading the rows) works on it."""

from __future__ import annotations

from pathlib import Path

from svtgui.core.progress import ProgressState
from svtgui.data.dataset import Dataset
from svtgui.data.loaders import LoadOptions, load_dataset


def open_memory(path: str | Path, options: LoadOptions, progress: ProgressState | None = None) -> Dataset:
    """Load the whole file into memory (a :class:`Dataset` whose ``engine`` is ``memory``)."""
    return load_dataset(path, options, progress)
