"""``svtgui-cli sparse-project build|answer|info``: a SparseProject release file and its evaluator.

``build`` (curator, has the data) charges the ledger, projects the dataset's histogram over the
chosen universe and writes ``release.npz``. ``answer`` and ``info`` (anyone) read only that file:
the analyst never needs the dataset.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from typing import Any

from svtgui.cli.commands.ledger import add_ledger_option, open_ledger
from svtgui.cli.common import add_dataset_options, load_release, print_theory
from svtgui.cli.config import integer_option
from svtgui.cli.engine_options import add_engine_options
from svtgui.cli.errors import EXIT_BUDGET, CliError
from svtgui.core import mechanisms
from svtgui.core.budget import BudgetExceeded, fmt
from svtgui.core.mechanisms.sparse_project_theory import GAUSSIAN, NEIGHBOURINGS, NOISES


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("sparse-project", help="SparseProject: build a release file, answer queries from it",
                       description=__doc__.splitlines()[0])
    inner = p.add_subparsers(dest="action", metavar="ACTION", required=True)

    b = inner.add_parser(
        "build", help="project a dataset over a universe and write the release (charges the ledger)",
        description="Build a SparseProject release. The universe is the cross product of --columns: "
                    "'sex' (categorical), 'education=Bachelors,Masters' (declared levels), 'age:8' (8 bins "
                    "between declared bounds), 'age@17,25,35,50,91' (explicit edges).",
        epilog="example: svtgui-cli sparse-project build --data adult.csv --columns age@17,25,35,45,55,65,91 "
               "education sex Salary --epsilon 1 --delta 1e-6 --T 4096 --budget-epsilon 4 --out release.npz")
    b.add_argument("--data", required=True, metavar="FILE", help="the private dataset")
    b.add_argument("--schema", metavar="SCHEMA.json", help="declared schema (default: FILE's sidecar)")
    add_engine_options(b)
    b.add_argument("--columns", required=True, nargs="+", metavar="SPEC", help="universe axes (see above)")
    b.add_argument("--epsilon", required=True, type=float, help="ε of the release (charged in full)")
    b.add_argument("--delta", type=float, default=1e-6, help="δ of the release (default 1e-6)")
    b.add_argument("--T", dest="projection_size", type=integer_option, default=4096, help="projection size T")
    b.add_argument("--queries-k", dest="queries", type=integer_option, default=1000,
                   help="k: number of queries the accuracy statement covers (default 1000)")
    b.add_argument("--beta", type=float, default=0.05, help="failure probability β (default 0.05)")
    b.add_argument("--sparsity", type=integer_option, default=16,
                   help="m: cells per query the statement covers")
    b.add_argument("--neighbouring", choices=NEIGHBOURINGS,
                   help="must match the schema's neighbouring notion (default: the schema's)")
    b.add_argument("--noise", choices=NOISES, default=GAUSSIAN)
    b.add_argument("--out", required=True, metavar="RELEASE.npz",
                   help="release file to write (same as `svtgui-cli run --mechanism sparse_project "
                        "--release-out`)")
    add_ledger_option(b)
    add_dataset_options(b)
    b.set_defaults(handler=build)

    a = inner.add_parser("answer", help="answer count queries from a release file (no dataset needed)",
                         description="Answer count queries from a release alone.")
    _add_release_option(a)
    a.add_argument("--query", action="append", default=[], metavar="JSON",
                   help='a count query, e.g. \'{"kind": "count", "where": {"column": "sex", "op": "=", '
                        '"value": "Female"}}\' (repeatable)')
    a.add_argument("--queries", metavar="QUERIES.json", help="a query list file (count queries)")
    a.add_argument("--json", action="store_true", help="JSON lines output")
    a.set_defaults(handler=answer)

    i = inner.add_parser("info", help="print a release's public header",
                         description="Show a release's header.")
    _add_release_option(i)
    i.set_defaults(handler=info)


def build(args: argparse.Namespace) -> int:
    """The same ledger path as ``svtgui-cli run --mechanism sparse_project --release-out``."""
    from svtgui.app.domains import Domains
    from svtgui.app.plan import build as build_plan
    from svtgui.app.runs.runner import request_for, start_run
    from svtgui.cli.commands.queries import load_data
    from svtgui.cli.common import (
        TEST_SEED_WARNING,
        applicable_budget,
        plan_refusal,
        print_release,
        register_dataset,
        screen,
        warn,
    )
    from svtgui.cli.inputs import command_inputs

    params = dict(epsilon=args.epsilon, delta=args.delta, projection_size=args.projection_size,
                  queries=args.queries, beta=args.beta, sparsity=args.sparsity, noise=args.noise,
                  universe=list(args.columns), release_out=args.out)
    if args.neighbouring is not None:
        params["neighbouring"] = args.neighbouring
    try:  # bad parameters fail before loading the data
        mechanisms.create("sparse_project", rng=mechanisms.seeded(0),
                          **{k: v for k, v in params.items() if k not in ("universe", "release_out")})
    except ValueError as exc:
        raise CliError(str(exc)) from None
    ds = load_data(args.data, args.schema, args)
    if args.neighbouring is not None:
        if args.neighbouring != ds.schema.neighbouring.value:
            raise CliError(f"--neighbouring {args.neighbouring}: the schema of {ds.name} declares "
                           f"{ds.schema.neighbouring.value} neighbours; change it in the schema")
        del params["neighbouring"]
    with open_ledger(args.ledger) as led:
        # the whole run (parameters, universe, the release file's folder, the budget) is checked before
        # a new dataset is registered: a bad --out must leave the ledger as it was
        plan = build_plan(ds, [], "sparse_project", params, budget=applicable_budget(led, ds, vars(args)),
                          adaptive=True, inputs=command_inputs({**vars(args), "ledger": led.path}),
                          domains=Domains(allowed=bool(args.allow_data_derived_domains)))
        if not plan.ok:
            raise plan_refusal(plan, {"universe": "--columns", "release_out": "--out"})
        screen(led, request_for(ds, [], plan, seed=args.test_seed))  # before a new dataset is registered
        warn("sparse-project", plan.warnings)
        record = register_dataset(led, ds, vars(args))
        try:
            run = start_run(led, ds, [], "sparse_project", params, seed=args.test_seed, plan=plan)
            run.finish()
        except BudgetExceeded as exc:
            raise CliError(str(exc), EXIT_BUDGET) from None
        except ValueError as exc:
            raise CliError(f"--columns/--out: {exc}") from None
        facts = led.facts(run.id)
        b = led.budget(record.dataset_id)
    if not run.record.secure:
        print(f"svtgui-cli sparse-project: {TEST_SEED_WARNING}", file=sys.stderr)
    print_release(facts)
    print(f"run {run.id}; charged ε = {args.epsilon:g}, δ = {args.delta:g}; "
          f"budget of {ds.name}: spent ε {fmt(b.spent_epsilon)} of {fmt(b.total_epsilon)}")
    return 0


def _add_release_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--release", required=True, metavar="RELEASE.npz")
    p.add_argument("--expect-sha256", metavar="HEX",
                   help="the release's SHA-256 as the curator published it; any other file is refused")


def info(args: argparse.Namespace) -> int:
    release = load_release(args.release, args.expect_sha256)
    print_theory(release)
    print(f"file SHA-256 {release.sha256} (compare it with the one the curator published)")
    universe = release.header.get("metadata", {}).get("universe", {})
    for axis in universe.get("axes", []):
        read = "  [levels read from the data: this release is NOT differentially private]" \
            if axis.get("levels_from_data") else ""
        print(f"  {axis['column']}: {', '.join(axis['levels'])}{read}")
    return 0


def answer(args: argparse.Namespace) -> int:
    from svtgui.data.predicates import QueryError
    from svtgui.data.queries import query_from_json, read_queries
    from svtgui.data.universe import Universe

    release = load_release(args.release, args.expect_sha256)
    try:
        universe = Universe.from_json(release.header.get("metadata", {}).get("universe"))
    except ValueError as exc:
        raise CliError(f"{args.release}: the release has no usable universe description ({exc})") from None
    queries = []
    try:
        for text in args.query:
            queries.append(query_from_json(text))
        if args.queries:
            queries.extend(read_queries(args.queries).queries)  # answered from the release: no data read
    except ValueError as exc:
        raise CliError(f"--query/--queries: {exc}") from None
    if not queries:
        raise CliError("give at least one --query or --queries")
    try:
        linear = [universe.query(q) for q in queries]
    except QueryError as exc:
        raise CliError(f"query does not fit the release's universe: {exc}") from None
    from svtgui.app.reports.statistics import statistics_text

    values = release.answer_many(linear)
    table = answer_statistics(release, queries, linear, values)
    for q, lq, v, st in zip(queries, linear, values, table, strict=True):
        if args.json:
            print(json.dumps({"query": q.to_json(), "fraction": v, "count": v * release.n,
                              "cells": lq.sparsity, "interval": st["interval"],
                              "confidence": st["confidence"]}, ensure_ascii=False))
    if not args.json:
        print(statistics_text(table))
        acc = release.header["accuracy"]
        print(f"intervals: the release's accuracy statement, α = {acc['alpha']:.4g} of n̂ = {release.n:,}, "
              f"for up to k = {release.header.get('queries')} queries of at most m = "
              f"{release.header.get('sparsity')} cells together, with probability ≥ {1 - acc['beta']:g} "
              "(a bound: the projection adds error of its own, so no exact interval exists)")
        for st in table:
            if st["interval"] is None:
                print(f"  no interval for {st['name']}: {st['method']}")
    return 0


def answer_statistics(release: Any, queries: list[Any], linear: list[Any],
                      values: Any) -> list[dict[str, Any]]:
    """Each answer as a count with the release's (α, β) interval (None for a query touching more
    than m cells: outside the statement), in the statistics table's form."""
    from svtgui.app.reports.statistics import rounded

    acc, m, n = release.header["accuracy"], release.header.get("sparsity"), release.n
    table = []
    for q, lq, v in zip(queries, linear, values, strict=True):
        count = float(v) * n
        inside = (not m or lq.sparsity <= m) and math.isfinite(acc["alpha"])  # no statement: no interval
        # a count is never negative: the interval starts at 0 at the lowest
        low, high = max(0.0, (float(v) - acc["alpha"]) * n), (float(v) + acc["alpha"]) * n
        interval = (low, high) if inside else None
        value, interval = rounded(count, interval, integer=False) if interval else (round(count), None)
        table.append({"name": q.describe(), "value": value, "interval": None if interval is None
                      else list(interval), "confidence": 1 - acc["beta"] if inside else None,
                      "epsilon": f"{release.header.get('epsilon'):g}", "run": "—",
                      "method": "SparseProject release; the release's accuracy statement" if inside else
                      f"touches {lq.sparsity} cells > m = {m}: outside the accuracy statement"
                      if m and lq.sparsity > m else "the accuracy statement holds no finite α here"})
    return table
