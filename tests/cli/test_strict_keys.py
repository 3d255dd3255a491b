"""Every file format is as strict inside as at the top (issue 22 §3).

A misspelled ``dataset_Id`` inside a session's ``dataset`` was ignored: the check that the rows are
the saved dataset was switched off. Here a valid file of each format the CLI reads — session,
schema, query list, TOML config, SparseProject release — gets an unknown key injected into *every*
object it holds, one at a time, at every nesting level; each must be refused through ``main()``
with exit 2, one line, and the path of the bad key from the document's root, nothing charged.
"""

from __future__ import annotations

import copy
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from svtgui.cli import main
from svtgui.core.keys import key_path
from svtgui.core.mechanisms.sparse_project import CHECKSUM, ProjectionRelease

BAD = "zz_unknown"
SCHEMA = {"format": "svtgui-schema", "version": 1, "neighbouring": "add_remove",
          "columns": [{"name": "x", "kind": "numeric", "lower": 0, "upper": 100},
                      {"name": "colour", "kind": "categorical", "categories": ["blue", "red"]}]}
QUERIES = {"format": "svtgui-queries", "version": 1, "queries": [
    {"kind": "range", "column": "x", "low": 0, "high": 10},
    {"kind": "count", "where": {"and": [{"column": "colour", "op": "=", "value": "red"},
                                        {"or": [{"column": "x", "op": ">=", "value": 5}]}]}}]}


def objects(doc: Any, where: str = "") -> Iterator[str]:
    """The path of every JSON object inside ``doc`` (the root is ``""``)."""
    if isinstance(doc, dict):
        yield where
        for k, v in doc.items():
            yield from objects(v, key_path(where, k))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield from objects(v, f"{where}[{i}]")


def injected(doc: Any, path: str) -> Any:
    """A copy of ``doc`` whose object at ``path`` holds the unknown key too."""
    out = copy.deepcopy(doc)
    node = out
    for part in filter(None, path.replace("[", ".[").split(".")):
        node = node[int(part[1:-1])] if part.startswith("[") else node[part]
    node[BAD] = 1
    return out


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    from svtgui.app.project_file import Session, save
    from svtgui.data import LoadOptions, load_dataset
    from svtgui.data.queries import queries_from_json

    d = tmp_path_factory.mktemp("strict")
    data = d / "toy.csv"
    data.write_text("x,colour\n" + "".join(f"{i % 100},{'red' if i % 3 else 'blue'}\n" for i in range(300)))
    (d / "schema.json").write_text(json.dumps(SCHEMA))
    (d / "q.json").write_text(json.dumps(QUERIES))
    ledger = d / "ledger.sqlite"
    release = d / "release.npz"
    assert main(["sparse-project", "build", "--data", str(data), "--schema", str(d / "schema.json"),
                 "--columns", "colour", "x:2", "--epsilon", "0.1", "--T", "64", "--ledger", str(ledger),
                 "--budget-epsilon", "10", "--budget-delta", "0.01",
                 "--out", str(release)]) == 0
    ds = load_dataset(data, LoadOptions(schema=str(d / "schema.json")))
    session = Session.from_state(ds, queries_from_json(QUERIES), "sparse",
                                 {"epsilon": 0.1, "threshold": 5.0, "cutoff": 1})
    save(session, d / "s.svtsession")
    return {"dir": d, "data": data, "ledger": ledger, "release": release,
            "session": json.loads((d / "s.svtsession").read_text())}


def _refused(argv: list[str], capsys, path: str, ledger: Path, said: str = "unknown key '{}'") -> None:
    """``argv`` exits 2 with one line saying ``said`` of the key at ``path``, nothing charged."""
    with sqlite3.connect(ledger) as c:
        runs = c.execute("SELECT count(*) FROM runs").fetchone()[0]
    code = main(argv)
    lines = [ln for ln in capsys.readouterr().err.splitlines() if ln.strip()]
    assert code == 2 and len(lines) == 1, lines
    assert said.format(key_path(path, BAD)) in lines[0], lines[0]
    with sqlite3.connect(ledger) as c:
        assert c.execute("SELECT count(*) FROM runs").fetchone()[0] == runs


def _run(files: dict, *extra: str) -> list[str]:
    return ["run", "--ledger", str(files["ledger"]), *extra]


SESSION_PATHS = ["", "dataset", "dataset.schema", "dataset.schema.columns[0]", "dataset.schema.columns[1]",
                 "mechanism", "mechanism.params", "queries[0]", "queries[1]", "queries[1].where",
                 "queries[1].where.and[0]", "queries[1].where.and[1]", "queries[1].where.and[1].or[0]"]


def test_the_session_fixture_reaches_every_level(files):
    assert sorted(objects(files["session"])) == sorted(SESSION_PATHS)  # the cases below cover each one


@pytest.mark.parametrize("path", SESSION_PATHS)
def test_a_session_refuses_an_unknown_key_at_every_level(files, path, tmp_path, capsys):
    f = tmp_path / "bad.svtsession"
    f.write_text(json.dumps(injected(files["session"], path)))
    _refused(_run(files, "--session", str(f)), capsys, path, files["ledger"])


def test_a_misspelled_dataset_id_no_longer_switches_off_the_rows_check(files, tmp_path, capsys):
    doc = copy.deepcopy(files["session"])
    doc["dataset"]["dataset_Id"] = doc["dataset"].pop("dataset_id", "ds-0000000000000000")
    f = tmp_path / "session.svtsession"
    f.write_text(json.dumps(doc))
    code = main(_run(files, "--session", str(f)))
    err = capsys.readouterr().err
    assert code == 2 and f"{f}: unknown key 'dataset.dataset_Id'" in err, err


@pytest.mark.parametrize("path", list(objects(SCHEMA)))
def test_a_schema_file_refuses_an_unknown_key_at_every_level(files, path, tmp_path, capsys):
    f = tmp_path / "bad.schema.json"
    f.write_text(json.dumps(injected(SCHEMA, path)))
    argv = ["queries", "show", str(files["dir"] / "q.json"), "--data", str(files["data"]), "--schema", str(f)]
    _refused(argv, capsys, path, files["ledger"])


@pytest.mark.parametrize("path", list(objects(QUERIES)))
def test_a_query_list_refuses_an_unknown_key_at_every_level(files, path, tmp_path, capsys):
    f = tmp_path / "bad.json"
    f.write_text(json.dumps(injected(QUERIES, path)))
    _refused(_run(files, "--data", str(files["data"]), "--schema", str(files["dir"] / "schema.json"),
                  "--queries", str(f), "--mechanism", "sparse", "--epsilon", "0.1", "--threshold", "5",
                  "--cutoff", "1"), capsys, path, files["ledger"])


@pytest.mark.parametrize("path", ["", "params"])
def test_a_config_refuses_an_unknown_key_at_every_level(files, path, tmp_path, capsys):
    top = {"data": str(files["data"]), "queries": str(files["dir"] / "q.json"), "mechanism": "sparse",
           "epsilon": 0.1, "threshold": 5.0, "cutoff": 1}
    params = {"sensitivity": 2}
    (top if path == "" else params)[BAD] = 1
    lines = [f"{k} = {json.dumps(v)}" for k, v in top.items()] + ["[params]"]
    lines += [f"{k} = {json.dumps(v)}" for k, v in params.items()]
    f = tmp_path / "run.toml"
    f.write_text("\n".join(lines) + "\n")
    _refused(_run(files, "--config", str(f), "--schema", str(files["dir"] / "schema.json")), capsys, path,
             files["ledger"])


def _config(files: dict, folder: Path, lines: str) -> Path:
    """A run's config over the toy data and queries, ending in ``lines``."""
    f = folder / "run.toml"
    f.write_text(f'data = "{files["data"]}"\nqueries = "{files["dir"] / "q.json"}"\nmechanism = "sparse"\n'
                 f'epsilon = 0.1\nthreshold = 5.0\n{lines}')
    return f


def test_a_config_params_error_names_the_config_not_param(files, tmp_path, capsys):
    # a [params] value of the wrong type read "--param sensitivity: …" (issue 22 §5)
    f = _config(files, tmp_path, "[params]\nsensitivity = true\n")
    code = main(_run(files, "--config", str(f)))
    err = capsys.readouterr().err
    assert code == 2 and f"--config {f}: key 'params.sensitivity' must be a number" in err, err
    assert "--param" not in err


def _release_header(files: dict) -> dict:
    header = dict(ProjectionRelease.load(files["release"]).header)
    header.pop(CHECKSUM)
    return header


def test_the_release_fixture_reaches_every_level(files):
    assert sorted(objects(_release_header(files))) == sorted(RELEASE_PATHS)


RELEASE_PATHS = ["", "accuracy", "metadata", "metadata.universe", "metadata.universe.axes[0]",
                 "metadata.universe.axes[1]"]


@pytest.mark.parametrize("path", RELEASE_PATHS)
def test_a_release_file_refuses_an_unknown_key_at_every_level(files, path, tmp_path, capsys):
    release = ProjectionRelease.load(files["release"])
    release.header = injected(_release_header(files), path)
    bad = release.save(tmp_path / "bad.npz")  # sealed again: only the unknown key is wrong
    _refused(["sparse-project", "answer", "--release", str(bad), "--query",
              '{"kind": "count", "where": {"column": "colour", "op": "=", "value": "red"}}'],
             capsys, path, files["ledger"])


# -- a key given twice in one object: JSON keeps the last silently; every format refuses it ------------

def repeated(doc: Any, path: str, where: str = "") -> str:
    """``doc`` as JSON text whose object at ``path`` gives its first key twice (the same value)."""
    if isinstance(doc, dict):
        pairs = [f"{json.dumps(k)}: {repeated(v, path, key_path(where, k))}" for k, v in doc.items()]
        if where == path:
            pairs.insert(0, pairs[0])
        return "{" + ", ".join(pairs) + "}"
    if isinstance(doc, list):
        return "[" + ", ".join(repeated(v, path, f"{where}[{i}]") for i, v in enumerate(doc)) + "]"
    return json.dumps(doc)


def _twice(argv: list[str], capsys, path: str, key: str, ledger: Path) -> None:
    _refused(argv, capsys, path, ledger, f"key '{key_path(path, key)}' is given twice")


def _first_key(doc: Any, path: str) -> str:
    node = doc
    for part in filter(None, path.replace("[", ".[").split(".")):
        node = node[int(part[1:-1])] if part.startswith("[") else node[part]
    return next(iter(node))


@pytest.mark.parametrize("path", SESSION_PATHS)
def test_a_session_refuses_a_key_given_twice_at_every_level(files, path, tmp_path, capsys):
    f = tmp_path / "twice.svtsession"
    f.write_text(repeated(files["session"], path))
    key = _first_key(files["session"], path)
    _twice(_run(files, "--session", str(f)), capsys, path, key, files["ledger"])


@pytest.mark.parametrize("path", list(objects(QUERIES)))
def test_a_query_list_refuses_a_key_given_twice_at_every_level(files, path, tmp_path, capsys):
    # {"column": "age", "column": "sex"} counted sex
    f = tmp_path / "twice.json"
    f.write_text(repeated(QUERIES, path))
    _twice(_run(files, "--data", str(files["data"]), "--schema", str(files["dir"] / "schema.json"),
                "--queries", str(f), "--mechanism", "sparse", "--epsilon", "0.1", "--threshold", "5",
                "--cutoff", "1"), capsys, path, _first_key(QUERIES, path), files["ledger"])


@pytest.mark.parametrize("path", list(objects(SCHEMA)))
def test_a_schema_refuses_a_key_given_twice_at_every_level(files, path, tmp_path, capsys):
    f = tmp_path / "twice.schema.json"
    f.write_text(repeated(SCHEMA, path))
    argv = ["queries", "show", str(files["dir"] / "q.json"), "--data", str(files["data"]), "--schema", str(f)]
    _twice(argv, capsys, path, _first_key(SCHEMA, path), files["ledger"])


@pytest.mark.parametrize("path", RELEASE_PATHS)
def test_a_release_refuses_a_key_given_twice_at_every_level(files, path, tmp_path, capsys):
    # the checksum covers the parsed header, so a repeated key with the same value kept it valid
    import numpy as np

    with np.load(files["release"]) as z:
        arrays = {k: z[k] for k in z.files}
    header = json.loads(str(arrays["header"]))
    arrays["header"] = np.array(repeated(header, path))
    bad = tmp_path / "twice.npz"
    with bad.open("wb") as fh:
        np.savez_compressed(fh, **arrays)
    _twice(["sparse-project", "info", "--release", str(bad)], capsys, path, _first_key(header, path),
           files["ledger"])


def test_a_config_refuses_one_option_spelled_two_ways(files, tmp_path, capsys):
    # TOML refuses a repeated key itself, but 'release-out' and 'release_out' are one option: the last won
    f = _config(files, tmp_path, "cutoff = 1\nbatch-size = 5\nbatch_size = 7\n")
    code = main(_run(files, "--config", str(f)))
    err = capsys.readouterr().err
    assert code == 2 and "'batch-size' and 'batch_size'" in err and err.count("\n") == 1, err
