"""Demos never spend: screenshots, demos and teaching paths run against a throwaway ledger.

``svtgui --screenshot OUT.png --run`` used to charge ε to the curator's real ledger on every call.
Everything that shows the app working rather than releasing for a curator runs inside
:func:`throwaway_ledger`: the default ledger (``$SVTGUI_LEDGER``, which child processes inherit)
points at a fresh file in a temporary directory, removed afterwards.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

from svtgui.ledger import ENV_VAR
from svtgui.ledger.anchor import STATE_ENV

SETTINGS_ENV = "SVTGUI_CONFIG_DIR"  # where the window keeps its settings (svtgui.ui.common.settings)


@contextmanager
def _temporary(var: str, prefix: str, name: str | None) -> Iterator[Path]:
    """Point ``$var`` at a fresh temporary folder (or ``name`` inside it) for the duration."""
    previous = os.environ.get(var)
    with tempfile.TemporaryDirectory(prefix=prefix, ignore_cleanup_errors=True) as folder:
        path = Path(folder) / name if name else Path(folder)
        os.environ[var] = str(path)
        try:
            yield path
        finally:
            if previous is None:
                os.environ.pop(var, None)
            else:
                os.environ[var] = previous


@contextmanager
def throwaway_ledger() -> Iterator[Path]:
    """Point the default ledger at a temporary file for the duration, its anchor too (a demo leaves
    no anchor behind in the curator's state directory); yields the ledger's path."""
    with _temporary(STATE_ENV, "svtgui-demo-state-", None), \
            _temporary(ENV_VAR, "svtgui-demo-ledger-", "ledger.sqlite") as path:
        yield path


def throwaway_settings() -> AbstractContextManager[Path]:
    """Fresh settings for a demo: it neither reads the curator's remembered choices (a last mechanism
    such as PMW needs a universe a sample run does not set) nor writes over them."""
    return _temporary(SETTINGS_ENV, "svtgui-demo-settings-", None)
