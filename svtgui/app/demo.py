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
from contextlib import contextmanager
from pathlib import Path

from svtgui.ledger import ENV_VAR


@contextmanager
def throwaway_ledger() -> Iterator[Path]:
    """Point the default ledger at a temporary file for the duration; yields its path."""
    previous = os.environ.get(ENV_VAR)
    with tempfile.TemporaryDirectory(prefix="svtgui-demo-ledger-", ignore_cleanup_errors=True) as folder:
        path = Path(folder) / "ledger.sqlite"
        os.environ[ENV_VAR] = str(path)
        try:
            yield path
        finally:
            if previous is None:
                os.environ.pop(ENV_VAR, None)
            else:
                os.environ[ENV_VAR] = previous
