"""Which rows are public: the bundled samples and toy data built in memory, nothing else.

Two things are allowed only on public rows, because on private rows each would release something
the ledger does not account for: seeded (test) noise, whose known seed makes the noise removable,
and demos (``svtgui --screenshot --run``, :mod:`svtgui.app.demo`), which run against a throwaway
ledger. :mod:`svtgui.app.gate` refuses both on anything else.

Why by content and never by name: a copy of ``census.csv`` with edited rows, saved as
``census.csv`` anywhere, is private data. A dataset is a bundled sample only when its parsed rows are
the rows of a bundled sample file (the content fingerprint that keys budgets, so the sample re-saved
in another order, format or engine is still the sample; one edited cell is not).

Toy data is rows built in memory by code (``Dataset.from_frame``: the teaching mode's people,
tests, generated frames): never read from a file, so no curator's file reaches it through the window
or the CLI, which only load files. (Python code that builds a frame of private rows and seeds the
noise is out of reach of any check: it could call a mechanism with a seeded generator directly.
The promise is about the window and the CLI.)
"""

from __future__ import annotations

import functools
from typing import Any

from svtgui.assets import sample_files

#: The fingerprint key for comparing rows with the public samples (a ledger's key is secret; this one
#: need not be: only public rows can match, and no digest leaves the process).
PUBLIC_KEY = b"svtgui: the bundled samples are public"


def is_public(ds: Any) -> bool:
    """True for a bundled sample (by content) or toy data built in memory."""
    return is_toy(ds) or is_bundled_sample(ds)


def is_toy(ds: Any) -> bool:
    """Rows made in memory by code (``Dataset.from_frame``, the teaching mode, tests): no file, no
    table engine. The window and the CLI only ever load files, so no curator's rows are toy data."""
    return getattr(ds, "path", None) is None and getattr(ds, "engine", "memory") == "memory"


def is_bundled_sample(ds: Any) -> bool:
    """True when the rows of ``ds`` are the rows of a bundled sample file, whatever its file's name,
    folder, format or engine.

    Compared by the content fingerprint (:mod:`svtgui.data.fingerprint`, the one that keys budgets)
    under a fixed public key: the samples are public, and the digest stays in memory. The row count
    and the number of columns are compared first, so private data is read again only when it has a
    sample's shape.
    """
    try:
        shape = (int(ds.n_rows), len(ds.columns))
    except (AttributeError, TypeError, ValueError):
        return False
    candidates = [fp for sample_shape, fp in _samples() if sample_shape == shape]
    return bool(candidates) and ds.content_fingerprint(PUBLIC_KEY) in candidates


@functools.cache
def _samples() -> tuple[tuple[tuple[int, int], str], ...]:
    """Each bundled sample's shape and public-key fingerprint, as the loader reads it (once per process)."""
    from svtgui.data import load_dataset

    out = []
    for path in sample_files():
        sample = load_dataset(path)
        out.append(((sample.n_rows, len(sample.columns)), sample.content_fingerprint(PUBLIC_KEY)))
    return tuple(out)
