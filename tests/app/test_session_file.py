""".svtsession files: round trip, no data, secrets or hash of the data, clear errors, the dataset
checked through the ledger."""

from __future__ import annotations

import hashlib
import json

import pytest

from svtgui.app.dataset_identity import register
from svtgui.app.project_file import Session, SessionError, load, save
from svtgui.data import load_dataset
from svtgui.data.queries import ClippedSum, RangeCount
from svtgui.ledger import Ledger


@pytest.fixture
def led(tmp_path):
    with Ledger.open(tmp_path / "ledger.sqlite") as ledger:
        yield ledger


@pytest.fixture
def setup(tmp_path, led):
    data = tmp_path / "people.csv"
    data.write_text("age,income\n" + "".join(f"{20 + i % 50},{1000 + 37 * i}\n" for i in range(500)))
    ds = load_dataset(data)
    ds = ds.with_schema(ds.schema.with_bounds("income", 0, 50_000))
    register(led, ds, 5)  # the rows now have a random public id in the ledger
    queries = [RangeCount("age", 20, 30), ClippedSum("income")]
    params = {"epsilon": 0.5, "threshold": 40.0, "cutoff": 2}
    return data, ds, queries, params


def test_round_trip_restores_everything_and_holds_no_data(setup, led, tmp_path):
    data, ds, queries, params = setup
    path = save(Session.from_state(ds, queries, "standard_svt", params, monotonic=True), tmp_path / "my")
    assert path.name == "my.svtsession"
    text = path.read_text()
    assert "1037" not in text and "1074" not in text  # no income value from the data
    assert ds.dataset_id in text and hashlib.sha256(data.read_bytes()).hexdigest() not in text
    assert ds.content_fingerprint(led.content_key()) not in text
    back = load(path)
    assert back.mechanism_id == "standard_svt" and back.params == params and back.monotonic
    assert [q.to_json() for q in back.query_objects()] == [q.to_json() for q in queries]
    reopened = back.open_dataset(led, path)
    assert reopened.dataset_id == ds.dataset_id
    assert reopened.schema.column("income").bounds() == (0, 50_000)  # declared bounds restored
    assert ClippedSum("income").sensitivity(reopened.schema) == 50_000


def test_changed_dataset_is_reported_clearly(setup, led, tmp_path):
    data, ds, queries, params = setup
    path = save(Session.from_state(ds, queries, "sparse", params), tmp_path / "s.svtsession")
    data.write_text(data.read_text() + "99,1\n")
    with pytest.raises(SessionError, match="not the dataset this session was saved with.*does not know"):
        load(path).open_dataset(led, path)
    with Ledger.open(tmp_path / "another.sqlite") as other:  # the rows are checked in the ledger in use
        data.write_text(data.read_text()[:-len("99,1\n")])
        with pytest.raises(SessionError, match="another ledger is in use"):
            load(path).open_dataset(other, path)
    assert load(path).open_dataset(led, path).dataset_id == ds.dataset_id  # the original rows again


def test_moved_folder_finds_the_data_beside_the_session(setup, led, tmp_path):
    data, ds, queries, params = setup
    path = save(Session.from_state(ds, queries, "sparse", params), tmp_path / "s.svtsession")
    moved = tmp_path / "moved"
    moved.mkdir()
    (moved / data.name).write_bytes(data.read_bytes())
    (moved / path.name).write_bytes(path.read_bytes())
    data.unlink()
    assert load(moved / path.name).open_dataset(led, moved / path.name).dataset_id == ds.dataset_id


def test_secrets_and_unknown_parameters_are_never_saved(setup, tmp_path):
    _, ds, queries, params = setup
    for bad in ({"seed": 3}, {"trace": True}, {"colour": 1}):
        with pytest.raises(SessionError, match="no saved parameter"):
            Session.from_state(ds, queries, "sparse", {**params, **bad})


def _write(tmp_path, doc) -> str:
    p = tmp_path / "x.svtsession"
    p.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    return str(p)


def test_bad_files_name_the_problem(setup, tmp_path):
    _, ds, queries, params = setup
    good = Session.from_state(ds, queries, "sparse", params).to_json()
    cases = [
        ("{not json", "not valid JSON \\(line 1"),
        ({"format": "other"}, "not an SVT Studio session"),
        ({**good, "version": 99}, "newer"),
        ({**good, "version": "1"}, "version"),
        ({**good, "extra": 1}, "unknown key 'extra'"),
        ({k: v for k, v in good.items() if k != "dataset"}, "'dataset'"),
        ({**good, "mechanism": {"id": "nope", "params": {}}}, "mechanism.id"),
        ({**good, "queries": [{"kind": "range", "column": "age"}]}, "field 'queries': query 1"),
        ({**good, "dataset": {**good["dataset"], "schema": {"columns": "x"}}}, "dataset.schema"),
    ]
    for doc, match in cases:
        with pytest.raises(SessionError, match=match):
            load(_write(tmp_path, doc))
    with pytest.raises(SessionError, match="no such file"):
        load(tmp_path / "absent.svtsession")


def test_linear_run_parameters_round_trip(setup, tmp_path):
    _, ds, queries, _ = setup
    pmw = {"epsilon": 1.0, "threshold": 40.0, "cutoff": 3, "universe": ["age@20,30,50,70"]}
    path = save(Session.from_state(ds, queries[:1], "pmw", pmw), tmp_path / "pmw")
    doc = json.loads(path.read_text())
    assert doc["version"] == 3 and doc["linear"] == {"universe": ["age@20,30,50,70"]}
    assert "universe" not in doc["mechanism"]["params"]
    back = load(path)
    assert back.linear == {"universe": ["age@20,30,50,70"]} and back.run_params() == pmw
    sp = {"epsilon": 1.0, "delta": 1e-6, "universe": "age:5", "release_out": str(tmp_path / "r.npz")}
    back = load(save(Session.from_state(ds, [], "sparse_project", sp), tmp_path / "sp"))
    assert back.linear == {"universe": ["age:5"], "release_out": str((tmp_path / "r.npz").resolve())}
    assert back.run_params()["release_out"].endswith("r.npz")
    # nothing chosen yet is not saved (the set-up can be saved half-way and completed later)
    half = Session.from_state(ds, [], "sparse_project", {"epsilon": 1.0, "universe": [], "release_out": ""})
    assert half.linear == {} and "linear" not in half.to_json()


def test_version_1_files_still_open(setup, led, tmp_path):
    """A file as version 1 wrote it (no linear section, the file's plain SHA-256) opens through the
    migrations; the hash is dropped and the rows are found through the ledger."""
    data, ds, _, _ = setup
    sha = hashlib.sha256(data.read_bytes()).hexdigest()
    v1 = {"format": "svtgui-session", "version": 1, "saved_by": "svtgui 0.1.0",
          "dataset": {"path": str(data), "name": "people.csv", "fingerprint": sha,
                      "schema": ds.schema.to_json()},
          "mechanism": {"id": "sparse", "params": {"epsilon": 0.5, "threshold": 40.0, "cutoff": 2}},
          "monotonic": False, "queries": [{"kind": "range", "column": "age", "low": 20, "high": 30}]}
    back = load(_write(tmp_path, v1))
    assert back.mechanism_id == "sparse" and back.linear == {} and back.params["cutoff"] == 2
    assert back.dataset_id is None and sha not in json.dumps(back.to_json())
    assert back.open_dataset(led).dataset_id == ds.dataset_id
    with pytest.raises(SessionError, match="unknown field 'linear'.*version 1"):
        load(_write(tmp_path, {**v1, "linear": {"universe": ["age:5"]}}))


def test_bad_linear_sections_name_the_field(setup, tmp_path):
    _, ds, queries, params = setup
    good = Session.from_state(ds, [], "pmw", {"epsilon": 1.0, "threshold": 40.0, "cutoff": 3,
                                                "universe": ["age:5"]}).to_json()
    cases = [
        ({**good, "linear": {"universe": "age:5"}}, "linear.universe.*non-empty list"),
        ({**good, "linear": {"universe": []}}, "linear.universe"),
        ({**good, "linear": {"universe": ["age:5", ""]}}, "linear.universe"),
        ({**good, "linear": {"universe": ["age:5"], "release_out": "r.npz"}}, "linear.release_out.*pmw"),
        ({**good, "linear": ["age:5"]}, "field 'linear' must be an object"),
        ({**good, "mechanism": {"id": "sparse_project", "params": {"epsilon": 1.0}},
          "linear": {"universe": ["age:5"], "release_out": "r.csv"}}, "must be a path ending in .npz"),
        ({**good, "mechanism": {"id": "sparse", "params": params}}, "linear.universe.*not a run parameter"),
    ]
    for doc, match in cases:
        with pytest.raises(SessionError, match=match):
            load(_write(tmp_path, doc))
