"""Which ledger the window uses: this computer's file, or a team's ledger on a server (issue 26).

Preferences → Ledger saves the choice; the window applies it at start unless ``$SVTGUI_LEDGER`` was
given for the session (an explicit environment wins over a saved preference). Applying it sets
``$SVTGUI_LEDGER``, so every process the window starts (a run, a report export, a recipe) opens the
same ledger. Qt-free, so the CLI and tests can use it as the window does.
"""

from __future__ import annotations

import os

from svtgui.app.outputs import Inputs
from svtgui.core.wording import count
from svtgui.ledger import ENV_VAR, Ledger, is_server


def problem(location: str, server: bool, reads: Inputs | None = None) -> str | None:
    """What is wrong with a location typed in Preferences (one line), or None. ``reads``: the files
    the window reads (its data, sidecar, session), none of which may become the ledger: a ledger
    there is written over the file (the data's absent sidecar became a SQLite file, the next load's
    "schema"), as ``--ledger`` refuses (:func:`svtgui.cli.inputs.guard_ledger`)."""
    text = location.strip()
    if server and not is_server(text):
        return "a server ledger is a postgresql://user@host/database URL"
    if not server and is_server(text):
        return "a postgresql:// URL is a server ledger: choose “A server” for it"
    what = reads.conflict(text) if reads is not None and text and not server else None
    if what is not None:
        return f"{text} is {what}, not a ledger: the ledger is written, which would destroy it"
    return None


def use(location: str) -> None:
    """Use ``location`` (a file path or a server URL; empty: the default file) from now on, in this
    process and the processes it starts."""
    if location.strip():
        os.environ[ENV_VAR] = location.strip()
    else:
        os.environ.pop(ENV_VAR, None)


def apply_saved(location: str) -> bool:
    """At start: use the saved preference unless ``$SVTGUI_LEDGER`` is set; whether it was used."""
    if ENV_VAR in os.environ or not location.strip():
        return False
    use(location)
    return True


def check(location: str) -> str:
    """Open the ledger once and say in one line what it is and what this login may do there.

    Raises :class:`LedgerError` (one line) when it cannot be used: unreachable, refused, tampered.
    A file that does not exist yet is created, as the first run would.
    """
    with Ledger.open(location.strip() or None) as led:
        datasets = count(len(led.datasets()), "dataset")
        if not led.server:
            return f"ledger file {led.location}: {datasets}"
        rights = ("you may run, read and raise totals (custodian)" if led.may_raise() else
                  "you may run and read (curator); raising a total needs a custodian")
        return f"server ledger {led.location}: {datasets}; {rights}"

