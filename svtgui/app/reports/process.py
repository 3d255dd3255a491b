"""Writing a release report in a child process, as a task (:mod:`svtgui.app.tasks`).

Why a process: the report of a long run is seconds of work, and some of its steps hold the
interpreter lock for their whole length — ``json.dumps``, and for a PDF ``QTextDocument.setHtml``
(measured 190 ms for a 200,000-row run). On a worker thread of the window any of them stalls the
window; in a ``spawn``ed child none can. The child opens its own ledger connection and writes the
file atomically (:func:`svtgui.app.reports.export`); the task's thread only waits for it, and a
cancel ends the child (the atomic write leaves nothing behind). Only the PDF renderer imports Qt,
in the child, which then runs offscreen.
"""

from __future__ import annotations

import multiprocessing
import os
from multiprocessing.connection import Connection
from pathlib import Path

from svtgui.app.reports.release import runs_label
from svtgui.app.tasks import TaskCancelled, TaskState

POLL_SECONDS = 0.05  # how soon a cancel reaches the waiting task


class ReportFailed(ValueError):
    """The child could not write the report; the message says why (file, reason)."""


def _child(out: Connection, ledger_path: str, runs: int | tuple[int, ...], path: str) -> None:
    os.environ["QT_QPA_PLATFORM"] = "offscreen"  # a PDF: never a window, never a display connection
    try:
        from svtgui.app.reports import export, export_release
        from svtgui.ledger import Ledger, LedgerError

        try:
            with Ledger.open(ledger_path) as led:
                written = export(led, runs, path) if isinstance(runs, int) else \
                    export_release(led, list(runs), path)
                out.send(("ok", str(written)))
        except OSError as exc:
            reason = f"{exc.strerror}: {exc.filename}" if exc.strerror and exc.filename else str(exc)
            out.send(("error", reason))
        except (ValueError, LedgerError) as exc:
            out.send(("error", str(exc)))
    except Exception as exc:  # noqa: BLE001 - reported to the window, never lost
        out.send(("error", f"{type(exc).__name__}: {exc}"))
    finally:
        out.close()


def export_in_child(state: TaskState, ledger_path: Path, run_id: int | tuple[int, ...], path: Path) -> Path:
    """Task: write the report of ``run_id`` (a tuple: the release over those runs, :mod:`.release`) to
    ``path`` in a child process and wait for it.

    Raises :class:`ReportFailed` naming the reason, or :class:`TaskCancelled` when cancelled (the
    child is ended); nothing is written then.
    """
    ctx = multiprocessing.get_context("spawn")  # never fork a process that runs Qt threads
    receive, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(send, str(ledger_path), run_id, str(path)),
                       name="svtgui-report", daemon=True)
    proc.start()
    send.close()
    state.set_progress(None, f"writing {path.name}")
    try:
        while not receive.poll(POLL_SECONDS):
            if state.is_cancelled():
                proc.terminate()
                proc.join()
                raise TaskCancelled(f"the export of {runs_label(run_id)} was cancelled; {path} was not "
                                    "written")
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
