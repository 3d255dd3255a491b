"""Datasets and queries: everything between a file on disk and the true answers a mechanism consumes.

>>> from svtgui.data import load_dataset, LoadOptions
>>> ds = load_dataset("adult.csv", LoadOptions(missing=("?",)))                     # doctest: +SKIP
>>> ds.name, ds.n_rows, ds.schema.column("age").kind                          # doctest: +SKIP

True answers are secrets: evaluation results go to a mechanism (or a test), never to a view.
"""

from svtgui.data.dataset import Dataset
from svtgui.data.errors import DatasetError, LoadCancelled
from svtgui.data.loaders import FORMATS, LoadOptions, load_dataset

__all__ = ["FORMATS", "Dataset", "DatasetError", "LoadCancelled", "LoadOptions", "load_dataset"]
