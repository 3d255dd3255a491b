"""The bundle's exclusion lists must not cut out anything the app imports.

packaging/svtgui.spec drops unused Qt modules and development tools to keep the frozen bundle
small; if code under svtgui/ later imports one of them, the bundle would fail only at run time, on a
user's machine. This test reads the lists from the spec (as literals, without running it) and scans
every svtgui module's imports.
"""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SPEC = REPO / "packaging" / "svtgui.spec"


def _spec_list(name: str) -> list[str]:
    for node in ast.parse(SPEC.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == name for t in node.targets):
            return list(ast.literal_eval(node.value))
    raise AssertionError(f"{SPEC.name} defines no {name}")


def _imported_modules(path: Path) -> set[str]:
    """Every dotted module name ``path`` imports, including ``from X import Y`` as ``X.Y``."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def _excluded(module: str, excluded: list[str]) -> bool:
    return any(module == e or module.startswith(e + ".") for e in excluded)


def test_exclusion_lists_are_read():
    assert "QtWebEngineCore" in _spec_list("UNUSED_QT")
    assert "pytest" in _spec_list("UNUSED_PYTHON")


def test_detects_an_excluded_import(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text("from PySide6 import QtCore, QtQuick\nimport scipy.stats\n", encoding="utf-8")
    excluded = [f"PySide6.{m}" for m in _spec_list("UNUSED_QT")] + _spec_list("UNUSED_PYTHON")
    hits = sorted(m for m in _imported_modules(probe) if _excluded(m, excluded))
    assert hits == ["PySide6.QtQuick", "scipy.stats"]


def test_no_svtgui_module_imports_an_excluded_module():
    excluded = [f"PySide6.{m}" for m in _spec_list("UNUSED_QT")] + _spec_list("UNUSED_PYTHON")
    offenders = [
        f"{path.relative_to(REPO)} imports {module}"
        for path in sorted((REPO / "svtgui").rglob("*.py"))
        for module in sorted(_imported_modules(path))
        if _excluded(module, excluded)
    ]
    assert not offenders, "remove from the spec's exclusion lists or stop importing: " + "; ".join(offenders)
