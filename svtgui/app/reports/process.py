"""Writing a release report in a child process (Qt-free until the child imports the report code).

Why a process: the report of a long run is seconds of work, and two of its steps hold the
interpreter lock for their whole length — ``QTextDocument.setHtml`` (measured 190 ms for a
200,000-row run) and ``json.dumps`` — while pyqtgraph, which draws the chart, must run on a GUI
thread. On a worker thread of the window either stalls the window; in a ``spawn``ed child neither
can. The child opens its own ledger connection, draws the chart on its own offscreen
QApplication and writes the file atomically (:func:`svtgui.app.reports.export`); the window's
worker thread (:mod:`svtgui.ui.common.background`) only waits for it.
"""

from __future__ import annotations

import multiprocessing
import os
from multiprocessing.connection import Connection
from pathlib import Path


class ReportFailed(ValueError):
    """The child could not write the report; the message says why (file, reason)."""


def _child(out: Connection, ledger_path: str, run_id: int, path: str) -> None:
    os.environ["QT_QPA_PLATFORM"] = "offscreen"  # never a window, never a display connection
    try:
        from svtgui.app.reports import export
        from svtgui.ledger import Ledger, LedgerError

        try:
            with Ledger.open(ledger_path) as led:
                out.send(("ok", str(export(led, run_id, path))))
        except OSError as exc:
            reason = f"{exc.strerror}: {exc.filename}" if exc.strerror and exc.filename else str(exc)
            out.send(("error", reason))
        except (ValueError, LedgerError) as exc:
            out.send(("error", str(exc)))
    except Exception as exc:  # noqa: BLE001 - reported to the window, never lost
        out.send(("error", f"{type(exc).__name__}: {exc}"))
    finally:
        out.close()


def write_in_child(ledger_path: Path, run_id: int, path: Path) -> Path:
    """Write the report of ``run_id`` to ``path`` in a child process; blocks (call it off the GUI thread).

    Raises :class:`ReportFailed` naming the reason; nothing is written then.
    """
    ctx = multiprocessing.get_context("spawn")  # never fork a process that runs Qt threads
    receive, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(send, str(ledger_path), int(run_id), str(path)),
                       name="svtgui-report", daemon=True)
    proc.start()
    send.close()
    try:
        kind, payload = receive.recv()
    except EOFError:
        proc.join()
        raise ReportFailed(f"the report process ended without writing {path} "
                           f"(exit code {proc.exitcode})") from None
    finally:
        receive.close()
    proc.join()
    if kind != "ok":
        raise ReportFailed(payload)
    return Path(payload)
