"""The window the GUI benchmarks measure: offscreen, a throw-away ledger and settings, census open."""

from __future__ import annotations

import os
import tempfile
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def census_window(total_epsilon: str = "10"):
    """A shown ``MainWindow`` on the bundled census sample, its total ε declared as a curator types it."""
    tmp = tempfile.mkdtemp(prefix="svtgui-bench-")
    os.environ["SVTGUI_LEDGER"] = os.path.join(tmp, "ledger.sqlite")  # a throw-away ledger and settings
    os.environ["SVTGUI_CONFIG_DIR"] = os.path.join(tmp, "config")
    os.environ["SVTGUI_SETTINGS_SCOPE"] = "bench"

    from PySide6.QtWidgets import QApplication

    from svtgui.ui.app import create_app
    from svtgui.ui.main_window import MainWindow

    create_app()
    win = MainWindow()
    win.show()
    win.open_sample("census")
    deadline = time.monotonic() + 60
    while win.ds is None and time.monotonic() < deadline:
        QApplication.processEvents()
        time.sleep(0.01)
    win.run_page.totals.epsilon.setText(total_epsilon)
    return win
