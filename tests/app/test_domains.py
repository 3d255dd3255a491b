"""Issue 21 §4: a release that depends on a domain read off the data is refused, unless allowed.

Every source of such a domain is tried at the application layer — a query list built from observed
values, schema levels read from the data, a universe over observed levels or over such schema
levels, frequent items over the items that occur — and each is refused before anything is charged.
With the curator's override the run is charged, and the ledger, every report format and the
CSV's per-row guarantee say it is NOT differentially private. Provenance survives the files.
"""

from __future__ import annotations

import csv
import json

import pandas as pd
import pytest

from svtgui.app import recipes
from svtgui.app.dataset_identity import register
from svtgui.app.domains import DECLARED, Domains, recorded
from svtgui.app.plan import build
from svtgui.app.reports import export
from svtgui.app.runs.runner import start_run
from svtgui.data import generators, provenance
from svtgui.data.dataset import Dataset
from svtgui.data.predicates import Condition
from svtgui.data.queries import Count, RangeCount
from svtgui.data.schema import Schema
from svtgui.ledger import Ledger
from tests.app import test_runner_linear

census, ledger = test_runner_linear.census, test_runner_linear.ledger  # the census sample, registered (ε 10)

SPARSE = {"epsilon": 1.0, "threshold": 500.0, "cutoff": 2}
PMW = {"epsilon": 1.0, "delta": 1e-6, "threshold": 1500.0, "cutoff": 5}


def csv_guarantees(path) -> set[str]:
    """The guarantee cell of every row of a CSV report (both its tables; headers and blanks skipped)."""
    with path.open() as f:
        return {r[-1] for r in csv.reader(f) if r and r[-1] != "guarantee"}


def _observed_occupation(census):
    """The census with the occupation levels read off the data (the levels dialog's button)."""
    levels = [str(v) for v in generators.observed_values(census, "occupation")]
    return census.with_schema(census.schema.with_categories("occupation", levels, from_data=True))


def _sources(census):
    """(name, dataset, queries, mechanism, params, domains): one release per source of a domain read
    off the data."""
    observed = generators.every_value(census.schema, "occupation",
                                      generators.observed_values(census, "occupation"))
    from_schema = _observed_occupation(census)
    undeclared = census.with_schema(census.schema.with_categories("occupation", None))
    return [
        ("every-value --observed", census, observed, "sparse", SPARSE,
         Domains((provenance.values_note("occupation"),))),
        ("schema levels read from the data", from_schema,
         generators.every_value(from_schema.schema, "occupation"), "sparse", SPARSE, DECLARED),
        ("a typed query on a column whose levels were read from the data", from_schema,
         [Count(Condition("occupation", "=", "Sales"))], "sparse", SPARSE, DECLARED),
        ("universe over observed levels", undeclared, [RangeCount("age", 25, 35)], "pmw",
         {**PMW, "universe": ["occupation", "age@17,25,35,91"]}, DECLARED),
        ("universe over schema levels read from the data", from_schema, [RangeCount("age", 25, 35)], "pmw",
         {**PMW, "universe": ["occupation", "age@17,25,35,91"]}, DECLARED),
    ]


def test_every_source_is_refused_before_the_charge(ledger, census):
    for name, ds, queries, mechanism, params, domains in _sources(census):
        plan = build(ds, queries, mechanism, params, domains=domains)
        assert [p.field for p in plan.problems] == ["domains"], name
        assert "occupation" in plan.problems[0].message and "NOT differentially private" in \
            plan.problems[0].message, name
        with pytest.raises(ValueError, match="read from the private data"):
            start_run(ledger, ds, queries, mechanism, params, seed=1, domains=domains)
    assert ledger.runs() == [] and ledger.budget(census.dataset_id).spent_epsilon == 0


def test_declared_levels_are_not_refused(ledger, census):
    """The same releases over the census's declared levels (its codebook) plan without a problem."""
    declared_levels = census.schema.column("education").categories
    assert declared_levels and not census.schema.column("education").levels_from_data
    plan = build(census, generators.every_value(census.schema, "education"), "sparse", SPARSE)
    assert plan.ok and plan.domains_from_data == ()
    universe = ["education", "age@17,25,35,91"]
    plan = build(census, [RangeCount("age", 25, 35)], "pmw", {**PMW, "universe": universe})
    assert plan.ok and plan.domains_from_data == ()


def test_allowed_runs_are_charged_and_reported_not_private_everywhere(ledger, census, tmp_path):
    for i, (name, ds, queries, mechanism, params, domains) in enumerate(_sources(census)):
        allowed = Domains(domains.from_data, allowed=True)
        plan = build(ds, queries, mechanism, params, domains=allowed)
        assert plan.ok, name
        assert any("NOT differentially private" in w for w in plan.warnings), name
        run = start_run(ledger, ds, queries, mechanism, params, domains=allowed)
        with run:
            for _ in run.stream():
                pass
        notes = recorded(ledger.declarations(run.id))
        assert notes and all("occupation" in n for n in notes), name
        data = json.loads(export(ledger, run.id, tmp_path / f"r{i}.json").read_text())
        assert data["guarantee"]["differentially_private"] is False, name
        assert data["guarantee"]["sentence"].startswith("This release is NOT differentially private"), name
        assert "-differentially private:" not in data["guarantee"]["sentence"]
        html = export(ledger, run.id, tmp_path / f"r{i}.html").read_text()
        assert '<p class="warning">This release is NOT differentially private' in html, name
        assert csv_guarantees(export(ledger, run.id, tmp_path / f"r{i}.csv")) == {
            "NOT differentially private (domains read from the data; never publish)"}, name
    assert ledger.budget(census.dataset_id).spent_epsilon == len(_sources(census))


def test_frequent_items_over_the_items_that_occur(tmp_path):
    baskets = Dataset.from_frame(pd.DataFrame({"items": [(i % 7, (i * 3) % 11) for i in range(300)]}),
                                 name="baskets")
    items = generators.observed_items(baskets, "items")
    note = (provenance.items_note("items"),)
    with Ledger.open(tmp_path / "l.sqlite") as led:
        register(led, baskets, 5)
        plan = recipes.frequent_items(baskets, items, 2, 1.0, domains=Domains(note))
        with pytest.raises(ValueError, match="the items of column 'items', read from the private data"):
            plan.run(led)
        assert led.runs() == []
        done = recipes.frequent_items(baskets, items, 2, 1.0, domains=Domains(note, allowed=True)).run(led)
        assert recorded(led.declarations(done.record.id)) == note
        assert json.loads(export(led, done.record.id, tmp_path / "r.json").read_text())[
            "guarantee"]["differentially_private"] is False
        # a public domain (the catalogue's ids) is a private release
        public = recipes.frequent_items(baskets, list(range(11)), 2, 1.0).run(led)
        assert recorded(led.declarations(public.record.id)) == ()
        assert json.loads(export(led, public.record.id, tmp_path / "p.json").read_text())[
            "guarantee"]["differentially_private"] is True


def test_schema_provenance_round_trips_and_old_files_are_declared(census):
    schema = _observed_occupation(census).schema
    again = Schema.from_json(schema.dumps())
    assert again.column("occupation").levels_from_data and again.levels_from_data() == ["occupation"]
    assert again == schema
    old = json.loads(schema.dumps())
    for c in old["columns"]:
        c.pop("levels_from_data", None)
    assert Schema.from_json(old).levels_from_data() == []  # a file without the field declared its levels
    kinds = schema.with_kind("occupation", "categorical")
    assert kinds.column("occupation").levels_from_data  # another edit keeps the provenance
    assert not schema.with_categories("occupation", ["Sales"]).column("occupation").levels_from_data
    with pytest.raises(ValueError, match="'levels_from_data' must be true or false"):
        Schema.from_json({"columns": [{"name": "a", "kind": "categorical", "categories": ["x"],
                                       "levels_from_data": "yes"}]})


def test_a_value_outside_the_declared_levels_is_refused_before_the_charge(ledger, census):
    """A typo ('female' for 'Female') counted nothing and still spent budget; 'in' and '!=' too."""
    for where in (Condition("sex", "=", "female"), Condition("sex", "!=", "Femal"),
                  Condition("sex", "in", ("Female", "male"))):
        plan = build(census, [Count(where)], "sparse", SPARSE)
        assert [p.field for p in plan.problems] == ["queries"]
        assert "is not a declared level of column 'sex' (levels: Female, Male)" in plan.problems[0].message
    assert build(census, [Count(Condition("sex", "in", ("Female", "Male")))], "sparse", SPARSE).ok
    assert ledger.runs() == []


def test_the_gate_refuses_a_request_over_domains_read_from_the_data_unless_allowed(ledger, census):
    """The gate's own check (defence behind the plan): every path that charges carries the notes."""
    from svtgui.app import gate
    from svtgui.app.domains import gate_extra

    note = (provenance.values_note("occupation"),)
    request = gate.Request(census, "sparse", {"epsilon": 1.0}, "1", extra=gate_extra(note, False))
    with pytest.raises(gate.Refused, match="the values of column 'occupation'.*nothing was charged"):
        gate.charge(ledger, request)
    assert ledger.runs() == []
    record = gate.charge(ledger, gate.Request(census, "sparse", {"epsilon": 1.0}, "1",
                                              extra=gate_extra(note, True)))
    assert recorded(ledger.declarations(record.id)) == note
    plain = gate.charge(ledger, gate.Request(census, "sparse", {"epsilon": 1.0}, "1"))
    assert recorded(ledger.declarations(plain.id)) == ()


def test_an_adaptive_query_over_levels_read_from_the_data_needs_a_run_that_allowed_them(ledger, census):
    """The Next-query builder offers the schema's levels; levels read from the data would put a value
    of the private rows into a run charged as differentially private."""
    from_schema = _observed_occupation(census)
    sales = Count(Condition("occupation", "=", "Sales"))
    with start_run(ledger, from_schema, [RangeCount("age", 20, 30)], "sparse", SPARSE) as run:
        with pytest.raises(ValueError, match="charged as differentially private"):
            run.submit_query(sales)
        assert run.answered == 0
    allowed = Domains(allowed=True)
    with start_run(ledger, from_schema, [sales], "sparse", SPARSE, domains=allowed) as run:
        run.submit_query(Count(Condition("occupation", "=", "Tech-support")))
        assert run.answered == 1


def test_the_workspace_keeps_the_queues_provenance_until_the_queue_is_empty(census):
    """Edits keep the marks (a remaining query may be one built from the data); an empty queue, or
    another dataset, drops them; the override never outlives its dataset."""
    from svtgui.app.workspace import DOMAINS, Workspace

    note = provenance.values_note("occupation")
    ws = Workspace("sparse", SPARSE)
    events = []
    ws.subscribe(events.append)
    observed = generators.every_value(census.schema, "occupation",
                                      generators.observed_values(census, "occupation"))
    ws.set_dataset(census, observed, (note,))
    assert ws.queries_from_data == (note,) and ws.plan.by_field().get("domains")
    ws.queries.remove([0, 1])  # fewer queries, still built from the data
    assert ws.queries_from_data == (note,)
    ws.set_allow_from_data(True)
    assert DOMAINS in events[-1] and "domains" not in ws.plan.by_field()
    assert ws.plan.domains_from_data == (note,) and ws.plan.domains_allowed
    ws.queries.reset([])
    assert ws.queries_from_data == () and DOMAINS in events[-1]
    ws.set_queries(observed, (note,))  # an imported file that says where its values came from
    assert ws.queries_from_data == (note,)
    ws.set_dataset(census, observed, (note,))  # reopened: the marks come back, the override does not
    assert not ws.allow_from_data and ws.plan.by_field().get("domains")
    ws.queries.append([RangeCount("age", 20, 30)])
    ws.add_from_data([provenance.values_note("sex")])
    assert ws.queries_from_data == (note, provenance.values_note("sex"))
