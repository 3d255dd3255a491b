"""Issue 21 §4 through ``svtgui-cli``: every source of a domain read off the data is refused by
default (one line, exit 2, nothing registered or charged); ``--allow-data-derived-domains`` runs it,
and stderr, the ledger and the report say it is NOT differentially private."""

from __future__ import annotations

import json

import pytest

from svtgui.app.domains import recorded
from svtgui.cli import main
from svtgui.ledger import Ledger

ALLOW = "--allow-data-derived-domains"


@pytest.fixture
def files(tmp_path):
    data = tmp_path / "people.csv"
    rows = [(20 + i % 50, ("Female", "Male")[i % 2], ("Paris", "Lyon", "Nice")[i % 3]) for i in range(400)]
    rows.append((33, "Female", "Tiny-town"))  # a town held by one person: it must not leak into a list
    data.write_text("age,sex,town\n" + "".join(f"{a},{s},{t}\n" for a, s, t in rows))
    schema = {"format": "svtgui-schema", "version": 1, "columns": [
        {"name": "age", "kind": "numeric", "lower": 0, "upper": 100},
        {"name": "sex", "kind": "categorical", "categories": ["Female", "Male"]},
        {"name": "town", "kind": "categorical"}]}
    sidecar = tmp_path / "people.schema.json"
    sidecar.write_text(json.dumps(schema))
    return tmp_path, data, sidecar, tmp_path / "l.sqlite"


def _refused(argv, capsys, ledger, what):
    capsys.readouterr()
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.count("\n") == 1 and what in err and "read from the private data" in err, err
    assert "nothing was charged" in err or "nothing" in err
    if ledger.exists():
        with Ledger.open(ledger) as led:
            assert led.runs() == [] and led.datasets() == []


def _allowed(argv, capsys, ledger, report):
    capsys.readouterr()
    code = main([*argv, ALLOW, "--report", str(report)])
    err = capsys.readouterr().err
    assert code == 0, err
    assert "NOT differentially private" in err
    with Ledger.open(ledger) as led:
        run = led.runs()[-1]
        notes = recorded(led.declarations(run.id))
    assert notes
    guarantee = json.loads(report.read_text())["guarantee"]
    assert guarantee["differentially_private"] is False and guarantee["domains_from_data"] == list(notes)
    return notes


def _run(data, queries, ledger, *extra):
    return ["run", "--data", str(data), "--queries", str(queries), "--mechanism", "sparse", "--epsilon", "1",
            "--threshold", "50", "--cutoff", "2", "--ledger", str(ledger), "--budget-epsilon", "10", *extra]


def test_observed_values_list_records_its_provenance_and_its_run_is_refused(files, capsys):
    tmp, data, _, ledger = files
    out = tmp / "towns.json"
    assert main(["queries", "generate", "every-value", "--data", str(data), "--column", "town", "--observed",
                 "--out", str(out)]) == 0
    assert "read from the data" in capsys.readouterr().err
    doc = json.loads(out.read_text())
    assert doc["version"] == 2 and doc["domains_from_data"] == ["the values of column 'town'"]
    assert {q["where"]["value"] for q in doc["queries"]} >= {"Tiny-town"}
    _refused(_run(data, out, ledger), capsys, ledger, "the values of column 'town'")
    notes = _allowed(_run(data, out, ledger), capsys, ledger, tmp / "r.json")
    assert notes == ("the values of column 'town'",)
    assert main(["ledger", "--ledger", str(ledger)]) == 0  # the curator's listing says so too
    assert "NOT differentially private: domains read from the data" in capsys.readouterr().out
    assert main(["queries", "show", str(out)]) == 0
    assert "the values of column 'town', read from the data" in capsys.readouterr().err


def test_declared_values_list_is_a_private_release(files, capsys):
    tmp, data, _, ledger = files
    out = tmp / "sex.json"
    assert main(["queries", "generate", "every-value", "--data", str(data), "--column", "sex",
                 "--out", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert doc["version"] == 1 and "domains_from_data" not in doc
    assert main(_run(data, out, ledger, "--report", str(tmp / "r.json"))) == 0
    assert "NOT differentially private" not in capsys.readouterr().err
    assert json.loads((tmp / "r.json").read_text())["guarantee"]["differentially_private"] is True


def test_observed_items_list_is_refused(files, capsys):
    tmp, _, _, ledger = files
    baskets = tmp / "b.dat"
    baskets.write_text("".join(f"{i % 7} {(i * 3) % 11}\n" for i in range(300)))
    out = tmp / "items.json"
    assert main(["queries", "generate", "every-item", "--observed", str(baskets), "--out", str(out)]) == 0
    assert json.loads(out.read_text())["domains_from_data"] == ["the items of column 'items'"]
    _refused(_run(baskets, out, ledger), capsys, ledger, "the items of column 'items'")
    _allowed(_run(baskets, out, ledger), capsys, ledger, tmp / "r.json")


def test_schema_levels_read_from_the_data_are_refused_even_for_a_typed_query(files, capsys):
    tmp, data, sidecar, ledger = files
    schema = json.loads(sidecar.read_text())
    schema["columns"][2].update(categories=["Lyon", "Nice", "Paris", "Tiny-town"], levels_from_data=True)
    sidecar.write_text(json.dumps(schema))
    generated = tmp / "towns.json"
    assert main(["queries", "generate", "every-value", "--data", str(data), "--column", "town",
                 "--out", str(generated)]) == 0
    notes = json.loads(generated.read_text())["domains_from_data"]
    assert notes == ["the levels of column 'town' in the schema"]
    typed = tmp / "typed.json"  # no provenance in the file: the schema's own is found by the plan
    paris = {"kind": "count", "where": {"column": "town", "op": "=", "value": "Paris"}}
    typed.write_text(json.dumps([paris]))
    _refused(_run(data, typed, ledger), capsys, ledger, "the levels of column 'town' in the schema")
    _allowed(_run(data, typed, ledger), capsys, ledger, tmp / "r.json")


def test_universe_over_observed_levels_is_refused_in_run_and_sparse_project(files, capsys):
    tmp, data, _, ledger = files
    counts = tmp / "ages.json"
    counts.write_text(json.dumps([{"kind": "range", "column": "age", "low": 20, "high": 40}]))
    pmw = ["run", "--data", str(data), "--queries", str(counts), "--mechanism", "pmw", "--epsilon", "1",
           "--delta", "1e-6", "--threshold", "50", "--cutoff", "2", "--universe", "town", "age@0,20,40,100",
           "--ledger", str(ledger), "--budget-epsilon", "10", "--budget-delta", "1e-5"]
    _refused(pmw, capsys, ledger, "the values of column 'town'")
    build = ["sparse-project", "build", "--data", str(data), "--columns", "town", "--epsilon", "1",
             "--T", "64", "--out", str(tmp / "r.npz"), "--ledger", str(ledger), "--budget-epsilon", "10",
             "--budget-delta", "1e-5"]
    _refused(build, capsys, ledger, "the values of column 'town'")
    assert not (tmp / "r.npz").exists()
    _allowed(pmw, capsys, ledger, tmp / "pmw.json")
    assert main([*build, ALLOW]) == 0
    assert "NOT differentially private" in capsys.readouterr().err
    assert main(["sparse-project", "info", "--release", str(tmp / "r.npz")]) == 0
    assert "town: " in (out := capsys.readouterr().out) and "NOT differentially private" in out


def test_a_session_keeps_its_list_provenance(files, capsys):
    from svtgui.app.project_file import Session, load, save
    from svtgui.data import load_dataset
    from svtgui.data.queries import read_queries

    tmp, data, _, ledger = files
    out = tmp / "towns.json"
    assert main(["queries", "generate", "every-value", "--data", str(data), "--column", "town", "--observed",
                 "--out", str(out)]) == 0
    listed = read_queries(out)
    params = {"epsilon": 1.0, "threshold": 50.0, "cutoff": 2}
    session = Session.from_state(load_dataset(data), listed.queries, "sparse", params,
                                 domains_from_data=listed.from_data)
    path = save(session, tmp / "s")
    assert load(path).domains_from_data == listed.from_data
    doc = json.loads(path.read_text())
    doc.pop("domains_from_data")
    path.write_text(json.dumps(doc))  # an older session file: its list was declared
    assert load(path).domains_from_data == ()
    path = save(session, tmp / "s")
    replay = ["run", "--session", str(path), "--ledger", str(ledger), "--budget-epsilon", "10"]
    _refused(replay, capsys, ledger, "the values of column 'town'")
