"""One neighbouring relation per dataset (issue 21 §3): the relation and public n are part of the
registration, a run under any other is refused before its charge, and changing it is an explicit,
logged curator action (``svtgui-cli ledger set-relation``) whose message explains the consequence."""

from __future__ import annotations

import json
import sqlite3

import numpy as np
import pandas as pd
import pytest

from svtgui.app import dataset_identity, gate
from svtgui.app.runs.runner import start_run
from svtgui.cli import main
from svtgui.data.dataset import Dataset
from svtgui.data.queries import RangeCount
from svtgui.data.schema import infer_schema
from svtgui.ledger import Ledger, LedgerTampered

N = 400
SPARSE = {"epsilon": 0.5, "threshold": 100.0, "cutoff": 1}
QUERIES = [RangeCount("age", 30, 40)]


def _people(relation: str = "replace", n: int | None = N) -> Dataset:
    frame = pd.DataFrame({"age": np.arange(N) % 90})
    schema = infer_schema(frame).with_neighbouring(relation, n)
    return Dataset.from_frame(frame, "people", schema)


def test_the_public_n_is_part_of_the_registration(tmp_path):
    ds = _people()
    with Ledger.open(tmp_path / "l.sqlite") as led:
        record = dataset_identity.register(led, ds, "10")
        assert (record.neighbouring, record.public_n) == ("replace", N)
        other_n = ds.with_schema(ds.schema.with_neighbouring("replace", N + 1))
        with pytest.raises(gate.Refused, match=f"replace-one with n = {N:,} neighbours, but replace-one "
                                               f"with n = {N + 1:,} is declared"):
            start_run(led, other_n, QUERIES, "sparse", SPARSE)
        with pytest.raises(ValueError, match="cannot share its budget"):  # nor may other rows join it so
            dataset_identity.bind(led, _people("add_remove", None), record.dataset_id)
        assert led.runs() == []
        start_run(led, ds, QUERIES, "sparse", SPARSE).finish()
        assert len(led.runs()) == 1


@pytest.fixture
def registered(tmp_path):
    """A dataset registered under add/remove-one with one run, in a ledger file (closed)."""
    path = tmp_path / "l.sqlite"
    ds = _people("add_remove", None)
    with Ledger.open(path) as led:
        dataset_id = dataset_identity.register(led, ds, "10").dataset_id
        start_run(led, ds, QUERIES, "sparse", SPARSE).finish()
    return path, dataset_id


def test_set_relation_is_logged_explained_and_then_the_only_relation_accepted(registered, capsys):
    path, dataset_id = registered
    assert main(["ledger", "set-relation", dataset_id, "replace", "--n", str(N), "--reason",
                 "n is published in the annual report", "--ledger", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"replace-one with n = {N:,}" in out and "was add/remove-one" in out
    assert "Consequence" in out and "1 run charged before" in out and "twice" in out
    with Ledger.open(path) as led:
        events = led.relation_events(dataset_id)
        assert [(e.kind, e.neighbouring, e.public_n) for e in events] == [
            ("register", "add_remove", None), ("change", "replace", N)]
        assert events[-1].reason == "n is published in the annual report"
        with pytest.raises(gate.Refused, match="budgeted under replace-one"):
            start_run(led, _people("add_remove", None), QUERIES, "sparse", SPARSE)
        start_run(led, _people(), QUERIES, "sparse", SPARSE).finish()  # the rows, under the new relation
        assert len(led.runs()) == 2
    assert main(["ledger", "--ledger", str(path)]) == 0
    assert "relation set to replace-one with n = 400" in capsys.readouterr().out
    assert main(["ledger", "--ledger", str(path), "--json"]) == 0
    (shown,) = json.loads(capsys.readouterr().out)["datasets"]
    assert shown["neighbouring"] == "replace" and shown["public_n"] == N
    assert shown["relation_events"][-1]["reason"] == "n is published in the annual report"
    later = shown["runs"][-1]["id"]  # its report says the relation changed, when and why (the day only)
    for out in (path.with_name("r.json"), path.with_name("r.html")):
        assert main(["report", str(later), "--ledger", str(path), "--out", str(out)]) == 0
    (change,) = json.loads(path.with_name("r.json").read_text())["budget"]["relation_changes"]
    assert change["relation"] == "replace-one with n = 400" and change["reason"].startswith("n is published")
    assert len(change["date"]) == 10
    assert "Neighbouring relation changed" in path.with_name("r.html").read_text()


@pytest.mark.parametrize("argv, says", [
    (["replace", "--reason", "x"], "--n"),  # replace-one needs its public n
    (["add_remove", "--n", "5", "--reason", "x"], "--n"),  # add/remove-one has none
    (["add_remove", "--reason", "x"], "nothing changed"),  # already kept under it
    (["replace", "--n", "5", "--reason", "  "], "reason"),
])
def test_set_relation_refuses_bad_input_in_one_line_and_changes_nothing(registered, capsys, argv, says):
    path, dataset_id = registered
    assert main(["ledger", "set-relation", dataset_id, *argv, "--ledger", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and says in err, err
    with Ledger.open(path) as led:
        assert [e.kind for e in led.relation_events(dataset_id)] == ["register"]


def test_a_deleted_relation_change_is_noticed(registered):
    """Relation events are chained: deleting the change (triggers dropped) is refused on the next open."""
    path, dataset_id = registered
    with Ledger.open(path) as led:
        led.set_relation(dataset_id, "replace", N, reason="published")
    c = sqlite3.connect(path)
    c.execute("DROP TRIGGER relation_events_no_delete")
    c.execute("DELETE FROM relation_events WHERE kind = 'change'")
    c.commit()
    c.close()
    with pytest.raises(LedgerTampered, match="relation event"):
        Ledger.open(path)



# -- issue 21 §10: reports name a dataset by a public name, never by its file ------------------------


def test_reports_name_the_dataset_by_its_public_name_never_the_file(tmp_path, capsys):
    data = tmp_path / "hiv_patients_st_marys_2024.csv"
    data.write_text("age\n" + "".join(f"{i % 90}\n" for i in range(N)))
    queries = tmp_path / "q.json"
    queries.write_text('{"format": "svtgui-queries", "version": 1, "queries": '
                       '[{"kind": "range", "column": "age", "low": 0, "high": 30}]}')
    ledger = tmp_path / "l.sqlite"
    common = ["run", "--data", str(data), "--queries", str(queries), "--mechanism", "sparse",
              "--epsilon", "0.5", "--threshold", "50", "--cutoff", "1", "--ledger", str(ledger),
              "--budget-epsilon", "5"]
    outs = [tmp_path / f"first{s}" for s in (".json", ".html", ".csv")]
    assert main([*common, *[a for o in outs for a in ("--report", str(o))]]) == 0
    with Ledger.open(ledger) as led:
        (record,) = led.datasets()
    for out in outs:
        text = out.read_text(encoding="utf-8")
        assert "hiv_patients" not in text and str(tmp_path) not in text, out.name
        assert record.dataset_id in text or out.suffix == ".csv"  # the CSV's tables name no dataset
    assert json.loads(outs[0].read_text())["dataset"]["name"] == record.dataset_id  # the default: the id
    assert main(["ledger", "set-name", record.dataset_id, "Clinic survey", "--ledger", str(ledger)]) == 0
    capsys.readouterr()
    later = tmp_path / "later.json"
    assert main([*common, "--report", str(later)]) == 0
    assert json.loads(later.read_text())["dataset"]["name"] == "Clinic survey"
    assert main(["ledger", "set-name", record.dataset_id, "   ", "--ledger", str(ledger)]) == 2
    assert "public name is empty" in capsys.readouterr().err
