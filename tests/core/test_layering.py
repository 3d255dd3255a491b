"""The privacy core must stay free of Qt and pandas (architecture rule, also an import-linter contract)."""

import subprocess
import sys


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
