"""Raw SQL on a ledger, as someone bypassing SVT Studio would type it, for either backend."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from svtgui.ledger import Ledger


@contextmanager
def raw(ledger: Ledger) -> Iterator[tuple[Any, type[Exception]]]:
    """(connection whose ``execute`` takes ``?`` placeholders and autocommits, its IntegrityError)."""
    if not ledger.server:
        conn = sqlite3.connect(ledger.path, isolation_level=None)
        try:
            yield conn, sqlite3.IntegrityError
        finally:
            conn.close()
        return
    import psycopg

    pg = psycopg.connect(str(ledger.path), autocommit=True)

    class _Q:
        def execute(self, sql: str, args: tuple = ()) -> Any:
            return pg.execute(re.sub(r"\?", "%s", sql), args or None)

    try:
        yield _Q(), psycopg.errors.IntegrityError
    finally:
        pg.close()
