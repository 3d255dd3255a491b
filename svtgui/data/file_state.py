"""Which file, in which state: what the fingerprint cache (in the ledger) is keyed by.

The fingerprint is paid once per file: the ledger keeps it under the file's identity (host, device
and inode) and a check of its state (size, modification and change times in nanoseconds, and a digest of
a few sampled blocks), and a cached fingerprint is used only when all of them are unchanged. The
change time (ctime) cannot be set back by the file's owner, so rewriting a file in place, even with
its old modification time restored, invalidates the entry; the sampled blocks also catch a file
system whose times are too coarse to see a quick rewrite.

The state is taken *before* the rows are read and compared again after: a file that changed while
it was read gets no state, so its fingerprint is never cached under the wrong state.
"""

from __future__ import annotations

import hashlib
import os
import socket
from dataclasses import dataclass
from pathlib import Path

SAMPLE_BYTES = 4096
SAMPLES = 4


@dataclass(frozen=True)
class FileState:
    """A file's identity (``file_id``) and the state its fingerprint was computed in (``check``).

    Private: the sampled blocks' digest is a function of the data; only the ledger receives it, and
    keys it before storing."""

    file_id: bytes
    check: bytes


def file_state(path: Path | None) -> FileState | None:
    """The state of the regular file at ``path`` now, or None (no file, or it cannot be read)."""
    if path is None:
        return None
    try:
        with open(path, "rb") as f:
            st = os.fstat(f.fileno())
            digest = hashlib.sha256()
            last = max(st.st_size - SAMPLE_BYTES, 0)
            for offset in sorted({last * i // (SAMPLES - 1) for i in range(SAMPLES)}):
                f.seek(offset)
                digest.update(f.read(SAMPLE_BYTES))
    except OSError:
        return None
    identity = f"{socket.gethostname()}:{st.st_dev}:{st.st_ino}".encode()  # a server ledger serves many hosts
    check = f"{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}:".encode() + digest.digest()
    return FileState(identity, check)


def unchanged_since(state: FileState | None, path: Path | None) -> FileState | None:
    """``state`` if the file at ``path`` is still in it, else None (it changed while being read)."""
    return state if state is not None and file_state(path) == state else None
