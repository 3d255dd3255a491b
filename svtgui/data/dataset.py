"""A loaded dataset: the frame, its declared schema, and how to fingerprint its rows privately."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from svtgui.core.progress import ProgressState
from svtgui.data import textio
from svtgui.data.errors import DatasetError
from svtgui.data.file_state import FileState
from svtgui.data.fingerprint import ColumnSums, RowsFingerprint, cell_key
from svtgui.data.schema import ColumnKind, Schema, infer_schema

if TYPE_CHECKING:  # a frame is made by the memory loaders; this class only holds one
    import pandas as pd

BATCH_ROWS = 200_000  # rows per batch fed to the fingerprint (bounded extra memory)


@dataclass
class Dataset:
    """The private data plus everything public about it.

    ``frame`` is private: only evaluation code and tests read it. For transaction files the frame
    has one item-set column (``items`` by default) whose cells are tuples of item ids.

    ``dataset_id`` is the random public id the ledger gave these rows (None until
    :func:`svtgui.app.dataset_identity.identify` has looked them up, or while they are new to the
    ledger). Nothing on this object that is computed from the rows is public:
    :meth:`fingerprint` is keyed by the ledger's secret key and goes only to the ledger;
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
    file_state: FileState | None = field(default=None, repr=False, compare=False)  # when the rows were read
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
                       self.dataset_id, self._cache, self.file_state)

    def record_batches(self) -> Iterator[pd.DataFrame]:
        """The rows as pandas frames in batches (any order): the legacy fingerprint's input."""
        for start in range(0, len(self.frame), BATCH_ROWS):
            yield self.frame.iloc[start:start + BATCH_ROWS]

    def fingerprint(self, key: bytes, progress: ProgressState | None = None) -> RowsFingerprint:
        """The private, keyed per-column fingerprint of the parsed rows (:mod:`svtgui.data.fingerprint`).

        Computed once per key and cached (:func:`svtgui.app.dataset_identity.fingerprint_of` also
        caches it in the ledger per file). Only the ledger may receive it: it is a function of the
        data, so it must never be shown, logged or written anywhere public.
        """
        cached = self._cache.get(("fingerprint", key))
        if cached is None:
            cached = self._cache[("fingerprint", key)] = RowsFingerprint.from_sums(
                key, self._column_sums(cell_key(key), progress))
        return cached

    def content_fingerprint(self, key: bytes, progress: ProgressState | None = None) -> str:
        """The identity the ledger looks these rows up by: :attr:`RowsFingerprint.content`."""
        return self.fingerprint(key, progress).content

    def read_state(self) -> FileState | None:
        """The state of the file the rows were read from (None if unknown, or not from a file): the
        fingerprint cache's key. The rows are in memory, so it is the state at loading."""
        return self.file_state

    def known_fingerprint(self, key: bytes) -> RowsFingerprint | None:
        """The fingerprint under ``key`` if it was computed or adopted already (no pass over the rows)."""
        return self._cache.get(("fingerprint", key))

    def known_legacy_fingerprint(self, key: bytes) -> str | None:
        return self._cache.get(("legacy", key))

    def adopt_fingerprint(self, key: bytes, fingerprint: RowsFingerprint, legacy: str | None = None) -> None:
        """Use fingerprints computed before for these very rows (the ledger's per-file cache)."""
        self._cache[("fingerprint", key)] = fingerprint
        if legacy is not None:
            self._cache[("legacy", key)] = legacy

    def _column_sums(self, cells: bytes, progress: ProgressState | None) -> ColumnSums:
        sums = ColumnSums(len(self.columns), cells)
        for batch in self.record_batches():
            sums.update_frame(batch)
            textio.report(progress, sums.rows / max(self.n_rows, 1))
        return sums

    def legacy_fingerprint(self, key: bytes) -> str:
        """The row fingerprint a ledger of schema 5 or older keyed budgets by (a second pass over the
        rows, made only while such a ledger still holds rows it has not matched)."""
        from svtgui.data.legacy_fingerprint import ContentFingerprint

        cached = self._cache.get(("legacy", key))
        if cached is None:
            fp = ContentFingerprint(key, self.columns)
            for batch in self.record_batches():
                fp.update(batch)
            cached = self._cache[("legacy", key)] = fp.hexdigest()
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
