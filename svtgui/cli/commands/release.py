"""``svtgui-cli release build RUN_ID... --out FILE``: one release document from several runs.

A curator publishes a release, not a run: the statistics of several runs of one dataset in one table,
their total ε and δ, the declarations each was made under and the method of each, from the ledger
alone (:mod:`svtgui.app.reports.release`). The format follows each ``--out`` file's suffix.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from svtgui.cli.commands.ledger import add_ledger_option, open_ledger
from svtgui.cli.commands.report import report_format_problems, run_number
from svtgui.cli.errors import CliError, os_error_cause


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("release", help="build one release document from several runs of a dataset",
                       description=__doc__.splitlines()[0])
    inner = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    b = inner.add_parser(
        "build", help="write the release of RUN_ID... (HTML, PDF, JSON or CSV) from the ledger",
        description="Write one release over several ended runs of one dataset: a statistics table over all "
                    "of them with exact intervals, their total ε and δ, the declarations each was charged "
                    "under, the guarantee in one sentence and the method of each with its citation. Never a "
                    "true answer, the noisy threshold, a noise value, a seed or a time of day.",
        epilog="example: svtgui-cli release build 3 4 7 --out adult-release.pdf --out adult-release.json")
    b.add_argument("run_ids", type=run_number, nargs="+", metavar="RUN_ID",
                   help="runs (see `svtgui-cli ledger`)")
    b.add_argument("--out", action="append", default=[], metavar="FILE",
                   help="output file: .html, .pdf, .json or .csv (repeatable)")
    b.add_argument("--script", metavar="FILE.py",
                   help="also write a Python script that replays these runs on a data file with fresh secure "
                        "noise (running it spends budget)")
    b.add_argument("--plan-dir", metavar="FOLDER",
                   help="also write the runs' plans as svtgui-cli commands: replay.sh, a run --config TOML "
                        "and query list per run, a recipe's item domain (running replay.sh spends budget)")
    add_ledger_option(b)
    b.set_defaults(handler=build)


def build(args: argparse.Namespace) -> int:
    from svtgui.app.outputs import Inputs
    from svtgui.app.replay import export_plans, export_script, plan_targets, script_target, script_text
    from svtgui.app.reports import export_release, report_target
    from svtgui.app.reports.release import checked_runs

    outs = [Path(o) for o in args.out]
    if not outs and args.script is None and args.plan_dir is None:
        raise CliError("give at least one --out FILE, --script FILE.py or --plan-dir FOLDER")
    unwritable = report_format_problems(outs, "--out")
    problems = list(unwritable.values())  # with every other problem, in one refusal
    # (option, target, writer, what the curator is told once it is written)
    jobs = [("--out", out, export_release, f"release written: {out}") for out in outs]
    if args.script is not None:
        jobs.append(("--script", args.script, export_script,
                     f"script written: {args.script} (running it spends budget)"))
    if args.plan_dir is not None:
        jobs.append(("--plan-dir", args.plan_dir, export_plans,
                     f"plans written to {args.plan_dir}: sh {Path(args.plan_dir) / 'replay.sh'} DATA_FILE "
                     "replays them (and spends budget)"))
    with open_ledger(args.ledger, existing=True) as led:
        try:
            checked_runs(led, args.run_ids)  # every run checked before any file is written
            if args.script is not None or args.plan_dir is not None:
                script_text(led, args.run_ids)  # and every run's plan, when a replay is asked for
        except ValueError as exc:
            problems.append(str(exc))
        checks = {"--out": lambda out: report_target(led, out, None, "release"),
                  "--script": lambda out: script_target(led, out),
                  "--plan-dir": lambda out: plan_targets(led, args.run_ids, out)}
        for option, target, _, _ in jobs:  # every output before the first is written: `--out r.html
            if target in unwritable:  # --script r.html` wrote the release, then refused the script
                continue
            try:
                checks[option](target)
            except ValueError as exc:
                problems.append(f"{option} {target}: {exc}")
        if problems:
            raise CliError("; ".join(dict.fromkeys(problems)))
        for option, target, write, done in jobs:
            try:
                write(led, args.run_ids, target, Inputs())
            except OSError as exc:
                raise CliError(f"{option} {target}: cannot be written: {os_error_cause(exc)}") from None
            except ValueError as exc:
                raise CliError(f"{option} {target}: {exc}") from None
            print(done, file=sys.stderr)
    return 0
