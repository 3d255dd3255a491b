"""Which rows are public: the bundled samples and toy data built in memory, nothing else.

Two things are allowed only on public rows, because on private rows each would release something
the ledger does not account for: seeded (test) noise, whose known seed makes the noise removable,
and demos (``svtgui --screenshot --run``, :mod:`svtgui.app.demo`), which run against a throwaway
ledger. :mod:`svtgui.app.gate` refuses both on anything else.

Why by content and never by name: a copy of ``census.csv`` with edited rows, saved as
``census.csv`` anywhere, is private data. A dataset is a bundled sample only when its parsed rows are
the rows of a bundled sample file (each row, cell by cell, as the engine-independent cell hashes of
the fingerprint see it: the sample re-saved in another row order, format or engine is still the
sample; one edited cell, or one column's values re-paired across rows, is not).

Toy data is rows built in memory by code (``Dataset.from_frame``: the teaching mode's people,
tests, generated frames): never read from a file, so no curator's file reaches it through the window
or the CLI, which only load files. (Python code that builds a frame of private rows and seeds the
noise is out of reach of any check: it could call a mechanism with a seeded generator directly.
The promise is about the window and the CLI.)
"""

from __future__ import annotations

import functools
import hashlib
from typing import TYPE_CHECKING

import numpy as np

from svtgui.assets import sample_files
from svtgui.data.fingerprint import CellKeys, cell_key, pandas_hashes

if TYPE_CHECKING:
    from svtgui.data.dataset import Dataset

#: The fingerprint key for comparing rows with the public samples (a ledger's key is secret; this one
#: need not be: only public rows can match, and no digest leaves the process).
PUBLIC_KEY = b"svtgui: the bundled samples are public"


def is_public(ds: Dataset) -> bool:
    """True for a bundled sample (by content) or toy data built in memory."""
    return is_toy(ds) or is_bundled_sample(ds)


def is_toy(ds: Dataset) -> bool:
    """Rows made in memory by code (``Dataset.from_frame``, the teaching mode, tests): no file, no
    table engine. The window and the CLI only ever load files, so no curator's rows are toy data."""
    return getattr(ds, "path", None) is None and getattr(ds, "engine", "memory") == "memory"


def is_bundled_sample(ds: Dataset) -> bool:
    """True when the rows of ``ds`` are the rows of a bundled sample file, whatever its file's name,
    folder, format or engine.

    Two public comparisons, both under a fixed public key (the samples are public; no digest leaves
    the process): the content fingerprint that keys budgets (each column's values), and then every
    row, cell by cell in column order (:func:`_rows`) — the fingerprint alone is blind to how a
    column's values pair across rows, and a sample's columns re-paired would be private rows. The
    row count and the number of columns are compared first, so private data is read again only when
    it has a sample's shape.
    """
    try:
        shape = (int(ds.n_rows), len(ds.columns))
    except (AttributeError, TypeError, ValueError):
        return False
    candidates = [(content, rows) for sample_shape, content, rows in _samples() if sample_shape == shape]
    if not candidates:
        return False
    content = ds.content_fingerprint(PUBLIC_KEY)
    same = [rows for c, rows in candidates if c == content]
    return bool(same) and _rows(ds) in same


def _rows(ds: Dataset) -> tuple[bytes, ...]:
    """Every row as a digest of its cells' canonical hashes in column order (the engine-independent
    cell hashes of :mod:`svtgui.data.fingerprint`), sorted: the rows as a multiset."""
    keys = CellKeys.of(cell_key(PUBLIC_KEY))
    digests: list[bytes] = []
    for frame in ds.record_batches():
        cells = np.column_stack([pandas_hashes(frame.iloc[:, j], keys) for j in range(frame.shape[1])])
        digests.extend(hashlib.blake2b(row.tobytes(), digest_size=16).digest() for row in cells)
    return tuple(sorted(digests))


@functools.cache
def _samples() -> tuple[tuple[tuple[int, int], str, tuple[bytes, ...]], ...]:
    """Each bundled sample's shape, public-key fingerprint and rows, as the loader reads it (once per
    process)."""
    from svtgui.data import load_dataset

    out = []
    for path in sample_files():
        sample = load_dataset(path)
        out.append(((sample.n_rows, len(sample.columns)), sample.content_fingerprint(PUBLIC_KEY),
                    _rows(sample)))
    return tuple(out)
