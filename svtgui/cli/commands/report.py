"""``svtgui-cli report RUN_ID --out FILE``: re-export a run's release report from the ledger."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from svtgui.app.outputs import Inputs
from svtgui.cli.commands.ledger import add_ledger_option, open_ledger
from svtgui.cli.errors import CliError, deferred_signals, os_error_cause
from svtgui.ledger import Ledger


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "report", help="write the release report of a run (HTML, PDF, JSON or CSV) from the ledger",
        description="Write the release report of a finished, halted, stopped or interrupted run, from "
                    "the ledger alone (the dataset is not needed). The format follows the file suffix: "
                    ".html (self-contained), .pdf, .json (versioned schema) or .csv (released rows).",
        epilog="example: svtgui-cli report 12 --out release-12.pdf")
    p.add_argument("run_id", type=run_number, metavar="RUN_ID", help="run number (see `svtgui-cli ledger`)")
    p.add_argument("--out", required=True, action="append", metavar="FILE",
                   help="output file: .html, .pdf, .json or .csv (repeatable)")
    add_ledger_option(p)
    p.set_defaults(handler=run)


def run_number(text: str) -> int:
    """A run number as `svtgui-cli ledger` lists them: a positive integer the ledger can hold."""
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a run number (see `svtgui-cli ledger`)") from None
    if not 1 <= n < 2**63:
        raise argparse.ArgumentTypeError(f"{text} is not a run number: runs are numbered 1, 2, 3, …")
    return n


def check_report_paths(paths: list[Path], option: str) -> None:
    """Refuse an unknown suffix, a missing directory or a PDF without Qt before anything is spent."""
    from svtgui.app.outputs import folder_problem
    from svtgui.app.reports import FORMATS

    for out in paths:
        if out.suffix.lower() not in FORMATS:
            raise CliError(f"{option} {out}: unknown format {out.suffix!r}; use one of {', '.join(FORMATS)}")
        if out.suffix.lower() == ".pdf" and (reason := _qt_for_pdf()):
            raise CliError(f"{option} {out}: {reason}")
        if problem := folder_problem(out):
            raise CliError(f"{option} {out}: {problem}")


def _qt_for_pdf() -> str | None:
    """Import Qt, which typesets PDFs, with signals held back: a Ctrl-C or SIGTERM inside shiboken's
    start-up aborted the process (exit −6 or −11, a fatal error and a stack dump, not one line);
    held, it ends the command as "interrupted" once the import is done. Why it cannot be imported,
    or None."""
    from svtgui.app.reports import pdf_unavailable

    with deferred_signals():
        return pdf_unavailable()


def write_reports(led: Ledger, run_id: int, paths: list[Path], option: str,
                  inputs: Inputs | None = None) -> None:
    """Write each report (never over one of ``inputs``, the files the command read, nor the ledger)."""
    from svtgui.app.reports import export

    for out in paths:
        try:
            export(led, run_id, out, inputs)
        except OSError as exc:
            raise CliError(f"{option} {out}: cannot be written: {os_error_cause(exc)}; run {run_id} itself "
                           f"is in the ledger: write its report again with `svtgui-cli report {run_id} "
                           "--out FILE`") from None
        except ValueError as exc:
            raise CliError(f"{option} {out}: {exc}") from None
        print(f"report written: {out}", file=sys.stderr)


def run(args: argparse.Namespace) -> int:
    outs = [Path(o) for o in args.out]
    check_report_paths(outs, "--out")
    with open_ledger(args.ledger, existing=True) as led:
        write_reports(led, args.run_id, outs, "--out")
    return 0
