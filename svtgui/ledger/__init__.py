"""The privacy ledger: one SQLite database per user recording every dataset's budget and every release.

Why a database rather than a JSON file: the ledger is the *write-ahead log of release*. A run's full
guarantee is committed before its first answer, and every response is committed before anyone sees
it, so after a crash (kill -9, power loss) the ledger still knows what was spent and what was shown.
SQLite in WAL mode gives atomic, durable transactions from the standard library.

Rules the schema itself enforces (triggers), so no code path can break them by accident:

* nothing is ever deleted; responses are never changed; a run's charge and dataset never change;
* a dataset's total budget is only changed through :meth:`Ledger.raise_total`, which logs an event.

Datasets are keyed by their content fingerprint, so re-loading, renaming or moving a file finds the
same budget. Amounts are stored as exact decimal text and summed as :class:`fractions.Fraction`
through :class:`svtgui.core.budget.Budget`.
"""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import stat
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from fractions import Fraction
from pathlib import Path
from typing import Any

from svtgui import __version__
from svtgui.core.budget import Budget, BudgetExceeded, Charge

SCHEMA_VERSION = 2
APPLICATION_ID = 0x53565447  # "SVTG": marks the file as ours, so a foreign database is never touched
ENV_VAR = "SVTGUI_LEDGER"

RUNNING, FINISHED, HALTED, STOPPED, INTERRUPTED = "running", "finished", "halted", "stopped", "interrupted"
END_STATUSES = (FINISHED, HALTED, STOPPED, INTERRUPTED)

__all__ = [
    "BudgetExceeded", "DatasetRecord", "FREE_TEXT", "Ledger", "LedgerError", "PAID_TEXT", "ResponseRecord",
    "RunRecord",
    "default_path", "exact_text",
]


class LedgerError(RuntimeError):
    """The ledger cannot be used (corrupt, locked, read-only, newer schema, not ours).

    The file is never modified or replaced when this is raised: the budget history it holds is
    the only record of what was already spent.
    """


def default_path() -> Path:
    """``$SVTGUI_LEDGER`` if set, else ``ledger.sqlite`` in the per-user data directory."""
    env = os.environ.get(ENV_VAR)
    if env:
        return Path(env).expanduser()
    import platformdirs  # imported lazily: only needed when no explicit path is given

    return Path(platformdirs.user_data_dir("svtgui", "SVT Studio")) / "ledger.sqlite"


def exact_text(x: Fraction) -> str:
    """Exact decimal text of an amount ("0.1", not "1/10"); ``p/q`` only for non-decimal rationals."""
    den = x.denominator
    twos = fives = 0
    while den % 2 == 0:
        den //= 2
        twos += 1
    while den % 5 == 0:
        den //= 5
        fives += 1
    if den != 1:
        return f"{x.numerator}/{x.denominator}"
    places = max(twos, fives)
    scaled = x * 10**places
    sign = "-" if scaled < 0 else ""
    digits = str(abs(scaled.numerator)).rjust(places + 1, "0")
    text = digits if places == 0 else f"{digits[:-places]}.{digits[-places:]}"
    return sign + text


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


@dataclass(frozen=True)
class DatasetRecord:
    """A registered dataset: its identity and its total budget (public information)."""

    fingerprint: str
    name: str
    total_epsilon: Fraction
    total_delta: Fraction
    neighbouring: str
    bounds: dict[str, Any]
    registered_at: str


@dataclass(frozen=True)
class RunRecord:
    """One run: what was charged, with which public parameters, and how it ended."""

    id: int
    fingerprint: str
    mechanism_id: str
    params: dict[str, Any]
    epsilon: Fraction
    delta: Fraction
    noise: str  # "secure" or "seeded"
    noise_description: str
    status: str
    started_at: str
    ended_at: str | None
    queries_planned: int | None
    software_version: str

    @property
    def secure(self) -> bool:
        return self.noise == "secure"


@dataclass(frozen=True)
class ResponseRecord:
    """One committed response: exactly what was (or may have been) shown."""

    run_id: int
    index: int
    description: str
    above: bool
    value: float | int | None
    gap: float | None
    time: str
    # PMW: True = answered from the public synthetic histogram (free), False = paid; None = not PMW.
    answered_from_simulation: bool | None = None

    @property
    def symbol(self) -> str:
        return "⊤" if self.above else "⊥"

    @property
    def result(self) -> str:
        """What the curator reads: ⊤/⊥, or whether a PMW answer was free or paid for."""
        if self.answered_from_simulation is None:
            return self.symbol
        return FREE_TEXT if self.answered_from_simulation else PAID_TEXT


FREE_TEXT, PAID_TEXT = "free (simulated)", "paid"


@dataclass(frozen=True)
class BudgetEvent:
    """A logged change of a dataset's total budget (registration or an explicit raise)."""

    fingerprint: str
    kind: str  # "register" or "raise"
    epsilon: Fraction
    delta: Fraction
    previous_epsilon: Fraction | None
    previous_delta: Fraction | None
    note: str
    at: str


_SCHEMA_V1 = """
CREATE TABLE datasets (
    fingerprint   TEXT PRIMARY KEY,
    name          TEXT NOT NULL,
    total_epsilon TEXT NOT NULL,
    total_delta   TEXT NOT NULL,
    neighbouring  TEXT NOT NULL,
    bounds_json   TEXT NOT NULL,
    registered_at TEXT NOT NULL
);
CREATE TABLE runs (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    fingerprint      TEXT NOT NULL REFERENCES datasets(fingerprint),
    mechanism_id     TEXT NOT NULL,
    params_json      TEXT NOT NULL,
    epsilon          TEXT NOT NULL,
    delta            TEXT NOT NULL,
    noise            TEXT NOT NULL CHECK (noise IN ('secure', 'seeded')),
    noise_description TEXT NOT NULL,
    status           TEXT NOT NULL
                     CHECK (status IN ('running', 'finished', 'halted', 'stopped', 'interrupted')),
    started_at       TEXT NOT NULL,
    ended_at         TEXT,
    queries_planned  INTEGER,
    software_version TEXT NOT NULL,
    owner_host       TEXT NOT NULL,
    owner_pid        INTEGER NOT NULL
);
CREATE INDEX runs_by_dataset ON runs(fingerprint);
CREATE TABLE responses (
    run_id      INTEGER NOT NULL REFERENCES runs(id),
    idx         INTEGER NOT NULL,
    description TEXT NOT NULL,
    above       INTEGER NOT NULL CHECK (above IN (0, 1)),
    value       REAL,
    gap         REAL,
    time        TEXT NOT NULL,
    PRIMARY KEY (run_id, idx)
) WITHOUT ROWID;
CREATE TABLE budget_events (
    id                INTEGER PRIMARY KEY AUTOINCREMENT,
    fingerprint       TEXT NOT NULL REFERENCES datasets(fingerprint),
    kind              TEXT NOT NULL CHECK (kind IN ('register', 'raise')),
    epsilon           TEXT NOT NULL,
    delta             TEXT NOT NULL,
    previous_epsilon  TEXT,
    previous_delta    TEXT,
    note              TEXT NOT NULL,
    at                TEXT NOT NULL
);
CREATE TRIGGER datasets_no_delete BEFORE DELETE ON datasets
BEGIN SELECT RAISE(ABORT, 'the ledger is append-only: datasets are never deleted'); END;
CREATE TRIGGER datasets_identity BEFORE UPDATE OF fingerprint, registered_at, neighbouring ON datasets
BEGIN SELECT RAISE(ABORT, 'a dataset''s identity never changes'); END;
CREATE TRIGGER datasets_total_logged BEFORE UPDATE OF total_epsilon, total_delta ON datasets
WHEN NOT EXISTS (SELECT 1 FROM budget_events e WHERE e.fingerprint = NEW.fingerprint AND e.kind = 'raise'
                 AND e.epsilon = NEW.total_epsilon AND e.delta = NEW.total_delta)
BEGIN SELECT RAISE(ABORT, 'a total budget changes only by a logged raise'); END;
CREATE TRIGGER runs_no_delete BEFORE DELETE ON runs
BEGIN SELECT RAISE(ABORT, 'the ledger is append-only: runs are never deleted'); END;
CREATE TRIGGER runs_charge_fixed
BEFORE UPDATE OF fingerprint, mechanism_id, params_json, epsilon, delta, noise, started_at ON runs
BEGIN SELECT RAISE(ABORT, 'a run''s charge and parameters never change'); END;
CREATE TRIGGER runs_end_once BEFORE UPDATE OF status ON runs WHEN OLD.status != 'running'
BEGIN SELECT RAISE(ABORT, 'a run that has ended cannot change its status'); END;
CREATE TRIGGER responses_no_update BEFORE UPDATE ON responses
BEGIN SELECT RAISE(ABORT, 'the ledger is append-only: responses are never changed'); END;
CREATE TRIGGER responses_no_delete BEFORE DELETE ON responses
BEGIN SELECT RAISE(ABORT, 'the ledger is append-only: responses are never deleted'); END;
CREATE TRIGGER responses_only_running BEFORE INSERT ON responses
WHEN (SELECT status FROM runs WHERE id = NEW.run_id) IS NOT 'running'
BEGIN SELECT RAISE(ABORT, 'responses can only be recorded for a running run'); END;
CREATE TRIGGER events_no_delete BEFORE DELETE ON budget_events
BEGIN SELECT RAISE(ABORT, 'the ledger is append-only: budget events are never deleted'); END;
CREATE TRIGGER events_no_update BEFORE UPDATE ON budget_events
BEGIN SELECT RAISE(ABORT, 'the ledger is append-only: budget events are never changed'); END;
"""

# v2: PMW responses say whether they were free (answered from the public synthetic histogram) or
# paid (NULL for every other mechanism, and for every response recorded before v2); run_facts holds
# the other public values a run releases (PMW's noisy n̂, a SparseProject release file's hash).
_SCHEMA_V2 = """
ALTER TABLE responses ADD COLUMN simulated INTEGER CHECK (simulated IN (0, 1));
CREATE TABLE run_facts (
    run_id     INTEGER NOT NULL REFERENCES runs(id),
    key        TEXT NOT NULL,
    value_json TEXT NOT NULL,
    at         TEXT NOT NULL,
    PRIMARY KEY (run_id, key)
) WITHOUT ROWID;
CREATE TRIGGER facts_no_update BEFORE UPDATE ON run_facts
BEGIN SELECT RAISE(ABORT, 'the ledger is append-only: run facts are never changed'); END;
CREATE TRIGGER facts_no_delete BEFORE DELETE ON run_facts
BEGIN SELECT RAISE(ABORT, 'the ledger is append-only: run facts are never deleted'); END;
"""

# version -> script upgrading from version-1 to version. Add an entry (never edit one) per change.
MIGRATIONS: dict[int, str] = {1: _SCHEMA_V1, 2: _SCHEMA_V2}
_TABLES = {"datasets", "runs", "responses", "budget_events"}
_TABLES_AT = {1: _TABLES, 2: _TABLES | {"run_facts"}}  # tables a ledger of each version must have


def _frac(text: str | None) -> Fraction | None:
    return None if text is None else Fraction(text)


class Ledger:
    """A connection to the ledger. Thread-safe (one lock), usable from the GUI's worker thread.

    Open with :meth:`open`; close with :meth:`close` or a ``with`` block.
    """

    def __init__(self, conn: sqlite3.Connection, path: Path) -> None:
        self._conn = conn
        self.path = path
        self._lock = threading.RLock()
        self.recovered: list[int] = []  # runs this open marked 'interrupted'

    # ------------------------------------------------------------------ opening
    @classmethod
    def open(cls, path: str | os.PathLike[str] | None = None, *, timeout: float = 5.0) -> Ledger:
        """Open (creating if absent) the ledger at ``path`` (default: :func:`default_path`).

        Marks runs left ``running`` by a dead process as ``interrupted`` (their budget stays spent).
        Raises :class:`LedgerError` for a corrupt, locked, read-only, foreign or newer ledger.
        """
        p = Path(path).expanduser() if path is not None else default_path()
        if p.exists() and not p.is_file():
            raise LedgerError(f"ledger {p} is not a file")
        if p.exists() and _read_only(p):
            raise LedgerError(f"ledger {p} is read-only (or unreadable); SVT Studio must be able to "
                              "write it to record what is spent. Fix its permissions or use --ledger.")
        try:
            p.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise LedgerError(f"cannot create the ledger directory {p.parent}: {exc.strerror}") from None
        if not p.exists() and not os.access(p.parent, os.W_OK):
            raise LedgerError(f"cannot create ledger {p}: directory {p.parent} is read-only")
        try:
            conn = sqlite3.connect(p, timeout=timeout, isolation_level=None, check_same_thread=False)
        except sqlite3.Error as exc:
            raise LedgerError(f"cannot open ledger {p}: {exc}") from None
        ledger = cls(conn, p)
        try:
            ledger._prepare()
            ledger._recover_interrupted()
        except LedgerError:
            conn.close()
            raise
        except sqlite3.Error as exc:
            conn.close()
            raise _translate(exc, p) from None
        return ledger

    def _prepare(self) -> None:
        c = self._conn
        c.execute("PRAGMA foreign_keys = ON")
        version = c.execute("PRAGMA user_version").fetchone()[0]  # reading first detects a non-database
        app_id = c.execute("PRAGMA application_id").fetchone()[0]
        tables = {r[0] for r in c.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if version > SCHEMA_VERSION:
            raise LedgerError(f"ledger {self.path} has schema version {version}, newer than this SVT Studio "
                              f"understands ({SCHEMA_VERSION}); upgrade SVT Studio. "
                              "The file was not changed.")
        if (tables - {"sqlite_sequence"}) and app_id != APPLICATION_ID:
            raise LedgerError(f"{self.path} is an SQLite database but not an SVT Studio ledger; "
                              "it was not changed. Choose another --ledger path.")
        expected = _TABLES_AT[version] if version >= 1 else set()
        if not expected <= tables:
            raise LedgerError(f"ledger {self.path} is damaged (missing tables {sorted(expected - tables)}); "
                              "it was not changed.")
        mode = c.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        if mode.lower() != "wal":
            raise LedgerError(f"ledger {self.path}: cannot enable write-ahead logging (mode {mode})")
        c.execute("PRAGMA synchronous = FULL")  # a commit survives power loss, not only a process crash
        if version < SCHEMA_VERSION:
            with self._transaction():
                for v in range(version + 1, SCHEMA_VERSION + 1):
                    for statement in _statements(MIGRATIONS[v]):
                        c.execute(statement)
                c.execute(f"PRAGMA application_id = {APPLICATION_ID}")
                c.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def _recover_interrupted(self) -> None:
        """Mark runs whose owning process is gone as interrupted (their budget stays spent)."""
        host = socket.gethostname()
        with self._transaction():
            rows = self._conn.execute(
                "SELECT id, owner_host, owner_pid FROM runs WHERE status = 'running'").fetchall()
            for run_id, owner_host, owner_pid in rows:
                if owner_host == host and _alive(owner_pid):
                    continue  # a live process (perhaps this one) is still streaming it
                self._conn.execute("UPDATE runs SET status = 'interrupted', ended_at = ? WHERE id = ?",
                                   (_now(), run_id))
                self.recovered.append(run_id)

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __enter__(self) -> Ledger:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """One atomic, durable write: ``BEGIN IMMEDIATE`` takes the write lock up front."""
        with self._lock:
            try:
                self._conn.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as exc:
                raise _translate(exc, self.path) from None
            try:
                yield self._conn
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            try:
                self._conn.execute("COMMIT")
            except sqlite3.Error as exc:
                self._conn.execute("ROLLBACK")
                raise _translate(exc, self.path) from None

    def _read(self, sql: str, args: Sequence[Any] = ()) -> list[tuple]:
        with self._lock:
            try:
                return self._conn.execute(sql, args).fetchall()
            except sqlite3.Error as exc:
                raise _translate(exc, self.path) from None

    # ------------------------------------------------------------------ datasets and budgets
    def register_dataset(self, fingerprint: str, name: str, total_epsilon: float | str | Fraction,
                         total_delta: float | str | Fraction = 0, *, neighbouring: str = "add_remove",
                         bounds: dict[str, Any] | None = None) -> tuple[DatasetRecord, bool]:
        """Register a dataset with its total budget; returns ``(record, created)``.

        A fingerprint already in the ledger keeps its original total and history whatever is
        passed here (re-loading or renaming a file must not reset a budget): ``created`` is False.
        """
        if not isinstance(fingerprint, str) or not fingerprint:
            raise ValueError(f"fingerprint must be a non-empty string, got {fingerprint!r}")
        existing = self.dataset(fingerprint)
        if existing is not None:
            return existing, False
        total = Budget.of(total_epsilon, total_delta)
        at = _now()
        eps, dlt = exact_text(total.total_epsilon), exact_text(total.total_delta)
        with self._transaction() as c:
            if c.execute("SELECT 1 FROM datasets WHERE fingerprint = ?", (fingerprint,)).fetchone():
                pass  # registered concurrently by another process: theirs stands
            else:
                c.execute("INSERT INTO datasets VALUES (?, ?, ?, ?, ?, ?, ?)",
                          (fingerprint, str(name), eps, dlt, str(neighbouring),
                           json.dumps(bounds or {}, sort_keys=True, allow_nan=False), at))
                c.execute("INSERT INTO budget_events (fingerprint, kind, epsilon, delta, note, at) "
                          "VALUES (?, 'register', ?, ?, ?, ?)",
                          (fingerprint, eps, dlt, f"registered as {name}", at))
        record = self.dataset(fingerprint)
        assert record is not None
        return record, record.registered_at == at

    def dataset(self, fingerprint: str) -> DatasetRecord | None:
        rows = self._read("SELECT * FROM datasets WHERE fingerprint = ?", (fingerprint,))
        return _dataset(rows[0]) if rows else None

    def datasets(self) -> list[DatasetRecord]:
        return [_dataset(r) for r in self._read("SELECT * FROM datasets ORDER BY registered_at")]

    def budget(self, fingerprint: str) -> Budget:
        """The dataset's total and every run charged against it (whatever the run's status)."""
        record = self._require(fingerprint)
        return self._budget(record, self._read(
            "SELECT id, epsilon, delta FROM runs WHERE fingerprint = ? ORDER BY id", (fingerprint,)))

    @staticmethod
    def _budget(record: DatasetRecord, charges: Iterable[tuple]) -> Budget:
        b = Budget(record.total_epsilon, record.total_delta)
        b.charges.extend(Charge(str(i), Fraction(e), Fraction(d)) for i, e, d in charges)
        return b

    def raise_total(self, fingerprint: str, epsilon: float | str | Fraction,
                    delta: float | str | Fraction | None = None, *, note: str = "") -> DatasetRecord:
        """Raise a dataset's total budget: an explicit curator action, logged as a budget event."""
        record = self._require(fingerprint)
        b = Budget(record.total_epsilon, record.total_delta)
        b.raise_total(epsilon, delta)
        eps, dlt = exact_text(b.total_epsilon), exact_text(b.total_delta)
        with self._transaction() as c:
            current = c.execute("SELECT total_epsilon, total_delta FROM datasets WHERE fingerprint = ?",
                                (fingerprint,)).fetchone()
            if Fraction(current[0]) > b.total_epsilon or Fraction(current[1]) > b.total_delta:
                raise ValueError("the total was raised concurrently above the requested value; "
                                 "nothing changed")
            c.execute("INSERT INTO budget_events (fingerprint, kind, epsilon, delta, previous_epsilon, "
                      "previous_delta, note, at) VALUES (?, 'raise', ?, ?, ?, ?, ?, ?)",
                      (fingerprint, eps, dlt, current[0], current[1], note, _now()))
            c.execute("UPDATE datasets SET total_epsilon = ?, total_delta = ? WHERE fingerprint = ?",
                      (eps, dlt, fingerprint))
        return self._require(fingerprint)

    def budget_events(self, fingerprint: str | None = None) -> list[BudgetEvent]:
        sql = ("SELECT fingerprint, kind, epsilon, delta, previous_epsilon, previous_delta, note, at "
               "FROM budget_events")
        rows = self._read(sql + " WHERE fingerprint = ? ORDER BY id", (fingerprint,)) if fingerprint \
            else self._read(sql + " ORDER BY id")
        return [BudgetEvent(f, k, Fraction(e), Fraction(d), _frac(pe), _frac(pd), n, at)
                for f, k, e, d, pe, pd, n, at in rows]

    def _require(self, fingerprint: str) -> DatasetRecord:
        record = self.dataset(fingerprint)
        if record is None:
            raise ValueError(f"dataset {fingerprint[:12]}… is not in the ledger {self.path}; "
                             "register it with a total budget first")
        return record

    # ------------------------------------------------------------------ runs
    def start_run(self, fingerprint: str, mechanism_id: str, params: dict[str, Any],
                  epsilon: float | str | Fraction, delta: float | str | Fraction = 0, *,
                  secure: bool, noise_description: str, queries_planned: int | None = None) -> RunRecord:
        """Charge a run its full guarantee, committed before this returns (so before any answer).

        Raises :class:`BudgetExceeded` (nothing charged) when it does not fit the remaining budget.
        The check and the charge happen in one write transaction, so two processes cannot both
        spend the last of a budget.
        """
        params_json = json.dumps(params, sort_keys=True, allow_nan=False)
        with self._transaction() as c:
            record = self._require(fingerprint)
            charges = c.execute("SELECT id, epsilon, delta FROM runs WHERE fingerprint = ?",
                                (fingerprint,)).fetchall()
            eps, dlt = self._budget(record, charges).check(epsilon, delta)
            cur = c.execute(
                "INSERT INTO runs (fingerprint, mechanism_id, params_json, epsilon, delta, noise, "
                "noise_description, status, started_at, queries_planned, software_version, owner_host, "
                "owner_pid) VALUES (?, ?, ?, ?, ?, ?, ?, 'running', ?, ?, ?, ?, ?)",
                (fingerprint, mechanism_id, params_json, exact_text(eps), exact_text(dlt),
                 "secure" if secure else "seeded", noise_description, _now(), queries_planned,
                 __version__, socket.gethostname(), os.getpid()))
            run_id = int(cur.lastrowid)
        return self.run(run_id)

    def record(self, run_id: int, rows: Sequence[tuple]) -> str:
        """Commit responses ``(index, description, above, value, gap[, answered_from_simulation])``
        in one transaction (the last field only for PMW: True free, False paid).

        Returns the commit time stamped on them. Call this *before* showing the responses.
        """
        at = _now()
        with self._transaction() as c:
            try:
                c.executemany("INSERT INTO responses (run_id, idx, description, above, value, gap, time, "
                              "simulated) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                              ((run_id, int(r[0]), str(r[1]), int(bool(r[2])), r[3], r[4], at,
                                None if len(r) < 6 or r[5] is None else int(bool(r[5]))) for r in rows))
            except sqlite3.IntegrityError as exc:
                raise ValueError(f"run {run_id}: {exc}") from None
        return at

    def record_fact(self, run_id: int, key: str, value: Any) -> None:
        """Commit a public value the run released besides its responses (once per key)."""
        with self._transaction() as c:
            try:
                c.execute("INSERT INTO run_facts VALUES (?, ?, ?, ?)",
                          (int(run_id), str(key), json.dumps(value, sort_keys=True, allow_nan=False), _now()))
            except sqlite3.IntegrityError as exc:
                raise ValueError(f"run {run_id}: fact {key!r}: {exc}") from None

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
        return self.run(run_id)

    def run(self, run_id: int) -> RunRecord:
        rows = self._read(f"SELECT {_RUN_COLUMNS} FROM runs WHERE id = ?", (int(run_id),))
        if not rows:
            raise ValueError(f"no run {run_id} in the ledger {self.path}")
        return _run(rows[0])

    def runs(self, fingerprint: str | None = None) -> list[RunRecord]:
        if fingerprint is None:
            rows = self._read(f"SELECT {_RUN_COLUMNS} FROM runs ORDER BY id")
        else:
            rows = self._read(f"SELECT {_RUN_COLUMNS} FROM runs WHERE fingerprint = ? ORDER BY id",
                              (fingerprint,))
        return [_run(r) for r in rows]

    def responses(self, run_id: int, *, only_above: bool = False) -> list[ResponseRecord]:
        sql = _RESPONSES + (" AND above = 1" if only_above else "") + " ORDER BY idx"
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


_RUN_COLUMNS = ("id, fingerprint, mechanism_id, params_json, epsilon, delta, noise, noise_description, "
                "status, started_at, ended_at, queries_planned, software_version")


_RESPONSES = ("SELECT run_id, idx, description, above, value, gap, time, simulated FROM responses "
              "WHERE run_id = ?")


def _response(row: tuple) -> ResponseRecord:
    r, i, d, a, v, g, t, sim = row
    return ResponseRecord(r, i, d, bool(a), _number(v), g, t, None if sim is None else bool(sim))


def _run(row: tuple) -> RunRecord:
    i, f, m, p, e, d, noise, desc, status, start, end, planned, version = row
    return RunRecord(int(i), f, m, json.loads(p), Fraction(e), Fraction(d), noise, desc, status, start, end,
                     planned, version)


def _dataset(row: tuple) -> DatasetRecord:
    f, name, e, d, nb, bounds, at = row
    return DatasetRecord(f, name, Fraction(e), Fraction(d), nb, json.loads(bounds), at)


def _number(v: float | None) -> float | int | None:
    if v is None:
        return None
    return int(v) if float(v).is_integer() and abs(v) < 2**53 else float(v)


def _statements(script: str) -> list[str]:
    """Split a migration script into statements (``executescript`` would commit our transaction)."""
    out, buf = [], ""
    for line in script.strip().splitlines():
        buf += line + "\n"
        if sqlite3.complete_statement(buf):
            out.append(buf.strip())
            buf = ""
    return out


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


def _translate(exc: sqlite3.Error, path: Path) -> LedgerError:
    """A clear message for the ways a ledger cannot be used."""
    text = str(exc)
    if "locked" in text or "busy" in text:
        return LedgerError(f"ledger {path} is locked by another program; close it (or wait) and retry")
    if "readonly" in text or "read-only" in text:
        return LedgerError(f"ledger {path} is read-only; SVT Studio must be able to write it")
    if "not a database" in text or "malformed" in text or "corrupt" in text:
        return LedgerError(f"ledger {path} is corrupt ({text}); it was not changed. Restore it from a backup "
                           "or point --ledger elsewhere")
    return LedgerError(f"ledger {path}: {text}")

