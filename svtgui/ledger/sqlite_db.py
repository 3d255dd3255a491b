"""The file ledger's database: one SQLite file per user (the default backend).

Why SQLite: the ledger is the *write-ahead log of release*, and SQLite in WAL mode with
``synchronous=FULL`` gives atomic transactions that survive a crash or a power cut, from the
standard library. Every write takes the database's write lock up front (``BEGIN IMMEDIATE``), so
the check of a remaining budget and the charge cannot interleave with another process's.

Opening: the file is created with mode 0600 (SQLite gives its -wal/-shm files the same mode) and an
older file is tightened to 0600; ``PRAGMA quick_check`` runs before anything is written, so a damaged
ledger is refused (:class:`LedgerDamaged`) and never written into; the schema version is read again
inside the write transaction that migrates, so concurrent first opens cannot both create tables.
The protective triggers are compared with those of a ledger built by the migrations in memory.
"""

from __future__ import annotations

import functools
import os
import socket
import sqlite3
import stat
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from svtgui.ledger.errors import LedgerDamaged, LedgerError, damaged_message
from svtgui.ledger.migrations import MIGRATIONS, SCHEMA_VERSION, TABLES_AT

APPLICATION_ID = 0x53565447  # "SVTG": marks the file as ours, so a foreign database is never touched
FILE_MODE = 0o600  # the ledger holds budgets and every released row: the owner's alone
SIDE_FILES = ("-wal", "-shm", "-journal")


class SqliteDb:
    """One open ledger file: transactions, reads and the file's own checks."""

    IntegrityError = sqlite3.IntegrityError

    def __init__(self, conn: sqlite3.Connection, path: Path) -> None:
        self.conn = conn
        self.path = path
        self.location = str(path)  # what messages name
        self.anchor_key = str(path.resolve())  # where the anchor knows this ledger

    @classmethod
    def open(cls, p: Path, timeout: float) -> SqliteDb:
        """Open (creating if absent, mode 0600) and migrate the ledger file ``p``."""
        if p.exists() and not p.is_file():
            raise LedgerError(f"ledger {p} is not a file")
        if p.exists() and _read_only(p):
            raise LedgerError(f"ledger {p} is read-only (or unreadable); SVT Studio must be able to "
                              "write it to record what is spent. Fix its permissions or use --ledger.")
        if p.exists() and _read_only(p.parent):
            raise LedgerError(f"the folder {p.parent} holding ledger {p} is read-only; SVT Studio must be "
                              "able to create the ledger's journal files (-wal, -shm) beside it. Fix the "
                              "folder's permissions or use --ledger.")
        try:
            p.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            # a regular file where the path needs a folder: "File exists" named the wrong problem
            blocker = next((q for q in (p.parent, *p.parent.parents) if q.exists() and not q.is_dir()), None)
            if blocker is not None:
                raise LedgerError(f"cannot create ledger {p}: {blocker} is a file, not a folder") from None
            raise LedgerError(f"cannot create the ledger directory {p.parent}: {exc.strerror}") from None
        if not p.exists() and not os.access(p.parent, os.W_OK):
            raise LedgerError(f"cannot create ledger {p}: directory {p.parent} is read-only")
        _create_private(p)
        try:
            conn = sqlite3.connect(p, timeout=timeout, isolation_level=None, check_same_thread=False)
        except sqlite3.Error as exc:
            raise LedgerError(f"cannot open ledger {p}: {exc}") from None
        db = cls(conn, p)
        try:
            db._prepare()
        except LedgerError:
            conn.close()
            raise
        except sqlite3.Error as exc:
            conn.close()
            raise _translate(exc, p) from None
        return db

    def _prepare(self) -> None:
        c = self.conn
        c.execute("PRAGMA foreign_keys = ON")
        c.execute("BEGIN")  # one snapshot: another process may be creating the schema right now
        try:
            version, app_id, tables = _schema_state(c)  # reading first detects a non-database
        finally:
            self._rollback()  # not a bare ROLLBACK: after a full disk SQLite has rolled back already
        if version > SCHEMA_VERSION:
            raise LedgerError(f"ledger {self.path} has schema version {version}, newer than this SVT Studio "
                              f"understands ({SCHEMA_VERSION}); upgrade SVT Studio. "
                              "The file was not changed.")
        if (tables - {"sqlite_sequence"}) and app_id != APPLICATION_ID:
            raise LedgerError(f"{self.path} is an SQLite database but not an SVT Studio ledger; "
                              "it was not changed. Choose another --ledger path.")
        self._check_integrity()
        expected = TABLES_AT[version] if version >= 1 else set()
        if not expected <= tables:
            raise LedgerDamaged(damaged_message(self.location, f"missing tables {sorted(expected - tables)}"))
        mode = c.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        if mode.lower() != "wal":
            raise LedgerError(f"ledger {self.path}: cannot enable write-ahead logging (mode {mode})")
        c.execute("PRAGMA synchronous = FULL")  # a commit survives power loss, not only a process crash
        c.execute("PRAGMA secure_delete = ON")  # replaced 0.1 file hashes leave no trace
        if version < SCHEMA_VERSION:
            self._migrate()

    def _check_integrity(self) -> None:
        """``PRAGMA quick_check`` (every page, index and constraint, not the row contents' order)."""
        problems = [r[0] for r in self.conn.execute("PRAGMA quick_check(5)").fetchall()]
        if problems != ["ok"]:
            detail = " ".join("; ".join(problems).split())  # SQLite's report spans lines: one line
            raise LedgerDamaged(damaged_message(self.location, f"integrity check: {detail}"))

    def _migrate(self) -> None:
        """Upgrade to :data:`SCHEMA_VERSION`, re-reading the version under the write lock.

        Two processes opening a fresh path at once both see version 0 before either writes; only
        the one that takes the write lock first migrates, the other then finds it done.
        """
        with self.transaction() as c:
            version, app_id, tables = _schema_state(c)
            if version and app_id != APPLICATION_ID:
                raise LedgerError(f"{self.path} is an SQLite database but not an SVT Studio ledger; "
                                  "it was not changed. Choose another --ledger path.")
            for v in range(version + 1, SCHEMA_VERSION + 1):
                MIGRATIONS[v](c)
            if version < SCHEMA_VERSION:
                c.execute(f"PRAGMA application_id = {APPLICATION_ID}")
                c.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def opened(self) -> None:
        """After the integrity checks passed: make an older, wider-open file the owner's alone."""
        _tighten(self.path)

    # ------------------------------------------------------------------ transactions and reads
    @contextmanager
    def transaction(self, *, serial: bool = True) -> Iterator[sqlite3.Connection]:
        """One atomic, durable write: ``BEGIN IMMEDIATE`` takes the write lock up front (every write
        is serial in SQLite, whatever ``serial`` says)."""
        try:
            self.conn.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise _translate(exc, self.path) from None
        try:
            yield self.conn
        except sqlite3.Error as exc:
            self._rollback()
            raise _translate(exc, self.path) from None
        except BaseException:
            self._rollback()
            raise
        try:
            self.conn.execute("COMMIT")
        except sqlite3.Error as exc:
            self._rollback()
            raise _translate(exc, self.path) from None

    @contextmanager
    def snapshot(self) -> Iterator[sqlite3.Connection]:
        """One consistent read of several tables (a read transaction, rolled back)."""
        try:
            self.conn.execute("BEGIN")
            yield self.conn
        except sqlite3.Error as exc:
            raise _translate(exc, self.path) from None
        finally:
            self._rollback()

    def _rollback(self) -> None:
        """Undo the open transaction, if SQLite has not already (it rolls back by itself on a full
        disk or an I/O error; a second ROLLBACK would fail and hide the real cause)."""
        if self.conn.in_transaction:
            try:
                self.conn.execute("ROLLBACK")
            except sqlite3.Error:
                pass  # the connection is unusable; the error being raised says why

    def read(self, sql: str, args: Sequence[Any] = ()) -> list[tuple]:
        try:
            return self.conn.execute(sql, args).fetchall()
        except sqlite3.Error as exc:
            raise _translate(exc, self.path) from None

    def close(self) -> None:
        self.conn.close()

    @staticmethod
    def insert_rows(c: sqlite3.Connection, table: str, columns: Sequence[str], rows: list[tuple]) -> None:
        """Many rows in the open transaction (a run's batch of responses)."""
        c.executemany(f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})",
                      rows)

    # ------------------------------------------------------------------ runs' owners
    def owner_gone(self, run_id: int, owner_host: str, owner_pid: int) -> bool:
        """Whether the process that started a running run is gone (a process elsewhere is assumed
        alive: only its own machine can tell)."""
        return owner_host == socket.gethostname() and not _alive(owner_pid)

    def may_raise(self) -> bool:
        """A file ledger has one curator, who may raise (each raise is logged)."""
        return True

    def hold_run(self, run_id: int) -> None:
        """Nothing to hold: a file ledger knows a run's owner by host and process id."""

    def release_run(self, run_id: int) -> None:
        """Nothing was held (see :meth:`hold_run`)."""

    # ------------------------------------------------------------------ protective triggers
    def trigger_findings(self, c: sqlite3.Connection) -> list[str]:
        """Protective triggers that are missing, changed or unknown (one phrase, or none)."""
        want, have = expected_triggers(), _triggers(c)
        missing = sorted(set(want) - set(have))
        changed = sorted(n for n in set(want) & set(have) if want[n] != have[n])
        unknown = sorted(set(have) - set(want))
        parts = [f"{what}: {', '.join(names)}" for what, names in
                 (("missing", missing), ("changed", changed), ("unknown", unknown)) if names]
        return [f"its protective triggers were tampered with ({'; '.join(parts)})"] if parts else []

    def restore_triggers(self, c: sqlite3.Connection) -> None:
        """Put the protective triggers back exactly as the migrations make them (accept does this)."""
        want, have = expected_triggers(), _triggers(c)
        for name in have:
            if want.get(name) != have[name]:
                c.execute(f'DROP TRIGGER "{name}"')
        have = _triggers(c)
        for name, sql in want.items():
            if name not in have:
                c.execute(sql)


@functools.cache
def expected_triggers() -> dict[str, str]:
    """Trigger name → SQL (white space normalised) of a ledger built by every migration."""
    c = sqlite3.connect(":memory:", isolation_level=None)
    try:
        c.execute("BEGIN")
        for v in range(1, SCHEMA_VERSION + 1):
            MIGRATIONS[v](c)
        return _triggers(c)
    finally:
        c.close()


def _triggers(c: sqlite3.Connection) -> dict[str, str]:
    return {name: " ".join(sql.split())
            for name, sql in c.execute("SELECT name, sql FROM sqlite_master WHERE type = 'trigger'")}


def _read_only(p: Path) -> bool:
    """No write permission bit (respected even by root, who could write anyway), or no access."""
    return not (p.stat().st_mode & stat.S_IWUSR) or not os.access(p, os.R_OK | os.W_OK)


def _alive(pid: int) -> bool:
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _schema_state(c: sqlite3.Connection) -> tuple[int, int, set[str]]:
    """(schema version, application id, table names) as the current transaction sees them."""
    version = c.execute("PRAGMA user_version").fetchone()[0]
    app_id = c.execute("PRAGMA application_id").fetchone()[0]
    return version, app_id, {r[0] for r in c.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def _create_private(p: Path) -> None:
    """Create an absent ledger file with mode 0600 before SQLite opens it (an empty file is an
    empty database; SQLite gives the -wal and -shm files the main file's mode)."""
    try:
        fd = os.open(p, os.O_CREAT | os.O_EXCL | os.O_WRONLY, FILE_MODE)
    except FileExistsError:
        return
    except OSError as exc:
        raise LedgerError(f"cannot create ledger {p}: {exc.strerror}") from None
    os.close(fd)


def _tighten(p: Path) -> None:
    """Make an existing ledger (and its side files) readable by its owner only."""
    for f in (p, *(p.with_name(p.name + s) for s in SIDE_FILES)):
        try:
            st = f.stat()
            if st.st_uid == os.getuid() and stat.S_IMODE(st.st_mode) & 0o077:
                f.chmod(stat.S_IMODE(st.st_mode) & ~0o077)
        except OSError:
            continue  # a side file that is absent (or went away) has nothing to tighten


def _translate(exc: sqlite3.Error, path: Path) -> LedgerError:
    """A clear message for the ways a ledger cannot be used."""
    text = str(exc)
    if "locked" in text or "busy" in text:
        return LedgerError(f"ledger {path} is locked by another program; close it (or wait) and retry")
    if "readonly" in text or "read-only" in text:
        return LedgerError(f"ledger {path} is read-only; SVT Studio must be able to write it")
    if "full" in text:
        return LedgerError(f"ledger {path}: the disk is full ({text}); the last write was rolled back and "
                           "nothing recorded before it is lost. Free some space and retry")
    if "disk I/O" in text:
        return LedgerError(f"ledger {path}: the disk refused a write ({text}: full, removed or failing?); "
                           "the last write was rolled back")
    if "not a database" in text or "malformed" in text or "corrupt" in text:
        return LedgerDamaged(damaged_message(str(path), text))
    return LedgerError(f"ledger {path}: {text}")
