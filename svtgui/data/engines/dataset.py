"""A dataset whose rows stay with an engine (DuckDB, Spark): the same interface, no pandas frame."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from svtgui.core.progress import ProgressState
from svtgui.data import textio
from svtgui.data.dataset import Dataset
from svtgui.data.engines.base import EngineRefused, TableEngine
from svtgui.data.engines.plan import Planner
from svtgui.data.fingerprint import ContentFingerprint
from svtgui.data.schema import Schema

FINGERPRINT_BATCH_ROWS = 500_000
FINGERPRINT_THREADS = 2


class TableDataset(Dataset):
    """A :class:`Dataset` evaluated by ``table``'s engine. ``frame`` does not exist: code that needs
    the rows in memory gets a clear refusal naming the engine (switch to the memory engine)."""

    def __init__(self, name: str, path: Path | None, schema: Schema, fmt: str, table: TableEngine,
                 reason: str, planner: Planner | None = None, dataset_id: str | None = None) -> None:
        self.name, self.path, self.schema, self.format = name, path, schema, fmt
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
                            self.planner, self.dataset_id)

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

    # -- the content fingerprint, in one pass over the engine's record batches ------------------
    def record_batches(self) -> Iterator[pd.DataFrame]:
        return self.table.batches(FINGERPRINT_BATCH_ROWS)

    def content_fingerprint(self, key: bytes, progress: ProgressState | None = None) -> str:
        """As :meth:`Dataset.content_fingerprint`, with progress and Cancel (``LoadCancelled``)."""
        cached = self._cache.get(("content", key))
        if cached is None:
            total = max(self.n_rows, 1)
            fp = ContentFingerprint(key, self.columns)

            def partial(batch: pd.DataFrame) -> ContentFingerprint:
                part = ContentFingerprint(key, self.columns)
                part.update(batch)
                return part

            # Batches are hashed on two threads (numpy and Arrow release the GIL) and the partial
            # states merged: the fingerprint is order-independent, so the result is the same.
            with ThreadPoolExecutor(FINGERPRINT_THREADS, thread_name_prefix="svtgui-fingerprint") as pool:
                pending: deque[Future[ContentFingerprint]] = deque()
                try:
                    for batch in self.record_batches():
                        pending.append(pool.submit(partial, batch))
                        while len(pending) > FINGERPRINT_THREADS or (pending and pending[0].done()):
                            fp.merge(pending.popleft().result())
                            textio.report(progress, min(fp.rows / total, 1.0))
                    while pending:
                        fp.merge(pending.popleft().result())
                        textio.report(progress, min(fp.rows / total, 1.0))
                finally:
                    for f in pending:
                        f.cancel()
            cached = self._cache[("content", key)] = fp.hexdigest()
        return cached

    def __getstate__(self) -> dict[str, Any]:
        return dict(self.__dict__)

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
