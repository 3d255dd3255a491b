"""``svtgui-cli``: the headless twin of the GUI.

Each subcommand lives in its own module under :mod:`svtgui.cli.commands` and exposes
``register(subparsers)``; this file only assembles them, so areas of the project can add
commands without touching each other. Exit codes (:mod:`svtgui.cli.errors`): 0 done, 1 finding
(audit), 2 bad input or a fault, 3 budget refused, 70 internal error.
"""

from __future__ import annotations

from svtgui.cli import startup  # first: signals end svtgui-cli with one line from here on

if startup.cli_process():
    startup.exit_on_signals()

import argparse  # noqa: E402 - after the signal handlers, on purpose
import importlib
import os
import re
import sys
from typing import NoReturn

from svtgui._version import VERSION_TEXT
from svtgui.cli.errors import (
    DEBUG_ENV,
    EXIT_BAD_INPUT,
    EXIT_BROKEN_PIPE,
    EXIT_BUDGET,
    EXIT_FINDING,
    EXIT_INTERNAL,
    EXIT_OK,
    CliError,
    describe,
    interrupted,
    signals_as_exceptions,
)

# Each command's name and the module that registers it, in the order `--help` lists them. A command
# line naming one imports that module alone (issue 25 §4: `run` needs neither the auditor nor the
# recipes); `--help`, `--version` and anything unknown import them all.
COMMANDS = {
    "mechanisms": "svtgui.cli.commands.mechanisms",
    "run": "svtgui.cli.commands.run",
    "ledger": "svtgui.cli.commands.ledger",
    "report": "svtgui.cli.commands.report",
    "queries": "svtgui.cli.commands.queries",
    "sparse-project": "svtgui.cli.commands.sparse_project",
    "release": "svtgui.cli.commands.release",
    "audit": "svtgui.cli.commands.audit",
    "recipe": "svtgui.cli.commands.recipe",
}

# re-exported: commands import CliError and the exit codes from here
__all__ = ["EXIT_BAD_INPUT", "EXIT_BROKEN_PIPE", "EXIT_BUDGET", "EXIT_FINDING", "EXIT_INTERNAL", "EXIT_OK",
           "CliError", "build_parser", "main"]

# "-1e3", "-.5", "-inf" are values, not options (argparse only knows "-1" and "-1.5"); so is a list of
# numbers that starts with one ("--split -1,1,1" read "expected one argument", not the negative share)
_UNSIGNED = r"(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?|inf|infinity|nan"
_NEGATIVE_NUMBER = re.compile(rf"^-({_UNSIGNED})(,-?({_UNSIGNED}))*$", re.IGNORECASE)


class OneLineParser(argparse.ArgumentParser):
    """argparse whose usage errors are one line, like every other failure (argparse prints the
    whole usage block first; it stays under ``--help``). Subcommands inherit the class."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The parser of ``svtgui-cli``: with every command, or for ``argv`` naming a command, with that
    command alone (the others' modules are not imported: their parsers would never be used)."""
    parser = OneLineParser(prog="svtgui-cli", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=VERSION_TEXT)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    chosen = _command_named(argv)
    for name, module in COMMANDS.items():
        if chosen in (None, name):
            importlib.import_module(module).register(sub)
    _accept_negative_numbers(parser)
    return parser


def _command_named(argv: list[str] | None) -> str | None:
    """The command ``argv`` names: its first argument that is not an option (the top level has no
    option that takes a value), if it is a command and no top-level ``-h``/``--version`` comes
    first (``svtgui-cli -h run`` lists every command); else None."""
    for arg in argv or ():
        if not arg.startswith("-"):
            return arg if arg in COMMANDS else None
        if arg in ("-h", "--help", "--version"):
            return None
    return None


def _accept_negative_numbers(parser: argparse.ArgumentParser) -> None:
    """Let every (sub)parser take ``--threshold -1e3``: no option of ours looks like a number."""
    parser._negative_number_matcher = _NEGATIVE_NUMBER
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in set(action.choices.values()):
                _accept_negative_numbers(sub)


def main(argv: list[str] | None = None) -> int:
    """Run one command; every failure is one line on stderr and an exit code (see cli/errors.py)."""
    with signals_as_exceptions():
        try:
            argv = sys.argv[1:] if argv is None else argv
            args = build_parser(argv).parse_args(argv)  # imports the command's module: numpy, duckdb, …
        except SystemExit:
            raise  # --help, --version, a usage error: argparse has printed its one line
        except BaseException as exc:  # noqa: BLE001 - a signal inside an import comes out as anything
            code = _fail("svtgui-cli", exc)
        else:
            code = _run(args)
    if startup.cli_process():
        if interrupted():
            # CPython remembers a KeyboardInterrupt raised inside an extension's initialisation (pandas'
            # Cython modules run code through PyRun_String) and kills itself with SIGINT at exit,
            # replacing the documented code by −2: end the process here, its streams flushed
            startup.exit_flushed(code)
        startup.ignore_signals()  # the command is done: a signal during the interpreter's exit keeps its code
    return code


def _run(args: argparse.Namespace) -> int:
    try:  # everything, imports included: a signal may land in any of it
        from svtgui.cli.inputs import expand_home, guard_outputs
        from svtgui.data.engines import scratch

        scratch.remove_stale()  # rows copied by a killed process: gone at start, not at next use
        expand_home(vars(args))  # '~' in every file option, once
        guard_outputs(vars(args))  # no command writes over a file it reads (svtgui.cli.inputs)
        return int(args.handler(args) or 0)
    except BrokenPipeError:
        # The reader went away (`svtgui-cli run ... | head`): every row already printed is in the
        # ledger, and the run has been marked interrupted by the runner. Exit quietly, as Unix tools do.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    except BaseException as exc:  # noqa: BLE001 - describe() lets through what must propagate
        from svtgui.cli.config import named_where_given

        return _fail(f"svtgui-cli {args.command}", named_where_given(exc, args))


def _fail(prog: str, exc: BaseException) -> int:
    described = describe(exc)
    if described is None or (described[1] == EXIT_INTERNAL and os.environ.get(DEBUG_ENV)):
        raise exc
    message, code = described
    startup.mark_reported()  # a signal from now on exits without a second line
    # one line, whatever a library put in its message (pyarrow's thrift errors hold newlines)
    message = " ".join(part.strip() for part in message.splitlines() if part.strip())
    print(f"{prog}: error: {message}", file=sys.stderr)
    return code
