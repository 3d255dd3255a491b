"""PMW and SparseProject through the shared run path, on the bundled census sample.

What is checked: the charge comes before the first answer; every response is committed with
``answered_from_simulation``; free answers are functions of public values only (a public replay
of the multiplicative-weights updates reproduces every one of them); the release file is written
after the charge and answering from it never touches the ledger; every bad input names the problem
and charges nothing.
"""

from __future__ import annotations

import hashlib
import sqlite3

import numpy as np
import pytest

from svtgui.app.dataset_identity import register
from svtgui.app.runs.runner import plan_run, start_run
from svtgui.assets import asset
from svtgui.core.budget import BudgetExceeded
from svtgui.core.mechanisms.sparse_project import ProjectionRelease
from svtgui.data import generators, load_dataset
from svtgui.data.evaluate import evaluate
from svtgui.data.predicates import Condition, Junction
from svtgui.data.queries import ClippedSum, Count, RangeCount
from svtgui.data.universe import Universe
from svtgui.ledger import FREE_TEXT, PAID_TEXT, Ledger

UNIVERSE = ["age@17,25,35,45,55,65,91", "education", "sex", "income"]
PMW = {"epsilon": 1.0, "delta": 1e-6, "threshold": 1500.0, "cutoff": 40, "universe": UNIVERSE}


@pytest.fixture(scope="module")
def census():
    return load_dataset(asset("samples/census.csv"))


@pytest.fixture
def ledger(tmp_path, census):
    with Ledger.open(tmp_path / "l.sqlite") as led:
        register(led, census, 10, "0.001")
        yield led


def _queries(census) -> list:
    """Every cell of the 2-way marginals of education × sex × income, plus age ranges at bin edges."""
    qs = generators.marginals(census.schema, ["education", "sex", "income"], k=2)
    qs += [RangeCount("age", lo, hi) for lo, hi in ((25, 35), (35, 55), (25, 65))]
    qs.append(Count(Junction("and", (Condition("sex", "=", "Female"), Condition("age", ">=", 45)))))
    return qs


def _spent(ledger, census) -> float:
    return float(ledger.budget(census.dataset_id).spent_epsilon)


def test_pmw_run_end_to_end(ledger, census):
    queries = _queries(census)
    run = start_run(ledger, census, queries, "pmw", PMW, seed=3)
    # charged (committed) before the first answer, with the universe and derived parameters recorded
    assert _spent(ledger, census) == 1.0 and ledger.responses(run.id) == []
    params = ledger.run(run.id).params
    assert params["universe"] == UNIVERSE and params["universe_size"] == 7 * 18 * 4 * 4
    assert params["threshold_unit"] == "rows" and params["neighbouring"] == "add_remove"
    n_hat = ledger.facts(run.id)["n_released"]
    assert abs(n_hat - census.n_rows) < 200  # discrete Laplace, scale 1/0.05 = 20: P(|noise| ≥ 200) < 1e-4
    batches = list(run.stream(batch_size=25))
    run.finish()
    rows = ledger.responses(run.id)  # as committed: the streamed batches, column for column
    assert [v for b in batches for v in b.values()] == [r.value for r in rows]
    assert [s for b in batches for s in b.simulated.tolist()] == [r.answered_from_simulation for r in rows]
    assert len(rows) == len(queries) and ledger.run(run.id).status == "finished"
    assert [r.index for r in rows] == list(range(len(queries)))
    free = [r for r in rows if r.answered_from_simulation]
    paid = [r for r in rows if r.answered_from_simulation is False]
    assert len(free) + len(paid) == len(rows) and 0 < len(paid) <= PMW["cutoff"] and len(free) > 0
    assert all(r.above == (not r.answered_from_simulation) for r in rows)
    assert {r.result for r in rows} == {FREE_TEXT, PAID_TEXT}
    assert all(isinstance(r.value, int) for r in paid)  # counts released on the integer lattice
    # Free answers are within T + α_svt rows of the truth (Dwork–Roth bound over k queries, β = 0.05;
    # fixed seed, so this is deterministic; the bound fails with probability ≤ 0.05 over seeds).
    truth = evaluate(census, queries)
    from svtgui.core import accuracy

    svt = dict(epsilon=0.95 * 0.5, delta=1e-6, threshold=0.0, cutoff=PMW["cutoff"], sensitivity=1.0,
               integer=False)
    bound = PMW["threshold"] + accuracy.bound("sparse", svt, len(queries), 0.05).alpha
    errors = np.array([abs(r.value - truth[r.index]) for r in free])
    assert errors.max() < bound + 0.05 + abs(n_hat - census.n_rows)  # + display rounding + n̂ scaling


def test_free_answers_are_a_public_replay(ledger, census):
    """Leak check: from public values alone (queries, n̂, η, the paid answers) anyone can recompute
    every free answer, so free answers carry no information beyond the paid ones."""
    queries = _queries(census)
    run = start_run(ledger, census, queries, "pmw", PMW, seed=5)
    for _ in run.stream(batch_size=1000):
        pass
    rows = ledger.responses(run.id)
    n_hat = ledger.facts(run.id)["n_released"]
    universe = Universe.of(census, UNIVERSE)
    eta = PMW["threshold"] / n_hat / 2  # the documented default learning rate α/2, α = T/n̂
    p = np.full(universe.size, 1.0 / universe.size)
    checked = 0
    for q, r in zip(queries, rows, strict=True):
        lq = universe.query(q.where) if isinstance(q, Count) else universe.query(
            Junction("and", (Condition("age", ">=", q.low), Condition("age", "<", q.high))))
        simulated = float(np.dot(lq.weights, p[lq.indices]))
        if r.answered_from_simulation:
            assert r.value == np.round(simulated * n_hat, 1)  # the documented rounding, to 0.1 row
            checked += 1
        else:
            p[lq.indices] *= np.exp((eta if r.value / n_hat > simulated else -eta) * lq.weights)
            p /= p.sum()
    assert checked > 0
    # and nothing else of the run mentions a true answer (the ledger's public columns)
    truth = {int(t) for t in evaluate(census, queries)}
    conn = sqlite3.connect(ledger.path)
    public = conn.execute("SELECT params_json FROM runs").fetchall() + conn.execute(
        "SELECT value_json FROM run_facts WHERE key != 'n_released'").fetchall()
    assert not any(str(t) in text for (text,) in public for t in truth if t > 999)


def test_pmw_adaptive_queries_and_refusals(ledger, census):
    run = start_run(ledger, census, [], "pmw", PMW, seed=1)
    one = run.submit_query(Count(Condition("sex", "=", "Male")))
    assert len(one) == 1 and one.simulated.tolist() == [not one.above[0]] and one.index.tolist() == [0]
    with pytest.raises(ValueError, match=r"age.*cuts a bin"):
        run.submit_query(Count(Condition("age", ">=", 40)))
    with pytest.raises(ValueError, match=r"sensitivity 90, above this run's Δ = 1"):
        run.submit_query(ClippedSum("age", 17, 90))
    assert len(ledger.responses(run.id)) == 1
    run.stop()


@pytest.mark.parametrize(("params", "queries", "match"), [
    ({"universe": None}, [], "needs a universe"),
    ({"universe": []}, [], "at least one column"),
    ({"universe": ["nosuch"]}, [], "nosuch"),
    ({"universe": ["hours_per_week"]}, [], "needs bins"),
    ({"neighbouring": "replace"}, [], "schema's neighbouring"),
    ({"threshold_unit": "fraction"}, [], "in rows"),
    ({"threshold": -5.0}, [], "threshold"),
    ({}, [Count(Condition("age", "<", 30))], r"query 1 \(count of rows where age < 30\).*cuts a bin"),
    ({}, [ClippedSum("age", 17, 90)], r"query 1 .*sum query is not a linear query"),
    ({}, [RangeCount("hours_per_week", 0, 40)], r"query 1 .*hours_per_week.*not in the universe"),
])
def test_bad_pmw_inputs_charge_nothing(ledger, census, params, queries, match):
    p = {**PMW, **params}
    if p.get("universe") is None:
        del p["universe"]
    with pytest.raises(ValueError, match=match):
        start_run(ledger, census, queries, "pmw", p)
    assert _spent(ledger, census) == 0 and ledger.runs() == []


def test_levels_read_from_the_data_and_unbounded_bins_are_refused(ledger, census):
    undeclared = census.with_schema(census.schema.with_categories("occupation", None))
    with pytest.raises(ValueError, match=r"values of column 'occupation', read from the private data"):
        plan_run(undeclared, [], "pmw", {**PMW, "universe": ["occupation"]})
    # listed levels are public: accepted
    plan_run(undeclared, [], "pmw", {**PMW, "universe": ["occupation=Sales,Tech-support"]})
    unbounded = census.with_schema(census.schema.with_bounds("age", None, None))
    with pytest.raises(ValueError, match="declare the column's bounds or give edges"):
        plan_run(unbounded, [], "pmw", {**PMW, "universe": ["age:8"]})
    plan_run(unbounded, [], "pmw", {**PMW, "universe": ["age@17,40,91"]})  # explicit edges are public


SP = {"epsilon": 1.0, "delta": 1e-6, "projection_size": 256, "universe": UNIVERSE}


def test_sparse_project_run_writes_the_release_then_answers_need_no_ledger(ledger, census, tmp_path):
    out = tmp_path / "census.npz"
    run = start_run(ledger, census, [], "sparse_project", {**SP, "release_out": str(out)}, seed=2)
    assert out.exists() and _spent(ledger, census) == 1.0  # charged, then written, before returning
    assert len(run.next_batch(10)) == 0 and run.finished  # nothing to stream: the run ends
    record = ledger.run(run.id)
    assert record.status == "finished" and ledger.responses(run.id) == []
    assert record.params["release_out"] == str(out) and record.params["neighbouring"] == "add_remove"
    facts = ledger.facts(run.id)
    assert facts["release_sha256"] == hashlib.sha256(out.read_bytes()).hexdigest()
    assert not list(tmp_path.glob("*.part"))
    release = ProjectionRelease.load(out)
    assert facts["n_released"] == release.n and facts["projection_size"] == 256
    before = sqlite3.connect(ledger.path).execute("SELECT COUNT(*) FROM runs").fetchone()
    universe = Universe.from_json(release.header["metadata"]["universe"])
    q = Count(Junction("and", (Condition("sex", "=", "Female"), Condition("income", "=", ">50K"))))
    estimate = release.answer(universe.query(q))
    true = evaluate(census, [q])[0] / census.n_rows
    # the header's α holds with probability ≥ 1 − β = 0.95 (fixed seed: deterministic)
    assert abs(estimate - true) < release.header["accuracy"]["alpha"]
    assert sqlite3.connect(ledger.path).execute("SELECT COUNT(*) FROM runs").fetchone() == before


@pytest.mark.parametrize(("out", "match"), [
    (None, "choose the file"),
    ("nodir/r.npz", "does not exist"),
    ("r.json", r"must end in \.npz"),
    (".", "is a directory"),
])
def test_bad_release_paths_charge_nothing(ledger, census, tmp_path, out, match):
    p = dict(SP)
    if out is not None:
        p["release_out"] = str(tmp_path / out) if out != "." else str(tmp_path / "d.npz")
        if out == ".":
            (tmp_path / "d.npz").mkdir()
    with pytest.raises(ValueError, match=match):
        start_run(ledger, census, [], "sparse_project", p)
    assert _spent(ledger, census) == 0 and ledger.runs() == []


def test_overspent_release_writes_no_file(ledger, census, tmp_path):
    out = tmp_path / "r.npz"
    with pytest.raises(BudgetExceeded):
        start_run(ledger, census, [], "sparse_project", {**SP, "epsilon": 11.0, "release_out": str(out)})
    assert not out.exists() and ledger.runs() == []


def test_the_release_file_names_the_dataset_by_its_public_name_never_the_file(tmp_path):
    """The release file is published: it names the dataset as reports do (the curator's public name,
    else the random id), never by the data file's name, which can say what or whom it is about."""
    data = tmp_path / "hiv_clinic_roster.csv"
    data.write_bytes(asset("samples/census.csv").read_bytes())
    (tmp_path / "hiv_clinic_roster.schema.json").write_bytes(asset("samples/census.schema.json").read_bytes())
    roster = load_dataset(data)
    with Ledger.open(tmp_path / "l.sqlite") as led:
        record = register(led, roster, 10, "0.001")

        def released_name(out) -> str:
            start_run(led, roster, [], "sparse_project", {**SP, "release_out": str(tmp_path / out)})
            header = ProjectionRelease.load(tmp_path / out).header
            assert "hiv_clinic" not in str(header)
            return header["metadata"]["dataset"]

        assert released_name("first.npz") == record.dataset_id
        led.set_public_name(record.dataset_id, "Clinic survey")
        assert released_name("second.npz") == "Clinic survey"
