"""The shared run loop: validate first, charge before answering, commit before returning.

The queries here are small stand-ins implementing the runner's ``QueryLike`` protocol with a
known true answer, so each test controls exactly what the mechanism sees; the end-to-end tests
with real datasets and query definitions live in ``test_runner_data.py``.
"""

from __future__ import annotations

import sqlite3
import threading
from dataclasses import dataclass
from fractions import Fraction
from types import SimpleNamespace

import numpy as np
import pytest

from svtgui.app.runs.runner import plan_run, start_run
from svtgui.core.budget import BudgetExceeded
from svtgui.data.fingerprint import RowsFingerprint
from svtgui.data.schema import Schema
from svtgui.ledger import Ledger

FP = "d" * 64


@dataclass(frozen=True)
class Q:
    answer: float
    sens: float | None = 1.0
    integer: bool = True
    monotonic: bool = False

    def sensitivity(self, schema) -> float:
        if self.sens is None:
            raise ValueError("column 'hours' has no declared bounds")
        return self.sens

    def magnitude(self, schema, n) -> float:
        return abs(self.answer)

    def describe(self) -> str:
        return f"query<{self.answer}>"


def evaluate(ds, queries):
    return np.array([q.answer for q in queries], dtype=float)


def _rows(content: str, name: str = "toy") -> SimpleNamespace:
    """A stand-in dataset whose rows have this (private) identity under any key (and the same as their
    fingerprint of a schema-5 ledger, which the ledger's content without column fingerprints is)."""
    return SimpleNamespace(name=name, columns=[], schema=Schema(()), dataset_id=None,
                           known_fingerprint=lambda key: RowsFingerprint((), content),
                           known_legacy_fingerprint=lambda key: content)


DS = _rows(FP)


@pytest.fixture
def ledger(tmp_path):
    with Ledger.open(tmp_path / "l.sqlite") as led:
        DS.dataset_id = led.register_dataset(FP, "toy", 10, "0.001")[0].dataset_id
        yield led


def _run(ledger, queries, mech="sparse", seed=1, monotonic=False, **params):
    params.setdefault("epsilon", 1.0)
    if mech != "em_top_c":
        params.setdefault("threshold", 100.0)
    return start_run(ledger, DS, queries, mech, params, seed=seed, monotonic=monotonic, evaluate=evaluate)


def _released(batch):
    """A committed batch's rows as tuples (index, description, above, value, gap, time)."""
    return list(zip(batch.index.tolist(), batch.description, batch.above.tolist(), batch.values(),
                    batch.gaps(), [batch.time] * len(batch), strict=True))


def _ledger_rows(ledger, run_id):
    """Rows as another connection sees them: only what is committed."""
    other = sqlite3.connect(ledger.path)
    try:
        return [(i, d, bool(a), v, g, t) for i, d, a, v, g, t in other.execute(
            "SELECT idx, description, above, value, gap, time FROM responses WHERE run_id = ?", (run_id,))]
    finally:
        other.close()


def test_guarantee_is_committed_before_the_first_answer(ledger):
    run = _run(ledger, [Q(0)] * 5, epsilon=0.5, cutoff=2)
    other = sqlite3.connect(ledger.path)
    row = other.execute("SELECT epsilon, status FROM runs WHERE id = ?", (run.id,)).fetchone()
    assert row == ("0.5", "running")
    assert other.execute("SELECT COUNT(*) FROM responses").fetchone() == (0,)
    assert ledger.budget(DS.dataset_id).spent_epsilon == Fraction(1, 2)


def test_every_returned_row_is_already_in_the_ledger(ledger):
    queries = [Q(0)] * 50 + [Q(1000)] * 10
    run = _run(ledger, queries, cutoff=3, epsilon=2.0)
    seen = []
    for batch in run.stream(batch_size=7):
        stored = set(_ledger_rows(ledger, run.id))
        assert batch.time and set(_released(batch)) <= stored
        seen.extend(_released(batch))
    assert run.halted and run.finished and run.status == "halted"
    assert sum(r[2] for r in seen) == 3 and run.above_count == 3
    assert [r[0] for r in seen] == list(range(len(seen)))
    assert ledger.run(run.id).status == "halted"
    with pytest.raises(RuntimeError, match="ended"):
        run.next_batch(5)


def test_queue_exhausted_then_finish(ledger):
    run = _run(ledger, [Q(-1000)] * 20, cutoff=1)
    rows = [r for batch in run.stream(batch_size=8) for r in _released(batch)]
    assert len(rows) == 20 and not any(r[2] for r in rows) and all(r[3] is None for r in rows)
    assert not run.finished and run.remaining == 0
    assert run.finish().status == "finished"


def test_stop_early_keeps_the_budget_spent(ledger):
    run = _run(ledger, [Q(-1000)] * 20, cutoff=1, epsilon=3.0)
    run.next_batch(5)
    assert run.stop().status == "stopped"
    assert ledger.budget(DS.dataset_id).spent_epsilon == 3
    assert len(ledger.responses(run.id)) == 5


def test_context_manager_marks_an_exception_interrupted(ledger):
    with pytest.raises(KeyboardInterrupt):
        with _run(ledger, [Q(0)] * 4) as run:
            run.next_batch(2)
            raise KeyboardInterrupt
    assert ledger.run(run.id).status == "interrupted"


def test_derived_parameters(ledger):
    queries = [Q(1, sens=1.0, integer=True, monotonic=True), Q(2, sens=3.5, integer=False, monotonic=True)]
    plan = plan_run(DS, queries, "standard_svt", {"epsilon": 1, "threshold": 3}, monotonic=True)
    assert plan.params["sensitivity"] == 3.5 and plan.params["integer"] is False
    assert plan.params["monotonic"] is True
    plan = plan_run(DS, queries[:1], "standard_svt", {"epsilon": 1, "threshold": 3})
    assert plan.params["integer"] is True and plan.params["monotonic"] is False  # not asked
    mixed = [Q(1, monotonic=True), Q(2, monotonic=False)]
    assert plan_run(DS, mixed, "standard_svt", {"epsilon": 1, "threshold": 3},
                    monotonic=True).params["monotonic"] is False
    # a larger declared Δ (room for adaptive queries) is kept; a smaller one is refused
    wide = plan_run(DS, queries, "sparse", {"epsilon": 1, "threshold": 3, "sensitivity": 10})
    assert wide.sensitivity == 10
    with pytest.raises(ValueError, match="below what the queries need"):
        plan_run(DS, queries, "sparse", {"epsilon": 1, "threshold": 3, "sensitivity": 1})


@pytest.mark.parametrize("mech, params, queries, match", [
    ("nope", {"epsilon": 1}, [Q(1)], "unknown mechanism"),
    ("sparse", {"epsilon": -1, "threshold": 1}, [Q(1)], "epsilon"),
    ("sparse", {"epsilon": 1}, [Q(1)], "threshold"),
    ("sparse", {"epsilon": 1, "threshold": 1, "cutoff": 0}, [Q(1)], "cutoff"),
    ("sparse", {"epsilon": 1, "threshold": 1, "colour": 3}, [Q(1)], "no parameter 'colour'"),
    ("sparse", {"epsilon": 1, "threshold": 1, "trace": True}, [Q(1)], "trace"),
    ("sparse", {"epsilon": 1, "threshold": 1, "rng": None}, [Q(1)], "rng"),
    ("sparse", {"epsilon": 1, "threshold": 1, "integer": False}, [Q(1)], "derived"),
    ("sparse", {"epsilon": 1, "threshold": 1}, [Q(1), Q(2, sens=None)], "query 2 .*declared bounds"),
    ("sparse", {"epsilon": 1, "threshold": 1}, [Q(1, sens=0.0)], "positive"),
    ("sparse", {"epsilon": 1, "threshold": 1}, [], "explicit sensitivity"),
    ("em_top_c", {"epsilon": 1}, [], "non-interactive"),
    ("lecture_sparse_2011", {"epsilon": 1, "threshold": 1}, [Q(1)], "not to be differentially private"),
])
def test_bad_input_charges_nothing(ledger, mech, params, queries, match):
    with pytest.raises(ValueError, match=match):
        start_run(ledger, DS, queries, mech, params, evaluate=evaluate)
    assert ledger.runs() == [] and ledger.budget(DS.dataset_id).spent_epsilon == 0


@pytest.mark.parametrize("mech, extra", [
    ("sparse", {"threshold": 1}), ("numeric_sparse", {"threshold": 1, "delta": 1e-4}),
    ("standard_svt", {"threshold": 1}), ("gap_svt", {"threshold": 1}),
    ("svt_retraversal", {"threshold": 1}), ("em_top_c", {}),
])
@pytest.mark.parametrize("epsilon", [5e-324, 1e-300, 1e-30, 1e-18, 1e6, 1e300, float("inf"), float("nan")])
def test_extreme_epsilon_is_refused_by_name_through_the_runner(ledger, mech, extra, epsilon):
    # issue 11 §1 through the run path (the window's and the CLI's start_run): a refusal naming ε,
    # never another exception (ε = 5e-324 divided by zero in standard_svt's budget split), nothing charged
    with pytest.raises(ValueError, match="epsilon"):
        start_run(ledger, DS, [Q(1), Q(2)], mech, {"epsilon": epsilon, "cutoff": 2, **extra},
                  evaluate=evaluate)
    assert ledger.runs() == [] and ledger.budget(DS.dataset_id).spent_epsilon == 0


def test_an_interrupt_right_after_the_charge_ends_the_run_interrupted(ledger, monkeypatch):
    """Ctrl-C (or SIGTERM, which the CLI turns into the same) between the charge's commit and the
    caller holding the run must not leave it ``running``: it is ended as interrupted, still charged."""
    def interrupted(*_args):
        raise KeyboardInterrupt

    monkeypatch.setattr(ledger, "record_fact", interrupted)
    with pytest.raises(KeyboardInterrupt):
        _run(ledger, [Q(1)])
    (run,) = ledger.runs()
    assert run.status == "interrupted" and ledger.budget(DS.dataset_id).spent_epsilon == 1


def test_bad_seed_and_unregistered_dataset_charge_nothing(ledger):
    with pytest.raises(ValueError, match="seed"):
        _run(ledger, [Q(1)], seed=-3)
    other = _rows("e" * 64, "other")
    with pytest.raises(ValueError, match="not in the ledger"):
        start_run(ledger, other, [Q(1)], "sparse", {"epsilon": 1, "threshold": 1}, evaluate=evaluate)
    assert ledger.runs() == []


def test_overspend_is_refused_with_nothing_charged(ledger):
    _run(ledger, [Q(1)], epsilon=9.5)
    with pytest.raises(BudgetExceeded, match="requested ε = 1"):
        _run(ledger, [Q(1)], epsilon=1.0)
    assert len(ledger.runs()) == 1


def test_non_interactive_selection_records_every_query(ledger):
    queries = [Q(v) for v in [0, 500, 0, 900, 0, 700]]
    run = _run(ledger, queries, mech="em_top_c", cutoff=2, epsilon=5.0)
    batch = run.next_batch(1)  # the whole list at once, whatever the batch size
    assert len(batch) == 6 and batch.above_count == 2
    assert run.status == "finished" and len(ledger.responses(run.id)) == 6
    with pytest.raises(RuntimeError):
        run.next_batch(1)


def test_adaptive_queries(ledger):
    run = start_run(ledger, DS, [], "sparse", {"epsilon": 1, "threshold": 100, "sensitivity": 2, "cutoff": 2},
                    seed=3, evaluate=evaluate)
    assert run.params["integer"] is False  # no planned queries: nothing known to be integer
    with pytest.raises(ValueError, match="above this run's Δ"):
        run.submit_query(Q(1, sens=5))
    with pytest.raises(ValueError, match="declared bounds"):
        run.submit_query(Q(1, sens=None))
    assert ledger.responses(run.id) == []
    first = run.submit_query(Q(-1000))
    assert not first.above and first.index == 0
    while not run.halted:
        run.submit_query(Q(10_000))
    assert run.status == "halted" and run.above_count == 2
    assert len(ledger.responses(run.id)) == run.answered


def test_adaptive_query_must_match_integer_and_monotonic_runs(ledger):
    run = _run(ledger, [Q(1, monotonic=True)], mech="standard_svt", monotonic=True)
    with pytest.raises(ValueError, match="not integer-valued"):
        run.submit_query(Q(1, integer=False, monotonic=True))
    with pytest.raises(ValueError, match="not monotonic"):
        run.submit_query(Q(1, integer=True, monotonic=False))
    assert run.answered == 0


def test_non_finite_answers_release_nothing(ledger):
    run = start_run(ledger, DS, [Q(1), Q(float("nan"))], "sparse", {"epsilon": 1, "threshold": 1},
                    evaluate=evaluate)
    with pytest.raises(ValueError, match="no finite answer"):
        run.next_batch(10)
    assert ledger.responses(run.id) == [] and run.answered == 0


def test_seeded_runs_are_reproducible_and_recorded_as_not_secure(ledger):
    queries = [Q(v, integer=False) for v in np.linspace(0, 200, 40)]
    def released():
        run = _run(ledger, queries, mech="numeric_sparse", seed=11, cutoff=5)
        return [(r[2], r[3]) for batch in run.stream(10) for r in _released(batch)]

    assert released() == released()
    runs = ledger.runs()
    assert all(r.noise == "seeded" and "NOT secure" in r.noise_description for r in runs)
    secure = start_run(ledger, DS, queries, "sparse", {"epsilon": 1, "threshold": 1}, evaluate=evaluate)
    assert ledger.run(secure.id).noise == "secure"


def test_stop_from_another_thread_waits_for_the_batch(ledger):
    run = _run(ledger, [Q(-1000)] * 2000, cutoff=1, epsilon=0.5)
    done = threading.Event()

    def worker():
        try:
            for _ in run.stream(batch_size=50):
                pass
        except RuntimeError:  # the run ended between two batches
            pass
        done.set()

    t = threading.Thread(target=worker)
    t.start()
    run.stop()
    t.join(10)
    assert done.is_set() and run.status in ("stopped", "finished")
    assert len(ledger.responses(run.id)) == run.answered


def test_public_params_hold_no_secret_and_rows_hold_only_releases(ledger):
    run = _run(ledger, [Q(123.0)] * 3, mech="standard_svt", cutoff=1)
    batch = run.next_batch(3)
    assert set(vars(batch)) == {"index", "description", "above", "value", "gap", "simulated", "time"}
    assert np.isnan(batch.value[~batch.above]).all()
    assert "123" not in repr(run.params)
