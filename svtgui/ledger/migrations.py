"""The ledger's schema, one migration per version (never edit a step: add one).

A fresh ledger is built by running every step from version 1, so a new file and a migrated one end
with exactly the same schema. Steps run inside the write transaction that also reads the schema
version (see :meth:`svtgui.ledger.store.Ledger._prepare`): two processes opening a fresh path at
once cannot both migrate it.

Version 3 (SVT Studio 0.2) stopped naming datasets by a plain SHA-256 of the data file: a hash of
the data in a public report lets anyone who knows every row but one test candidate values for the
last row. Datasets get a random public id; the budget is found through a *keyed* content
fingerprint of the parsed rows (:mod:`svtgui.data.fingerprint`) whose key is stored only here.
Old datasets keep their budget and runs under a new random id; their old file hash is kept only
as an HMAC under the ledger key, so the first time the same file is opened again its rows are
bound to the old budget automatically. Seeds are scrubbed from seeded runs' descriptions.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import sqlite3
from collections.abc import Callable

from svtgui.ledger import chain
from svtgui.ledger.records import SEEDED_TEXT

SCHEMA_VERSION = 11
KEY_BYTES = 32
DATASET_ID_PREFIX = "ds-"
LEDGER_ID_PREFIX = "lg-"


def new_dataset_id() -> str:
    """A random public dataset id (64 bits from the OS CSPRNG): says nothing about the data."""
    return DATASET_ID_PREFIX + secrets.token_hex(8)


def legacy_tag(key: bytes, file_sha256: str) -> str:
    """The keyed form of a pre-0.2 dataset fingerprint (the SHA-256 of the file's bytes)."""
    return hmac.new(key, b"legacy-file-sha256:" + file_sha256.lower().encode(), hashlib.sha256).hexdigest()


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


# v3, part 1 (SQL): public ids instead of file hashes, the private key and content fingerprints.
_SCHEMA_V3 = """
ALTER TABLE datasets RENAME COLUMN fingerprint TO dataset_id;
ALTER TABLE runs RENAME COLUMN fingerprint TO dataset_id;
ALTER TABLE budget_events RENAME COLUMN fingerprint TO dataset_id;
ALTER TABLE datasets ADD COLUMN columns_json TEXT;
DROP TRIGGER datasets_identity;
DROP TRIGGER runs_charge_fixed;
DROP TRIGGER events_no_update;
CREATE TABLE ledger_key (
    id  INTEGER PRIMARY KEY CHECK (id = 1),
    key BLOB NOT NULL CHECK (length(key) >= 16)
);
CREATE TABLE dataset_contents (
    content     TEXT PRIMARY KEY,
    dataset_id  TEXT NOT NULL REFERENCES datasets(dataset_id),
    how         TEXT NOT NULL CHECK (how IN ('registered', 'bound', 'migrated')),
    note        TEXT NOT NULL,
    at          TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX contents_by_dataset ON dataset_contents(dataset_id);
CREATE TABLE legacy_files (
    tag         TEXT PRIMARY KEY,
    dataset_id  TEXT NOT NULL REFERENCES datasets(dataset_id)
) WITHOUT ROWID;
"""

# v3, part 2 (SQL, after the ids were replaced): the identity and append-only rules again.
_SCHEMA_V3_RULES = """
CREATE TRIGGER datasets_identity BEFORE UPDATE OF dataset_id, registered_at, neighbouring ON datasets
BEGIN SELECT RAISE(ABORT, 'a dataset''s identity never changes'); END;
CREATE TRIGGER runs_charge_fixed
BEFORE UPDATE OF dataset_id, mechanism_id, params_json, epsilon, delta, noise, noise_description, started_at
ON runs
BEGIN SELECT RAISE(ABORT, 'a run''s charge and parameters never change'); END;
CREATE TRIGGER events_no_update BEFORE UPDATE ON budget_events
BEGIN SELECT RAISE(ABORT, 'the ledger is append-only: budget events are never changed'); END;
CREATE TRIGGER runs_no_seed BEFORE INSERT ON runs
WHEN NEW.noise = 'seeded' AND NEW.noise_description != '""" + SEEDED_TEXT + """'
BEGIN SELECT RAISE(ABORT, 'a seeded run is recorded without its seed'); END;
CREATE TRIGGER key_fixed BEFORE UPDATE ON ledger_key
BEGIN SELECT RAISE(ABORT, 'the ledger key never changes'); END;
CREATE TRIGGER key_no_delete BEFORE DELETE ON ledger_key
BEGIN SELECT RAISE(ABORT, 'the ledger key is never deleted'); END;
CREATE TRIGGER contents_no_update BEFORE UPDATE ON dataset_contents
BEGIN SELECT RAISE(ABORT, 'the ledger is append-only: a content binding never changes'); END;
CREATE TRIGGER contents_no_delete BEFORE DELETE ON dataset_contents
BEGIN SELECT RAISE(ABORT, 'the ledger is append-only: a content binding is never deleted'); END;
CREATE TRIGGER legacy_no_change BEFORE UPDATE ON legacy_files
BEGIN SELECT RAISE(ABORT, 'the ledger is append-only: migrated file tags never change'); END;
CREATE TRIGGER legacy_no_delete BEFORE DELETE ON legacy_files
BEGIN SELECT RAISE(ABORT, 'the ledger is append-only: migrated file tags are never deleted'); END;
"""


def _to_v3(c: sqlite3.Connection) -> None:
    """Random ids for existing datasets (runs and events follow), keyed legacy tags, no seeds."""
    c.execute("PRAGMA defer_foreign_keys = ON")  # parent and child ids change in one transaction
    run(c, _SCHEMA_V3)
    key = secrets.token_bytes(KEY_BYTES)
    c.execute("INSERT INTO ledger_key VALUES (1, ?)", (key,))
    for (old,) in c.execute("SELECT dataset_id FROM datasets").fetchall():
        new = new_dataset_id()
        for table in ("datasets", "runs", "budget_events"):
            c.execute(f"UPDATE {table} SET dataset_id = ? WHERE dataset_id = ?", (new, old))
        c.execute("INSERT INTO legacy_files VALUES (?, ?)", (legacy_tag(key, old), new))
    c.execute("UPDATE runs SET noise_description = ? WHERE noise = 'seeded'", (SEEDED_TEXT,))
    run(c, _SCHEMA_V3_RULES)


# v4: the schema the curator declared for some rows (kinds, public bounds, levels, neighbouring),
# keyed like the budget by the private content fingerprint, so declaring it once is enough: the same
# rows opened again get it back. A preference, not a charge: it is replaced on every edit.
_SCHEMA_V4 = """
CREATE TABLE declared_schemas (
    content      TEXT PRIMARY KEY,
    schema_json  TEXT NOT NULL,
    at           TEXT NOT NULL
) WITHOUT ROWID;
"""

# v5: what the curator had declared when a run was charged (neighbouring relation, public bounds),
# written in the charge's own transaction. A report must show the declarations
# the run's sensitivity came from; the dataset's registration-time bounds go stale as soon as the
# curator declares more. Runs charged before v5 have no row here (reports fall back to those).
_SCHEMA_V5 = """
CREATE TABLE run_declarations (
    run_id        INTEGER PRIMARY KEY REFERENCES runs(id),
    declared_json TEXT NOT NULL
);
CREATE TRIGGER declarations_no_update BEFORE UPDATE ON run_declarations
BEGIN SELECT RAISE(ABORT, 'the ledger is append-only: a run''s declarations never change'); END;
CREATE TRIGGER declarations_no_delete BEFORE DELETE ON run_declarations
BEGIN SELECT RAISE(ABORT, 'the ledger is append-only: a run''s declarations are never deleted'); END;
"""

# v6: tamper evidence (issue 21 §7). The ledger gets a random id (the anchor outside the file is
# kept per id), a hash chain over every budget-relevant row (svtgui.ledger.chain) and a log of
# the curator's explicit acceptances of what an integrity check found. The chain is built here
# over the rows an older ledger already holds, so a migrated ledger is checked like a new one.
_SCHEMA_V6 = """
CREATE TABLE ledger_identity (
    id        INTEGER PRIMARY KEY CHECK (id = 1),
    ledger_id TEXT NOT NULL
);
CREATE TABLE chain (
    seq  INTEGER PRIMARY KEY,
    kind TEXT NOT NULL,
    ref  TEXT NOT NULL,
    hash TEXT NOT NULL,
    UNIQUE (kind, ref)
);
CREATE TABLE integrity_events (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    found         TEXT NOT NULL,
    reason        TEXT NOT NULL CHECK (length(trim(reason)) > 0),
    accepted_json TEXT NOT NULL,
    login         TEXT NOT NULL,
    host          TEXT NOT NULL,
    at            TEXT NOT NULL
);
"""


def append_only(table: str, what: str) -> str:
    """The two triggers that make ``table`` append-only: its rows are never changed nor deleted."""
    return "\n".join(f"CREATE TRIGGER {table}_no_{op.lower()} BEFORE {op} ON {table}\n"
                     f"BEGIN SELECT RAISE(ABORT, 'the ledger is append-only: {what} is never {verb}'); END;"
                     for op, verb in (("UPDATE", "changed"), ("DELETE", "deleted")))


def new_ledger_id() -> str:
    """A random ledger id (64 bits from the OS CSPRNG): names the ledger's anchor outside the file."""
    return LEDGER_ID_PREFIX + secrets.token_hex(8)


def _to_v6(c: sqlite3.Connection) -> None:
    """Identity, chain and acceptance log; the chain is built over the rows already there."""
    run(c, _SCHEMA_V6 + "\n".join(append_only(t, w) for t, w in (
        ("ledger_identity", "the ledger id"), ("chain", "the hash chain"),
        ("integrity_events", "an accepted finding"))))
    c.execute("INSERT INTO ledger_identity VALUES (1, ?)", (new_ledger_id(),))
    chain.adopt_unchained(c, chain.V6_KINDS)


# v7: who registered or raised a total (issue 26: a raise is logged with who and why). The OS login
# in a file ledger; a server ledger records its own database login. NULL for earlier events.
_SCHEMA_V7 = "ALTER TABLE budget_events ADD COLUMN login TEXT;"


# v8: identity blind to column names (issue 21 §2). A content is now the digest of its columns' keyed
# fingerprints (svtgui.data.fingerprint), each recorded here, so rows sharing columns with a known
# dataset under any header are found (the look-alike question). Contents from v5 and older have no
# columns: the first open of rows matching one records the rows' new content beside it ('migrated'),
# keeping the budget. fingerprint_cache holds a file's fingerprint under a keyed tag of its identity
# (device and inode; size, times and sampled blocks as the check) so it is paid once per file; it is
# a cache, not a record: an entry is replaced when the file changes.
_SCHEMA_V8 = """
CREATE TABLE content_columns (
    content     TEXT NOT NULL REFERENCES dataset_contents(content),
    position    INTEGER NOT NULL,
    column_fp   TEXT NOT NULL,
    informative INTEGER NOT NULL CHECK (informative IN (0, 1)),
    PRIMARY KEY (content, position)
) WITHOUT ROWID;
CREATE INDEX columns_by_fingerprint ON content_columns(column_fp);
CREATE TABLE fingerprint_cache (
    file_tag         TEXT PRIMARY KEY,
    check_tag        TEXT NOT NULL,
    fingerprint_json TEXT NOT NULL,
    at               TEXT NOT NULL
) WITHOUT ROWID;
"""


# v9: each content's row sketch (svtgui.data.fingerprint: the smallest distinct keyed row hashes), so
# rows that share most of a known dataset's rows (one row removed or added, a sample, a few cells
# changed in many columns) look alike whatever their columns. Contents recorded before v9 have none.
_SCHEMA_V9 = """
CREATE TABLE content_rows (
    content TEXT PRIMARY KEY REFERENCES dataset_contents(content),
    rows    INTEGER NOT NULL,
    sketch  TEXT NOT NULL
) WITHOUT ROWID;
"""


# v10: one neighbouring relation per dataset (issue 21 §3). The relation a dataset's budget is kept
# under, with its public n under replace-one, as registered and as changed since by an explicit,
# logged curator action (a reason is required): a run declaring any other relation is refused before
# its charge. Append-only and chained; datasets registered before v10 have no row (their registered
# relation stands, with no public n recorded).
_SCHEMA_V10 = """
CREATE TABLE relation_events (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    dataset_id   TEXT NOT NULL REFERENCES datasets(dataset_id),
    kind         TEXT NOT NULL CHECK (kind IN ('register', 'change')),
    neighbouring TEXT NOT NULL CHECK (neighbouring IN ('add_remove', 'replace')),
    public_n     INTEGER CHECK (public_n IS NULL OR public_n > 0),
    reason       TEXT NOT NULL CHECK (length(trim(reason)) > 0),
    login        TEXT,
    at           TEXT NOT NULL
);
CREATE INDEX relations_by_dataset ON relation_events(dataset_id);
"""


# v11: the public name a curator chose for each dataset (issue 21 §10): reports name a dataset by it,
# by its random id until one is chosen, never by the file's name. The last row wins; append-only.
_SCHEMA_V11 = """
CREATE TABLE public_names (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    dataset_id TEXT NOT NULL REFERENCES datasets(dataset_id),
    name       TEXT NOT NULL CHECK (length(trim(name)) > 0),
    login      TEXT,
    at         TEXT NOT NULL
);
"""


def run(c: sqlite3.Connection, script: str) -> None:
    """Run a script statement by statement (``executescript`` would commit our transaction)."""
    buf = ""
    for line in script.strip().splitlines():
        buf += line + "\n"
        if sqlite3.complete_statement(buf):
            c.execute(buf.strip())
            buf = ""


# MIGRATIONS[v] upgrades a version v - 1 ledger to version v, inside the caller's transaction.
MIGRATIONS: dict[int, Callable[[sqlite3.Connection], None]] = {
    1: lambda c: run(c, _SCHEMA_V1),
    2: lambda c: run(c, _SCHEMA_V2),
    3: _to_v3,
    4: lambda c: run(c, _SCHEMA_V4),
    5: lambda c: run(c, _SCHEMA_V5),
    6: _to_v6,
    7: lambda c: run(c, _SCHEMA_V7),
    8: lambda c: run(c, _SCHEMA_V8 + append_only("content_columns", "a recorded column fingerprint")),
    9: lambda c: run(c, _SCHEMA_V9 + append_only("content_rows", "a recorded row sketch")),
    10: lambda c: run(c, _SCHEMA_V10 + append_only("relation_events", "a relation event")),
    11: lambda c: run(c, _SCHEMA_V11 + append_only("public_names", "a public name")),
}
_V1_TABLES = {"datasets", "runs", "responses", "budget_events"}
# tables a ledger of each version must have (a missing one means the file is damaged)
_V3_TABLES = _V1_TABLES | {"run_facts", "ledger_key", "dataset_contents", "legacy_files"}
_V5_TABLES = _V3_TABLES | {"declared_schemas", "run_declarations"}
TABLES_AT = {1: _V1_TABLES, 2: _V1_TABLES | {"run_facts"}, 3: _V3_TABLES,
             4: _V3_TABLES | {"declared_schemas"}, 5: _V5_TABLES,
             6: _V5_TABLES | {"ledger_identity", "chain", "integrity_events"}}
TABLES_AT[7] = TABLES_AT[6]
TABLES_AT[8] = TABLES_AT[7] | {"content_columns", "fingerprint_cache"}
TABLES_AT[9] = TABLES_AT[8] | {"content_rows"}
TABLES_AT[10] = TABLES_AT[9] | {"relation_events"}
TABLES_AT[11] = TABLES_AT[10] | {"public_names"}
