"""``svtgui-cli recipe``: the seeds' recipes (auto-clipped mean, range screening, frequent items).

The headless twins of the window's Queries → Recipes…: each recipe is one ledger run, charged its
whole ε before the data is read (see :mod:`svtgui.app.recipes`). The released numbers go to stdout;
the charge and the budget to stderr, as for ``svtgui-cli run``.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any

from svtgui.app.domains import warning as domain_warning
from svtgui.cli.commands.ledger import add_ledger_option, open_ledger
from svtgui.cli.commands.queries import load_data, read_queries
from svtgui.cli.commands.report import report_format_problems, write_reports
from svtgui.cli.common import TEST_SEED_WARNING, add_dataset_options, warn
from svtgui.cli.config import integer_option
from svtgui.cli.engine_options import add_engine_options
from svtgui.cli.errors import EXIT_BAD_INPUT, EXIT_BUDGET, CliError
from svtgui.cli.inputs import command_inputs
from svtgui.core.budget import fmt


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "recipe", help="run a recipe: auto-mean, screen-ranges or frequent-items (charges the ledger)",
        description="Recipes compose SVT with Laplace releases, as in the seed material. Each is one run "
                    "in the ledger, charged its whole ε before the data is read. Exit codes: 0 done, "
                    "2 bad input, 3 budget refused.")
    kinds = p.add_subparsers(dest="recipe", metavar="RECIPE", required=True)

    mean = kinds.add_parser(
        "auto-mean", help="mean of a numeric column with a clipping bound chosen by AboveThreshold",
        description="AboveThreshold over Σclip(x, 0, b+1) − Σclip(x, 0, b) finds the first bound b where "
                    "the clipped sum stops growing; Laplace then releases Σclip(x, 0, b) and the count. "
                    "ε is split in thirds by default (--split).",
        epilog="example: svtgui-cli recipe auto-mean --data adult.csv --column age --epsilon 1 "
               "--budget-epsilon 5")
    _common(mean)
    mean.add_argument("--column", required=True, help="numeric column")
    mean.add_argument("--sweep", nargs=3, type=float, metavar=("START", "STOP", "STEP"),
                      help="bounds b = START, START+STEP, … < STOP (default: from the column's declared "
                           "upper bound, else 1 150000 5 as in the notebook)")
    mean.add_argument("--split", type=_split, default=(1.0, 1.0, 1.0), metavar="A,B,C",
                      help="shares of ε for the bound search, the sum and the count (default 1,1,1)")
    mean.set_defaults(handler=_auto_mean)

    screen = kinds.add_parser(
        "screen-ranges", help="Sparse selects the ranges above T, Laplace answers only those",
        description="Sparse (half of ε by default) finds up to c queries whose answer exceeds T; each is "
                    "then answered with fresh Laplace noise (the other half, split over c).",
        epilog="example: svtgui-cli recipe screen-ranges --data adult.csv --column age --start 17 --stop 91 "
               "--width 5 --threshold 2000 --cutoff 3 --epsilon 1")
    _common(screen)
    screen.add_argument("--queries", metavar="QUERIES.json", help="the queries to screen")
    screen.add_argument("--column",
                        help="or: ranges [a, a+WIDTH) of this column for a = START, START+STEP, …")
    screen.add_argument("--start", type=float)
    screen.add_argument("--stop", type=float)
    screen.add_argument("--width", type=float)
    screen.add_argument("--step", type=float)
    screen.add_argument("--threshold", type=float, required=True, help="public threshold T")
    screen.add_argument("--cutoff", type=integer_option, required=True, help="at most c ranges are answered")
    screen.add_argument("--screen-share", type=float, default=0.5, help="share of ε for Sparse (default 0.5)")
    screen.set_defaults(handler=_screen_ranges)

    items = kinds.add_parser(
        "frequent-items",
        help="the top-c items of a transactions dataset (EM, or Standard SVT for comparison)",
        description="Chooses c frequent items of a transactions file (FIMI .dat). The item domain must be "
                    "public: give it with --items-range or --items-file; --items-from-data uses the items "
                    "that occur, which is NOT public (an item bought once names its basket): it is refused "
                    "unless --allow-data-derived-domains is given too, and the release is then NOT "
                    "differentially private.",
        epilog="example: svtgui-cli recipe frequent-items --data retail.dat --items-range 0 16469 "
               "--cutoff 10 --epsilon 1")
    _common(items)
    items.add_argument("--cutoff", type=integer_option, required=True, help="number of items to choose (c)")
    items.add_argument("--method", default="em_top_c", choices=("em_top_c", "standard_svt", "sparse"))
    items.add_argument("--threshold", type=float, help="public support threshold (standard_svt, sparse)")
    domain = items.add_mutually_exclusive_group(required=True)
    domain.add_argument("--items-range", nargs=2, type=integer_option, metavar=("LO", "HI"),
                        help="the public domain is the integers LO … HI")
    domain.add_argument("--items-file", metavar="FILE", help="the public domain, one item per line")
    domain.add_argument("--items-from-data", action="store_true",
                        help="use the items that occur in the data (NOT public; needs "
                             "--allow-data-derived-domains, and the release is NOT differentially private)")
    items.set_defaults(handler=_frequent_items)


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--data", required=True, metavar="FILE", help="dataset")
    p.add_argument("--schema", metavar="SCHEMA.json", help="declared schema (default: FILE's sidecar)")
    add_engine_options(p)
    p.add_argument("--epsilon", type=float, required=True,
                   help="ε of the whole recipe (charged before the data is read)")
    add_ledger_option(p)
    add_dataset_options(p)
    p.add_argument("--report", metavar="OUT", action="append", help="write a release report (repeatable)")
    p.add_argument("--json", action="store_true", help="print the released values as one JSON object")


def _split(text: str) -> tuple[float, float, float]:
    parts = text.split(",")
    try:
        shares = tuple(float(x) for x in parts)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected three numbers A,B,C, got {text!r}") from None
    if len(shares) != 3 or not all(0 < s < math.inf for s in shares):  # inf: "the bound search gets nan"
        raise argparse.ArgumentTypeError(f"expected three positive finite numbers A,B,C, got {text!r}")
    return shares  # type: ignore[return-value]


def _execute(args: argparse.Namespace, make_plan: Any) -> int:
    """Load, check everything, register, run ``make_plan(dataset, rng)``, print, write reports.

    Nothing is registered or charged unless the recipe's checks pass, every report can be written
    and its ε fits the budget (exit 2, or 3 for the budget).
    """
    from svtgui.app.outputs import check_output
    from svtgui.app.plan import output_bytes
    from svtgui.app.reports.content import release_date, statistics
    from svtgui.cli.common import applicable_budget, register_dataset, screen
    from svtgui.core.budget import BudgetExceeded
    from svtgui.core.noise import seeded

    reports = [Path(r) for r in args.report or []]
    problems = list(report_format_problems(reports, "--report").values())  # all refused together below
    ds = load_data(args.data, args.schema, args)
    plan = make_plan(ds, None if args.test_seed is None else seeded(args.test_seed))
    try:
        plan.check()
    except ValueError as exc:
        problems.append(str(exc))
    with open_ledger(args.ledger) as led:
        inputs = command_inputs({**vars(args), "ledger": led.path})  # never write over these
        rows = int(plan.params.get("queries") or plan.params.get("domain_size") or 0)  # rows a report holds
        for out in reports:
            try:
                check_output(out, inputs, output_bytes(out, rows))
            except ValueError as exc:
                problems.append(f"--report {out}: {exc}")
        try:
            budget = applicable_budget(led, ds, vars(args))
        except CliError as exc:  # new rows without a total, or rows like a known dataset's
            problems.append(str(exc))
            budget = None
        cost = Fraction(repr(float(plan.epsilon)))
        short = budget is not None and budget.remaining_epsilon < cost
        if short:
            problems.append(f"the recipe needs ε = {fmt(cost)} but the budget has "
                            f"{fmt(budget.remaining_epsilon)} left")
        if problems:  # exit 3 only when the budget is all that is wrong (docs/cli.md)
            raise CliError("; ".join(problems) + " (nothing was charged)",
                           EXIT_BUDGET if short and len(problems) == 1 else EXIT_BAD_INPUT)
        screen(led, plan.request())  # refused before a new dataset is registered
        record = register_dataset(led, ds, vars(args))
        if args.test_seed is not None:
            print(f"svtgui-cli recipe: {TEST_SEED_WARNING}", file=sys.stderr)
        notes = plan.domains_from_data()  # allowed: the release is NOT differentially private
        warn("recipe", [domain_warning(notes)] if notes else [])
        try:
            done = plan.run(led)
        except BudgetExceeded as exc:
            raise CliError(str(exc), EXIT_BUDGET) from None
        b = led.budget(record.dataset_id)
        _print(done.facts, statistics(led, done.record.id), args)
        print(f"run {done.record.id}: {done.record.status}; charged ε = {fmt(done.record.epsilon)}; "
              f"budget of {ds.name} as of {release_date()}: spent ε {fmt(b.spent_epsilon)} of "
              f"{fmt(b.total_epsilon)}, remaining {fmt(b.remaining_epsilon)}", file=sys.stderr)
        write_reports(led, done.record.id, reports, "--report", inputs)
    return 0


def _print(facts: dict[str, Any], table: list[dict[str, Any]], args: argparse.Namespace) -> None:
    """The statistics table (what the recipe released, with intervals); ``--json``: the released facts in
    full and the same table under "statistics"."""
    if args.json:
        print(json.dumps({**facts, "statistics": table}, ensure_ascii=False, sort_keys=True))
        return
    from svtgui.app.reports.statistics import statistics_text

    print(statistics_text(table))


def _auto_mean(args: argparse.Namespace) -> int:
    from svtgui.app import recipes

    return _execute(args, lambda ds, rng: recipes.auto_mean(
        ds, args.column, args.epsilon, sweep=tuple(args.sweep) if args.sweep else None, split=args.split,
        rng=rng))


def _screen_ranges(args: argparse.Namespace) -> int:
    from svtgui.app import recipes
    from svtgui.data import generators

    if args.queries and args.column:
        raise CliError("give either --queries or --column/--start/--stop/--width, not both")
    from_data: tuple[str, ...] = ()
    if args.queries:
        query_list = read_queries(args.queries)
        queries, from_data = query_list.queries, query_list.from_data
    elif args.column and None not in (args.start, args.stop, args.width):
        queries = generators.range_sweep(args.column, args.start, args.stop, args.width, args.step)
    else:
        raise CliError("give the queries to screen: --queries FILE, or --column with --start, --stop and "
                       "--width")
    return _execute(args, lambda ds, rng: recipes.screen_ranges(
        ds, queries, args.epsilon, args.threshold, args.cutoff, screen_share=args.screen_share, rng=rng,
        domains=_domains(args, from_data)))


def _domains(args: argparse.Namespace, from_data: tuple[str, ...]) -> Any:
    """The recipe's domains read from the data, and whether the curator allowed them."""
    from svtgui.app.domains import Domains

    return Domains(from_data, bool(args.allow_data_derived_domains))


def _frequent_items(args: argparse.Namespace) -> int:
    from svtgui.app import recipes

    if args.method != "em_top_c" and args.threshold is None:
        raise CliError(f"--method {args.method} needs a public --threshold")

    from svtgui.data.generators import MAX_QUERIES

    def domain(ds: Any) -> list[Any]:
        if args.items_range:
            lo, hi = args.items_range
            if hi < lo:
                raise CliError(f"--items-range: HI ({hi}) is below LO ({lo})")
            if hi - lo >= MAX_QUERIES:  # one support query per item
                raise CliError(f"--items-range {lo} {hi}: {hi - lo + 1:,} items, more than the "
                               f"{MAX_QUERIES:,} queries a run may hold; narrow the range")
            return list(range(lo, hi + 1))
        if args.items_file:
            return _items_file(args.items_file)
        from svtgui.data import generators

        return generators.observed_items(ds, "items")

    from svtgui.data.provenance import items_note

    notes = (items_note("items"),) if args.items_from_data else ()
    return _execute(args, lambda ds, rng: recipes.frequent_items(
        ds, domain(ds), args.cutoff, args.epsilon, method=args.method, threshold=args.threshold, rng=rng,
        domains=_domains(args, notes)))


def _items_file(path: str) -> list[Any]:
    """The public item domain, read through the guarded reader (a FIFO or /dev/zero is named, never
    read); ASCII integers become ints (FIMI ids), anything else stays text."""
    from svtgui.data import DatasetError, textio

    try:
        words = textio.read_text(path, what="file of items").split()
    except DatasetError as exc:
        raise CliError(f"--items-file: {exc}") from None
    if not words:
        raise CliError(f"--items-file: {path}: no items (the file holds only blanks)")
    return [int(x) if re.fullmatch(r"-?[0-9]+", x) else x for x in words]
