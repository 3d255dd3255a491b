"""The ledger database: opening it safely, budgets, runs and the private dataset identities.

Why a database rather than a JSON file: the ledger is the *write-ahead log of release*. A run's full
guarantee is committed before its first answer, and every response is committed before anyone sees
it, so after a crash (kill -9, power loss) the ledger still knows what was spent and what was shown.
Two backends hold it behind this one class: a SQLite file per user (:mod:`.sqlite_db`, the
default) and a PostgreSQL database shared by a team (:mod:`.postgres_db`, chosen by a
``postgresql://`` URL wherever a ledger path is accepted). Everything above the ledger is the same.

Rules the schema itself enforces (triggers), so no code path can break them by accident:

* nothing is ever deleted; responses are never changed; a run's charge and dataset never change;
* a dataset's total budget is only changed through :meth:`Ledger.raise_total`, which logs an event;
* a seeded run is stored without its seed.

Identity: a dataset is named by a random public id (``ds-`` and 16 hex digits from the OS CSPRNG).
Its budget is found through private *content fingerprints* — keyed hashes of the parsed rows
(:mod:`svtgui.data.fingerprint`) under a random key created with the ledger — in the
``dataset_contents`` table. The key and the fingerprints never leave this file: nothing public
(report, export, session file, window title, log) is a function of the data.

Amounts are stored as exact decimal text and summed as :class:`fractions.Fraction`.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import socket
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from fractions import Fraction
from pathlib import Path
from typing import Any

from svtgui import __version__
from svtgui.core.budget import Budget, Charge
from svtgui.core.public_text import NAME_LIMIT, NOTE_LIMIT, public_text
from svtgui.ledger import anchor, chain, integrity
from svtgui.ledger.errors import LedgerDamaged, LedgerError, LedgerTampered, tampered_message
from svtgui.ledger.integrity import login
from svtgui.ledger.migrations import legacy_tag, new_dataset_id
from svtgui.ledger.records import (
    END_STATUSES,
    FREE_TEXT,
    PAID_TEXT,
    RUNNING,
    SEEDED_TEXT,
    BudgetEvent,
    ContentIdentity,
    DatasetRecord,
    IntegrityEvent,
    RelationEvent,
    ResponseBatch,
    ResponseRecord,
    RunRecord,
    exact_text,
    number,
)
from svtgui.ledger.sqlite_db import APPLICATION_ID, SqliteDb

ENV_VAR = "SVTGUI_LEDGER"
SERVER_SCHEMES = ("postgresql://", "postgres://")
_CONTENT = re.compile(r"[0-9a-f]{64}")

__all__ = ["APPLICATION_ID", "FREE_TEXT", "PAID_TEXT", "Ledger", "LedgerDamaged", "LedgerError",
           "LedgerTampered", "default_path", "is_server"]


def is_server(location: object) -> bool:
    """Whether a ledger location is a server URL (``postgresql://…``) rather than a file path."""
    return isinstance(location, str) and location.startswith(SERVER_SCHEMES)


def default_path() -> Path:
    """``$SVTGUI_LEDGER`` if set (a file path; :func:`default_location` also takes a server URL),
    else ``ledger.sqlite`` in the per-user data directory."""
    env = os.environ.get(ENV_VAR)
    if env and not is_server(env):
        return Path(env).expanduser()
    import platformdirs  # imported lazily: only needed when no explicit path is given

    return Path(platformdirs.user_data_dir("svtgui", "SVT Studio")) / "ledger.sqlite"


def default_location() -> str | Path:
    """Where the ledger is unless told: ``$SVTGUI_LEDGER`` (a path or a ``postgresql://`` URL), else
    :func:`default_path`."""
    env = os.environ.get(ENV_VAR)
    return env if is_server(env) else default_path()


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


def _frac(text: str | None) -> Fraction | None:
    return None if text is None else Fraction(text)


class Ledger:
    """A connection to the ledger. Thread-safe (one lock), usable from the GUI's worker thread.

    Open with :meth:`open`; close with :meth:`close` or a ``with`` block.
    """

    def __init__(self, db: Any) -> None:
        self._db = db  # a SqliteDb or a PostgresDb: the same methods, two databases
        self.path: str | Path = getattr(db, "path", db.location)  # a file's Path, or the server's URL
        self._lock = threading.RLock()
        self._key: bytes | None = None
        self.recovered: list[int] = []  # runs this open marked 'interrupted'
        self.accepted: list[str] = []  # integrity findings this open accepted (``accept=``)
        self._ledger_id = ""
        self._chained: tuple[int, str] | None = None  # head appended by the open transaction

    @property
    def location(self) -> str:
        """Where the ledger is, as messages name it (a server URL without its password)."""
        return self._db.location

    def may_raise(self) -> bool:
        """Whether this login may raise a dataset's total (a server ledger's custodian; any file owner)."""
        with self._lock:
            return self._db.may_raise()

    @property
    def server(self) -> bool:
        """Whether this ledger lives on a database server (shared by a team) rather than in a file."""
        return not isinstance(self.path, Path)

    # ------------------------------------------------------------------ opening
    @classmethod
    def open(cls, path: str | os.PathLike[str] | None = None, *, timeout: float = 5.0,
             accept: str | None = None, key: bytes | None = None) -> Ledger:
        """Open the ledger at ``path``: a file (created if absent, mode 0600) or a ``postgresql://``
        URL (default: :func:`default_location`).

        Marks runs left ``running`` by a dead process as ``interrupted`` (their budget stays spent).
        Raises :class:`LedgerDamaged` for a damaged file, :class:`LedgerTampered` when the integrity
        checks (:mod:`svtgui.ledger.integrity`) find a change SVT Studio did not make, and
        :class:`LedgerError` for a locked, read-only, foreign, newer or unreachable one; the ledger
        is not changed. ``accept`` (a reason) records what the integrity checks found and proceeds;
        ``accepted`` then lists it. With nothing to accept it raises :class:`LedgerError`. ``key``:
        the fingerprint key of a server ledger this open creates (``ledger migrate`` passes the file's,
        so the rows' keyed fingerprints stay valid on the server).
        """
        where = path if path is not None else default_location()
        gone: list[str] = []
        if is_server(where):
            try:
                from svtgui.ledger.postgres_db import PostgresDb  # psycopg: only for a server ledger
            except ImportError:
                raise LedgerError("a ledger on a PostgreSQL server needs psycopg: "
                                  "pip install 'svtgui[team]'") from None
            db: Any = PostgresDb.open(str(where), timeout, key)
        else:
            p = Path(where).expanduser()
            gone = [] if p.exists() and p.stat().st_size else integrity.deleted_here(p.resolve())
            if gone and accept is None:
                raise LedgerTampered(tampered_message(str(p), gone), gone)
            db = SqliteDb.open(p, timeout)
        ledger = cls(db)
        try:
            ledger._check_tampering(accept, gone)
            db.opened()
            ledger._recover_interrupted()
        except LedgerError:
            db.close()
            raise
        return ledger

    def _check_tampering(self, accept: str | None, gone: list[str]) -> None:
        """Refuse a ledger changed outside SVT Studio (or accept it, logged); then advance its anchor.

        The anchors are read before the snapshot is taken: an anchor advances only after a commit,
        so a charge another process commits meanwhile can never make this ledger look rolled back.
        """
        db = self._db
        self._ledger_id = str(db.read("SELECT ledger_id FROM ledger_identity WHERE id = 1")[0][0])
        anchored, others = anchor.read(self._ledger_id), anchor.at_path(db.anchor_key)
        with db.snapshot() as c:
            found = integrity.inspect(c, db, anchored, others)
        findings = gone + found.findings
        if findings and accept is None:
            raise LedgerTampered(tampered_message(db.location, findings), findings)
        if accept is not None:
            try:
                accept = public_text(accept, "the reason", NOTE_LIMIT)
            except ValueError as exc:
                raise LedgerError(f"ledger accept: {exc}") from None
        if accept is not None and not accept:
            raise LedgerError("ledger accept: give a --reason (it is recorded in the ledger)")
        if accept is not None and not findings:
            raise LedgerError(f"ledger {self.path}: nothing to accept: its triggers, hash chain and anchor "
                              "agree with the ledger. Nothing was written.")
        try:
            if accept is not None:
                with self._transaction() as tx:
                    count, head = integrity.accept(tx, db, found, findings, accept)
                self._chained = None  # the anchor is moved below, even backwards: that was accepted
                anchor.advance(self._ledger_id, db.anchor_key, count, head, key=found.key, force=True)
                anchor.forget_path(db.anchor_key, keep=self._ledger_id)
                self.accepted = findings
            else:
                anchor.advance(self._ledger_id, db.anchor_key, found.count, found.head, key=found.key)
        except OSError as exc:
            raise LedgerError(f"cannot write the ledger's anchor in {anchor.anchor_folder()} "
                              f"({exc.strerror or exc}); set {anchor.STATE_ENV} to a writable folder"
                              ) from None

    def _recover_interrupted(self) -> None:
        """Mark runs whose owning process is gone as interrupted (their budget stays spent)."""
        with self._transaction() as c:
            rows = c.execute("SELECT id, owner_host, owner_pid FROM runs WHERE status = 'running'").fetchall()
            for run_id, owner_host, owner_pid in rows:
                if not self._db.owner_gone(run_id, owner_host, owner_pid):
                    continue  # a live process (perhaps this one) is still streaming it
                c.execute("UPDATE runs SET status = 'interrupted', ended_at = ? WHERE id = ?",
                          (_now(), run_id))
                self.recovered.append(run_id)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> Ledger:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _transaction(self, *, serial: bool = True) -> Iterator[Any]:
        """One atomic, durable write (``serial``: under the ledger-wide write lock, as every write
        that checks a budget or extends the chain must be); the anchor follows its commit."""
        with self._lock:
            try:
                with self._db.transaction(serial=serial) as c:
                    yield c
            except BaseException:
                self._chained = None
                raise
            self._advance_anchor()

    def _chain(self, c: Any, kind: str, ref: object) -> None:
        """Chain a budget-relevant row written in the open transaction; its anchor follows the commit."""
        self._chained = chain.append(c, kind, ref)

    def _advance_anchor(self) -> None:
        """After a commit that extended the chain. Best effort: the charge is already durable, and a
        ledger ahead of its anchor is honest (the next open advances it)."""
        if self._chained is None:
            return
        (count, head), self._chained = self._chained, None
        try:
            anchor.advance(self._ledger_id, self._db.anchor_key, count, head)
        except OSError:
            pass  # the next open reports an anchor it cannot write

    def _read(self, sql: str, args: Sequence[Any] = ()) -> list[tuple]:
        with self._lock:
            return self._db.read(sql, args)

    # ------------------------------------------------------------------ dataset identities (private)
    def content_key(self) -> bytes:
        """The ledger's fingerprint key (random, created with the ledger; never stored elsewhere)."""
        if self._key is None:
            self._key = bytes(self._read("SELECT key FROM ledger_key WHERE id = 1")[0][0])
        return self._key

    def dataset_for_content(self, content: str) -> DatasetRecord | None:
        """The dataset these rows (their keyed content fingerprint) belong to, if any."""
        rows = self._read(_OWNER, (_content(content),))
        return self.dataset(rows[0][0]) if rows else None

    def remember_schema(self, content: str, schema: dict[str, Any]) -> None:
        """Keep the schema the curator declared for these rows (replaces the last one)."""
        text = json.dumps(schema, sort_keys=True, allow_nan=False)
        with self._transaction() as c:
            c.execute("INSERT INTO declared_schemas VALUES (?, ?, ?) ON CONFLICT(content) DO UPDATE SET "
                      "schema_json = excluded.schema_json, at = excluded.at",
                      (_content(content), text, _now()))

    def remembered_schema(self, content: str) -> dict[str, Any] | None:
        """The schema last declared for these rows, or None."""
        rows = self._read("SELECT schema_json FROM declared_schemas WHERE content = ?", (_content(content),))
        return json.loads(rows[0][0]) if rows else None

    def legacy_pending(self) -> bool:
        """Whether a dataset migrated from a 0.1 ledger has not yet been matched to its rows."""
        return bool(self._read("SELECT 1 FROM legacy_files l WHERE NOT EXISTS (SELECT 1 FROM "
                               "dataset_contents c WHERE c.dataset_id = l.dataset_id) LIMIT 1"))

    def adopt_legacy(self, file_sha256: str, content: str,
                     identity: ContentIdentity | None = None) -> DatasetRecord | None:
        """Bind ``content`` to the migrated dataset whose 0.1 fingerprint was this file's SHA-256.

        The SHA-256 is compared through its keyed tag only; the plain hash is not stored.
        """
        content = _content(content)
        rows = self._read("SELECT dataset_id FROM legacy_files WHERE tag = ?",
                          (legacy_tag(self.content_key(), file_sha256),))
        if not rows:
            return None
        return self._bind(rows[0][0], content, "migrated", "the same file as before the 0.2 migration",
                          identity)

    def register_dataset(self, content: str, name: str, total_epsilon: float | str | Fraction,
                         total_delta: float | str | Fraction = 0, *, neighbouring: str = "add_remove",
                         bounds: dict[str, Any] | None = None,
                         columns: Sequence[str] | None = None,
                         identity: ContentIdentity | None = None,
                         public_n: int | None = None) -> tuple[DatasetRecord, bool]:
        """Register the rows with content fingerprint ``content`` as a new dataset with a total budget.

        Returns ``(record, created)``. Rows already in the ledger keep their dataset, original total
        and history whatever is passed here (re-loading or re-saving a file never resets a budget):
        ``created`` is False. The new dataset gets a random public id. ``identity`` (the rows' column
        fingerprints and row sketch) is recorded for the look-alike search. The
        relation (``neighbouring``, and ``public_n`` under replace-one) is recorded as the one the
        budget is kept under (a relation event, chained).
        """
        content = _content(content)
        total = Budget.of(total_epsilon, total_delta)
        at, dataset_id = _now(), new_dataset_id()
        eps, dlt = exact_text(total.total_epsilon), exact_text(total.total_delta)
        cols = None if columns is None else json.dumps(list(map(str, columns)))
        with self._transaction() as c:
            known = c.execute(_OWNER, (content,)).fetchone()
            if known is None:  # else: registered before (perhaps concurrently by another process)
                c.execute("INSERT INTO datasets (dataset_id, name, total_epsilon, total_delta, neighbouring, "
                          "bounds_json, registered_at, columns_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                          (dataset_id, str(name), eps, dlt, str(neighbouring),
                           json.dumps(bounds or {}, sort_keys=True, allow_nan=False), at, cols))
                cur = c.execute("INSERT INTO budget_events (dataset_id, kind, epsilon, delta, note, at, "
                                "login) VALUES (?, 'register', ?, ?, ?, ?, ?) RETURNING id",
                                (dataset_id, eps, dlt, f"registered as {name}", at, login()))
                self._chain(c, "event", cur.fetchone()[0])
                c.execute("INSERT INTO dataset_contents VALUES (?, ?, 'registered', ?, ?)",
                          (content, dataset_id, "registered", at))
                _record_identity(c, content, identity)
                self._chain(c, "bind", content)
                self._relation(c, dataset_id, "register", str(neighbouring), public_n,
                               f"registered as {name}")
        if known is not None:
            return self._require(known[0]), False
        return self._require(dataset_id), True

    def set_relation(self, dataset_id: str, neighbouring: str, public_n: int | None, *,
                     reason: str) -> DatasetRecord:
        """Keep the dataset's budget under another neighbouring relation from now on: an explicit,
        logged curator action (the ``reason`` is required and kept). Runs already charged keep the
        relation they were charged under (their declarations)."""
        if neighbouring not in ("add_remove", "replace"):
            raise ValueError(f"the relation must be add_remove or replace, got {neighbouring!r}")
        if (neighbouring == "replace") != (public_n is not None):
            raise ValueError("replace-one needs the public number of rows n (and add/remove-one has none)")
        if public_n is not None and (isinstance(public_n, bool) or not isinstance(public_n, int)
                                     or public_n < 1):
            raise ValueError(f"n must be a positive integer, got {public_n!r}")
        reason = public_text(str(reason), "the reason", NOTE_LIMIT)
        if not reason:
            raise ValueError("give the reason for changing the relation (it is kept in the ledger)")
        record = self._require(dataset_id)
        if (record.neighbouring, record.public_n) == (neighbouring, public_n):
            raise ValueError(f"{dataset_id} is already kept under this relation; nothing changed")
        with self._transaction() as c:
            self._relation(c, dataset_id, "change", neighbouring, public_n, reason)
        return self._require(dataset_id)

    def _relation(self, c: Any, dataset_id: str, kind: str, neighbouring: str, public_n: int | None,
                  reason: str) -> None:
        cur = c.execute("INSERT INTO relation_events (dataset_id, kind, neighbouring, public_n, reason, "
                        "login, at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id",
                        (dataset_id, kind, neighbouring, public_n, reason, login(), _now()))
        self._chain(c, "relation", cur.fetchone()[0])

    def set_public_name(self, dataset_id: str, name: str) -> DatasetRecord:
        """The name reports publish for the dataset from now on (the curator's choice; logged): no
        control or invisible formatting character, at most ``NAME_LIMIT`` characters (public_text)."""
        text = public_text(str(name), "the public name", NAME_LIMIT)
        if not text:
            raise ValueError("the public name is empty; give the name reports should use")
        self._require(dataset_id)
        with self._transaction() as c:
            c.execute("INSERT INTO public_names (dataset_id, name, login, at) VALUES (?, ?, ?, ?)",
                      (dataset_id, text, login(), _now()))
        return self._require(dataset_id)

    def relation_events(self, dataset_id: str | None = None) -> list[RelationEvent]:
        """The relation each dataset was registered under and every logged change, oldest first."""
        sql = "SELECT dataset_id, kind, neighbouring, public_n, reason, login, at FROM relation_events"
        rows = self._read(sql + " WHERE dataset_id = ? ORDER BY id", (dataset_id,)) if dataset_id \
            else self._read(sql + " ORDER BY id")
        return [RelationEvent(*r) for r in rows]

    def bind_content(self, dataset_id: str, content: str, *, note: str,
                     identity: ContentIdentity | None = None) -> DatasetRecord:
        """The curator's word that these rows are (a version of) a known dataset: they share its budget."""
        return self._bind(dataset_id, _content(content), "bound", note, identity)

    def _bind(self, dataset_id: str, content: str, how: str, note: str,
              identity: ContentIdentity | None = None) -> DatasetRecord:
        self._require(dataset_id)
        with self._transaction() as c:
            row = c.execute(_OWNER, (content,)).fetchone()
            if row is None:
                c.execute("INSERT INTO dataset_contents VALUES (?, ?, ?, ?, ?)",
                          (content, dataset_id, how, note, _now()))
                _record_identity(c, content, identity)
                self._chain(c, "bind", content)
            elif row[0] != dataset_id:
                raise ValueError(f"these rows already belong to dataset {row[0]}; they cannot be bound "
                                 f"to {dataset_id}")
        return self._require(dataset_id)

    def unmatched_old_contents(self) -> bool:
        """Whether a content recorded before schema 8 (no column fingerprints) has not yet been
        matched to its rows' new identity: only then is the old row fingerprint worth computing."""
        return bool(self._read("SELECT 1 FROM dataset_contents c WHERE NOT EXISTS (SELECT 1 FROM "
                               "content_columns k WHERE k.content = c.content) AND NOT EXISTS (SELECT 1 "
                               "FROM dataset_contents m WHERE m.how = 'migrated' AND m.note = 'from ' || "
                               "c.content) LIMIT 1"))

    def adopt_old_content(self, old: str, content: str, identity: ContentIdentity | None
                          ) -> DatasetRecord | None:
        """Bind the rows' new identity ``content`` to the dataset whose pre-6 content was ``old`` (the
        same rows, so the same dataset: their budget is kept); the schema the curator declared for
        them follows. None when ``old`` is not a content of this ledger."""
        rows = self._read(_OWNER, (_content(old),))
        if not rows:
            return None
        record = self._bind(rows[0][0], _content(content), "migrated", f"from {old}", identity)
        with self._transaction() as c:
            c.execute("INSERT INTO declared_schemas SELECT ?, schema_json, at FROM declared_schemas "
                      "WHERE content = ? ON CONFLICT (content) DO NOTHING", (content, old))
        return record

    def sharing_columns(self, column_fps: Iterable[str]) -> dict[str, int]:
        """Known datasets holding some of these column fingerprints (informative ones only): dataset id
        → how many of them. The look-alike search: the columns' names play no part."""
        wanted = sorted(set(column_fps))
        if not wanted:
            return {}
        marks = ", ".join("?" * len(wanted))
        rows = self._read("SELECT c.dataset_id, COUNT(DISTINCT k.column_fp) FROM content_columns k JOIN "
                          "dataset_contents c ON c.content = k.content WHERE k.informative = 1 AND "
                          f"k.column_fp IN ({marks}) GROUP BY c.dataset_id", wanted)
        return {d: int(n) for d, n in rows}

    def row_sketches(self) -> list[tuple[str, int, tuple[int, ...]]]:
        """Every recorded content's row sketch: ``(dataset id, rows, sketch)`` (the look-alike search
        by shared rows; the few hundred numbers per content are compared by the caller)."""
        rows = self._read("SELECT c.dataset_id, r.rows, r.sketch FROM content_rows r JOIN dataset_contents c "
                          "ON c.content = r.content")
        return [(d, int(n), tuple(int(h[i:i + 16], 16) for i in range(0, len(h), 16))) for d, n, h in rows]

    def cached_fingerprint(self, file_id: bytes, check: bytes) -> dict[str, Any] | None:
        """The fingerprint cached for this file (its device and inode) if ``check`` (size, times,
        sampled blocks) still matches and its seal is valid; None otherwise. Private, like every
        fingerprint. An entry edited behind the ledger's back has no valid seal (:func:`_seal`)."""
        file_tag, check_tag = self._tag(b"file:", file_id), self._tag(b"check:", check)
        rows = self._read("SELECT fingerprint_json FROM fingerprint_cache WHERE file_tag = ? AND "
                          "check_tag = ?", (file_tag, check_tag))
        if not rows:
            return None
        doc = json.loads(rows[0][0])
        sealed = doc.pop(_SEAL, None) if isinstance(doc, dict) else None
        expected = _seal(file_tag, check_tag, doc)
        valid = expected is not None and isinstance(sealed, str) and hmac.compare_digest(sealed, expected)
        return doc if valid else None

    def cache_fingerprint(self, file_id: bytes, check: bytes, fingerprint: dict[str, Any]) -> None:
        """Keep a file's fingerprint, sealed (replacing what was cached for an older state of the
        file); nothing is cached when the seal's key cannot be kept (the cache only saves time)."""
        file_tag, check_tag = self._tag(b"file:", file_id), self._tag(b"check:", check)
        seal = _seal(file_tag, check_tag, fingerprint)
        if seal is None:
            return
        with self._transaction() as c:
            c.execute("INSERT INTO fingerprint_cache VALUES (?, ?, ?, ?) ON CONFLICT(file_tag) DO UPDATE SET "
                      "check_tag = excluded.check_tag, fingerprint_json = excluded.fingerprint_json, "
                      "at = excluded.at", (file_tag, check_tag,
                                           json.dumps({**fingerprint, _SEAL: seal}, sort_keys=True), _now()))

    def _tag(self, lane: bytes, data: bytes) -> str:
        return hmac.new(self.content_key(), lane + data, hashlib.sha256).hexdigest()

    # ------------------------------------------------------------------ datasets and budgets
    def dataset(self, dataset_id: str) -> DatasetRecord | None:
        rows = self._read(f"SELECT {_DATASET_COLUMNS} FROM datasets WHERE dataset_id = ?", (dataset_id,))
        return _dataset(rows[0]) if rows else None

    def datasets(self) -> list[DatasetRecord]:
        return [_dataset(r) for r in self._read(f"SELECT {_DATASET_COLUMNS} FROM datasets "
                                                "ORDER BY registered_at")]

    def budget(self, dataset_id: str) -> Budget:
        """The dataset's total and every run charged against it (whatever the run's status)."""
        record = self._require(dataset_id)
        return self._budget(record, self._read(
            "SELECT id, epsilon, delta FROM runs WHERE dataset_id = ? ORDER BY id", (dataset_id,)))

    @staticmethod
    def _budget(record: DatasetRecord, charges: Iterable[tuple]) -> Budget:
        b = Budget(record.total_epsilon, record.total_delta)
        b.charges.extend(Charge(str(i), Fraction(e), Fraction(d)) for i, e, d in charges)
        return b

    def raise_total(self, dataset_id: str, epsilon: float | str | Fraction,
                    delta: float | str | Fraction | None = None, *, note: str = "") -> DatasetRecord:
        """Raise a dataset's total budget: an explicit curator action, logged as a budget event (the
        note checked as every logged text is, :func:`~svtgui.core.public_text.public_text`)."""
        note = public_text(str(note), "the note", NOTE_LIMIT)
        record = self._require(dataset_id)
        b = Budget(record.total_epsilon, record.total_delta)
        b.raise_total(epsilon, delta)
        eps, dlt = exact_text(b.total_epsilon), exact_text(b.total_delta)
        with self._transaction() as c:
            current = c.execute("SELECT total_epsilon, total_delta FROM datasets WHERE dataset_id = ?",
                                (dataset_id,)).fetchone()
            if Fraction(current[0]) > b.total_epsilon or Fraction(current[1]) > b.total_delta:
                raise ValueError("the total was raised concurrently above the requested value; "
                                 "nothing changed")
            cur = c.execute("INSERT INTO budget_events (dataset_id, kind, epsilon, delta, previous_epsilon, "
                            "previous_delta, note, at, login) VALUES (?, 'raise', ?, ?, ?, ?, ?, ?, ?) "
                            "RETURNING id",
                            (dataset_id, eps, dlt, current[0], current[1], note, _now(), login()))
            self._chain(c, "event", cur.fetchone()[0])
            c.execute("UPDATE datasets SET total_epsilon = ?, total_delta = ? WHERE dataset_id = ?",
                      (eps, dlt, dataset_id))
        return self._require(dataset_id)

    def budget_events(self, dataset_id: str | None = None) -> list[BudgetEvent]:
        sql = ("SELECT dataset_id, kind, epsilon, delta, previous_epsilon, previous_delta, note, at, login "
               "FROM budget_events")
        rows = self._read(sql + " WHERE dataset_id = ? ORDER BY id", (dataset_id,)) if dataset_id \
            else self._read(sql + " ORDER BY id")
        return [BudgetEvent(f, k, Fraction(e), Fraction(d), _frac(pe), _frac(pd), n, at, login)
                for f, k, e, d, pe, pd, n, at, login in rows]

    def integrity_events(self) -> list[IntegrityEvent]:
        """Every integrity finding a curator accepted (``svtgui-cli ledger accept``), oldest first."""
        return [IntegrityEvent(*r) for r in self._read(
            "SELECT found, reason, login, host, at FROM integrity_events ORDER BY id")]

    def _require(self, dataset_id: str) -> DatasetRecord:
        record = self.dataset(dataset_id)
        if record is None:
            raise ValueError(f"dataset {dataset_id} is not in the ledger {self.path}; "
                             "register it with a total budget first")
        return record

    # ------------------------------------------------------------------ runs
    def start_run(self, dataset_id: str, mechanism_id: str, params: dict[str, Any],
                  epsilon: float | str | Fraction, delta: float | str | Fraction = 0, *,
                  secure: bool, noise_description: str, queries_planned: int | None = None,
                  declared: dict[str, Any] | None = None) -> RunRecord:
        """Charge a run its full guarantee, committed before this returns (so before any answer).

        Raises :class:`BudgetExceeded` (nothing charged) when it does not fit the remaining budget.
        The check and the charge happen in one write transaction, so two processes cannot both
        spend the last of a budget. A seeded run is stored as :data:`SEEDED_TEXT`, whatever
        ``noise_description`` says: a seed never enters the ledger. ``declared`` is what the curator
        had declared (public bounds, neighbouring; :meth:`declarations`), kept with the charge.
        """
        params_json = json.dumps(params, sort_keys=True, allow_nan=False)
        declared_json = None if declared is None else json.dumps(declared, sort_keys=True, allow_nan=False)
        description = noise_description if secure else SEEDED_TEXT
        with self._transaction() as c:
            record = self._require(dataset_id)
            charges = c.execute("SELECT id, epsilon, delta FROM runs WHERE dataset_id = ?",
                                (dataset_id,)).fetchall()
            eps, dlt = self._budget(record, charges).check(epsilon, delta)
            cur = c.execute(
                "INSERT INTO runs (dataset_id, mechanism_id, params_json, epsilon, delta, noise, "
                "noise_description, status, started_at, queries_planned, software_version, owner_host, "
                "owner_pid) VALUES (?, ?, ?, ?, ?, ?, ?, 'running', ?, ?, ?, ?, ?) RETURNING id",
                (dataset_id, mechanism_id, params_json, exact_text(eps), exact_text(dlt),
                 "secure" if secure else "seeded", description, _now(), queries_planned,
                 __version__, socket.gethostname(), os.getpid()))
            run_id = int(cur.fetchone()[0])
            if declared_json is not None:
                c.execute("INSERT INTO run_declarations VALUES (?, ?)", (run_id, declared_json))
            self._chain(c, "run", run_id)
            # A server ledger: the run is this session's until it ends, from before its commit, so no
            # other client's open can ever see it running and unheld (and mark it interrupted).
            self._db.hold_run(run_id)
        return self.run(run_id)

    def record(self, run_id: int, batch: ResponseBatch) -> str:
        """Commit a batch of responses in one transaction and stamp its commit time on it
        (``batch.time``, also returned). Call this *before* showing the responses.
        """
        at = _now()
        simulated = [None] * len(batch) if batch.simulated is None else \
            [int(s) for s in batch.simulated.tolist()]
        rows = zip(batch.index.tolist(), batch.description, batch.above.astype(int).tolist(), batch.values(),
                   batch.gaps(), simulated, strict=True)
        with self._transaction(serial=False) as c:  # responses neither check a budget nor extend the chain
            try:
                self._db.insert_rows(c, "responses", _RESPONSE_FIELDS,
                                     [(run_id, i, d, a, v, g, at, sim) for i, d, a, v, g, sim in rows])
            except self._db.IntegrityError as exc:
                raise ValueError(f"run {run_id}: {_first_line(exc)}") from None
        batch.time = at
        return at

    def record_fact(self, run_id: int, key: str, value: Any) -> None:
        """Commit a public value the run released besides its responses (once per key)."""
        with self._transaction() as c:
            try:
                c.execute("INSERT INTO run_facts VALUES (?, ?, ?, ?)",
                          (int(run_id), str(key), json.dumps(value, sort_keys=True, allow_nan=False), _now()))
            except self._db.IntegrityError as exc:
                raise ValueError(f"run {run_id}: fact {key!r}: {_first_line(exc)}") from None

    def declarations(self, run_id: int) -> dict[str, Any] | None:
        """What the curator had declared when the run was charged, or None (a run charged before 0.2)."""
        rows = self._read("SELECT declared_json FROM run_declarations WHERE run_id = ?", (int(run_id),))
        return json.loads(rows[0][0]) if rows else None

    def facts(self, run_id: int) -> dict[str, Any]:
        """The run's released facts, key → value."""
        rows = self._read("SELECT key, value_json FROM run_facts WHERE run_id = ? ORDER BY key",
                          (int(run_id),))
        return {k: json.loads(v) for k, v in rows}

    def finish_run(self, run_id: int, status: str) -> RunRecord:
        """End a running run with ``status`` (finished, halted, stopped or interrupted)."""
        if status not in END_STATUSES:
            raise ValueError(f"status must be one of {', '.join(END_STATUSES)}, got {status!r}")
        with self._transaction() as c:
            row = c.execute("SELECT status FROM runs WHERE id = ?", (run_id,)).fetchone()
            if row is None:
                raise ValueError(f"no run {run_id} in the ledger")
            if row[0] != RUNNING:
                raise ValueError(f"run {run_id} already ended ({row[0]})")
            c.execute("UPDATE runs SET status = ?, ended_at = ? WHERE id = ?", (status, _now(), run_id))
        with self._lock:
            self._db.release_run(run_id)
        return self.run(run_id)

    def run(self, run_id: int) -> RunRecord:
        rows = self._read(f"SELECT {_RUN_COLUMNS} FROM runs WHERE id = ?", (int(run_id),))
        if not rows:
            raise ValueError(f"no run {run_id} in the ledger {self.path}")
        return _run(rows[0])

    def runs(self, dataset_id: str | None = None) -> list[RunRecord]:
        if dataset_id is None:
            rows = self._read(f"SELECT {_RUN_COLUMNS} FROM runs ORDER BY id")
        else:
            rows = self._read(f"SELECT {_RUN_COLUMNS} FROM runs WHERE dataset_id = ? ORDER BY id",
                              (dataset_id,))
        return [_run(r) for r in rows]

    def responses(self, run_id: int, *, only_above: bool = False,
                  limit: int | None = None) -> list[ResponseRecord]:
        """The run's responses in order (only its ⊤ ones; only the first ``limit``)."""
        sql = (_RESPONSES + (" AND above = 1" if only_above else "") + " ORDER BY idx"
               + (f" LIMIT {int(limit)}" if limit is not None else ""))
        return [_response(r) for r in self._read(sql, (int(run_id),))]

    def response(self, run_id: int, index: int) -> ResponseRecord | None:
        """One committed response (the live table reads PMW's free answers back from here)."""
        rows = self._read(_RESPONSES + " AND idx = ?", (int(run_id), int(index)))
        return _response(rows[0]) if rows else None

    def response_counts(self, run_id: int) -> tuple[int, int]:
        """(responses recorded, of which ⊤) without loading them."""
        n, above = self._read("SELECT COUNT(*), COALESCE(SUM(above), 0) FROM responses WHERE run_id = ?",
                              (int(run_id),))[0]
        return int(n), int(above)


# The relation a budget is kept under: the last relation event, else (a dataset registered before
# schema 9) the registered relation with no public n.
_LAST_RELATION = ("(SELECT e.{} FROM relation_events e WHERE e.dataset_id = datasets.dataset_id "
                  "ORDER BY e.id DESC LIMIT 1)")
_SEAL = "seal"  # a cached fingerprint's seal, kept in its JSON


def _seal(file_tag: str, check_tag: str, fingerprint: Any) -> str | None:
    """The seal of a cached fingerprint: an HMAC under :func:`svtgui.ledger.anchor.seal_key`, kept
    outside the ledger file, so that editing the cache with ``sqlite3`` cannot move rows to a fresh
    or another dataset's budget. None when the key cannot be read or made (nothing is then trusted)."""
    try:
        key = anchor.seal_key()
    except OSError:
        return None
    text = f"{file_tag}\n{check_tag}\n{json.dumps(fingerprint, sort_keys=True)}"
    return hmac.new(key, text.encode(), hashlib.sha256).hexdigest()


_PUBLIC_NAME = ("COALESCE((SELECT p.name FROM public_names p WHERE p.dataset_id = datasets.dataset_id "
                "ORDER BY p.id DESC LIMIT 1), dataset_id)")
_DATASET_COLUMNS = (f"dataset_id, name, total_epsilon, total_delta, "
                    f"COALESCE({_LAST_RELATION.format('neighbouring')}, neighbouring), bounds_json, "
                    f"registered_at, columns_json, {_LAST_RELATION.format('public_n')}, {_PUBLIC_NAME}")
_RUN_COLUMNS = ("id, dataset_id, mechanism_id, params_json, epsilon, delta, noise, noise_description, "
                "status, started_at, ended_at, queries_planned, software_version")
_RESPONSE_FIELDS = ("run_id", "idx", "description", "above", "value", "gap", "time", "simulated")
_OWNER = "SELECT dataset_id FROM dataset_contents WHERE content = ?"
_RESPONSES = ("SELECT run_id, idx, description, above, value, gap, time, simulated FROM responses "
              "WHERE run_id = ?")


def _record_identity(c: Any, content: str, identity: ContentIdentity | None) -> None:
    """Record a new content's column fingerprints and row sketch (in the transaction that records it)."""
    if identity is None:
        return
    c.executemany("INSERT INTO content_columns VALUES (?, ?, ?, ?)",
                  ((content, i, _content(fp), int(bool(informative)))
                   for i, (fp, informative) in enumerate(identity.columns)))
    if identity.sketch:
        c.execute("INSERT INTO content_rows VALUES (?, ?, ?)",
                  (content, int(identity.rows), "".join(f"{int(v):016x}" for v in identity.sketch)))


def _content(content: str) -> str:
    """A keyed content or column fingerprint as :mod:`svtgui.data.fingerprint` makes it (64 hex digits)."""
    if not isinstance(content, str) or not _CONTENT.fullmatch(content):
        raise ValueError("a content fingerprint is 64 lowercase hex digits (svtgui.data.fingerprint)")
    return content


def _response(row: tuple) -> ResponseRecord:
    r, i, d, a, v, g, t, sim = row
    return ResponseRecord(r, i, d, bool(a), _number(v), g, t, None if sim is None else bool(sim))


def _run(row: tuple) -> RunRecord:
    i, f, m, p, e, d, noise, desc, status, start, end, planned, version = row
    return RunRecord(int(i), f, m, json.loads(p), Fraction(e), Fraction(d), noise, desc, status, start, end,
                     planned, version)


def _dataset(row: tuple) -> DatasetRecord:
    f, name, e, d, nb, bounds, at, cols, n, public = row
    return DatasetRecord(f, name, Fraction(e), Fraction(d), nb, json.loads(bounds), at,
                         None if cols is None else tuple(json.loads(cols)), None if n is None else int(n),
                         public)


def _number(v: float | None) -> float | int | None:
    return None if v is None else number(v)


def _first_line(exc: BaseException) -> str:
    """A database's message without the context lines a server adds."""
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
