"""The ledger's anchor: what the ledger looked like last time, kept outside the ledger file.

Why: a hash chain inside the file cannot tell an older copy of the file from the current one (the
older copy's chain is sound, only shorter), nor a deleted file from one never created. So every
ledger has one small JSON file in the per-user *state* directory (``$SVTGUI_STATE_DIR``, else
platformdirs' ``user_state_dir``; folder 0700, files 0600), named by the ledger's random id, holding
the number of links of its chain, the hash of the last one and the paths it was opened at. The
ledger checks it on open (:mod:`svtgui.ledger.integrity`) and advances it after every commit that
extends the chain. The anchor only ever moves forward (under a lock, written atomically), so two
processes charging at once cannot move it back, and a crash between the ledger's commit and the
anchor's write leaves the ledger *ahead* of its anchor: that is honest and is never flagged.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

STATE_ENV = "SVTGUI_STATE_DIR"
_ID = re.compile(r"lg-[0-9a-f]{16}")
DIR_MODE, FILE_MODE = 0o700, 0o600
SEAL_KEY_FILE, SEAL_KEY_BYTES = "cache-seal.key", 32


@dataclass(frozen=True)
class Anchor:
    """What one ledger looked like when last written: chain length and head, where it was, and a
    digest of its fingerprint key ("" in anchors written before the key was anchored)."""

    ledger_id: str
    count: int
    head: str
    paths: tuple[str, ...]
    key: str = ""


def state_dir() -> Path:
    """``$SVTGUI_STATE_DIR`` if set, else the per-user state directory (``~/.local/state/svtgui``)."""
    env = os.environ.get(STATE_ENV)
    if env:
        return Path(env).expanduser()
    import platformdirs  # imported lazily, like the default ledger path

    return Path(platformdirs.user_state_dir("svtgui", "SVT Studio"))


def anchor_folder() -> Path:
    return state_dir() / "ledger-anchors"


def read(ledger_id: str) -> Anchor | None:
    """The anchor of one ledger, or None if it was never anchored (or its file is unreadable)."""
    return _load(anchor_folder() / f"{ledger_id}.json")


def at_path(path: Path) -> list[Anchor]:
    """Every anchored ledger that was opened at ``path``."""
    folder, where = anchor_folder(), str(path)
    found = [_load(f) for f in sorted(folder.glob("lg-*.json"))] if folder.is_dir() else []
    return [a for a in found if a is not None and where in a.paths]


def advance(ledger_id: str, path: Path, count: int, head: str, *, key: str = "",
            force: bool = False) -> None:
    """Record that ledger ``ledger_id`` at ``path`` has ``count`` links ending in ``head`` (and, when
    given, that its fingerprint key has digest ``key``; else the anchored digest is kept).

    Never moves an anchor back (another process may have recorded a longer chain meanwhile) unless
    ``force``: a curator's explicit acceptance of what an integrity check found.
    """
    if not _ID.fullmatch(ledger_id):
        raise ValueError(f"not a ledger id: {ledger_id!r}")
    with _locked() as folder:
        target = folder / f"{ledger_id}.json"
        old = _load(target)
        where = str(path)
        key = key or (old.key if old else "")
        if old is not None and not force and old.count >= count:
            if where in old.paths and old.key == key:
                return
            count, head = old.count, old.head  # only the path (or the key's first digest) is new
        paths = tuple(dict.fromkeys([*(old.paths if old else ()), where]))
        _write(target, Anchor(ledger_id, count, head, paths, key))


def forget_path(path: Path, *, keep: str) -> None:
    """Drop ``path`` from every anchor but ``keep``'s (the curator accepted that another ledger, or
    none, is there now)."""
    with _locked() as folder:
        for a in at_path(path):
            if a.ledger_id != keep:
                kept = tuple(p for p in a.paths if p != str(path))
                _write(folder / f"{a.ledger_id}.json", Anchor(a.ledger_id, a.count, a.head, kept, a.key))


def seal_key() -> bytes:
    """A random secret kept beside the anchors (0600), made on first use.

    Why: the ledger caches each data file's fingerprint (what decides whose budget a run is charged
    to) in a table that changes without a charge, so no trigger or chain can guard it. An entry edited
    with ``sqlite3`` would give a spent dataset's rows a fresh budget, or another dataset's. Entries
    are sealed with this key, which is not in the ledger file: an edit of the ledger alone cannot make
    a valid one, and an invalid one is ignored (the fingerprint is computed again from the rows).
    """
    with _locked() as folder:
        target = folder / SEAL_KEY_FILE
        with contextlib.suppress(FileNotFoundError):
            key = target.read_bytes()
            if len(key) == SEAL_KEY_BYTES:
                return key
        key = os.urandom(SEAL_KEY_BYTES)  # new, or a damaged one replaced: old entries are recomputed
        tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
        fd = os.open(tmp, os.O_CREAT | os.O_TRUNC | os.O_WRONLY, FILE_MODE)
        with os.fdopen(fd, "wb") as out:
            out.write(key)
        os.replace(tmp, target)
        return key


def _load(f: Path) -> Anchor | None:
    try:
        data = json.loads(f.read_text(encoding="utf-8"))
        return Anchor(str(data["ledger_id"]), int(data["count"]), str(data["head"]),
                      tuple(str(p) for p in data["paths"]), str(data.get("key", "")))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _write(target: Path, a: Anchor) -> None:
    """Write atomically (a crash leaves the old anchor or the new one, never half of one)."""
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_CREAT | os.O_TRUNC | os.O_WRONLY, FILE_MODE)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        json.dump({"ledger_id": a.ledger_id, "count": a.count, "head": a.head, "paths": list(a.paths),
                   "key": a.key}, out)
        out.flush()
        os.fsync(out.fileno())
    os.replace(tmp, target)


@contextlib.contextmanager
def _locked() -> Iterator[Path]:
    """The anchor folder (created 0700), held under an exclusive lock for a read-modify-write."""
    folder = anchor_folder()
    folder.mkdir(parents=True, exist_ok=True, mode=DIR_MODE)
    fd = os.open(folder / ".lock", os.O_CREAT | os.O_RDWR, FILE_MODE)
    try:
        try:
            import fcntl
        except ImportError:  # Windows: no flock; os.replace still keeps each anchor whole
            yield folder
            return
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield folder
    finally:
        os.close(fd)
