"""``svtgui-cli run``: stream a query list through a mechanism, charging the ledger, writing a report.

Every ⊤ row is printed only after it is committed to the ledger (the runner returns rows only
then), so what a terminal or a pipe has seen is always a subset of the ledger, even after kill -9.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import numpy as np

from svtgui.app.linear_setup import RUN_PARAMS
from svtgui.app.outputs import Inputs
from svtgui.app.plan import Plan
from svtgui.app.reports.content import value_text
from svtgui.app.runs.in_process import InProcessWorker, in_process_launcher
from svtgui.app.runs.model import RunModel
from svtgui.app.runs.runner import Run, request_for
from svtgui.app.workspace import RunOptions, Workspace
from svtgui.cli.commands.ledger import add_ledger_option, open_ledger
from svtgui.cli.commands.queries import load_data, read_queries
from svtgui.cli.commands.report import report_format_problems, write_reports
from svtgui.cli.common import (
    TEST_SEED_WARNING,
    add_dataset_options,
    applicable_budget,
    plan_refusal,
    print_release,
    register_dataset,
    screen,
    warn,
)
from svtgui.cli.config import check_param_types, integer_option, read_config
from svtgui.cli.engine_options import ENGINE_KEYS, add_engine_options
from svtgui.cli.errors import EXIT_BUDGET, CliError, deferred_signals, end_interrupted
from svtgui.cli.inputs import command_inputs, guard_ledger
from svtgui.core import mechanisms
from svtgui.core.budget import BudgetExceeded, fmt
from svtgui.data.dataset import Dataset
from svtgui.data.queries import QueryList
from svtgui.ledger import Ledger, ResponseBatch

# Keys of --config RUN.toml (the same as the long options, with underscores); [params] holds extra
# catalogue parameters (split, numeric_share, raise_by, max_passes, sensitivity).
CONFIG_KEYS = ("data", "queries", "schema", "mechanism", "epsilon", "delta", "threshold", "cutoff", "ledger",
               "report", "test_seed", "budget_epsilon", "budget_delta", "new_dataset", "same_dataset_as",
               "monotonic", "batch_size", "params", "universe", "release_out", "allow_data_derived_domains",
               *ENGINE_KEYS)
PATH_KEYS = ("data", "queries", "schema", "ledger", "report", "release_out")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "run", help="release answers to a query list with a mechanism (charges the ledger)",
        description="Stream QUERIES.json over a dataset through an SVT mechanism. The full guarantee is "
                    "charged to the dataset's budget before the first answer; every response is committed "
                    "to the ledger before it is printed. ⊤ rows go to stdout (index, ⊤, value, query); "
                    "a progress bar goes to stderr on a terminal. Exit codes: 0 done, 2 bad input, "
                    "3 budget refused.",
        epilog="example: svtgui-cli run --data adult.csv --queries ages.json --mechanism sparse "
               "--epsilon 0.5 --threshold 1000 --cutoff 3 --budget-epsilon 2 --report release.html\n"
               "  svtgui-cli run --data census.csv --queries counts.json --mechanism pmw --epsilon 1 "
               "--delta 1e-6 --threshold 1500 --cutoff 50 \\\n      --universe age@17,25,35,45,55,65,91 "
               "education sex income\n"
               "  svtgui-cli run --data census.csv --mechanism sparse_project --epsilon 1 --delta 1e-6 "
               "--param projection_size=4096 \\\n      --universe age@17,25,35,45,55,65,91 education sex "
               "income --release-out release.npz\n"
               "PMW's --threshold is in rows: a query is paid for when the synthetic answer is off by more "
               "than T rows. See docs/linear-queries.md.",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--session", metavar="FILE.svtsession",
                   help="replay a saved GUI session headlessly: its dataset (checked through the ledger), "
                        "schema, mechanism, parameters and queries; options below override its parameters")
    p.add_argument("--config", metavar="RUN.toml", help="read the options below from a TOML file "
                   "(command-line options override it; relative paths are relative to the file)")
    p.add_argument("--data", metavar="FILE", help="dataset (CSV, TSV, Parquet, Excel, JSON lines, FIMI .dat)")
    p.add_argument("--schema", metavar="SCHEMA.json",
                   help="declared schema (kinds, public bounds, neighbouring); default: FILE's sidecar")
    add_engine_options(p)
    p.add_argument("--queries", metavar="QUERIES.json", help="query list (see `svtgui-cli queries generate`)")
    p.add_argument("--mechanism", metavar="ID", help="mechanism id (see `svtgui-cli mechanisms`)")
    p.add_argument("--epsilon", type=float, help="ε of this run (charged in full before the first answer)")
    p.add_argument("--delta", type=float, help="δ of this run (mechanisms with an (ε, δ) variant)")
    p.add_argument("--threshold", type=float, help="public threshold T")
    p.add_argument("--cutoff", type=integer_option, help="cutoff c: halt after c ⊤ answers")
    p.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                   help="another catalogue parameter "
                        "(split, numeric_share, raise_by, max_passes, sensitivity)")
    p.add_argument("--universe", nargs="+", metavar="SPEC",
                   help="pmw / sparse_project: the universe's columns, e.g. sex education=Bachelors,Masters "
                        "age:8 age@17,25,35,91 (levels declared in the schema or listed; bins from declared "
                        "bounds or edges)")
    p.add_argument("--release-out", metavar="RELEASE.npz",
                   help="sparse_project: the release file to write (answer from it with "
                        "`svtgui-cli sparse-project answer`)")
    p.add_argument("--monotonic", action="store_true", default=None,
                   help="use the monotonic variant when every query is monotonic")
    add_ledger_option(p)
    add_dataset_options(p)
    p.add_argument("--report", metavar="OUT", action="append",
                   help="write a release report (.html, .pdf, .json or .csv; repeatable)")
    p.add_argument("--batch-size", type=integer_option, help="queries per committed batch (default 1000)")
    p.add_argument("--all-rows", action="store_true", help="print ⊥ rows too")
    p.add_argument("--json", action="store_true", help="print rows as JSON lines")
    p.set_defaults(handler=run)


def _settings(args: argparse.Namespace) -> dict[str, Any]:
    """Command-line options over --config over defaults."""

    conf: dict[str, Any] = {}
    if args.config:
        conf = read_config(args.config, CONFIG_KEYS, PATH_KEYS)
    s: dict[str, Any] = {"batch_size": 1000, "delta": None, "monotonic": False, "params": {}}
    s.update(conf)
    for key in CONFIG_KEYS:
        value = getattr(args, key, None)
        if value is not None and key != "params":
            s[key] = value
    typed = _pairs(args.param)
    from_config, s["params"] = s["params"], {**s["params"], **typed}
    session = _session(args.session) if args.session else None
    if session is not None:
        if args.data or args.queries:
            raise CliError("--session already names the dataset and the queries; drop --data/--queries")
        s["session"], s["session_path"] = session, args.session
        s["mechanism"] = s.get("mechanism") or session.mechanism_id
        s["params"] = {**session.run_params(), **s["params"]}  # with PMW/SparseProject's universe, file
        s["monotonic"] = bool(s.get("monotonic")) or session.monotonic
    if s.get("mechanism"):  # a session's own parameters were checked when it was read
        kinds = {p.name: p.kind for p in mechanisms.info(s["mechanism"]).params}
        run_params = RUN_PARAMS.get(s["mechanism"], ())  # universe, release_out may be given there too
        check_param_types(kinds, from_config, config=args.config, extra=run_params)
        check_param_types(kinds, typed)
    needed = ("mechanism",) if session else ("data", "queries", "mechanism", "epsilon")
    if s.get("mechanism") and mechanisms.info(s["mechanism"]).input == mechanisms.RELEASE:
        needed = tuple(k for k in needed if k != "queries")  # the release answers queries later
    for key in needed:
        if s.get(key) is None:
            raise CliError(f"--{key} is required (on the command line or in --config)")
    _linear_settings(s)
    batch = s["batch_size"]
    if isinstance(batch, bool) or not isinstance(batch, int) or batch < 1:
        raise CliError(f"--batch-size must be a positive integer, got {batch!r}")
    return s


def _linear_settings(s: dict[str, Any]) -> None:
    """--universe / --release-out belong to pmw and sparse_project; say so before loading anything."""

    mid = s.get("mechanism")
    info = mechanisms.info(mid)
    universe = s.get("universe") or s["params"].get("universe")
    if info.linear and not universe:
        raise CliError(f"{mid} answers linear queries over a universe: give its columns with --universe "
                       "(e.g. --universe age@17,25,35,45,55,65,91 education sex income)")
    if not info.linear and (s.get("universe") or s.get("release_out")):
        raise CliError(f"--universe/--release-out are for pmw and sparse_project, not {mid}")
    if info.input == mechanisms.RELEASE and not (s.get("release_out") or s["params"].get("release_out")):
        raise CliError("sparse_project is a non-interactive release: give the file to write with "
                       "--release-out RELEASE.npz (or use `svtgui-cli sparse-project build`); answer "
                       "queries later with `svtgui-cli sparse-project answer --release RELEASE.npz`")


def _pairs(items: list[str]) -> dict[str, Any]:

    out: dict[str, Any] = {}
    for item in items:
        name, sep, text = item.partition("=")
        if not sep or not name:
            raise CliError(f"--param must look like NAME=VALUE, got {item!r}")
        try:
            out[name.strip()] = json.loads(text)
        except (ValueError, RecursionError):  # bad JSON, nested too deeply, an integer of 5,000 digits
            raise CliError(f"--param {name}: {text[:40]!r} is not a number or true/false") from None
    return out


def _session(path: str) -> Any:
    from svtgui.app.project_file import SessionError, load

    try:
        return load(path)
    except SessionError as exc:
        raise CliError(str(exc)) from None


def _session_inputs(s: dict[str, Any], led: Ledger) -> tuple[Dataset, QueryList]:
    from svtgui.app.project_file import SessionError
    from svtgui.data import DatasetError

    session = s["session"]
    try:
        return (session.open_dataset(led, s.get("session_path")),
                QueryList(session.query_objects(), session.domains_from_data))
    except (SessionError, DatasetError) as exc:
        raise CliError(f"--session: {exc}") from None


def _mechanism_params(s: dict[str, Any]) -> dict[str, Any]:
    params = dict(s["params"])
    for key in ("epsilon", "delta", "threshold", "cutoff", "universe", "release_out"):
        if s.get(key) is not None:
            params[key] = s[key]
    return params


def load_inputs(s: dict[str, Any]) -> tuple[Dataset, QueryList]:
    """The dataset and the query list (a ``QueryList``, with the domains it read from the data), with
    any problem as a CLI error naming the file."""
    queries = read_queries(s["queries"]) if s.get("queries") is not None else QueryList([])
    return load_data(s["data"], s.get("schema"), s), queries


def set_up(led: Ledger, ds: Dataset, query_list: QueryList, s: dict[str, Any], reports: list[Path],
           inputs: Inputs) -> RunModel:
    """The window's two models, set as the options say: a :class:`~svtgui.app.workspace.Workspace`
    (the dataset, its queue and the domains it read from the data, the mechanism, the parameters
    given as values, the reports, no adaptive query, the declared totals) and the
    :class:`~svtgui.app.runs.model.RunModel` over it, whose run is charged in this thread on ``led``.
    The run's plan is the workspace's, and it starts through :meth:`RunModel.confirm`, as in the window."""
    workspace = Workspace(s["mechanism"])
    model = RunModel(workspace, open_ledger=lambda: led, launcher=in_process_launcher(led))
    workspace.input_files = lambda: inputs  # every file the command read, the ledger: never an output
    workspace.set_options(RunOptions(outputs=tuple(reports), adaptive=False, given=_mechanism_params(s),
                                     monotonic=bool(s.get("monotonic")), seed=s.get("test_seed")))
    workspace.set_dataset(ds, query_list.queries, from_data=query_list.from_data)
    workspace.set_allow_from_data(bool(s.get("allow_data_derived_domains")))
    _declare_budget(model, led, ds, s)
    return model


def _declare_budget(model: RunModel, led: Ledger, ds: Dataset, s: dict[str, Any]) -> None:
    """The budget the run is planned against, as every command words it (:func:`applicable_budget`:
    rows that resemble a known dataset need --same-dataset-as or --new-dataset, new rows a total):
    the known dataset's (the model read it from the ledger), the one --same-dataset-as names, or the
    totals declared for new rows."""
    budget = applicable_budget(led, ds, s)
    if model.budget.known:
        return
    if s.get("same_dataset_as"):
        model.workspace.set_budget(budget)  # shared with that dataset once the rows are bound to it
    else:
        model.workspace.set_totals(str(s["budget_epsilon"]), str(s.get("budget_delta") or 0))


def _plan(led: Ledger, model: RunModel, earlier: list[str]) -> Plan:
    """The one validation (:mod:`svtgui.app.plan`, the workspace's plan) of the whole run — queries
    and their value types, parameters, every output file (never one of the files the run reads; a
    temporary file is created and removed in its folder, so a read-only folder or a full disk is
    found now), the budget — before anything is registered or charged, refused together with the
    ``earlier`` problems (report formats). Exit 2 (3 when only the budget is short), nothing changed."""
    workspace = model.workspace
    plan = workspace.plan
    if plan.ok and not earlier:
        queries = model.planned_queries()
        screen(led, request_for(workspace.dataset, queries, plan, seed=workspace.options.seed))
        warn("run", plan.warnings)  # an allowed release over domains read from the data says so here
        return plan
    raise plan_refusal(plan, {"report": "--report", "queries": "--queries", "release_out": "--release-out",
                              "universe": "--universe"}, earlier)


def run(args: argparse.Namespace) -> int:
    from svtgui.app.reports.content import release_date, statistics
    from svtgui.app.reports.statistics import statistics_text

    s = _settings(args)
    guard_ledger({**vars(args), **s})  # a config's ledger key: never one of the files the run reads
    mechanisms.info(s["mechanism"])  # unknown id: a clear error before loading a large file
    reports = [Path(r) for r in s.get("report") or []]
    formats = list(report_format_problems(reports, "--report").values())  # refused with the plan's
    ds, query_list = (None, None) if s.get("session") else load_inputs(s)
    with open_ledger(s.get("ledger")) as led:
        if s.get("session"):  # the session's dataset is checked through the ledger
            ds, query_list = _session_inputs(s, led)
        queries = query_list.queries
        inputs = command_inputs({**vars(args), **s, "ledger": led.path})  # the config's, session's files too
        model = set_up(led, ds, query_list, s, reports, inputs)
        _plan(led, model, formats)  # the whole run, checked before any charge
        register_dataset(led, ds, s)  # a new dataset joins the ledger together with its first valid run
        model.refresh_budget()
        run_ = _charge_and_stream(model, s, args)
        record = run_.record
        b = led.budget(record.dataset_id)
        kind = mechanisms.info(record.mechanism_id).input
        if kind == mechanisms.RELEASE:
            done = f"release written to {led.facts(record.id).get('release_file')}"
        elif kind == mechanisms.HISTOGRAM:
            done = (f"{run_.answered - run_.above_count} free, {run_.above_count} paid (c = {run_.cutoff}) "
                    f"of {run_.answered} answered; n̂ = {led.facts(record.id).get('n_released')}")
        else:
            done = f"{run_.above_count} ⊤ of {run_.answered} answered"
        print(f"run {record.id}: {record.status}; {done} ({len(queries)} planned); "
              f"charged ε = {fmt(record.epsilon)}, δ = {fmt(record.delta)}; "
              f"budget of {ds.name} as of {release_date()}: spent ε {fmt(b.spent_epsilon)} of "
              f"{fmt(b.total_epsilon)}, remaining {fmt(b.remaining_epsilon)}", file=sys.stderr)
        # stdout keeps one line per released row (scripts read it); the table goes with the summary
        print(statistics_text(statistics(led, record.id)), file=sys.stderr)
        if kind == mechanisms.RELEASE:
            print_release(led.facts(record.id))
        write_reports(led, record.id, reports, "--report", inputs)
    return 0


def _charge_and_stream(model: RunModel, s: dict[str, Any], args: argparse.Namespace) -> Run:
    """Charge the run through the model (:meth:`RunModel.confirm`, as the window does) and stream it to
    the end; the ended run.

    The run is held (``with``: any exception ends it interrupted, the end of the stream finished)
    from the moment its charge is committed: a signal in between waits for the hold
    (:func:`~svtgui.cli.errors.deferred_signals`), else it would leave the charged run ``running``."""
    from svtgui.data import DatasetError
    from svtgui.ledger import LedgerError

    run_ = None
    try:
        with ExitStack() as held:
            with deferred_signals():
                try:
                    started = model.confirm()
                except BudgetExceeded as exc:  # spent meanwhile by another process: nothing charged
                    raise CliError(str(exc), EXIT_BUDGET) from None
                if not started:  # refused by the model's own checks: nothing charged
                    raise CliError(model.error_line() or "the run was refused; nothing was charged")
                worker = model.worker
                assert isinstance(worker, InProcessWorker) and worker.run is not None  # charged just now
                run_ = held.enter_context(worker.run)
            model.poll()  # the model sees the run started
            try:
                _stream(run_, s, args)
            except DatasetError as exc:  # evaluation failed mid-run: the run is marked interrupted
                raise CliError(f"run {run_.id} interrupted: {exc}") from None
    except LedgerError as exc:  # locked by another program, or a full disk, mid-run
        if run_ is None:
            raise  # the charge itself failed: nothing was charged
        raise CliError(f"{exc}; {end_interrupted(run_)}") from None
    model.poll()  # ... and how it ended
    return run_


def _stream(run_: Run, s: dict[str, Any], args: argparse.Namespace) -> None:
    """Print committed rows as they come; the progress bar is drawn only on a terminal."""
    if not run_.record.secure:
        print(f"svtgui-cli run: {TEST_SEED_WARNING}", file=sys.stderr)
    bar = Progress(run_.total) if sys.stderr.isatty() else None
    for released in run_.stream(batch_size=s["batch_size"]):
        _print_rows(released, args)
        if bar:
            bar.update(run_.answered, run_.above_count, run_.cutoff)
    if bar:
        bar.close()


def _print_rows(batch: ResponseBatch, args: argparse.Namespace) -> None:
    """One line per released row of a committed batch, read from its columns: ⊤ rows, and PMW's free
    answers (released from the public synthetic histogram); every row with --all-rows."""
    shown = np.ones(len(batch), dtype=bool) if args.all_rows else \
        batch.above if batch.simulated is None else batch.above | batch.simulated
    rows = np.flatnonzero(shown).tolist()
    if not rows:
        return
    index, values, results = batch.index.tolist(), batch.values(), batch.results()
    if args.json:
        above, gaps = batch.above.tolist(), batch.gaps()
        free = None if batch.simulated is None else batch.simulated.tolist()
        lines = [json.dumps({"index": index[k], "above": above[k], "value": values[k], "gap": gaps[k],
                             "query": batch.description[k],
                             **({} if free is None else {"answered_from_simulation": free[k]})},
                            ensure_ascii=False) for k in rows]
    else:
        lines = [f"{index[k]}\t{results[k]}\t{value_text(values[k])}\t{batch.description[k]}" for k in rows]
    sys.stdout.write("\n".join(lines) + "\n")
    sys.stdout.flush()


class Progress:
    """A one-line progress bar on stderr (only used when stderr is a terminal)."""

    WIDTH = 30

    def __init__(self, total: int) -> None:
        self.total = max(total, 1)
        self._last = 0.0

    def update(self, done: int, above: int, cutoff: int | None) -> None:
        now = time.monotonic()
        if now - self._last < 0.1 and done < self.total:
            return
        self._last = now
        filled = int(self.WIDTH * done / self.total)
        c = f" ⊤ {above}/{cutoff}" if cutoff else ""
        sys.stderr.write(f"\r[{'#' * filled}{'.' * (self.WIDTH - filled)}] {done}/{self.total}{c} ")
        sys.stderr.flush()

    def close(self) -> None:
        sys.stderr.write("\n")
        sys.stderr.flush()
