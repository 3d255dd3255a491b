"""Outputs never overwrite inputs: the one guard every command and every save dialog goes through.

A report written over the query list, a query list written over the dataset, a release file
written over the ledger: each destroyed what a curator gave (issue 22 §1). Every writer therefore
collects the files its command *reads* into one :class:`Inputs` and passes each target through it
before anything is charged or written.

API (for commands, dialogs and the plan)::

    inputs = Inputs()
    inputs.add_dataset("adult.csv", schema=None)  # the data and its declared schema: the file given,
                                                  # else the sidecar adult.schema.json (always reserved)
    inputs.add("ages.json", "the query list")     # any other file read: session, config, item domain…
    inputs.add_ledger("ledger.sqlite")            # the ledger, its -wal, -shm and -journal files, and
                                                  # every file in the anchors' folder (its tamper check)
    inputs.guard("out.html")                      # OutputConflict (a ValueError) naming what it is
    check_output("out.html", inputs, need=4096)   # guard, then folder, writability and free space

A target is the same file as an input when both exist and share ``(st_dev, st_ino)`` (a hard
link, a symbolic link, ``./x`` and ``x``) or when their fully resolved paths are equal (an input
that does not exist yet, such as the ledger's ``-wal``, or a dangling link to it), or when both are
in the same folder under names that differ only in case and that folder ignores case (macOS and
Windows by default: ``Adult.schema.json`` there *is* the sidecar of ``adult.csv``, absent or not).
A folder input (the ledger's anchors) protects every file directly inside it.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from svtgui.data.loaders import sidecar_path
from svtgui.ledger import is_server
from svtgui.ledger.anchor import anchor_folder

#: SQLite's side files of a database (a file written over one of them damages the ledger too).
LEDGER_SIDE_FILES = ("-wal", "-shm", "-journal")


class OutputConflict(ValueError):
    """An output that would replace one of the command's inputs (or the ledger)."""


@dataclass(frozen=True)
class _Input:
    what: str
    resolved: Path
    identity: tuple[int, int] | None  # (st_dev, st_ino) when the file exists


def _identify(path: Path) -> tuple[Path, tuple[int, int] | None]:
    resolved = Path(os.path.realpath(path))
    try:
        st = os.stat(path)
    except (OSError, ValueError):  # missing, a dangling link, a NUL in the name
        return resolved, None
    return resolved, (st.st_dev, st.st_ino)


def _same_folder(a: Path, b: Path) -> bool:
    """Whether two folders are one (equal paths, or one folder reached by two: a bind mount, another
    case on a file system that ignores it)."""
    if a == b:
        return True
    identity = _identify(a)[1]
    return identity is not None and identity == _identify(b)[1]


def _ignores_case(folder: Path) -> bool:
    """Whether ``folder`` finds a file under its name in another case: the first entry whose name
    has a case is looked up swapped (no file is created; an empty folder says False)."""
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                other = entry.name.swapcase()
                if other != entry.name:
                    try:
                        return os.path.samefile(entry.path, folder / other)
                    except OSError:  # no such file: this folder tells the two names apart
                        return False
    except OSError:
        return False
    return False


def _same_name(target: Path, f: Path) -> bool:
    """Whether the (resolved) paths name one entry of one folder, compared as that folder compares
    names: exactly, or without case where it ignores case."""
    if target.name.casefold() != f.name.casefold() or not _same_folder(target.parent, f.parent):
        return False
    return target.name == f.name or _ignores_case(target.parent)


@dataclass
class Inputs:
    """The files one command (or one window's set-up) reads: no output may be any of them."""

    _files: list[_Input] = field(default_factory=list)
    _folders: list[_Input] = field(default_factory=list)

    def add(self, path: str | os.PathLike[str] | None, what: str) -> Inputs:
        """Record ``path`` (None and ``-`` are ignored: nothing to protect) as ``what`` it is."""
        if path is None or str(path) in ("", "-"):
            return self
        resolved, identity = _identify(Path(path).expanduser())
        self._files.append(_Input(what, resolved, identity))
        return self

    def add_dataset(self, path: str | os.PathLike[str] | None,
                    schema: str | os.PathLike[str] | None = None) -> Inputs:
        """The data file and its declared schema; the sidecar name is reserved even when absent (a
        report written there would become the next run's schema)."""
        if path is None or str(path) in ("", "-"):
            return self
        self.add(path, "the dataset")
        if Path(path).name:  # '.' or '/' has no sidecar (its reader then says it is a folder, not a file)
            self.add(sidecar_path(Path(path).expanduser()), "the dataset's schema sidecar")
        return self.add(schema, "the schema file")

    def add_folder(self, path: str | os.PathLike[str], what: str) -> Inputs:
        """A folder every file directly inside which is ``what`` (a file written there replaces one)."""
        resolved, identity = _identify(Path(path).expanduser())
        self._folders.append(_Input(what, resolved, identity))
        return self

    def add_ledger(self, path: str | os.PathLike[str] | None) -> Inputs:
        """The privacy ledger, SQLite's side files beside it (a server ledger has no file here) and the
        ledgers' anchors: a report written over one, or over the seal key beside them, switches off the
        check that finds a ledger rolled back or replaced (:mod:`svtgui.ledger.anchor`)."""
        if path is None:
            return self
        self.add_folder(anchor_folder(), "a file of the privacy ledger's anchors (its tamper check)")
        if is_server(path):
            return self
        ledger = Path(path).expanduser()
        self.add(ledger, "the privacy ledger")
        for side in LEDGER_SIDE_FILES:
            self.add(ledger.with_name(ledger.name + side), "a file of the privacy ledger")
        return self

    def copy(self) -> Inputs:
        """Another collection holding the same files (to add a command's own without changing this one)."""
        return Inputs(list(self._files), list(self._folders))

    def conflict(self, target: str | os.PathLike[str]) -> str | None:
        """What ``target`` is among the inputs (``"the query list"``), or None."""
        resolved, identity = _identify(Path(target).expanduser())
        for f in self._files:
            if (identity is not None and identity == f.identity) or _same_name(resolved, f.resolved):
                return f.what
        for folder in self._folders:
            if _same_folder(resolved.parent, folder.resolved):
                return folder.what
        return None

    def guard(self, target: str | os.PathLike[str]) -> Path:
        """``target`` as a path, or :class:`OutputConflict` when writing it would destroy an input."""
        p = Path(target).expanduser()
        what = self.conflict(p)
        if what is not None:
            raise OutputConflict(f"{p} is {what}, which is read here: writing there would destroy it; "
                                 "give another file name")
        return p


def check_output(path: str | os.PathLike[str], inputs: Inputs | None = None, need: int = 0) -> Path:
    """An output file, checked before anything is charged: not one of ``inputs`` (:meth:`Inputs.guard`),
    not a directory, in an existing folder where a file can really be created (a temporary one,
    removed at once: a read-only folder or a full disk shows now), with at least ``need`` bytes free
    (a disk with a few kilobytes left took the charge, then refused the report)."""
    p = (inputs or Inputs()).guard(path)
    if p.is_dir():
        raise ValueError(f"{p} is a directory; give a file name")
    problem = folder_problem(p)
    if problem:
        raise ValueError(f"{p}: {problem}")
    folder = p.parent if str(p.parent) else Path(".")
    if p.exists() and not os.access(p, os.W_OK):
        raise ValueError(f"{p}: the file exists and is not writable")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".check", dir=folder)
        try:
            os.write(fd, b"\0" * 4096)  # a full disk refuses even this much
        finally:
            os.close(fd)
            os.unlink(tmp)
    except OSError as exc:
        raise ValueError(f"{p}: cannot write in {folder}: {exc.strerror or exc}") from None
    free = _free_bytes(folder)
    if free is not None and free < need:
        raise ValueError(f"{p}: only {free:,} bytes are free in {folder}; this output can take up to "
                         f"{need:,} (free some space or write it elsewhere)")
    return p


def folder_problem(path: str | os.PathLike[str]) -> str | None:
    """Why no file can be created at ``path``'s folder, naming the real cause: a missing folder, or
    a regular file where the path needs a folder (``notes.txt/r.html`` is not "a missing folder")."""
    folder = Path(path).expanduser().parent
    if folder.is_dir():
        return None
    for part in (folder, *folder.parents):
        if part.exists() or part.is_symlink():
            if not part.is_dir():
                return f"{part} is a file, not a directory"
            break
    return f"directory {folder} does not exist"


def _free_bytes(folder: Path) -> int | None:
    """Bytes an unprivileged writer may still use in ``folder`` (None where the system cannot say)."""
    try:
        st = os.statvfs(folder)
    except (OSError, AttributeError):  # no statvfs on Windows
        return None
    return st.f_bavail * st.f_frsize
