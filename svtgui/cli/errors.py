"""How ``svtgui-cli`` ends: every failure a user can meet becomes one line on stderr and an exit code.

Exit codes (docs/cli.md lists every error class):

* 0 done; 1 a finding (``audit``); 2 bad input or a fault (unreadable file, locked or damaged
  ledger, disk full, interrupted); 3 budget refused; 70 an internal error (a bug: one line, and the
  traceback with ``SVTGUI_DEBUG=1``); 141 the reader of stdout went away (as ``| head`` expects).

Ctrl-C and SIGTERM are turned into exceptions (:class:`Interrupted`) so that the ``with run:``
blocks of the runner unwind: a run already started ends ``interrupted`` in the ledger and keeps
its spend; nothing is charged when it had not started.
"""

from __future__ import annotations

import errno
import os
import re
import signal
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from svtgui.cli.startup import INTERRUPTED, SIGNAL_NAMES, Interrupted, cli_process, exit_now

EXIT_OK, EXIT_FINDING, EXIT_BAD_INPUT, EXIT_BUDGET = 0, 1, 2, 3
EXIT_INTERNAL = 70  # EX_SOFTWARE (sysexits.h)
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE, what a shell reports for a killed pipe writer
DEBUG_ENV = "SVTGUI_DEBUG"


class CliError(Exception):
    """A bad input the user can fix: printed as one line, exit code 2 (or ``code``)."""

    def __init__(self, message: str, code: int = EXIT_BAD_INPUT) -> None:
        super().__init__(message)
        self.code = code


# The signal that interrupted this command, if any. A library may turn the exception a signal raises
# into an error of its own (pandas' C parser reports a Ctrl-C inside its read as "cannot parse"): any
# failure after a signal is reported as the interruption it is.
_signalled: list[str] = []


def interrupted() -> bool:
    """Whether a signal interrupted the command running (or last run) in this process."""
    return bool(_signalled)


def _on_signal(signum: int, frame: Any) -> None:
    """Raise where the program is, so that a started run unwinds; a second signal while the first is
    handled ends the ``svtgui-cli`` process at once with the one line (it would otherwise raise
    inside the cleanup or the reporting of the first and print a traceback)."""
    if _signalled and cli_process():
        exit_now(signum)
    _signalled.append(SIGNAL_NAMES[signum])
    if _deferring:
        _pending.append(signum)  # raised when the deferring block ends (deferred_signals)
        return
    raise _exception(signum)


def _exception(signum: int) -> BaseException:
    return Interrupted() if signum == signal.SIGTERM else KeyboardInterrupt()


# Signals that arrived inside deferred_signals(), raised when it ends; _deferring is its nesting depth.
_pending: list[int] = []
_deferring: list[None] = []


@contextmanager
def deferred_signals() -> Iterator[None]:
    """A signal inside this block is raised when the block ends, not where it lands.

    Why: between a run's charge (committed) and the moment the run is held by a ``with`` that ends it
    ``interrupted`` on any exception, a signal would leave the charged run ``running`` in the ledger
    until the next open finds its process gone. The block covers exactly that stretch. A second
    signal still ends the process at once (``_on_signal``)."""
    _deferring.append(None)
    try:
        yield
    finally:
        _deferring.pop()
        if _pending and not _deferring:
            signum = _pending[0]
            _pending.clear()
            raise _exception(signum)


@contextmanager
def signals_as_exceptions() -> Iterator[None]:
    """While the command runs, SIGTERM unwinds like Ctrl-C (the default would kill the process
    without a word and leave a run ``running``), and both are remembered; the previous handlers are
    restored after."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _signalled.clear()
    previous = signal.signal(signal.SIGTERM, _on_signal), signal.signal(signal.SIGINT, _on_signal)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous[0])
        signal.signal(signal.SIGINT, previous[1])


_OS_ERRORS = {
    errno.ENOSPC: "the disk is full (no space left on device)",
    errno.EDQUOT: "the disk quota is exceeded",
    errno.EROFS: "the file system is read-only",
    errno.EACCES: "permission denied",
    errno.EPERM: "permission denied",
    errno.EIO: "input/output error (a failing disk?)",
}


def os_error_cause(exc: OSError) -> str:
    """What went wrong, in words (``the disk is full``), without the file."""
    return _OS_ERRORS.get(exc.errno or 0) or exc.strerror or str(exc)


def os_error_text(exc: OSError) -> str:
    """``file: cause`` for an OSError, naming the file when it is known."""
    cause = os_error_cause(exc)
    return f"{exc.filename}: {cause}" if exc.filename else cause


def sqlite_text(exc: sqlite3.Error) -> str:
    """The cause behind an SQLite error, in words (the ledger's own errors are already worded)."""
    text = str(exc)
    if "full" in text:
        return f"the ledger's disk is full ({text}); the last write was rolled back, nothing is lost"
    if "disk I/O" in text:
        return f"the ledger could not be written ({text}: a full or failing disk?)"
    if "locked" in text or "busy" in text:
        return "the ledger is locked by another program; close it (or wait) and retry"
    if "readonly" in text or "read-only" in text:
        return "the ledger (or its folder) is read-only; SVT Studio must be able to write both"
    return f"ledger: {text}"


def describe(exc: BaseException) -> tuple[str, int] | None:
    """One line and an exit code for ``exc``; None when it must propagate (SystemExit, a bug in debug)."""
    if _signalled and type(exc).__name__ != "BudgetExceeded":  # whatever a library made of the signal;
        # checked before any import: a signal during the start-up imports leaves half-imported modules
        return INTERRUPTED.format(_signalled[0]), EXIT_BAD_INPUT
    from svtgui.core.budget import BudgetExceeded
    from svtgui.data.errors import DatasetError
    from svtgui.ledger import LedgerError

    if isinstance(exc, CliError):
        return str(exc), exc.code
    if isinstance(exc, BudgetExceeded):
        return str(exc), EXIT_BUDGET
    if isinstance(exc, Interrupted):
        return INTERRUPTED.format(SIGNAL_NAMES[signal.SIGTERM]), EXIT_BAD_INPUT
    if isinstance(exc, KeyboardInterrupt):
        return INTERRUPTED.format(SIGNAL_NAMES[signal.SIGINT]), EXIT_BAD_INPUT
    if isinstance(exc, LedgerError | DatasetError):  # a file, or an engine (DuckDB, Spark) that failed
        return str(exc), EXIT_BAD_INPUT
    if isinstance(exc, sqlite3.Error):
        return sqlite_text(exc), EXIT_BAD_INPUT
    if isinstance(exc, MemoryError):
        return "not enough memory for this input", EXIT_BAD_INPUT
    if isinstance(exc, RecursionError):
        return "the input is nested too deeply", EXIT_BAD_INPUT
    if isinstance(exc, OSError):
        return os_error_text(exc), EXIT_BAD_INPUT
    if isinstance(exc, ValueError):
        param = getattr(exc, "param", None)  # core's ParamError names the parameter at fault
        text = str(exc)
        if isinstance(param, str) and re.fullmatch(r"[a-z_]+", param) and "--" not in text:
            text = f"--{param.replace('_', '-')}: {text}"
        return text, EXIT_BAD_INPUT
    if isinstance(exc, Exception):
        return (f"internal error ({type(exc).__name__}: {exc}); this is a bug in SVT Studio. "
                f"Run again with {DEBUG_ENV}=1 to see where it happened"), EXIT_INTERNAL
    return None


LOCK_PATIENCE = 30.0  # seconds a failed run waits for a locked ledger to record that it ended
PATIENCE_ENV = "SVTGUI_LOCK_PATIENCE"  # overrides it (scripts that prefer to fail fast; tests)


def end_interrupted(run: Any, patience: float | None = None) -> str:
    """Mark a run whose stream failed (a locked or full ledger) as interrupted, waiting up to
    ``patience`` seconds (default: $SVTGUI_LOCK_PATIENCE, else 30) for the ledger to be free; say
    what became of it. Its ε stays spent either way: it was charged before the first answer."""
    from svtgui.ledger import INTERRUPTED, LedgerError

    if patience is None:
        try:
            patience = float(os.environ.get(PATIENCE_ENV, LOCK_PATIENCE))
        except ValueError:
            patience = LOCK_PATIENCE
    deadline = time.monotonic() + patience
    while not run.finished:
        try:
            run.ledger.finish_run(run.id, INTERRUPTED)
        except ValueError:
            break  # it ended meanwhile
        except LedgerError:
            if time.monotonic() >= deadline:
                return (f"run {run.id} could not be marked interrupted yet (the ledger stays unusable); "
                        "the next open of the ledger marks it. Its ε stays spent")
            time.sleep(0.5)  # each attempt has already waited the ledger's busy timeout
            continue
        break
    return f"run {run.id} is marked interrupted; its ε stays spent"
