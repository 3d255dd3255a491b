"""The server ledger: one PostgreSQL database (or schema) shared by a team's curators (issue 26).

Chosen by a ``postgresql://user@host/db`` URL wherever a ledger path is accepted. The schema is
created and migrated by the tool (:mod:`.postgres_schema`). Concurrency: every write that checks a
budget or extends the hash chain takes one transaction-scoped advisory lock for the ledger
(``pg_advisory_xact_lock``) before reading anything, so the check of the remaining budget and the
charge are serial across every client, as ``BEGIN IMMEDIATE`` makes them in a file; recording
responses takes no such lock. A running run is held by its client's session with a session
advisory lock: a client that is killed, or whose connection is lost, releases it with its session,
and the next open anywhere marks the run interrupted (its budget stays spent).

Passwords belong in ``~/.pgpass`` or ``PGPASSWORD`` (libpq reads them), not in the URL; messages
name the URL without a password in any case.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import psycopg

from svtgui.ledger import postgres_schema as ddl
from svtgui.ledger.errors import LedgerError
from svtgui.ledger.migrations import KEY_BYTES, new_ledger_id

_MARK = re.compile(r"\?")
_OUR_TRIGGERS = ("SELECT t.tgname, t.tgenabled FROM pg_trigger t JOIN pg_class r ON r.oid = t.tgrelid "
                 "WHERE r.relnamespace = current_schema()::regnamespace AND NOT t.tgisinternal")


def redacted(url: str) -> str:
    """The URL as messages show it: any password replaced by ``***``."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.netloc.rsplit("@", 1)[-1]
    return urlunsplit(parts._replace(netloc=f"{parts.username}:***@{host}"))


class _Conn:
    """A psycopg connection that takes the file ledger's SQL (``?`` placeholders)."""

    def __init__(self, conn: psycopg.Connection) -> None:
        self.raw = conn

    def execute(self, sql: str, args: Sequence[Any] = ()) -> psycopg.Cursor:
        return self.raw.execute(_MARK.sub("%s", sql), tuple(args) or None)

    def executemany(self, sql: str, rows: Any) -> None:
        with self.raw.cursor() as cur:
            cur.executemany(_MARK.sub("%s", sql), rows)


class PostgresDb:
    """One connection to a server ledger: transactions, reads and the server-side checks."""

    IntegrityError = psycopg.errors.IntegrityError

    def __init__(self, conn: psycopg.Connection, url: str) -> None:
        self.conn = _Conn(conn)
        self.url = url
        self.location = redacted(url)
        self.path = url  # what child processes open (they read the password where libpq does)
        self.anchor_key = self.location
        self.schema = ""
        self._lock_key = 0  # the ledger's advisory lock key (from its schema's name)

    @classmethod
    def open(cls, url: str, timeout: float, key: bytes | None = None) -> PostgresDb:
        """Connect, and create or migrate the schema (a new ledger gets ``key``, else a random one)."""
        try:
            conn = psycopg.connect(url, autocommit=True, connect_timeout=max(1, round(timeout)))
        except psycopg.Error as exc:
            raise LedgerError(f"cannot reach the server ledger {redacted(url)}: {_first_line(exc)}") from None
        db = cls(conn, url)
        try:
            db._prepare(key)
        except BaseException:
            conn.close()
            raise
        return db

    def _prepare(self, key: bytes | None) -> None:
        schema, lock = self.read("SELECT current_schema(), hashtext(current_schema() || '/svtgui-ledger')")[0]
        if schema is None:
            raise LedgerError(f"server ledger {self.location}: no schema to hold the ledger (the search_path "
                              "names none that exists); create one, or connect to another database")
        self.schema, self._lock_key = str(schema), int(lock)
        with self.transaction() as c:  # serial: one client creates or migrates the schema
            if c.execute("SELECT to_regclass('svtgui_meta')").fetchone()[0] is None:
                tables = c.execute("SELECT count(*) FROM pg_class WHERE relnamespace = "
                                   "current_schema()::regnamespace AND relkind = 'r'").fetchone()[0]
                if tables:
                    raise LedgerError(f"{self.location}: schema {self.schema} holds tables but is not an SVT "
                                      "Studio ledger; it was not changed. Choose another database or schema.")
                self._create(c, key or secrets.token_bytes(KEY_BYTES))
            meta = c.execute("SELECT application, version FROM svtgui_meta WHERE id = 1").fetchone()
            if meta is None or meta[0] != ddl.APPLICATION:
                raise LedgerError(f"{self.location} is not an SVT Studio ledger; it was not changed.")
            if meta[1] > ddl.SCHEMA_VERSION:
                raise LedgerError(f"server ledger {self.location} has schema version {meta[1]}, newer than "
                                  f"this SVT Studio understands ({ddl.SCHEMA_VERSION}); upgrade SVT Studio.")
            if meta[1] < ddl.SCHEMA_VERSION:
                for sql in ddl.upgrade_statements(meta[1], self.schema):
                    c.execute(sql)
                c.execute("UPDATE svtgui_meta SET version = ? WHERE id = 1", (ddl.SCHEMA_VERSION,))

    def _create(self, c: _Conn, key: bytes) -> None:
        for sql in ddl.create_statements(self.schema):
            c.execute(sql)
        c.execute("INSERT INTO svtgui_meta VALUES (1, ?, ?)", (ddl.APPLICATION, ddl.SCHEMA_VERSION))
        c.execute("INSERT INTO ledger_identity VALUES (1, ?)", (new_ledger_id(),))
        c.execute("INSERT INTO ledger_key VALUES (1, ?)", (key,))

    def opened(self) -> None:
        """Nothing to tighten: the server's privileges guard its tables."""

    # ------------------------------------------------------------------ transactions and reads
    @contextmanager
    def transaction(self, *, serial: bool = True) -> Iterator[_Conn]:
        """One atomic write; ``serial`` takes the ledger's write lock first (see the module)."""
        try:
            self.conn.execute("BEGIN")
            if serial:
                self.conn.execute("SELECT pg_advisory_xact_lock(?)", (self._lock_key,))
        except psycopg.Error as exc:
            self._rollback()
            raise self._translate(exc) from None
        try:
            yield self.conn
        except psycopg.Error as exc:
            self._rollback()
            if isinstance(exc, psycopg.errors.IntegrityError):
                raise  # a rule of the ledger refused the write: the caller says which
            raise self._translate(exc) from None
        except BaseException:
            self._rollback()
            raise
        try:
            self.conn.execute("COMMIT")
        except psycopg.Error as exc:
            self._rollback()
            raise self._translate(exc) from None

    @contextmanager
    def snapshot(self) -> Iterator[_Conn]:
        """One consistent read of several tables."""
        try:
            self.conn.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            yield self.conn
        except psycopg.Error as exc:
            raise self._translate(exc) from None
        finally:
            self._rollback()

    def _rollback(self) -> None:
        if self.conn.raw.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
            try:
                self.conn.execute("ROLLBACK")
            except psycopg.Error:
                pass  # the connection is gone; the error being raised says why

    def read(self, sql: str, args: Sequence[Any] = ()) -> list[tuple]:
        try:
            return self.conn.execute(sql, args).fetchall()
        except psycopg.Error as exc:
            self._rollback()
            raise self._translate(exc) from None

    def close(self) -> None:
        self.conn.raw.close()

    @staticmethod
    def insert_rows(c: _Conn, table: str, columns: Sequence[str], rows: list[tuple]) -> None:
        """Many rows in the open transaction, by COPY: a run's batch of responses in one round trip
        rather than one per row (the server's insert triggers and constraints still apply)."""
        with c.raw.cursor() as cur, cur.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)

    # ------------------------------------------------------------------ runs' owners
    def may_raise(self) -> bool:
        """Whether the login holds the custodian role (the server refuses anyone else's raise)."""
        return bool(self.read(f"SELECT pg_has_role(session_user, '{ddl.CUSTODIAN}', 'MEMBER')")[0][0])

    def hold_run(self, run_id: int) -> None:
        """Hold the run for this session: the lock goes with the session when the client dies."""
        self.read("SELECT pg_advisory_lock(?, ?)", (self._lock_key, int(run_id)))

    def release_run(self, run_id: int) -> None:
        self.read("SELECT pg_advisory_unlock(?, ?)", (self._lock_key, int(run_id)))

    def owner_gone(self, run_id: int, owner_host: str, owner_pid: int) -> bool:
        """Whether no session holds the running run (its client was killed or lost its connection)."""
        if not self.read("SELECT pg_try_advisory_lock(?, ?)", (self._lock_key, int(run_id)))[0][0]:
            return False
        self.release_run(run_id)
        return True

    # ------------------------------------------------------------------ protective triggers
    def trigger_findings(self, c: _Conn) -> list[str]:
        """Triggers or trigger functions of ours that are missing, disabled, changed or unknown."""
        have = dict(c.execute(_OUR_TRIGGERS).fetchall())
        bodies = dict(c.execute("SELECT proname, prosrc FROM pg_proc WHERE pronamespace = "
                                "current_schema()::regnamespace").fetchall())
        parts = [f"{what}: {', '.join(sorted(names))}" for what, names in (
            ("missing", set(ddl.TRIGGERS) - set(have)),
            ("disabled", {n for n, state in have.items() if n in ddl.TRIGGERS and state == "D"}),
            ("unknown", set(have) - set(ddl.TRIGGERS)),
            ("changed functions", {n for n, body in ddl.FUNCTIONS.items()
                                   if " ".join(bodies.get(n, "").split()) != " ".join(body.split())}),
        ) if names]
        return [f"its protective triggers were tampered with ({'; '.join(parts)})"] if parts else []

    def restore_triggers(self, c: _Conn) -> None:
        """Put every trigger and trigger function back as the schema makes them (needs the owner)."""
        for name in ddl.FUNCTIONS:
            c.execute(ddl.function_sql(name))
        for name, state in c.execute(_OUR_TRIGGERS).fetchall():
            if name not in ddl.TRIGGERS:
                table = c.execute("SELECT r.relname FROM pg_trigger t JOIN pg_class r ON r.oid = t.tgrelid "
                                  "WHERE t.tgname = ? AND r.relnamespace = current_schema()::regnamespace",
                                  (name,)).fetchone()[0]
                c.execute(f'DROP TRIGGER "{name}" ON "{table}"')
            elif state == "D":
                c.execute(f'ALTER TABLE {ddl.trigger_table(name)} ENABLE TRIGGER "{name}"')
        present = {r[0] for r in c.execute("SELECT tgname FROM pg_trigger t JOIN pg_class r ON r.oid = "
                                           "t.tgrelid WHERE r.relnamespace = current_schema()::regnamespace")}
        for name, sql in ddl.TRIGGERS.items():
            if name not in present:
                c.execute(sql)

    def _translate(self, exc: psycopg.Error) -> LedgerError:
        """One line for the ways a server ledger cannot be used."""
        if isinstance(exc, psycopg.errors.InsufficientPrivilege):
            return LedgerError(f"server ledger {self.location}: {_first_line(exc)} (the database "
                               f"administrator grants {ddl.CURATOR} or {ddl.CUSTODIAN}: docs/ledger.md, "
                               "Deployment)")
        if isinstance(exc, psycopg.OperationalError) or self.conn.raw.closed:
            return LedgerError(f"server ledger {self.location}: the connection to the server was lost "
                               f"({_first_line(exc)}); the last write was rolled back and nothing recorded "
                               "before it is lost")
        return LedgerError(f"server ledger {self.location}: {_first_line(exc)}")


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
