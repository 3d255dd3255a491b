"""One function to find bundled files (samples, icons, templates) wherever the app runs.

The files live in the repository's top-level ``resources/``. A source checkout (editable install
included) reads them there; a wheel carries them as the package ``svtgui/_resources`` (mapped in
``pyproject.toml``); a PyInstaller bundle unpacks them under ``sys._MEIPASS/resources``.
"""

from __future__ import annotations

import sys
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def _roots() -> list[Path]:
    roots = []
    frozen = getattr(sys, "_MEIPASS", None)
    if frozen:
        roots.append(Path(frozen) / "resources")
    roots.append(_PACKAGE / "_resources")
    roots.append(_PACKAGE.parent / "resources")
    return roots


def asset(name: str) -> Path:
    """Path of the bundled file ``name`` (e.g. ``"samples/census.csv"``); FileNotFoundError if absent."""
    for root in _roots():
        candidate = root / name
        if candidate.exists():
            return candidate
    searched = ", ".join(str(r) for r in _roots())
    raise FileNotFoundError(f"bundled resource {name!r} not found (searched {searched})")
