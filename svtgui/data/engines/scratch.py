"""A private folder for the engines' working copies of a curator's file.

DuckDB and Spark read UTF-8 only; a text file in another encoding (which the memory engine reads)
is given to them as a UTF-8 copy, so every engine gives it the same verdict. The copies hold the
private rows, so they live in one folder per process that only its user can open (``0700``), are
removed when the dataset is closed and when the process ends, and a folder left behind by a
process that died (a crash, a kill) is removed when the next ``svtgui-cli`` command or window
starts (:func:`remove_stale`: one glob of the temporary folder) and before a new folder is made.
A copy sent to the run's child process is read there but only removed by its owner.
"""

from __future__ import annotations

import atexit
import contextlib
import io
import os
import shutil
import tempfile
import uuid
import weakref
from pathlib import Path

from svtgui.core.progress import ProgressState
from svtgui.data import textio

PREFIX = "svtgui-engine-"
_folder: Path | None = None


def folder() -> Path:
    """This process's private folder (created on first use; stale folders of dead processes removed)."""
    global _folder
    if _folder is None or not _folder.is_dir():
        remove_stale()
        _folder = Path(tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-"))  # mkdtemp: mode 0700
        atexit.register(shutil.rmtree, _folder, True)
    return _folder


def new_path(suffix: str) -> Path:
    """A fresh file name in the private folder (the file is not created)."""
    return folder() / f"{uuid.uuid4().hex}{suffix}"


def remove(path: Path | None, owner: int | None = None) -> None:
    """Remove a working copy, in the process that made it only (``owner``: its pid; None: this one)."""
    if path is not None and owner in (None, os.getpid()):
        with contextlib.suppress(FileNotFoundError):
            path.unlink()


def removed_with(owner: object, path: Path | None) -> weakref.finalize | None:
    """Remove ``path`` when ``owner`` (the table reading it) is closed — call the handle — or
    collected, in this process only; ``detach()`` the handle to hand the copy on instead. A copy of
    the owner sent to another process carries no handle: only its maker removes the file."""
    return None if path is None else weakref.finalize(owner, remove, path, os.getpid())


def remove_stale(root: Path | None = None) -> list[Path]:
    """Remove this user's working folders whose process is gone; returns what was removed."""
    removed = []
    for candidate in Path(root or tempfile.gettempdir()).glob(f"{PREFIX}*"):
        pid = candidate.name[len(PREFIX):].split("-")[0]
        try:
            if not pid.isdigit() or candidate.stat().st_uid != os.getuid() or _alive(int(pid)):
                continue
        except OSError:
            continue
        shutil.rmtree(candidate, ignore_errors=True)
        removed.append(candidate)
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process with that id: not ours to judge
        return True
    return True


def utf8_copy(path: Path, encoding: str, progress: ProgressState | None = None) -> Path:
    """A private UTF-8 copy of a text file in ``encoding`` (already checked to decode), for the
    engines that read UTF-8 only; the caller removes it (:func:`remove`)."""
    copy = new_path(path.suffix)
    with textio.open_stream(path, progress, encoding=encoding, span=(0.5, 0.9)) as raw:
        text = io.TextIOWrapper(io.BufferedReader(raw, buffer_size=1 << 20), encoding=encoding, newline="")
        fd = os.open(copy, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with open(fd, "w", encoding="utf-8", newline="") as out:
            while block := text.read(1 << 20):
                out.write(block)
    return copy
