"""``svtgui-cli``: the headless twin of the GUI.

Each subcommand lives in its own module under :mod:`svtgui.cli.commands` and exposes
``register(subparsers)``; this file only assembles them, so areas of the project can add
commands without touching each other. Exit codes: 0 done, 1 finding (audit), 2 bad input,
3 budget refused.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from svtgui._version import VERSION_TEXT

COMMAND_MODULES = [
    "svtgui.cli.commands.mechanisms",
    "svtgui.cli.commands.run",
    "svtgui.cli.commands.ledger",
    "svtgui.cli.commands.report",
    "svtgui.cli.commands.queries",
    "svtgui.cli.commands.release",
    "svtgui.cli.commands.audit",
]

EXIT_OK, EXIT_FINDING, EXIT_BAD_INPUT, EXIT_BUDGET = 0, 1, 2, 3
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE, what a shell reports for a killed pipe writer


class CliError(Exception):
    """A bad input the user can fix: printed as one line, exit code 2 (or ``code``)."""

    def __init__(self, message: str, code: int = EXIT_BAD_INPUT) -> None:
        super().__init__(message)
        self.code = code


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="svtgui-cli", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=VERSION_TEXT)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.handler(args) or 0)
    except CliError as exc:
        print(f"svtgui-cli {args.command}: error: {exc}", file=sys.stderr)
        return exc.code
    except ValueError as exc:
        print(f"svtgui-cli {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except BrokenPipeError:
        # The reader went away (`svtgui-cli run ... | head`): every row already printed is in the
        # ledger, and the run has been marked interrupted by the runner. Exit quietly, as Unix tools do.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_BROKEN_PIPE

