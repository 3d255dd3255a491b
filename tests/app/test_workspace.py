"""The workspace: one Qt-free set-up that widgets bind to and session files serialise — entries that
carry across mechanisms, change events, a plan built once per change, queue facts once per queue."""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import pandas as pd
import pytest

from svtgui.app import plan as plan_module
from svtgui.app.project_file import Session, load, save
from svtgui.app.workspace import DATASET, MECHANISM, PARAMS, QUERIES, TOTALS, Workspace
from svtgui.core.budget import Budget
from svtgui.data import Dataset
from svtgui.data.queries import ClippedSum, Count, queries_from_json

COUNT = {"kind": "count", "where": {"column": "x", "op": ">=", "value": 10}}
SUM = {"kind": "sum", "column": "x", "lower": 0, "upper": 99}


@pytest.fixture
def ds():
    frame = pd.DataFrame({"x": [i % 100 for i in range(300)], "colour": ["red", "blue", "green"] * 100})
    d = Dataset.from_frame(frame, name="toy")
    return d.with_schema(d.schema.with_bounds("x", 0, 99))


@pytest.fixture
def ws(ds):
    w = Workspace("sparse")
    w.set_dataset(ds, queries_from_json([COUNT, COUNT]))
    w.set_budget(Budget(Fraction(10)))
    return w


def test_parameters_that_mean_the_same_carry_across_mechanisms(ws):
    ws.set_entries({"epsilon": "0.5", "threshold": "120", "cutoff": 5, "delta": "1e-6"})
    seen = []
    for mid in ("sparse", "numeric_sparse", "standard_svt", "sparse"):
        ws.set_mechanism(mid)
        params, problems = ws.parameters()
        assert not problems, (mid, problems)
        seen.append((params["epsilon"], params["threshold"], params["cutoff"], params.get("delta")))
    assert seen[0] == (0.5, 120.0, 5, 1e-6) and seen[1] == seen[0] and seen[3] == seen[0]
    assert seen[2][:3] == (0.5, 120.0, 5)  # Standard SVT has no δ: the entry is kept for later
    assert ws.entry("delta") == "1e-6"


def test_a_half_typed_value_survives_a_switch_and_is_a_problem_of_its_field(ws):
    ws.set_entries({"epsilon": "0.5x", "threshold": "100", "cutoff": 2})
    ws.set_mechanism("numeric_sparse")
    assert ws.entry("epsilon") == "0.5x"
    assert list(ws.plan.by_field()) == ["epsilon"] and "must be a number" in ws.plan.by_field()["epsilon"]
    ws.set_entry("epsilon", "0.5")
    assert ws.plan.ok, ws.plan.problems


def test_changes_are_told_once_and_only_when_something_changed(ws, ds):
    events = []
    ws.subscribe(events.append)
    ws.set_entry("epsilon", "1")
    ws.set_entry("epsilon", "1")  # the same value: nothing to tell
    ws.set_mechanism("numeric_sparse")
    ws.set_mechanism("numeric_sparse")
    ws.set_queries(queries_from_json([COUNT]))
    ws.set_totals("5", "0")
    ws.set_dataset(ds)
    assert events == [frozenset({PARAMS}), frozenset({MECHANISM}), frozenset({QUERIES}), frozenset({TOTALS}),
                      frozenset({DATASET, QUERIES})]


def test_the_plan_is_built_once_per_change_and_each_query_checked_once(ws, monkeypatch):
    checked, read = [], []
    real = plan_module.validate_query
    monkeypatch.setattr(plan_module, "validate_query", lambda q, s: checked.append(q) or real(q, s))
    for kind in (Count, ClippedSum):  # the columns a query reads (for domains read off the data)
        monkeypatch.setattr(kind, "columns", lambda q, _real=kind.columns: read.append(q) or _real(q))
    ws.set_queries(queries_from_json([COUNT] * 3))
    ws.set_entries({"epsilon": "1", "threshold": "100", "cutoff": 2})
    first = ws.plan
    assert ws.plan is first and first.ok, first.problems  # cached until a change
    for eps in ("0.9", "0.8", "0.7"):  # parameter edits re-plan, the queue is not validated again
        ws.set_entry("epsilon", eps)
        assert ws.plan.cost.epsilon == float(eps)
    assert len(checked) == 3
    added, before = queries_from_json([SUM]), len(read)
    ws.queries.append(added)  # an append checks the new query alone
    assert ws.plan.queue.count == 4 and ws.plan.queue.sensitivity == 99 and checked[3:] == added
    assert read[before:] == added * len(read[before:])  # nor are the other queries' columns read again
    ws.set_queries(queries_from_json([COUNT]))
    assert ws.plan.queue.count == 1 and len(checked) == 5


def test_monotonic_is_offered_when_the_queue_allows_it(ws, ds):
    ws.set_entries({"epsilon": "1", "threshold": "100", "cutoff": 2})
    ws.set_mechanism("standard_svt")
    assert ws.facts.monotonic and ws.monotonic_requested() and ws.plan.params["monotonic"] is True
    ws.set_entry("monotonic", False)  # unticked by the curator: respected
    assert ws.plan.params["monotonic"] is False
    ws.set_mechanism("sparse")  # no monotonic variant: never asked for
    assert ws.monotonic_requested() is False and ws.plan.ok
    replace = ds.with_schema(ds.schema.with_neighbouring("replace", n=300))
    ws.set_mechanism("standard_svt")
    ws.set_entry("monotonic", None)
    ws.set_dataset(replace, queries_from_json([COUNT]))
    assert not ws.facts.monotonic and ws.monotonic_requested() is False


def test_a_wide_query_in_the_queue_is_a_warning_of_the_plan(ws):
    ws.set_entries({"epsilon": "1", "threshold": "100", "cutoff": 2})
    ws.set_queries(queries_from_json([COUNT, SUM]))
    assert ws.plan.ok and ws.plan.params["sensitivity"] == 99
    assert any("Δ = 99" in w for w in ws.plan.warnings)


def test_a_new_dataset_needs_a_declared_total_that_the_run_fits(ws):
    ws.set_entries({"epsilon": "1", "threshold": "100", "cutoff": 2})
    ws.set_budget(None)  # new to the ledger
    assert list(ws.plan.by_field()) == ["budget"] and "declare its total" in ws.plan.by_field()["budget"]
    ws.set_totals("0.5", "0")
    assert list(ws.plan.by_field()) == ["epsilon"] and "does not fit" in ws.plan.by_field()["epsilon"]
    ws.set_totals("2", "0")
    assert ws.plan.ok and ws.plan.fits


def test_the_planned_cutoff_is_the_mechanism_s_own(ws):
    ws.set_entries({"epsilon": "1", "threshold": "100", "cutoff": 5})
    assert ws.plan.cutoff == 5
    ws.set_mechanism("above_threshold")  # no c to type: it halts at the first ⊤
    assert ws.plan.cutoff == 1


def test_a_session_is_written_from_and_read_into_a_workspace(ws, ds, tmp_path):
    source = tmp_path / "toy.csv"
    source.write_text("x\n1\n")
    ws.set_dataset(dataclasses.replace(ds, path=source, dataset_id="ds-0123456789abcdef"),
                   queries_from_json([COUNT]))
    ws.set_mechanism("standard_svt")
    ws.set_entries({"epsilon": "0.25", "threshold": "40", "cutoff": 3, "monotonic": False, "split": "bad"})
    session, unsaved = Session.from_workspace(ws)
    assert unsaved == ["split"]  # a value that does not parse is not saved
    back = load(save(session, tmp_path / "s.svtsession"))
    other = Workspace("sparse")
    other.set_dataset(ws.dataset, back.query_objects())
    back.apply_to(other)
    assert other.mechanism_id == "standard_svt"
    params, problems = other.parameters()
    assert not problems and (params["epsilon"], params["threshold"], params["cutoff"]) == (0.25, 40.0, 3)
    assert other.monotonic_requested() is False


def test_the_input_files_are_looked_up_only_for_a_plan_that_writes_one(ws, tmp_path):
    """The window's input files are found on the disk (~0.6 ms) and a plan is built on every edit: an
    append to a long queue paid it with no output to check. A run that writes a report still has its
    report checked against them."""
    from svtgui.app.outputs import Inputs
    from svtgui.app.workspace import RunOptions

    data = tmp_path / "people.csv"
    data.write_text("x\n1\n")
    looked_up = []

    def input_files() -> Inputs:
        looked_up.append(1)
        return Inputs().add_dataset(data)

    ws.input_files = input_files
    ws.set_entries({"epsilon": "0.5", "threshold": "120", "cutoff": 1})
    ws.queries.append(queries_from_json([COUNT]))
    assert ws.plan.ok and looked_up == []
    ws.set_options(RunOptions(outputs=(data,)))  # a report over the data file
    assert "people.csv" in ws.plan.by_field()["report"] and looked_up
