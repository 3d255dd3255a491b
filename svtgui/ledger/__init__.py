"""The privacy ledger: every dataset's budget and every release, in a SQLite file per user or in a
PostgreSQL database shared by a team.

* :mod:`.store` — the ledger: opening it, budgets, runs, private dataset identities;
* :mod:`.sqlite_db`, :mod:`.postgres_db` — the two backends behind it (file, server);
* :mod:`.errors` — why a ledger cannot be used;
* :mod:`.records` — the public records it hands out (datasets by random id, runs, responses);
* :mod:`.migrations` — the schema, one step per version (a 0.1 ledger migrates on open);
* :mod:`.chain`, :mod:`.anchor`, :mod:`.integrity` — tamper evidence: a hash chain over every
  budget-relevant row, an anchor outside the file, and the checks made on every open.
"""

from __future__ import annotations

from svtgui.core.budget import BudgetExceeded
from svtgui.ledger.errors import LedgerDamaged, LedgerError, LedgerTampered
from svtgui.ledger.migrations import SCHEMA_VERSION
from svtgui.ledger.records import (
    END_STATUSES,
    FINISHED,
    FREE_TEXT,
    HALTED,
    INTERRUPTED,
    PAID_TEXT,
    RUNNING,
    SEEDED_TEXT,
    STOPPED,
    BudgetEvent,
    ContentIdentity,
    DatasetRecord,
    IntegrityEvent,
    RelationEvent,
    ResponseBatch,
    ResponseRecord,
    RunRecord,
    exact_text,
)
from svtgui.ledger.store import APPLICATION_ID, ENV_VAR, Ledger, default_location, default_path, is_server

__all__ = [
    "APPLICATION_ID", "BudgetEvent", "BudgetExceeded", "ContentIdentity", "DatasetRecord", "END_STATUSES",
    "ENV_VAR", "FINISHED",
    "FREE_TEXT", "HALTED", "INTERRUPTED", "IntegrityEvent", "Ledger", "LedgerDamaged", "LedgerError",
    "LedgerTampered", "PAID_TEXT", "RUNNING", "RelationEvent", "ResponseBatch",
    "ResponseRecord", "RunRecord", "SCHEMA_VERSION", "SEEDED_TEXT", "STOPPED", "default_location",
    "default_path", "exact_text", "is_server",
]
