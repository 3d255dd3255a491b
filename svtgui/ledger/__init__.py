"""The privacy ledger: one SQLite database per user recording every dataset's budget and every release.

* :mod:`.store` — the database: opening it safely, budgets, runs, private dataset identities;
* :mod:`.records` — the public records it hands out (datasets by random id, runs, responses);
* :mod:`.migrations` — the schema, one step per version (a 0.1 ledger migrates on open);
* :mod:`.chain`, :mod:`.anchor`, :mod:`.integrity` — tamper evidence: a hash chain over every
  budget-relevant row, an anchor outside the file, and the checks made on every open.
"""

from __future__ import annotations

from svtgui.core.budget import BudgetExceeded
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
    DatasetRecord,
    IntegrityEvent,
    ResponseRecord,
    RunRecord,
    exact_text,
)
from svtgui.ledger.store import (
    APPLICATION_ID,
    ENV_VAR,
    Ledger,
    LedgerDamaged,
    LedgerError,
    LedgerTampered,
    default_path,
)

__all__ = [
    "APPLICATION_ID", "BudgetEvent", "BudgetExceeded", "DatasetRecord", "END_STATUSES", "ENV_VAR", "FINISHED",
    "FREE_TEXT", "HALTED", "INTERRUPTED", "IntegrityEvent", "Ledger", "LedgerDamaged", "LedgerError",
    "LedgerTampered", "PAID_TEXT", "RUNNING",
    "ResponseRecord", "RunRecord", "SCHEMA_VERSION", "SEEDED_TEXT", "STOPPED", "default_path", "exact_text",
]
