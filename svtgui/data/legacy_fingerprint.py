"""The row fingerprint that keyed budgets in ledgers of schema 3 to 5 (SVT Studio 0.2): kept only to
recognise, once, rows such a ledger knew, so they keep their budget under the per-column identity of
:mod:`svtgui.data.fingerprint` (see :func:`svtgui.app.dataset_identity.identify`). Never change it.

It included the column names, so a renamed header gave the same rows a fresh budget (issue 21 §2).

Construction (stable: a change here would give every known dataset a fresh budget, so a ledger
migration would be needed):

1. Canonical columns, in sorted order of their names without surrounding white space. Numeric and
   boolean columns become float64 with ``-0.0 → 0.0``; a missing cell is a separate flag, not a
   value. Text, categorical and other object columns become ``str`` without surrounding white
   space, and a text cell that is a missing marker of any loader (``?``, empty, pandas' ``NA``,
   ``null``, ``NaN``, … — :data:`MARKERS`) is missing: rows re-saved by a tool that keeps ``" ?"``
   as text (``pandas.read_csv`` of adult.csv written to Parquet) are the rows the CSV loader reads.
   Item sets (tuples of items) become their sorted items joined with ``\\x1f``. Integers above
   2**53 may merge with a neighbour. Each of these merges can only make two datasets share a budget
   (more conservative), never give one a fresh budget.
2. Each row is hashed with pandas' keyed SipHash (:func:`pandas.util.hash_pandas_object` with a
   ``hash_key`` derived from the ledger's key) to 64 bits, then re-hashed under a second derived key.
3. The two 64-bit row hashes are summed modulo 2**64 over all rows: a multiset hash, independent of
   row order, in which a repeated row counts twice. Batches may be fed in any order and partial
   states merged, so an engine computes it in one pass over record batches or partitions.
4. The digest is SHA-256 of the key, the sorted column names, the row count and the two sums.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd

from svtgui.data.fingerprint import MARKERS

_MASK = (1 << 64) - 1
_MISSING = "\x00missing"


def _sub_key(key: bytes, lane: str) -> str:
    """The 16-character ``hash_key`` pandas' SipHash expects, derived from the ledger key."""
    return hmac.new(key, lane.encode(), hashlib.sha256).hexdigest()[:16]


def canonical_names(columns: Iterable[object]) -> list[str]:
    """Column names as the fingerprint sees them: without surrounding white space (``" age"`` from a
    ``", "``-separated header read by another tool is ``age``), unless that would merge two columns."""
    raw = [str(c) for c in columns]
    stripped = [c.strip() for c in raw]
    return stripped if len(set(stripped)) == len(set(raw)) else raw


def canonical_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """The rows in canonical form (see the module docstring), columns in sorted name order."""
    out: dict[str, pd.Series] = {}
    by_name = {name: frame.iloc[:, i] for i, name in enumerate(canonical_names(frame.columns))}
    for name in sorted(by_name):
        col = by_name[name].reset_index(drop=True)
        missing = col.isna().to_numpy(dtype=bool, na_value=True)
        if pd.api.types.is_bool_dtype(col.dtype) or pd.api.types.is_numeric_dtype(col.dtype):
            values = pd.to_numeric(col, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
            values = np.where(missing, 0.0, values) + 0.0  # + 0.0 turns -0.0 into 0.0
            out[f"{name}\x1fv"] = pd.Series(values, copy=False)
        else:
            out[f"{name}\x1fv"], missing = _text_column(col, missing)
        out[f"{name}\x1fm"] = pd.Series(missing.astype(np.uint8), copy=False)
    return pd.DataFrame(out)


def _text_column(col: pd.Series, missing: np.ndarray) -> tuple[pd.Series, np.ndarray]:
    """Cells as stripped ``str`` (item sets as sorted items), missing cells (and markers) as one sentinel;
    returns the text and the missing flags including the markers.

    A categorical column is converted category by category, not cell by cell (10× faster on a
    million rows); pandas hashes a categorical exactly as the values it stands for, so the digest
    is the same as for the equivalent text column (a file format that keeps text as text).
    """
    if isinstance(col.dtype, pd.CategoricalDtype):
        text = pd.Index([_cell_text(v) for v in col.cat.categories], dtype=object)
        if text.is_unique and _MISSING not in text:
            codes = col.cat.codes.to_numpy()
            marker = np.append(text.isin(MARKERS), False)[codes]  # code -1 (missing) reads the False
            missing = missing | marker
            codes = np.where(missing, len(text), codes)
            categories = text.append(pd.Index([_MISSING]))
            return pd.Series(pd.Categorical.from_codes(codes, categories=categories)), missing
        col = col.astype(object)  # two categories with the same text (1 and "1"): cell by cell
    sets = tuple | list | set | frozenset
    present = col[~missing]
    if len(present) and isinstance(present.iloc[0], sets):
        text = col.map(_cell_text)
    else:
        text = col.astype(str).str.strip()
    missing = missing | text.isin(MARKERS).to_numpy(dtype=bool)
    return text.where(~missing, _MISSING).astype(object), missing


def _cell_text(v: object) -> str:
    """One cell as text without surrounding white space: an item set as its sorted items joined by the
    unit separator."""
    if isinstance(v, tuple | list | set | frozenset):
        return "\x1f".join(sorted(map(str, v)))
    return str(v).strip()


class ContentFingerprint:
    """An accumulator: ``update`` with batches of rows (any order), ``merge`` partials, ``hexdigest``."""

    def __init__(self, key: bytes, columns: Sequence[str]) -> None:
        if len(key) < 16:
            raise ValueError("the fingerprint key must be at least 16 bytes")
        self._key = key
        self.columns = tuple(sorted(canonical_names(columns)))
        self.rows = 0
        self.sums = [0, 0]
        self._k1, self._k2 = _sub_key(key, "rows-1"), _sub_key(key, "rows-2")

    def update(self, frame: pd.DataFrame) -> None:
        """Add a batch of rows (a pandas frame with this dataset's columns)."""
        names = tuple(sorted(canonical_names(frame.columns)))
        if names != self.columns:
            raise ValueError(f"batch columns {list(names)} differ from the dataset's {list(self.columns)}")
        if len(frame) == 0:
            return
        h1 = pd.util.hash_pandas_object(canonical_frame(frame), index=False, hash_key=self._k1).to_numpy()
        h2 = pd.util.hash_pandas_object(pd.Series(h1, copy=False), index=False, hash_key=self._k2).to_numpy()
        self.rows += len(frame)
        # uint64 sums wrap modulo 2**64, which is exactly the multiset hash we want.
        with np.errstate(over="ignore"):
            self.sums[0] = (self.sums[0] + int(h1.sum(dtype=np.uint64))) & _MASK
            self.sums[1] = (self.sums[1] + int(h2.sum(dtype=np.uint64))) & _MASK

    def merge(self, other: ContentFingerprint) -> None:
        """Fold in a partial state computed elsewhere (another partition, another process)."""
        if other.columns != self.columns or other._key != self._key:
            raise ValueError("cannot merge fingerprints of different columns or keys")
        self.rows += other.rows
        self.sums = [(a + b) & _MASK for a, b in zip(self.sums, other.sums, strict=True)]

    def hexdigest(self) -> str:
        h = hashlib.sha256()
        for part in (self._key, "\x1e".join(self.columns).encode(), str(self.rows).encode(),
                     *(s.to_bytes(8, "little") for s in self.sums)):
            h.update(len(part).to_bytes(8, "little"))
            h.update(part)
        return h.hexdigest()


def content_fingerprint(batches: pd.DataFrame | Iterable[pd.DataFrame], key: bytes,
                        columns: Sequence[str] | None = None) -> str:
    """The private fingerprint of a frame, or of an iterable of batches with the same columns."""
    if isinstance(batches, pd.DataFrame):
        batches = [batches]
        columns = columns if columns is not None else list(batches[0].columns)
    fp: ContentFingerprint | None = ContentFingerprint(key, columns) if columns is not None else None
    for batch in batches:
        if fp is None:
            fp = ContentFingerprint(key, list(batch.columns))
        fp.update(batch)
    if fp is None:
        raise ValueError("no batches and no columns: nothing to fingerprint")
    return fp.hexdigest()
