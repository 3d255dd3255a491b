"""SVT Studio: differential privacy with the Sparse Vector Technique, for data curators.

Layers (enforced by import-linter, see pyproject.toml):
``core`` (privacy engine, numpy only) < ``data`` (datasets, queries) < ``session`` (ledger,
reports) < ``ui`` (Qt). ``cli`` is the headless front end over core/data/session.
"""

from svtgui._version import __version__

__all__ = ["__version__"]
