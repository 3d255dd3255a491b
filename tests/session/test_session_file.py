""".svtsession files: round trip, no data or secrets, clear errors, fingerprint mismatch."""

from __future__ import annotations

import json

import pytest

from svtgui.data import load_dataset
from svtgui.data.queries import ClippedSum, RangeCount
from svtgui.session.session_file import Session, SessionError, load, save


@pytest.fixture
def setup(tmp_path):
    data = tmp_path / "people.csv"
    data.write_text("age,income\n" + "".join(f"{20 + i % 50},{1000 + 37 * i}\n" for i in range(500)))
    ds = load_dataset(data)
    ds = ds.with_schema(ds.schema.with_bounds("income", 0, 50_000))
    queries = [RangeCount("age", 20, 30), ClippedSum("income")]
    params = {"epsilon": 0.5, "threshold": 40.0, "cutoff": 2}
    return data, ds, queries, params


def test_round_trip_restores_everything_and_holds_no_data(setup, tmp_path):
    data, ds, queries, params = setup
    path = save(Session.from_state(ds, queries, "standard_svt", params, monotonic=True), tmp_path / "my")
    assert path.name == "my.svtsession"
    text = path.read_text()
    assert "1037" not in text and "1074" not in text  # no income value from the data
    back = load(path)
    assert back.mechanism_id == "standard_svt" and back.params == params and back.monotonic
    assert [q.to_json() for q in back.query_objects()] == [q.to_json() for q in queries]
    reopened = back.open_dataset(path)
    assert reopened.fingerprint == ds.fingerprint
    assert reopened.schema.column("income").bounds() == (0, 50_000)  # declared bounds restored
    assert ClippedSum("income").sensitivity(reopened.schema) == 50_000


def test_changed_dataset_is_reported_clearly(setup, tmp_path):
    data, ds, queries, params = setup
    path = save(Session.from_state(ds, queries, "sparse", params), tmp_path / "s.svtsession")
    data.write_text(data.read_text() + "99,1\n")
    with pytest.raises(SessionError, match="not the dataset this session was saved with.*fingerprint"):
        load(path).open_dataset(path)


def test_moved_folder_finds_the_data_beside_the_session(setup, tmp_path):
    data, ds, queries, params = setup
    path = save(Session.from_state(ds, queries, "sparse", params), tmp_path / "s.svtsession")
    moved = tmp_path / "moved"
    moved.mkdir()
    (moved / data.name).write_bytes(data.read_bytes())
    (moved / path.name).write_bytes(path.read_bytes())
    data.unlink()
    assert load(moved / path.name).open_dataset(moved / path.name).fingerprint == ds.fingerprint


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
        ({**good, "extra": 1}, "unknown field 'extra'"),
        ({k: v for k, v in good.items() if k != "dataset"}, "'dataset'"),
        ({**good, "mechanism": {"id": "nope", "params": {}}}, "mechanism.id"),
        ({**good, "queries": [{"kind": "range", "column": "age"}]}, "field 'queries': query 1"),
        ({**good, "dataset": {**good["dataset"], "schema": {"columns": "x"}}}, "dataset.schema"),
    ]
    for doc, match in cases:
        with pytest.raises(SessionError, match=match):
            load(_write(tmp_path, doc))
    with pytest.raises(SessionError, match="cannot read"):
        load(tmp_path / "absent.svtsession")
