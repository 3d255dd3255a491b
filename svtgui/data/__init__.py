"""Datasets and queries: everything between a file on disk and the true answers a mechanism consumes.

>>> from svtgui.data import load_dataset, LoadOptions
>>> ds = load_dataset("adult.csv", LoadOptions(missing=("?",)))                     # doctest: +SKIP
>>> ds.name, ds.n_rows, ds.schema.column("age").kind                          # doctest: +SKIP

True answers are secrets: evaluation results go to a mechanism (or a test), never to a view.

The names below are imported when first used (PEP 562), not with the package: the memory loaders
import pandas, which a command that never loads a file into memory (``svtgui-cli run --help``, a
DuckDB run on Parquet) should not pay for (issue 25 §4).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from svtgui.data.errors import DatasetError, LoadCancelled

if TYPE_CHECKING:
    from svtgui.data.dataset import Dataset
    from svtgui.data.loaders import FORMATS, LoadOptions, load_dataset

_LAZY = {"Dataset": "svtgui.data.dataset", "FORMATS": "svtgui.data.loaders",
         "LoadOptions": "svtgui.data.loaders", "load_dataset": "svtgui.data.loaders"}

__all__ = ["FORMATS", "Dataset", "DatasetError", "LoadCancelled", "LoadOptions", "load_dataset"]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
