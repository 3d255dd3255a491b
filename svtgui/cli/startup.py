"""Signals from the first line of ``svtgui-cli``: one "interrupted" line and exit 2 at any moment.

``svtgui.cli`` imports this module before anything else and, in the ``svtgui-cli`` process itself
(the console script, ``python -m svtgui.cli``, the bundle), calls :func:`exit_on_signals` at once:
until :func:`svtgui.cli.main` turns signals into exceptions (so that a started run unwinds and is
marked interrupted), SIGINT and SIGTERM print the one line and end the process with exit 2. Nothing
is open or charged that early. A Ctrl-C during the numpy/pandas imports used to print a 15–95-line
traceback (pandas turns the KeyboardInterrupt into "Unable to import required dependency numpy")
and exit 1 or −2.

Only the standard library's ``os``, ``signal`` and ``sys`` are imported here: this runs before the
heavy imports it protects.
"""

from __future__ import annotations

import os
import signal
import sys

EXIT_INTERRUPTED = 2  # docs/cli.md: an interruption is "this did not complete", like bad input
INTERRUPTED = ("interrupted ({}); nothing more was released. A run already started keeps its spend and "
               "is marked interrupted in the ledger; nothing was charged if none had started")
SIGNAL_NAMES = {signal.SIGINT: "Ctrl-C", signal.SIGTERM: "terminated by SIGTERM"}

class Interrupted(KeyboardInterrupt):
    """SIGTERM, raised where the program is (as Ctrl-C raises KeyboardInterrupt) so cleanup runs."""


# Whether this process has printed its one failure line (a second one is never printed).
_reported: list[bool] = [False]


def cli_process() -> bool:
    """Whether this process runs ``svtgui-cli`` (and not a program that imports ``svtgui.cli``, such
    as the test suite): the console script or bundle named ``svtgui-cli``, or ``-m svtgui.cli``."""
    argv = getattr(sys, "orig_argv", sys.argv)
    if "-m" in argv[:-1] and argv[argv.index("-m") + 1] in ("svtgui.cli", "svtgui.cli.__main__"):
        return True
    return os.path.basename(sys.argv[0]).removesuffix(".exe") == "svtgui-cli"


def mark_reported() -> None:
    """The failure line has been printed: a later signal exits without a second one."""
    _reported[0] = True


def exit_now(signum: int, frame: object = None) -> None:
    """Print the "interrupted" line (unless a failure line was printed already) and exit 2 at once,
    without unwinding: used before anything can need cleaning up, and for a second signal while
    the first is being handled (the ledger marks a run left ``running`` at its next open)."""
    if not _reported[0]:
        _reported[0] = True
        message = INTERRUPTED.format(SIGNAL_NAMES.get(signum, f"signal {signum}"))
        try:
            os.write(2, f"svtgui-cli: error: {message}\n".encode())
        except OSError:
            pass  # stderr closed: the exit code still says it
    os._exit(EXIT_INTERRUPTED)


def exit_flushed(code: int) -> None:
    """End the process with ``code`` now, after flushing stdout and stderr (no interpreter shutdown)."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass  # closed by its reader: nothing more can be said there
    os._exit(code)


def ignore_signals() -> None:
    """After the command has ended: its exit code stands. (Only an ignored signal survives the
    interpreter's finalisation, which resets every Python handler to the default — a SIGTERM during
    the numpy/pandas teardown killed the process, exit −15, after a successful run.)"""
    for signum in SIGNAL_NAMES:
        signal.signal(signum, signal.SIG_IGN)


def _unraisable(hook: object) -> None:
    """A signal's exception raised inside a ``__del__`` or a callback is swallowed by CPython (which
    prints "Exception ignored in …" and a traceback, then carries on as if nothing had happened):
    end the process with the one line instead. Anything else goes to Python's own hook."""
    exc_type = getattr(hook, "exc_type", None)
    if isinstance(exc_type, type) and issubclass(exc_type, KeyboardInterrupt):
        exit_now(signal.SIGTERM if issubclass(exc_type, Interrupted) else signal.SIGINT)
    sys.__unraisablehook__(hook)


def exit_on_signals() -> None:
    """Install :func:`exit_now` for SIGINT and SIGTERM, and stop on a signal swallowed as unraisable."""
    sys.unraisablehook = _unraisable
    try:
        for signum in SIGNAL_NAMES:
            signal.signal(signum, exit_now)
    except ValueError:  # not the main thread: signals are not this caller's to handle
        pass
