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


def report_format_problems(paths: list[Path], option: str) -> dict[Path, str]:
    """Every report whose format this process cannot write (an unknown suffix, a PDF without Qt), with
    the text that says so. The folder and the file are checked with the command's other problems
    (the run's plan, the recipe's checks, :func:`~svtgui.app.outputs.check_output`): a command
    refuses with all of them in one line, not the first path problem alone."""
    from svtgui.app.reports import FORMATS

    problems = {}
    for out in paths:
        if out.suffix.lower() not in FORMATS:
            problems[out] = f"{option} {out}: unknown format {out.suffix!r}; use one of {', '.join(FORMATS)}"
        elif out.suffix.lower() == ".pdf" and (reason := _qt_for_pdf()):
            problems[out] = f"{option} {out}: {reason}"
    return problems


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
    if problems := report_format_problems(outs, "--out"):
        raise CliError("; ".join(problems.values()))
    with open_ledger(args.ledger, existing=True) as led:
        write_reports(led, args.run_id, outs, "--out")
    return 0
