"""Typed access to the persistent settings (geometry, recent files, last parameters).

Everything the window remembers goes through :class:`Settings`, so keys and types live in one
place. ``$SVTGUI_CONFIG_DIR`` moves the settings into an INI file in that directory (tests set it
per test, so no test ever touches a user's real settings).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from PySide6.QtCore import QByteArray, QSettings

MAX_RECENT = 10


def open_qsettings() -> QSettings:
    """The QSettings store: an INI file under ``$SVTGUI_CONFIG_DIR`` if set, else the platform default."""
    directory = os.environ.get("SVTGUI_CONFIG_DIR")
    if directory:
        Path(directory).mkdir(parents=True, exist_ok=True)
        return QSettings(str(Path(directory) / "svtgui.ini"), QSettings.Format.IniFormat)
    return QSettings("SVT Studio", "SVT Studio")


class Settings:
    """The few things SVT Studio remembers between sessions, with their types."""

    def __init__(self, store: QSettings | None = None) -> None:
        self._s = store if store is not None else open_qsettings()

    # -- window -------------------------------------------------------------------------------
    @property
    def geometry(self) -> QByteArray | None:
        value = self._s.value("window/geometry")
        return value if isinstance(value, QByteArray) and not value.isEmpty() else None

    @geometry.setter
    def geometry(self, value: QByteArray) -> None:
        self._s.setValue("window/geometry", value)

    @property
    def window_state(self) -> QByteArray | None:
        value = self._s.value("window/state")
        return value if isinstance(value, QByteArray) and not value.isEmpty() else None

    @window_state.setter
    def window_state(self, value: QByteArray) -> None:
        self._s.setValue("window/state", value)

    # -- ledger -------------------------------------------------------------------------------
    @property
    def ledger_location(self) -> str:
        """Preferences → Ledger: a file path or a postgresql:// URL ("" = this computer's default file)."""
        return str(self._s.value("ledger/location", "") or "")

    @ledger_location.setter
    def ledger_location(self, value: str) -> None:
        self._s.setValue("ledger/location", value)

    # -- recent files -------------------------------------------------------------------------
    @property
    def recent_files(self) -> list[str]:
        raw = self._s.value("files/recent", [])
        if isinstance(raw, str):  # QSettings returns a lone string for a one-element list (INI)
            raw = [raw]
        return [str(p) for p in (raw or [])][:MAX_RECENT]

    def add_recent_file(self, path: str | Path) -> list[str]:
        """Put ``path`` first in the recent list (no duplicates, at most MAX_RECENT)."""
        p = _absolute(path)
        files = [p] + [f for f in self.recent_files if f != p]
        self._s.setValue("files/recent", files[:MAX_RECENT])
        return files[:MAX_RECENT]

    @property
    def last_folder(self) -> str:
        """Where File → Open starts: the folder of the file opened last that still exists ("" when
        none: the dialog's own default). Curators keep their data in one place, rarely the folder
        the program was started from."""
        for f in self.recent_files:
            folder = Path(f).parent
            if folder.is_dir():
                return str(folder)
        return ""

    def remove_recent_file(self, path: str | Path) -> None:
        p = _absolute(path)
        self._s.setValue("files/recent", [f for f in self.recent_files if f != p])

    # -- mechanism and parameters ---------------------------------------------------------------
    @property
    def last_mechanism(self) -> str | None:
        value = self._s.value("run/mechanism")
        return str(value) if value else None

    @last_mechanism.setter
    def last_mechanism(self, mechanism_id: str) -> None:
        self._s.setValue("run/mechanism", mechanism_id)

    def last_params(self, mechanism_id: str) -> dict[str, Any]:
        """Public parameters last used with ``mechanism_id`` (empty if none or unreadable)."""
        raw = self._s.value(f"params/{mechanism_id}")
        if not raw:
            return {}
        try:
            value = json.loads(str(raw))
        except json.JSONDecodeError:
            return {}
        return value if isinstance(value, dict) else {}

    def set_last_params(self, mechanism_id: str, params: dict[str, Any]) -> None:
        self._s.setValue(f"params/{mechanism_id}", json.dumps(params, sort_keys=True))

    @property
    def pace(self) -> float | None:
        """The Run page's pace in queries per second (None: as fast as possible)."""
        try:
            value = float(self._s.value("run/pace", 0) or 0)
        except (TypeError, ValueError):
            return None
        return value if value > 0 and value != float("inf") else None

    @pace.setter
    def pace(self, rate: float | None) -> None:
        self._s.setValue("run/pace", float(rate or 0))

    def sync(self) -> None:
        self._s.sync()

    @property
    def location(self) -> str:
        return self._s.fileName()


def _absolute(path: str | Path) -> str:
    """The path with links resolved where possible; a link loop or an unreadable folder (which make
    ``resolve`` raise) keeps the plain absolute path, so no menu action can fail on it."""
    try:
        return str(Path(path).resolve())
    except (OSError, RuntimeError):
        return os.path.abspath(path)
