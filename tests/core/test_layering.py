"""The layer rules bite: ``lint-imports`` passes on the package, and fails when one forbidden import is
added to a copy of it (a probe per rule). Also: importing the core loads neither Qt nor pandas.

The contracts live in ``pyproject.toml`` ([tool.importlinter]); docs/architecture.md states them.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
LINT = Path(sys.executable).with_name("lint-imports")

# (module file, line appended to it, the contract that must then break)
PROBES = [
    ("svtgui/data/dataset.py", "import PySide6", "Qt only in the UI"),
    ("svtgui/ledger/__init__.py", "from PySide6 import QtCore", "Qt only in the UI"),
    ("svtgui/app/tasks.py", "import shiboken6", "Qt only in the UI"),
    ("svtgui/cli/commands/ledger.py", "import pyqtgraph", "Qt only in the UI"),
    ("svtgui/cli/commands/ledger.py", "from svtgui.ui import app", "Nothing below the UI imports the UI"),
    ("svtgui/app/runs/runner.py", "from svtgui.ui.common import theme", "Nothing below the UI"),
    ("svtgui/data/loaders.py", "from svtgui.app import tasks", "Layers"),
    ("svtgui/ledger/__init__.py", "from svtgui.data import dataset", "Layers"),
    ("svtgui/cli/commands/report.py", "from svtgui.app.reports import pdf", "Only the report exporter"),
    ("svtgui/core/noise.py", "import pandas", "The privacy core imports neither Qt nor pandas"),
    ("svtgui/cli/commands/report.py", "from svtgui.cli.commands import run", "No import cycles"),
    ("svtgui/core/validation.py", "from svtgui.core.mechanisms import engine", "No import cycles"),
]


@pytest.fixture(scope="module")
def package_copy(tmp_path_factory) -> Path:
    """The package and its contracts, copied: probes are added to the copy, never to the checkout."""
    root = tmp_path_factory.mktemp("layering")
    shutil.copytree(REPO / "svtgui", root / "svtgui", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "pyproject.toml", root / "pyproject.toml")
    return root


def lint(root: Path) -> subprocess.CompletedProcess:
    """``lint-imports`` on the copy at ``root`` (found first on the path; no cache written)."""
    return subprocess.run([str(LINT), "--no-cache"], cwd=root, capture_output=True, text=True,
                          env={"PATH": str(LINT.parent), "PYTHONPATH": str(root)}, timeout=300)


def test_the_contracts_pass_on_the_package(package_copy):
    out = lint(package_copy)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "BROKEN" not in out.stdout and "0 broken" in out.stdout


@pytest.mark.parametrize(("module", "probe", "contract"), PROBES, ids=[f"{m}:{p}" for m, p, _ in PROBES])
def test_a_forbidden_import_breaks_its_contract(package_copy, module, probe, contract):
    path = package_copy / module
    original = path.read_text(encoding="utf-8")
    path.write_text(f"{original}\n{probe}  # probe: forbidden\n", encoding="utf-8")
    try:
        out = lint(package_copy)
    finally:
        path.write_text(original, encoding="utf-8")
    assert out.returncode != 0, f"lint-imports passed with `{probe}` in {module}:\n{out.stdout}"
    broken = [line for line in out.stdout.splitlines() if " BROKEN" in line]  # "… BROKEN (1 ignored import)"
    assert any(line.startswith(contract) for line in broken), out.stdout


def test_importing_core_imports_neither_qt_nor_pandas():
    code = (
        "import sys\n"
        "import svtgui.core, svtgui.core.mechanisms, svtgui.core.noise, svtgui.core.budget\n"
        "import pkgutil, importlib\n"
        "for m in pkgutil.walk_packages(svtgui.core.__path__, 'svtgui.core.'):\n"
        "    importlib.import_module(m.name)\n"
        "banned = {'PySide6', 'pandas', 'pyqtgraph', 'superqt'}\n"
        "bad = sorted(k for k in sys.modules if k.split('.')[0] in banned)\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"svtgui.core pulled in: {out.stdout.strip()}"


def cycles(root: str = "svtgui") -> list[tuple[str, ...]]:
    """Every import that is part of a cycle, with the way back, function-level imports included
    (the contract above checks siblings; a package and its own module may still import each other)."""
    import grimp

    graph = grimp.build_graph(root, include_external_packages=False)
    found = []
    for importer in sorted(graph.modules):
        for imported in sorted(graph.find_modules_directly_imported_by(importer)):
            back = graph.find_shortest_chain(importer=imported, imported=importer)
            if back:
                found.append((importer, *back))
    return found


def test_no_module_is_part_of_an_import_cycle():
    assert cycles() == []


def test_a_function_level_import_back_is_found(tmp_path, monkeypatch):
    """The check bites on the kind of cycle issue 23 named (a package ↔ its window, inside functions)."""
    shutil.copytree(REPO / "svtgui", tmp_path / "svtgui", ignore=shutil.ignore_patterns("__pycache__"))
    for module, back in (("window.py", "from svtgui.ui import teaching"),
                         ("__init__.py", "from svtgui.ui.teaching import window")):
        path = tmp_path / "svtgui/ui/teaching" / module
        probe = f"\n\ndef _probe():\n    {back}  # noqa: F401\n"
        path.write_text(path.read_text(encoding="utf-8") + probe, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in [m for m in sys.modules if m == "svtgui" or m.startswith("svtgui.")]:
        monkeypatch.delitem(sys.modules, name)
    assert ("svtgui.ui.teaching", "svtgui.ui.teaching.window", "svtgui.ui.teaching") in cycles()
