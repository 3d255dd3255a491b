"""Nothing a curator gives is ever destroyed (issue 22 §1): every command that writes a file refuses a
target that is one of its inputs — the data, the schema sidecar or file, the query list, the session,
the config, the item domain, the release file — or the ledger and its side files, whether named
directly, through a symbolic link or through a hard link; exit 2, one line, before any charge, the
input's bytes and the ledger unchanged. ``queries generate --out`` overwrote the ledger and the data,
``--report`` the query list and the sidecar."""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
from pathlib import Path

import pytest

from svtgui.app.outputs import Inputs, OutputConflict, check_output
from svtgui.cli import build_parser, main
from svtgui.cli.inputs import INPUT_OPTIONS, OTHER_FILE_OPTIONS, OUTPUT_OPTIONS, command_inputs
from svtgui.data.loaders import sidecar_path

SCHEMA = {"format": "svtgui-schema", "version": 1, "neighbouring": "add_remove",
          "columns": [{"name": "x", "kind": "numeric", "lower": 0, "upper": 100},
                      {"name": "colour", "kind": "categorical", "categories": ["blue", "red"]}]}


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Every kind of input, and a ledger that knows the dataset and has run 1 (for ``report``)."""
    from svtgui.app.project_file import Session, save
    from svtgui.data import load_dataset
    from svtgui.data.queries import read_queries

    d = tmp_path_factory.mktemp("outputs")
    f = {"data": d / "toy.csv", "schema": d / "declared.json", "queries": d / "q.json",
         "ledger": d / "ledger.sqlite", "items": d / "items.txt", "baskets": d / "baskets.dat"}
    rows = "".join(f"{i % 100},{'red' if i % 3 else 'blue'}\n" for i in range(300))
    f["data"].write_text("x,colour\n" + rows)
    f["schema"].write_text(json.dumps(SCHEMA))
    sidecar_path(f["data"]).write_text(json.dumps(SCHEMA))
    f["sidecar"] = sidecar_path(f["data"])
    f["queries"].write_text(json.dumps({"format": "svtgui-queries", "version": 1, "queries": [
        {"kind": "range", "column": "x", "low": 0, "high": 10}]}))
    f["items"].write_text("1\n2\n3\n4\n")
    f["baskets"].write_text("1 2 3\n2 3\n3 4\n" * 20)
    f["config"] = d / "run.toml"
    f["config"].write_text(f'data = "{f["data"].name}"\nqueries = "{f["queries"].name}"\n'
                           'mechanism = "sparse"\nepsilon = 0.1\nthreshold = 5.0\ncutoff = 1\n')
    ds = load_dataset(f["data"])
    params = {"epsilon": 0.1, "threshold": 5.0, "cutoff": 1}
    session = Session.from_state(ds, read_queries(f["queries"]).queries, "sparse", params)
    f["session"] = save(session, d / "study.svtsession")
    assert main(["run", "--data", str(f["data"]), "--queries", str(f["queries"]), "--mechanism", "sparse",
                 "--epsilon", "0.1", "--threshold", "5", "--cutoff", "1", "--ledger", str(f["ledger"]),
                 "--budget-epsilon", "10", "--budget-delta", "0.01"]) == 0
    f["wal"] = f["ledger"].with_name(f["ledger"].name + "-wal")
    f["release"] = d / "release.npz"
    assert main(["sparse-project", "build", "--data", str(f["data"]), "--columns", "colour",
                 "--epsilon", "0.1", "--T", "64", "--ledger", str(f["ledger"]),
                 "--out", str(f["release"])]) == 0
    return f


def _run(f: dict, out: str) -> list[str]:
    return ["run", "--data", str(f["data"]), "--queries", str(f["queries"]), "--schema", str(f["schema"]),
            "--mechanism", "sparse", "--epsilon", "0.1", "--threshold", "5", "--cutoff", "1",
            "--ledger", str(f["ledger"]), "--report", out]


# (command, the inputs it reads that a target may be, the argv writing to ``out``)
COMMANDS = {
    "run --report": (("data", "sidecar", "schema", "queries", "ledger", "wal"), _run),
    "run --config": (("config", "data", "sidecar", "queries", "ledger"), lambda f, out: [
        "run", "--config", str(f["config"]), "--ledger", str(f["ledger"]),
        "--report", out]),
    "run --session": (("session", "data", "sidecar", "ledger"), lambda f, out: [
        "run", "--session", str(f["session"]), "--ledger", str(f["ledger"]),
        "--report", out]),
    "run --release-out": (("data", "sidecar", "ledger", "wal"), lambda f, out: [
        "run", "--data", str(f["data"]), "--mechanism", "sparse_project", "--epsilon", "0.1",
        "--delta", "1e-6",
        "--universe", "colour", "--param", "projection_size=64", "--ledger", str(f["ledger"]),
        "--release-out", out]),
    "recipe screen-ranges": (("data", "schema", "queries", "ledger"), lambda f, out: [
        "recipe", "screen-ranges", "--data", str(f["data"]), "--schema", str(f["schema"]),
        "--queries", str(f["queries"]), "--threshold", "5", "--cutoff", "1", "--epsilon", "0.1",
        "--ledger", str(f["ledger"]), "--report", out]),
    "recipe frequent-items": (("baskets", "items", "ledger"), lambda f, out: [
        "recipe", "frequent-items", "--data", str(f["baskets"]), "--items-file", str(f["items"]),
        "--cutoff", "1", "--epsilon", "0.1", "--budget-epsilon", "1", "--ledger", str(f["ledger"]),
        "--report", out]),
    "queries generate every-value": (("data", "sidecar", "schema", "ledger", "wal"), lambda f, out: [
        "queries", "generate", "every-value", "--data", str(f["data"]), "--schema", str(f["schema"]),
        "--column", "colour", "--out", out]),
    "queries generate every-item --observed": (("baskets", "ledger"), lambda f, out: [
        "queries", "generate", "every-item", "--observed", str(f["baskets"]), "--out", out]),
    "report": (("ledger", "wal"), lambda f, out: [
        "report", "1", "--ledger", str(f["ledger"]), "--out", out]),
    "sparse-project build": (("data", "sidecar", "schema", "ledger"), lambda f, out: [
        "sparse-project", "build", "--data", str(f["data"]), "--schema", str(f["schema"]),
        "--columns", "colour",
        "--epsilon", "0.1", "--T", "64", "--ledger", str(f["ledger"]), "--out", out]),
}
# (SQLite deletes and recreates the -wal: a hard link to it is not the ledger's file for long)
CASES = [(command, kind, via) for command, (kinds, _) in COMMANDS.items() for kind in kinds
         for via in ("name", "symlink", "hardlink") if (kind, via) != ("wal", "hardlink")]


def _snapshot(f: dict) -> dict[str, bytes]:
    """The bytes of every input but the ledger's (SQLite may checkpoint it; its runs are counted)."""
    return {k: p.read_bytes() for k, p in f.items() if k not in ("ledger", "wal")}


def _runs(ledger: Path) -> int:
    with sqlite3.connect(ledger) as c:
        return c.execute("SELECT count(*) FROM runs").fetchone()[0]


@pytest.mark.parametrize("command, kind, via", CASES, ids=[" ".join(c) for c in CASES])
def test_no_command_writes_over_one_of_its_inputs(files, command, kind, via, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SVTGUI_LEDGER", str(files["ledger"]))  # queries generate protects the default ledger
    original = files[kind]
    target = original
    if via == "symlink":
        target = tmp_path / f"link{original.suffix}"
        target.symlink_to(original)
    elif via == "hardlink":
        target = tmp_path / f"hard{original.suffix}"
        os.link(original, target)
    before, runs = _snapshot(files), _runs(files["ledger"])
    _, argv = COMMANDS[command]
    code = main(argv(files, str(target)))
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert code == 2, err
    assert len(lines) == 1 and "would destroy it" in lines[0] and "Traceback" not in err, err
    assert any(option in lines[0] for option in OUTPUT_OPTIONS.values()), lines[0]
    assert _snapshot(files) == before and _runs(files["ledger"]) == runs


def test_each_command_still_writes_a_file_that_is_none_of_its_inputs(files, tmp_path, monkeypatch):
    # the guard refuses only inputs: the same commands write a fresh file
    monkeypatch.setenv("SVTGUI_LEDGER", str(files["ledger"]))
    suffixes = {"run --release-out": ".npz", "sparse-project build": ".npz"}
    for command, (_, argv) in COMMANDS.items():
        out = tmp_path / f"{command.replace(' ', '_')}{suffixes.get(command, '.json')}"
        assert main(argv(files, str(out))) == 0, command
        assert out.stat().st_size > 0


def test_every_file_option_of_every_command_is_an_input_or_an_output():
    # the guard is structural: main() checks OUTPUT_OPTIONS against INPUT_OPTIONS for every command, so
    # an option that names a file must be in one of the tables (or a new command's --out goes unguarded)
    known = set(INPUT_OPTIONS) | set(OUTPUT_OPTIONS) | set(OTHER_FILE_OPTIONS)
    file_like = ("FILE", ".json", ".npz", ".toml", ".svtsession", "PATH", "OUT", "DATA", ".py")
    missing = []

    def walk(parser: argparse.ArgumentParser, prog: str) -> None:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    walk(sub, f"{prog} {name}")
            elif action.option_strings or action.dest == "file":
                metavar = str(action.metavar or "")
                if any(m in metavar for m in file_like) and action.dest not in known:
                    missing.append(f"{prog} {action.option_strings or action.dest}")

    walk(build_parser(), "svtgui-cli")
    assert not missing, missing


def test_a_release_file_read_by_a_command_is_one_of_its_inputs(files, tmp_path):
    (tmp_path / "r.npz").symlink_to(files["release"])
    inputs = command_inputs({"release": str(files["release"])})
    assert inputs.conflict(tmp_path / "r.npz") == "the release file"


def test_the_guard_compares_files_not_names(tmp_path):
    data = tmp_path / "d.csv"
    data.write_text("x\n1\n")
    inputs = Inputs().add_dataset(data).add_ledger(tmp_path / "l.sqlite")
    (tmp_path / "sub").mkdir()
    for same in (data, tmp_path / "sub" / ".." / "d.csv", tmp_path / "d.schema.json",
                 tmp_path / "l.sqlite-shm"):
        with pytest.raises(OutputConflict):
            inputs.guard(same)
    os.link(data, tmp_path / "other.csv")
    with pytest.raises(OutputConflict, match="is the dataset"):
        check_output(tmp_path / "other.csv", inputs)
    (tmp_path / "via-link.json").symlink_to(tmp_path / "real.json")  # an input named through a link:
    (tmp_path / "real.json").write_text("{}")  # the file behind it is protected too
    assert Inputs().add(tmp_path / "via-link.json", "the query list").conflict(tmp_path / "real.json")
    assert inputs.conflict(tmp_path / "r.html") is None
    assert check_output(tmp_path / "r.html", inputs) == tmp_path / "r.html"


# -- the ledger's anchors, the ledger given as an input, names that differ only in case ---------------

@pytest.mark.parametrize("name", ["cache-seal.key", "anchor", "new.json"])
def test_no_report_lands_among_the_ledgers_anchors(files, name, tmp_path, monkeypatch, capsys):
    # the anchors (and the seal key beside them) are what finds a ledger rolled back or replaced: a
    # report written over one switched that check off; a new name there is refused too
    monkeypatch.setenv("SVTGUI_STATE_DIR", str(tmp_path / "state"))
    assert main(_run(files, str(tmp_path / "first.json"))) == 0  # anchors the ledger in this state folder
    folder = tmp_path / "state" / "ledger-anchors"
    target = next(folder.glob("lg-*.json")) if name == "anchor" else folder / name
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    runs = _runs(files["ledger"])
    assert main(_run(files, str(target))) == 2
    err = capsys.readouterr().err
    assert "--report" in err and "anchors" in err and "would destroy it" in err, err
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before and _runs(files["ledger"]) == runs


@pytest.mark.parametrize("kind", ["data", "sidecar", "schema", "queries", "absent sidecar"])
def test_the_ledger_is_never_one_of_the_files_a_run_reads(files, kind, tmp_path, capsys):
    # a ledger at the (absent) sidecar's name became the next run's "schema"; a query list given as the
    # ledger was called "damaged: keep this file, it is the only record of the budget spent"
    data = files["data"]
    if kind == "absent sidecar":
        data = tmp_path / "fresh.csv"
        data.write_bytes(files["data"].read_bytes())
    ledger = sidecar_path(data) if kind == "absent sidecar" else files[kind]
    before = _snapshot(files)
    argv = ["run", "--data", str(data), "--queries", str(files["queries"]), "--mechanism", "sparse",
            "--epsilon", "0.1", "--threshold", "5", "--cutoff", "1", "--budget-epsilon", "1",
            "--ledger", str(ledger)]
    if kind == "schema":
        argv += ["--schema", str(files["schema"])]
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "--ledger" in err and "not a privacy ledger" in err, err
    assert _snapshot(files) == before and not sidecar_path(tmp_path / "fresh.csv").exists()


def test_a_configs_ledger_is_never_one_of_the_files_the_run_reads(files, tmp_path, capsys):
    config = tmp_path / "run.toml"
    config.write_text(files["config"].read_text().replace(f'"{files["data"].name}"', f'"{files["data"]}"')
                      .replace(f'"{files["queries"].name}"', f'"{files["queries"]}"')
                      + f'ledger = "{files["queries"]}"\n')
    before = _snapshot(files)
    assert main(["run", "--config", str(config)]) == 2
    err = capsys.readouterr().err
    assert f"--config {config}: key 'ledger'" in err and "is the query list" in err, err
    assert _snapshot(files) == before


def test_a_name_in_another_case_is_the_same_file_where_the_folder_ignores_case(tmp_path):
    # on macOS or Windows 'Toy.schema.json' is the sidecar of toy.csv even while it does not exist; a
    # folder in which every name's other-case twin is the same file is what such a folder looks like
    folder = tmp_path / "insensitive"
    folder.mkdir()
    (folder / "toy.csv").write_text("x\n1\n")
    os.link(folder / "toy.csv", folder / "TOY.CSV")
    inputs = Inputs().add_dataset(folder / "toy.csv").add_ledger(folder / "ledger.sqlite")
    assert inputs.conflict(folder / "Toy.schema.json") == "the dataset's schema sidecar"
    assert inputs.conflict(folder / "LEDGER.sqlite-WAL") == "a file of the privacy ledger"
    plain = tmp_path / "sensitive"  # a folder that tells the cases apart: another name, another file
    plain.mkdir()
    (plain / "toy.csv").write_text("x\n1\n")
    inputs = Inputs().add_dataset(plain / "toy.csv")
    assert inputs.conflict(plain / "Toy.schema.json") is None
    assert inputs.conflict(plain / "toy.schema.json") == "the dataset's schema sidecar"


def test_a_query_list_that_cannot_be_written_whole_leaves_the_old_one(tmp_path):
    # --out was opened with O_TRUNC and written in place: a full disk (here: a file-size limit) or a
    # signal in the middle left half a list where the old one was
    import resource
    import signal
    import subprocess
    import sys

    def small_files() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG instead
        resource.setrlimit(resource.RLIMIT_FSIZE, (600, 600))

    out = tmp_path / "ages.json"
    out.write_text('{"previous": "list"}\n')
    argv = [sys.executable, "-m", "svtgui.cli", "queries", "generate", "range-sweep", "--column", "age",
            "--start", "17", "--stop", "90", "--width", "5", "--out", str(out)]  # about 1,200 bytes
    done = subprocess.run(argv, capture_output=True, text=True, preexec_fn=small_files, timeout=120,
                          env={**os.environ, "SVTGUI_LEDGER": str(tmp_path / "ledger.sqlite")})
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "--out" in done.stderr, done.stderr
    assert out.read_text() == '{"previous": "list"}\n' and sorted(tmp_path.iterdir()) == [out]
    assert main(argv[3:]) == 0 and json.loads(out.read_text())["queries"]  # without the limit: written
    assert out.stat().st_mode & 0o777 == 0o666 & ~_umask()  # as a plain open() would create it


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
