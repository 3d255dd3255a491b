"""``svtgui-cli queries``: generate query lists (QUERIES.json) and show what a list asks and costs.

The generators are those of :mod:`svtgui.data.generators`; they take public inputs only. Two
options read a domain off the data for convenience (``--observed``), which reveals which values
or items occur: the list file records it (``domains_from_data``, as do lists built from schema levels
read from the data), the command says so on stderr, and a release that uses the list is refused
unless the curator allows it (it is then NOT differentially private).
"""

from __future__ import annotations

import argparse
import errno
import json
import os
import stat
import sys
from pathlib import Path
from typing import Any

from svtgui.cli.config import integer_option, seed_option
from svtgui.cli.engine_options import add_engine_options
from svtgui.cli.errors import CliError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("queries", help="generate a query list (QUERIES.json) or show one",
                       description="Generate query lists for `svtgui-cli run`, or show a list with each "
                                   "query's sensitivity under a dataset's declared schema.")
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    g = actions.add_parser("generate", help="write a generated query list",
                           description="Write a generated query list as QUERIES.json.")
    kinds = g.add_subparsers(dest="generator", metavar="GENERATOR", required=True)

    def gen(name: str, help_: str, example: str) -> argparse.ArgumentParser:
        k = kinds.add_parser(name, help=help_, description=help_, epilog=f"example: {example}")
        k.add_argument("--out", required=True, metavar="QUERIES.json", help="output file ('-' for stdout)")
        k.set_defaults(handler=generate)
        return k

    k = gen("range-sweep", "windows [a, a + width) for a = start, start + step, … < stop",
            "svtgui-cli queries generate range-sweep --column age --start 17 --stop 90 --width 5 "
            "--out q.json")
    k.add_argument("--column", required=True)
    k.add_argument("--start", type=float, required=True)
    k.add_argument("--stop", type=float, required=True)
    k.add_argument("--width", type=float, required=True)
    k.add_argument("--step", type=float, help="distance between window starts (default: width)")
    k = gen("random-ranges", "k random ranges [a, b) inside [low, high] (seeded: the choice is public)",
            "svtgui-cli queries generate random-ranges --column age --low 17 --high 90 -k 1000 --out q.json")
    k.add_argument("--column", required=True)
    k.add_argument("--low", type=float, required=True)
    k.add_argument("--high", type=float, required=True)
    k.add_argument("-k", type=integer_option, required=True, help="number of ranges")
    k.add_argument("--seed", type=seed_option, default=0)
    k.add_argument("--min-width", type=float, default=1.0)
    k.add_argument("--real", action="store_true", help="real-valued endpoints (default: integers)")
    k = gen("clip-bound-sweep", "difference queries for choosing a clipping bound (Near & Abuah's auto_avg)",
            "svtgui-cli queries generate clip-bound-sweep --column capital-gain --start 0 --stop 100000 "
            "--step 2 --geometric --out q.json")
    k.add_argument("--column", required=True)
    k.add_argument("--start", type=float, required=True)
    k.add_argument("--stop", type=float, required=True)
    k.add_argument("--step", type=float, default=5.0, help="step (linear) or ratio > 1 (--geometric)")
    k.add_argument("--geometric", action="store_true")
    k.add_argument("--diff-step", type=float)
    k.add_argument("--normalised", action=argparse.BooleanOptionalAction, default=None)
    k = gen("every-item", "one support query per item of a transaction file",
            "svtgui-cli queries generate every-item --items 38 39 41 48 --out q.json")
    k.add_argument("--column", default="items")
    src = k.add_mutually_exclusive_group(required=True)
    src.add_argument("--items", nargs="+", help="the public item domain")
    src.add_argument("--observed", metavar="DATA", help="read the items off this dataset (reveals them)")
    k = gen("every-value", "one count per value of a categorical column",
            "svtgui-cli queries generate every-value --data adult.csv --column education --out q.json")
    k.add_argument("--data", required=True, metavar="FILE", help="dataset whose declared schema is used")
    k.add_argument("--schema", metavar="SCHEMA.json", help="declared schema (default: FILE's sidecar)")
    add_engine_options(k)
    k.add_argument("--column", required=True)
    src = k.add_mutually_exclusive_group()
    src.add_argument("--values", nargs="+", help="the public domain (default: the declared categories)")
    src.add_argument("--observed", action="store_true", help="read the values off the data (reveals them)")
    k = gen("marginals", "every cell of every k-way marginal of some categorical columns",
            "svtgui-cli queries generate marginals --data adult.csv --columns sex race -k 2 --observed "
            "--out q.json")
    k.add_argument("--data", required=True, metavar="FILE")
    k.add_argument("--schema", metavar="SCHEMA.json")
    add_engine_options(k)
    k.add_argument("--columns", nargs="+", required=True)
    k.add_argument("-k", type=integer_option, default=2)
    k.add_argument("--observed", action="store_true", help="read domains off the data (reveals them)")

    s = actions.add_parser("show", help="list the queries of a file with their sensitivity",
                           description="List the queries of QUERIES.json; with --data, also each query's "
                                       "sensitivity under the dataset's declared schema (never its answers).",
                           epilog="example: svtgui-cli queries show q.json --data adult.csv")
    s.add_argument("file", metavar="QUERIES.json")
    s.add_argument("--data", metavar="FILE")
    s.add_argument("--schema", metavar="SCHEMA.json")
    add_engine_options(s)
    s.set_defaults(handler=show)


def read_queries(path: str | Path) -> Any:
    """A query file (a :class:`~svtgui.data.queries.QueryList`: the queries and the domains read from
    the data they were built from), with any problem as a CLI error naming the file (and the query's
    position)."""
    from svtgui.data.queries import read_queries as read

    try:
        return read(path)
    except ValueError as exc:
        raise CliError(str(exc)) from None


def load_data(path: str, schema: str | None, options: Any = None, *, option: str = "--data") -> Any:
    """A dataset (with an optional declared schema file) on the engine ``options`` ask for (parsed
    ``--engine``/``--spark-*`` options, or a settings dict), errors as one CLI line naming the file
    and the ``option`` that gave it."""
    from svtgui.cli.engine_options import engine_kwargs
    from svtgui.data import DatasetError, LoadOptions
    from svtgui.data.engines import open_dataset
    from svtgui.data.errors import DeclaredSchemaError

    engine = engine_kwargs(options) if options is not None else {}
    try:
        return open_dataset(path, LoadOptions(schema=schema), **engine)
    except DeclaredSchemaError as exc:  # a schema given is named as given (a config's key: renamed)
        raise CliError(f"--schema {exc.detail}" if exc.given else f"{option}: {exc}") from None
    except (DatasetError, ValueError) as exc:
        raise CliError(f"{option}: {exc}") from None


def _revealing(notes: list[str]) -> None:
    from svtgui.app.domains import listing

    if notes:
        print(f"svtgui-cli queries: note: built from {listing(notes)}, read from the data: the list reveals "
              "which ones occur and says so in its file; a release that uses it is refused unless allowed "
              "(--allow-data-derived-domains), and is then NOT differentially private", file=sys.stderr)


def _build(args: argparse.Namespace) -> Any:
    """The generated list (a ``QueryList``) with the domains read from the data it was built from."""
    from svtgui.data import generators as g
    from svtgui.data import provenance
    from svtgui.data.queries import QueryList

    name = args.generator
    if name == "range-sweep":
        return QueryList(g.range_sweep(args.column, args.start, args.stop, args.width, args.step))
    if name == "random-ranges":
        return QueryList(g.random_ranges(args.column, args.low, args.high, args.k, seed=args.seed,
                                         integer=not args.real, min_width=args.min_width))
    if name == "clip-bound-sweep":
        return QueryList(g.clip_bound_sweep(args.column, args.start, args.stop, args.step,
                                            geometric=args.geometric, diff_step=args.diff_step,
                                            normalised=args.normalised))
    if name == "every-item":
        if args.observed:
            items = g.observed_items(load_data(args.observed, None, option="--observed"), args.column)
            return QueryList(g.every_item(items, args.column), (provenance.items_note(args.column),))
        return QueryList(g.every_item([_item(i) for i in args.items], args.column))
    ds = load_data(args.data, args.schema, args)
    columns = [args.column] if name == "every-value" else list(args.columns)
    if args.observed:  # every column's domain read off the data
        notes = [provenance.values_note(c) for c in columns]
    else:  # declared here or in the schema, whose levels may themselves have been read from the data
        given = [args.column] if name == "every-value" and args.values else []
        notes = provenance.schema_notes(ds.schema, [c for c in columns if c not in given])
    if name == "every-value":
        values = g.observed_values(ds, args.column) if args.observed else args.values
        return QueryList(g.every_value(ds.schema, args.column, values), tuple(notes))
    observed = {c: g.observed_values(ds, c) for c in columns} if args.observed else None
    return QueryList(g.marginals(ds.schema, columns, args.k, observed), tuple(notes))


def _item(text: str) -> Any:
    """Items typed on the command line: integers stay integers (FIMI ids), anything else is text."""
    try:
        return int(text)
    except ValueError:
        return text


def generate(args: argparse.Namespace) -> int:
    from svtgui.data.queries import queries_to_json

    try:
        built = _build(args)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    queries = built.queries
    _revealing(list(built.from_data))
    text = json.dumps(queries_to_json(queries, built.from_data), indent=1, ensure_ascii=False) + "\n"
    if args.out == "-":
        sys.stdout.write(text)
    else:
        out = Path(args.out)
        try:
            _write_out(out, text)
        except OSError as exc:
            if exc.errno == errno.ENXIO:
                raise CliError(f"--out {out}: a named pipe (FIFO) that nobody reads; writing to it would "
                               "wait forever (start its reader first, or write to a file)") from None
            from svtgui.app.outputs import folder_problem

            raise CliError(f"--out {out}: {folder_problem(out) or exc.strerror}") from None
        print(f"{len(queries)} queries written to {out}", file=sys.stderr)
    return 0


def _write_out(out: Path, text: str) -> None:
    """Write ``text`` to ``out``: a file is replaced whole (written beside it, then renamed: a signal
    or a full disk in the middle left half a list, or an empty file where the old one was); a pipe
    is written in place, without blocking on a FIFO that has no reader (a non-blocking open fails
    with ENXIO there instead of waiting forever), and as usual when it has one (``--out >(jq …)``)."""
    try:
        regular = stat.S_ISREG(os.stat(out).st_mode)
    except FileNotFoundError:
        regular = True  # a new file
    if regular:
        from svtgui.app.reports import write_atomically

        umask = os.umask(0o022)  # read back: the list gets the mode a plain open() would give it
        os.umask(umask)

        def write(tmp: Path) -> None:
            tmp.write_text(text, encoding="utf-8")
            tmp.chmod(0o666 & ~umask)

        write_atomically(out, write)
        return
    fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NONBLOCK | os.O_CLOEXEC, 0o666)
    os.set_blocking(fd, True)
    with open(fd, "w", encoding="utf-8") as f:
        f.write(text)


def show(args: argparse.Namespace) -> int:
    query_list = read_queries(args.file)
    queries = query_list.queries
    if query_list.from_data:
        from svtgui.app.domains import listing

        print(f"svtgui-cli queries: note: this list was built from {listing(query_list.from_data)}, read "
              "from the data; a release that uses it is refused unless allowed, and is then NOT "
              "differentially private", file=sys.stderr)
    schema = load_data(args.data, args.schema, args).schema if args.data else None
    for i, q in enumerate(queries, start=1):
        extra = ""
        if schema is not None:
            try:
                extra = f"\tΔ = {q.sensitivity(schema):g}"
            except ValueError as exc:
                extra = f"\tnot usable: {exc}"
        monotonic = q.monotonic_for(schema) if schema is not None else q.monotonic
        flags = ("integer" if q.integer else "real") + (", monotonic" if monotonic else "")
        print(f"{i}\t{q.describe()}\t[{flags}]{extra}")
    return 0
