"""A dataset whose rows stay with an engine (DuckDB, Spark): the same interface, no pandas frame."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from svtgui.core.progress import ProgressState
from svtgui.data.dataset import Dataset
from svtgui.data.engines.base import EngineRefused, TableEngine
from svtgui.data.engines.plan import Planner
from svtgui.data.file_state import FileState, unchanged_since
from svtgui.data.fingerprint import ColumnSums
from svtgui.data.schema import Schema

if TYPE_CHECKING:
    import pandas as pd

LEGACY_BATCH_ROWS = 500_000


class TableDataset(Dataset):
    """A :class:`Dataset` evaluated by ``table``'s engine. ``frame`` does not exist: code that needs
    the rows in memory gets a clear refusal naming the engine (switch to the memory engine)."""

    def __init__(self, name: str, path: Path | None, schema: Schema, fmt: str, table: TableEngine,
                 reason: str, planner: Planner | None = None, dataset_id: str | None = None,
                 file_state: FileState | None = None) -> None:
        self.name, self.path, self.schema, self.format = name, path, schema, fmt
        self.file_state = file_state
        self.legacy_file_sha256 = None
        self.dataset_id = dataset_id
        self._cache: dict[Any, Any] = {}
        self.table = table
        self.reason = reason
        self.planner = planner or Planner(table)
        self._check_schema(schema)

    @property
    def engine(self) -> str:  # type: ignore[override]
        return self.table.name

    @property
    def frame(self) -> pd.DataFrame:  # type: ignore[override]
        raise EngineRefused(f"this dataset is evaluated by {self.table.name}; this step needs the rows in "
                            "memory (open it with the memory engine)", path=self.path)

    @property
    def n_rows(self) -> int:
        return self.table.row_count()

    @property
    def columns(self) -> list[str]:
        return [c.name for c in self.table.columns()]

    def with_schema(self, schema: Schema) -> TableDataset:
        return TableDataset(self.name, self.path, schema, self.format, self.table, self.reason,
                            self.planner, self.dataset_id, self.file_state)

    # -- evaluation (what evaluate, universe and generators call for engine datasets) -----------
    def evaluate(self, queries: Sequence[Any]) -> np.ndarray:
        return self.planner.evaluate(self, queries)

    def universe_histogram(self, universe: Any) -> Any:
        return self.planner.universe_histogram(universe)

    def distinct_values(self, column: str) -> list[Any]:
        return self.planner.distinct_values(column)

    def preview(self, rows: int = 1000) -> pd.DataFrame:
        """The first rows (private: the curator's own view only); cached, as it costs a job on Spark."""
        key = ("preview", rows)
        if key not in self._cache:
            self._cache[key] = self.table.preview(rows)
        return self._cache[key]

    # -- the fingerprint: the engine computes the per-column sums where the rows are ------------
    def record_batches(self) -> Iterator[pd.DataFrame]:
        return self.table.batches(LEGACY_BATCH_ROWS)

    def read_state(self) -> FileState | None:
        """The file's state at opening if it still holds (the engine reads the file at every pass, so a
        file changed since opening has no state a fingerprint could be cached under)."""
        return unchanged_since(self.file_state, self.path)

    def _column_sums(self, cells: bytes, progress: ProgressState | None) -> ColumnSums:
        return self.table.column_sums(cells, progress)

    def __getstate__(self) -> dict[str, Any]:
        return dict(self.__dict__)

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
