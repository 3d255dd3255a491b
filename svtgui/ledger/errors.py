"""Why a ledger cannot be used, as exceptions whose message is the one line a curator reads.

Shared by both backends (:mod:`.sqlite_db`, :mod:`.postgres_db`) and the ledger above them.
"""

from __future__ import annotations


class LedgerError(RuntimeError):
    """The ledger cannot be used (corrupt, locked, read-only, newer schema, not ours, unreachable).

    The ledger is never modified or replaced when this is raised: the budget history it holds is
    the only record of what was already spent.
    """


class LedgerDamaged(LedgerError):
    """The ledger file fails SQLite's integrity check (or is not a database at all).

    Nothing is written to it: a damaged ledger may still hold the only record of what was spent,
    and writing could destroy what a recovery tool would save.
    """


class LedgerTampered(LedgerError):
    """The ledger, its hash chain, its triggers or its anchor show a change SVT Studio did not make
    (rows deleted or edited with ``sqlite3``, an older copy restored, the file deleted or replaced).

    Nothing is written. Proceeding is the curator's explicit, logged decision
    (``Ledger.open(path, accept=reason)``, ``svtgui-cli ledger accept``); ``findings`` lists what was found.
    """

    def __init__(self, message: str, findings: list[str]) -> None:
        super().__init__(message)
        self.findings = findings


def tampered_message(where: str, findings: list[str]) -> str:
    """One line: the ledger, what was found (the first three findings), and the two ways on."""
    shown = "; ".join(findings[:3]) + (f"; and {len(findings) - 3} more" if len(findings) > 3 else "")
    return (f"ledger {where}: {shown}. Nothing was written. Restore the ledger from a backup copy, or, if "
            f"you know why, proceed with `svtgui-cli ledger accept --ledger {where} --reason \"…\"` "
            "(recorded in the ledger and shown in History and reports).")


def damaged_message(where: str, detail: str) -> str:
    """What a curator reads when the ledger is damaged: the path, what happened, what to do."""
    return (f"ledger {where} is damaged ({detail}); nothing was written to it. Close SVT Studio, keep this "
            "file (it is the only record of the budget already spent), and restore the ledger from a "
            "backup copy, or repair it with `sqlite3 LEDGER .recover`, before running again.")
