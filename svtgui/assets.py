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


def guide() -> Path:
    """The bundled user guide (``docs/user-guide.md``; its screenshots sit beside it).

    Searched like the resources: a PyInstaller bundle's ``docs``, the wheel's ``svtgui/_docs``,
    a source checkout's ``docs/``.
    """
    frozen = getattr(sys, "_MEIPASS", None)
    roots = ([Path(frozen) / "docs"] if frozen else []) + [_PACKAGE / "_docs", _PACKAGE.parent / "docs"]
    for root in roots:
        if (root / "user-guide.md").exists():
            return root / "user-guide.md"
    raise FileNotFoundError(f"the user guide was not found (searched {', '.join(map(str, roots))})")


SAMPLE_SUFFIXES = (".csv", ".dat")  # the bundled sample data files (beside them: schemas, query lists)


def sample_files() -> list[Path]:
    """Every bundled sample data file (``samples/*.csv``, ``*.dat``) of the first root holding them."""
    for root in _roots():
        folder = root / "samples"
        if folder.is_dir():
            return sorted(p for p in folder.iterdir() if p.suffix in SAMPLE_SUFFIXES)
    return []


def asset(name: str) -> Path:
    """Path of the bundled file ``name`` (e.g. ``"samples/census.csv"``); FileNotFoundError if absent."""
    for root in _roots():
        candidate = root / name
        if candidate.exists():
            return candidate
    searched = ", ".join(str(r) for r in _roots())
    raise FileNotFoundError(f"bundled resource {name!r} not found (searched {searched})")
