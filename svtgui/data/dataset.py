"""A loaded dataset: the frame, its declared schema and its content fingerprint."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import pandas as pd

from svtgui.data.errors import DatasetError
from svtgui.data.schema import ColumnKind, Schema, infer_schema


@dataclass
class Dataset:
    """The private data plus everything public about it.

    ``fingerprint`` is the SHA-256 of the file's bytes (of the frame's content for in-memory
    datasets): the budget ledger keys datasets by it, so renaming or reloading keeps the budget.
    ``frame`` is private: only evaluation code and tests read it. For transaction files the frame
    has one item-set column (``items`` by default) whose cells are tuples of item ids.
    """

    name: str
    path: Path | None
    fingerprint: str
    frame: pd.DataFrame = field(repr=False)  # private data: never in a repr or a log line
    schema: Schema
    format: str = "frame"
    _cache: dict[Any, Any] = field(default_factory=dict, repr=False, compare=False)
    engine: ClassVar[str] = "memory"  # who evaluates; datasets held by DuckDB/Spark: svtgui.data.engines

    def __post_init__(self) -> None:
        self._check_schema(self.schema)

    @property
    def n_rows(self) -> int:
        return len(self.frame)

    @property
    def is_transactions(self) -> bool:
        return any(c.kind == ColumnKind.ITEMSET for c in self.schema.columns)

    def with_schema(self, schema: Schema) -> Dataset:
        """The same data under another (curator-edited) schema; the fingerprint is unchanged."""
        self._check_schema(schema)
        return Dataset(self.name, self.path, self.fingerprint, self.frame, schema, self.format, self._cache)

    def _check_schema(self, schema: Schema) -> None:
        names = [str(c) for c in self.frame.columns]
        if schema.names != names:
            raise DatasetError(
                f"schema columns {schema.names} do not match the data's columns {names}", path=self.path
            )

    @classmethod
    def from_frame(cls, frame: pd.DataFrame, name: str = "data", schema: Schema | None = None) -> Dataset:
        """An in-memory dataset (tests, toy data of the teaching mode); fingerprint = content hash."""
        frame = frame.copy()
        frame.columns = [str(c) for c in frame.columns]
        return cls(name, None, frame_fingerprint(frame), frame, schema or infer_schema(frame))


def frame_fingerprint(frame: pd.DataFrame) -> str:
    """A content hash of a frame (column names and values), for datasets that have no file."""
    h = hashlib.sha256()
    h.update("\x1f".join(map(str, frame.columns)).encode())
    hashable = frame.apply(lambda s: s.map(repr) if s.dtype == object else s)
    h.update(pd.util.hash_pandas_object(hashable, index=False).to_numpy().tobytes())
    return h.hexdigest()
