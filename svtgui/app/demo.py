"""Demos never spend, so they never release private data: they run public rows on a throwaway ledger.

``svtgui --screenshot OUT.png --run`` used to charge ε to the curator's real ledger on every call.
Everything that shows the app working rather than releasing for a curator runs inside
:func:`throwaway_ledger`: the default ledger (``$SVTGUI_LEDGER``, which child processes inherit)
points at a fresh file in a temporary directory, removed afterwards. A throwaway ledger is an
unlimited budget, so it also sets :data:`svtgui.app.gate.DEMO_ENV` (inherited by the run process):
the gate then runs only the bundled samples and toy data (:mod:`svtgui.app.public_data`) and refuses
any other rows, in every release path, whatever the demo tries.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

from svtgui.app.gate import DEMO_ENV
from svtgui.ledger import ENV_VAR
from svtgui.ledger.anchor import STATE_ENV

SETTINGS_ENV = "SVTGUI_CONFIG_DIR"  # where the window keeps its settings (svtgui.ui.common.settings)


@contextmanager
def _environ(var: str, value: str) -> Iterator[None]:
    """``$var`` set to ``value`` for the duration (inherited by child processes), then restored."""
    previous = os.environ.get(var)
    os.environ[var] = value
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop(var, None)
        else:
            os.environ[var] = previous


@contextmanager
def _temporary(var: str, prefix: str, name: str | None) -> Iterator[Path]:
    """Point ``$var`` at a fresh temporary folder (or ``name`` inside it) for the duration."""
    with tempfile.TemporaryDirectory(prefix=prefix, ignore_cleanup_errors=True) as folder:
        path = Path(folder) / name if name else Path(folder)
        with _environ(var, str(path)):
            yield path


@contextmanager
def throwaway_ledger() -> Iterator[Path]:
    """Point the default ledger at a temporary file for the duration, its anchor too (a demo leaves
    no anchor behind in the curator's state directory), in demo mode (only public rows pass the
    gate); yields the ledger's path."""
    with _environ(DEMO_ENV, "1"), _temporary(STATE_ENV, "svtgui-demo-state-", None), \
            _temporary(ENV_VAR, "svtgui-demo-ledger-", "ledger.sqlite") as path:
        yield path


def throwaway_settings() -> AbstractContextManager[Path]:
    """Fresh settings for a demo: it neither reads the curator's remembered choices (a last mechanism
    such as PMW needs a universe a sample run does not set) nor writes over them."""
    return _temporary(SETTINGS_ENV, "svtgui-demo-settings-", None)
