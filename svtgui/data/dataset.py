"""A loaded dataset: the frame, its declared schema, and how to fingerprint its rows privately."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import pandas as pd

from svtgui.data.errors import DatasetError
from svtgui.data.fingerprint import ContentFingerprint
from svtgui.data.schema import ColumnKind, Schema, infer_schema

BATCH_ROWS = 200_000  # rows per batch fed to the content fingerprint (bounded extra memory)


@dataclass
class Dataset:
    """The private data plus everything public about it.

    ``frame`` is private: only evaluation code and tests read it. For transaction files the frame
    has one item-set column (``items`` by default) whose cells are tuples of item ids.

    ``dataset_id`` is the random public id the ledger gave these rows (None until
    :func:`svtgui.app.dataset_identity.identify` has looked them up, or while they are new to the
    ledger). Nothing on this object that is computed from the rows is public:
    :meth:`content_fingerprint` is keyed by the ledger's secret key and goes only to the ledger;
    ``legacy_file_sha256`` (the file's plain SHA-256, what SVT Studio 0.1 keyed budgets by) is
    used only to find a budget in a migrated 0.1 ledger and is never shown or stored.
    """

    name: str
    path: Path | None
    frame: pd.DataFrame = field(repr=False)  # private data: never in a repr or a log line
    schema: Schema
    format: str = "frame"
    legacy_file_sha256: str | None = field(default=None, repr=False)
    dataset_id: str | None = None
    _cache: dict[Any, Any] = field(default_factory=dict, repr=False, compare=False)
    engine: ClassVar[str] = "memory"  # who evaluates; datasets held by DuckDB/Spark: svtgui.data.engines

    def __post_init__(self) -> None:
        self._check_schema(self.schema)

    @property
    def n_rows(self) -> int:
        return len(self.frame)

    @property
    def columns(self) -> list[str]:
        return [str(c) for c in self.frame.columns]

    @property
    def is_transactions(self) -> bool:
        return any(c.kind == ColumnKind.ITEMSET for c in self.schema.columns)

    def with_schema(self, schema: Schema) -> Dataset:
        """The same data under another (curator-edited) schema; the identity is unchanged."""
        self._check_schema(schema)
        return Dataset(self.name, self.path, self.frame, schema, self.format, self.legacy_file_sha256,
                       self.dataset_id, self._cache)

    def record_batches(self) -> Iterator[pd.DataFrame]:
        """The rows in batches (any order). Engines that do not hold a pandas frame override this,
        so the content fingerprint is computed in one pass over their record batches."""
        for start in range(0, len(self.frame), BATCH_ROWS):
            yield self.frame.iloc[start:start + BATCH_ROWS]

    def content_fingerprint(self, key: bytes) -> str:
        """The private, keyed fingerprint of the parsed rows (:mod:`svtgui.data.fingerprint`).

        Computed once per key and cached. Only the ledger may receive it: it is a function of the
        data, so it must never be shown, logged or written anywhere public.
        """
        cached = self._cache.get(("content", key))
        if cached is None:
            fp = ContentFingerprint(key, self.columns)
            for batch in self.record_batches():
                fp.update(batch)
            cached = self._cache[("content", key)] = fp.hexdigest()
        return cached

    def _check_schema(self, schema: Schema) -> None:
        names = self.columns
        if schema.names != names:
            raise DatasetError(
                f"schema columns {schema.names} do not match the data's columns {names}", path=self.path
            )

    @classmethod
    def from_frame(cls, frame: pd.DataFrame, name: str = "data", schema: Schema | None = None) -> Dataset:
        """An in-memory dataset (tests, toy data of the teaching mode)."""
        frame = frame.copy()
        frame.columns = [str(c) for c in frame.columns]
        return cls(name, None, frame, schema or infer_schema(frame))
