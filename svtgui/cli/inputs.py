"""The files a command reads, collected in one place, so that no command writes over one of them.

Every option that names a file a command *reads* is listed in :data:`INPUT_OPTIONS` (by its
argparse ``dest``), every option that names a file it *writes* in :data:`OUTPUT_OPTIONS`.
:func:`svtgui.cli.main` calls :func:`guard_outputs` on the parsed options of every command before
its handler runs, so a new command's ``--out`` is guarded without the command doing anything;
``tests/cli/test_outputs.py`` fails when a command adds a file option that is in neither table.
Commands whose inputs also come from a file (``run --config``, ``run --session``) pass the merged
settings to :func:`command_inputs` again and hand the result to the plan, which checks every output
against it before the charge (:mod:`svtgui.app.outputs`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from svtgui.app.outputs import Inputs, OutputConflict
from svtgui.cli.config import typed_path
from svtgui.cli.errors import CliError

#: Options naming a file the command reads, and what that file is.
INPUT_OPTIONS = {
    "data": "the dataset", "observed": "the dataset", "schema": "the schema file",
    "queries": "the query list", "file": "the query list", "session": "the session file",
    "config": "the config file", "items_file": "the item domain file", "release": "the release file",
}
#: Options naming a file the command writes, as the user typed them.
OUTPUT_OPTIONS = {"out": "--out", "report": "--report", "release_out": "--release-out", "script": "--script",
                  "plan_dir": "--plan-dir"}
#: Options naming a file that is neither (the ledger is protected by :func:`command_inputs` itself).
OTHER_FILE_OPTIONS = ("ledger",)


def command_inputs(settings: Mapping[str, Any], *, ledger: bool = True) -> Inputs:
    """Every file a command with these ``settings`` (parsed options, or options merged with a
    config or a session) reads: its input options, the dataset's schema sidecar, a session's
    dataset, and (with ``ledger``) the ledger, the default one when none is given."""
    from svtgui.ledger import default_location

    inputs = Inputs()
    for key, what in INPUT_OPTIONS.items():
        value = settings.get(key)
        if key in ("data", "observed") and isinstance(value, str):
            inputs.add_dataset(value, settings.get("schema") if key == "data" else None)
        elif isinstance(value, str):
            inputs.add(value, what)
    session = settings.get("session")
    if session is not None and not isinstance(session, str):  # a loaded session: its file and its data
        inputs.add(settings.get("session_path"), "the session file")
        inputs.add_dataset(session.dataset_location(settings.get("session_path")))
    if ledger:
        inputs.add_ledger(settings.get("ledger") or default_location())
    return inputs


def guard_ledger(settings: Mapping[str, Any]) -> None:
    """Refuse a ledger path that is one of the command's other inputs: the ledger is written, so a
    sidecar's name became a ledger the next run read as its schema, and a query list given as the
    ledger was reported "damaged: keep this file, it is the only record of the budget spent"."""
    from svtgui.ledger import is_server

    path = settings.get("ledger")
    if not isinstance(path, str) or not path or is_server(path):
        return
    what = command_inputs(settings, ledger=False).conflict(path)
    if what is not None:
        raise CliError(f"--ledger: {path} is {what}, not a privacy ledger: the ledger is written, which "
                       "would destroy it; give the ledger's own file (nothing was charged)")


def outputs_of(settings: Mapping[str, Any]) -> list[tuple[str, str]]:
    """``(option, path)`` for every file these settings ask to write (``-`` is stdout)."""
    out = []
    for key, option in OUTPUT_OPTIONS.items():
        value = settings.get(key)
        for path in [value] if isinstance(value, str) else value if isinstance(value, list) else []:
            if isinstance(path, str) and path != "-":
                out.append((option, path))
    return out


def expand_home(settings: dict[str, Any]) -> None:
    """Expand ``~`` in every file option of parsed ``settings`` (``vars(args)``), in place."""
    options = {**{k: f"--{k.replace('_', '-')}" for k in (*INPUT_OPTIONS, *OTHER_FILE_OPTIONS)},
               "file": "QUERIES.json", **OUTPUT_OPTIONS}
    for key, option in options.items():
        value = settings.get(key)
        if isinstance(value, str):
            settings[key] = typed_path(value, option)
        elif isinstance(value, list):
            settings[key] = [typed_path(v, option) if isinstance(v, str) else v for v in value]


def guard_outputs(settings: Mapping[str, Any]) -> None:
    """Refuse (exit 2, before anything is read or charged) an output that is one of the inputs, and
    a ledger that is one of them (:func:`guard_ledger`)."""
    guard_ledger(settings)
    inputs = command_inputs(settings)
    for option, path in outputs_of(settings):
        try:
            inputs.guard(path)
        except OutputConflict as exc:
            raise CliError(f"{option}: {exc} (nothing was charged)") from None
