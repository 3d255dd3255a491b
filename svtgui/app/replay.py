"""Reproducible releases: each run's plan, kept in the ledger, and the Python script that replays it.

A release is reproducible when anyone with the data can make it again: the same mechanisms, the
same public parameters, the same queries, the same declarations, with **fresh secure noise**, charged
to a ledger. So every run records its plan as a run fact (:mod:`.run_plans`: the mechanism or recipe,
the parameters as the curator gave them and the query list or item domain, all public and already
described in the run's rows), and :func:`script_text` turns the plans of a release's runs into a
readable script over the public API (``svtgui.app.runs.runner.start_run``, ``svtgui.app.recipes``).
Reports leave the plan out (it is the run's input, not a released value); only the script holds it.
The script never holds a released value, a seed or a time: running it spends budget anew. A run
that the curator allowed over domains read off the data (:mod:`.domains`) is replayed with the same
override, so the replay too is recorded and reported as NOT differentially private.
"""

from __future__ import annotations

import json
import os
import pprint
import shlex
import textwrap
from pathlib import Path
from typing import Any

from svtgui import __version__
from svtgui.app import domains, recipes
from svtgui.app.outputs import Inputs, check_output
from svtgui.app.reports import write_atomically
from svtgui.app.reports.release import checked_runs, runs_label
from svtgui.app.run_plans import PLAN_FACT, PlanDocument
from svtgui.core import mechanisms
from svtgui.core.mechanisms import MechanismInfo
from svtgui.data.queries import queries_from_json, queries_to_json
from svtgui.ledger import Ledger, RunRecord


def _plan(ledger: Ledger, run: RunRecord) -> PlanDocument:
    plan = ledger.facts(run.id).get(PLAN_FACT)
    if not isinstance(plan, dict):
        raise ValueError(f"run {run.id} was charged before SVT Studio kept each run's plan in the ledger: "
                         "it cannot be replayed (run it again from the window or the CLI)")
    if plan.get("queries", []) is None:
        raise ValueError(f"run {run.id} asked queries that have no written definition: it cannot be replayed")
    return plan


def _literal(value: Any, indent: int) -> str:
    """A JSON value (``Any``: whatever a plan document holds) as readable Python source, indented to
    sit in a function body."""
    text = pprint.pformat(value, width=100 - indent, sort_dicts=False)
    return text.replace("\n", "\n" + " " * indent)


def _about(info: MechanismInfo) -> list[str]:
    """A step's docstring body: the method in plain words and its citation, wrapped."""
    method = textwrap.wrap(f"Method: {info.summary}", 96, initial_indent="    ", subsequent_indent="    ")
    cite = textwrap.wrap(f"Citation: {info.citation}.", 96, initial_indent="    ", subsequent_indent="    ")
    return ["", *method, *cite[:-1], cite[-1] + '"""']


def _override(notes: tuple[str, ...]) -> list[str]:
    """The lines that carry a published run's override over domains read from the data (none else)."""
    if not notes:
        return []
    return ["    # The published run depended on domains read from the private data, allowed by its curator:",
            "    # NOT differentially private, and neither is this replay.",
            f"    from_data = Domains({_literal(list(notes), 24)}, allowed=True)"]


def _step(number: int, run: RunRecord, plan: PlanDocument, notes: tuple[str, ...] = ()) -> list[str]:
    """One step of the script: a function that charges, runs and returns the new run's id (with the
    run's override, ``notes``, when it depended on domains read from the data)."""
    carried = ["domains=from_data"] if notes else []
    if "recipe" in plan:
        info = recipes.info(plan["recipe"])
        assert info is not None, plan["recipe"]
        call = {"recipe_auto_mean": "auto_mean", "recipe_screen_ranges": "screen_ranges",
                "recipe_frequent_items": "frequent_items"}[plan["recipe"]]
        args = plan["arguments"]
        lines = [f"def step_{number}(ledger, ds):",
                 f'    """{info.name}, ε = {plan["epsilon"]:g} (run {run.id} of the published release).',
                 *_about(info)]
        keywords = [f"epsilon={plan['epsilon']!r}"]
        for name, value in args.items():
            if name == "queries":
                lines.append(f"    queries = queries_from_json({_literal(value, 32)})")
            elif len(repr(value)) > 40:  # an item domain: a list of its own
                lines.append(f"    {name} = {_literal(value, 4 + len(name) + 3)}")
            else:
                keywords.append(f"{name}={value!r}")
                continue
            keywords.append(f"{name}={name}")
        lines += _override(notes)
        lines += [f"    plan = recipes.{call}(ds, {', '.join([*keywords, *carried])})",
                  "    return plan.run(ledger).record.id  # charged, through the gate, before reading data"]
        return lines
    info = mechanisms.info(plan["mechanism"])
    return [f"def step_{number}(ledger, ds):",
            f'    """{info.name} over {len(plan["queries"])} queries (run {run.id} of the published '
            'release).',
            *_about(info),
            f"    queries = queries_from_json({_literal(plan['queries'], 32)})",
            f"    params = {_literal(plan['params'], 13)}",
            *_override(notes),
            f"    with start_run(ledger, ds, queries, {plan['mechanism']!r}, params,",
            f"                   monotonic={plan['monotonic']!r}{''.join(', ' + c for c in carried)}) as run:"
            "  # charged here, before any answer",
            "        for _batch in run.stream():",
            "            pass",
            "    return run.id"]


def script_text(ledger: Ledger, run_ids: list[int]) -> str:
    """The Python script that replays these runs (of one dataset) on a data file given to it.

    It is published with the release, so it names the dataset by its public name (the curator's
    choice, else the random id), never the data file's, which can say what or whom it is about."""
    runs = checked_runs(ledger, run_ids)
    plans = [_plan(ledger, r) for r in runs]
    dataset = ledger.dataset(runs[0].dataset_id)
    assert dataset is not None
    declared = ledger.declarations(runs[0].id) or {"neighbouring": dataset.neighbouring,
                                                    "bounds": dataset.bounds}
    total = sum(float(r.epsilon) for r in runs)
    steps: list[str] = []
    for number, (run, plan) in enumerate(zip(runs, plans, strict=True), start=1):
        steps += _step(number, run, plan, domains.recorded_in(ledger, run.id)) + ["", ""]
    calls = ", ".join(f"step_{i}(ledger, ds)" for i in range(1, len(runs) + 1))
    return "\n".join([
        "#!/usr/bin/env python3",
        f'"""Replay the release of {runs_label(tuple(r.id for r in runs))} of "{dataset.public_name}" '
        f"(made with SVT Studio {__version__}).",
        "",
        f"WARNING: RUNNING THIS SCRIPT SPENDS PRIVACY BUDGET: ε = {total:g} in all, charged to the ledger",
        "you point it at (--ledger; default: your SVT Studio ledger) before any data is read, and never",
        "given back. The noise is fresh and secure, so the numbers differ from the published ones,",
        "as they must: a release is reproducible in its method, not in its noise.",
        "",
        "Usage:  python THIS_SCRIPT.py DATA_FILE [--ledger LEDGER] [--budget-epsilon E]",
        "(--budget-epsilon declares the dataset's total ε when the ledger does not know it yet.)",
        '"""',
        "",
        "import argparse",
        "import sys",
        "",
        "from svtgui.app import recipes",
        "from svtgui.app.dataset_identity import identify, register",
        "from svtgui.app.domains import Domains",
        "from svtgui.app.reports.content import statistics",
        "from svtgui.app.reports.statistics import statistics_text",
        "from svtgui.app.runs.runner import start_run",
        "from svtgui.data import load_dataset",
        "from svtgui.data.queries import queries_from_json",
        "from svtgui.ledger import Ledger",
        "",
        "# What the published runs were charged under: the neighbouring relation and the public bounds",
        "# (declarations, never read from the data). The replay declares the same.",
        f"NEIGHBOURING = {declared['neighbouring']!r}",
        f"DECLARED_BOUNDS = {_literal(declared['bounds'], 18)}",
        "",
        "",
        *steps,
        "def declared(ds):",
        '    """The data file with the published declarations applied."""',
        "    if ds.schema.neighbouring.value != NEIGHBOURING:",
        '        sys.exit(f"{ds.name}: its schema declares {ds.schema.neighbouring.value} neighbours; "',
        '                 f"the release was made under {NEIGHBOURING}: declare that in its schema")',
        "    schema = ds.schema",
        "    for column, (low, high) in DECLARED_BOUNDS.items():",
        "        schema = schema.with_bounds(column, low, high)",
        "    return ds.with_schema(schema)",
        "",
        "",
        "def main():",
        "    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])",
        '    parser.add_argument("data", help="the dataset (CSV, Parquet, …; its schema sidecar is read)")',
        '    parser.add_argument("--ledger", help="the privacy ledger to charge (default: SVT Studio\'s)")',
        '    parser.add_argument("--budget-epsilon", help="total ε of a dataset new to the ledger")',
        "    args = parser.parse_args()",
        "    ds = declared(load_dataset(args.data))",
        "    with Ledger.open(args.ledger) as ledger:",
        "        if identify(ledger, ds).is_new:",
        "            if args.budget_epsilon is None:",
        '                sys.exit(f"{ds.name} is new to the ledger: "',
        '                         "give its total budget with --budget-epsilon")',
        "            register(ledger, ds, args.budget_epsilon)",
        f"        run_ids = [{calls}]",
        "        for run_id in run_ids:",
        "            print(statistics_text(statistics(ledger, run_id)))",
        '        print(f"charged runs {run_ids} to {ledger.path}", file=sys.stderr)',
        "",
        "",
        'if __name__ == "__main__":',
        "    main()",
        "",
    ])


def script_target(ledger: Ledger, path: str | os.PathLike[str], inputs: Inputs | None = None) -> Path:
    """The script's file, checked before anything is written: a ``.py`` name that is no input, in a
    folder where it can be written (ValueError otherwise)."""
    p = Path(path)
    if p.suffix.lower() != ".py":
        raise ValueError(f"{p}: a reproducible script is a Python file: name it ….py")
    return check_output(p, (inputs.copy() if inputs is not None else Inputs()).add_ledger(ledger.path))


def export_script(ledger: Ledger, run_ids: list[int], path: str | os.PathLike[str],
                  inputs: Inputs | None = None) -> Path:
    """Write the replay script of these runs to ``path`` (``.py``), guarded like every export."""
    p = script_target(ledger, path, inputs)
    text = script_text(ledger, run_ids)
    write_atomically(p, lambda t: t.write_text(text, encoding="utf-8"))
    return p


# -- the same plans as svtgui-cli commands ---------------------------------------------------------
RECIPE_COMMANDS = {"recipe_auto_mean": "auto-mean", "recipe_screen_ranges": "screen-ranges",
                   "recipe_frequent_items": "frequent-items"}
CONFIG_KEYS = ("mechanism", "epsilon", "delta", "threshold", "cutoff", "universe")  # run --config's own


def _toml_value(value: Any) -> str:
    """A JSON value (``Any``: a plan document's) as TOML (strings, numbers, booleans and arrays of them
    are written the same)."""
    return json.dumps(value, ensure_ascii=False)


def _config(plan: PlanDocument, queries_file: str) -> str:
    """``svtgui-cli run --config`` for a catalogue run's plan: its keys, then the rest under [params]."""
    params = {k: v for k, v in plan["params"].items() if v is not None and k != "release_out"}
    lines = [f"mechanism = {_toml_value(plan['mechanism'])}", f"queries = {_toml_value(queries_file)}"]
    lines += [f"{k} = {_toml_value(params.pop(k))}" for k in CONFIG_KEYS[1:] if k in params]
    if plan["monotonic"]:
        lines.append("monotonic = true")
    if params:
        lines += ["", "[params]", *(f"{k} = {_toml_value(v)}" for k, v in params.items())]
    return "\n".join(lines) + "\n"


def _command(run: RunRecord, plan: PlanDocument, files: dict[str, str]) -> str:
    """The svtgui-cli command that makes this run's plan again (side files added to ``files``)."""
    if "mechanism" in plan:
        queries, config = f"run-{run.id}.queries.json", f"run-{run.id}.toml"
        files[queries] = json.dumps(queries_to_json(queries_from_json(plan["queries"])), indent=1) + "\n"
        files[config] = _config(plan, queries)
        return f'$CLI run --config {config} --data "$DATA" $BUDGET'
    args = dict(plan["arguments"])
    parts = [f"$CLI recipe {RECIPE_COMMANDS[plan['recipe']]}", '--data "$DATA"',
             f"--epsilon {plan['epsilon']!r}"]
    if plan["recipe"] == "recipe_auto_mean":
        parts += [f"--column {shlex.quote(args['column'])}", "--sweep " + " ".join(map(repr, args["sweep"])),
                  "--split " + ",".join(map(repr, args["split"]))]
    elif plan["recipe"] == "recipe_screen_ranges":
        queries = f"recipe-{run.id}.queries.json"
        files[queries] = json.dumps(queries_to_json(queries_from_json(args["queries"])), indent=1) + "\n"
        parts += [f"--queries {queries}", f"--threshold {args['threshold']!r}", f"--cutoff {args['cutoff']}",
                  f"--screen-share {args['screen_share']!r}"]
    else:
        items = f"recipe-{run.id}.items.txt"
        files[items] = "\n".join(str(i) for i in args["items"]) + "\n"
        parts += [f"--items-file {items}", f"--cutoff {args['cutoff']}", f"--method {args['method']}"]
        if args.get("threshold") is not None:
            parts.append(f"--threshold {args['threshold']!r}")
    return " ".join([*parts, "$BUDGET"])


def command_plans(ledger: Ledger, run_ids: list[int]) -> dict[str, str]:
    """The release's plans as svtgui-cli commands: ``replay.sh`` and the files it reads (a
    ``run --config`` TOML and query list per catalogue run, a query list or item domain per recipe)."""
    runs = checked_runs(ledger, run_ids)
    files: dict[str, str] = {}
    commands = [_command(run, _plan(ledger, run), files) for run in runs]
    total = sum(float(r.epsilon) for r in runs)
    script = [
        "#!/bin/sh",
        f"# Replays {runs_label(tuple(r.id for r in runs))} with svtgui-cli, from this folder:",
        "#     sh replay.sh DATA_FILE [TOTAL_EPSILON]",
        f"# WARNING: RUNNING IT SPENDS PRIVACY BUDGET, ε = {total:g} in all, charged to SVT Studio's ledger",
        "# (set SVTGUI_LEDGER to charge another) with fresh secure noise. TOTAL_EPSILON declares the",
        "# dataset's total budget when the ledger does not know it yet. Each run --config file holds the",
        "# mechanism and its parameters; its queries are in the .queries.json beside it.",
        "set -e",
        'DATA=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")  # before the cd below',
        'cd "$(dirname "$0")"',
        'CLI=${SVTGUI_CLI:-svtgui-cli}',
        'BUDGET=${2:+--budget-epsilon $2}',
    ]
    for command in commands:
        script += [command, "BUDGET="]  # the first command registers the data; later ones charge it
    files["replay.sh"] = "\n".join(script[:-1]) + "\n"
    return files


def export_plans(ledger: Ledger, run_ids: list[int], folder: str | os.PathLike[str],
                 inputs: Inputs | None = None) -> list[Path]:
    """Write :func:`command_plans` into ``folder`` (which must exist); every file guarded as a report is."""
    written = []
    for target, text in plan_targets(ledger, run_ids, folder, inputs).items():
        write_atomically(target, lambda t, text=text: t.write_text(text, encoding="utf-8"))
        written.append(target)
    return written


def plan_targets(ledger: Ledger, run_ids: list[int], folder: str | os.PathLike[str],
                 inputs: Inputs | None = None) -> dict[Path, str]:
    """Each file :func:`export_plans` writes and its text, every one checked before any is written
    (the folder exists; no file is an input or the ledger's; each can be written)."""
    where = Path(folder)
    if not where.is_dir():
        raise ValueError(f"{where} is not a folder: create it first")
    protected = (inputs.copy() if inputs is not None else Inputs()).add_ledger(ledger.path)
    files = {where / name: text for name, text in command_plans(ledger, run_ids).items()}
    for target in files:
        check_output(target, protected)
    return files
