"""Refuse at plan time, identically for neighbours (issue 21 §8).

An answer beyond the noise lattice (|answer| > 2^52 lattice steps) used to abort *after* the charge,
so one dataset released and its neighbour errored. Every range is now bounded from public facts (the
declared bounds, the declared n or the tool's public row limit) and refused before anything is
charged; the exponential mechanism scores the answers' lattice integers, not the doubles of exact sums.
"""

from __future__ import annotations

from fractions import Fraction
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from svtgui.app import dataset_identity
from svtgui.app.plan import MAX_ROWS, PlanError, build
from svtgui.app.runs.runner import start_run
from svtgui.core import mechanisms
from svtgui.core.noise import Lattice
from svtgui.data.dataset import Dataset
from svtgui.data.queries import ClippedSum, RangeCount
from svtgui.data.schema import infer_schema
from svtgui.ledger import Ledger

BIG = 1e15  # bounds [1e15, 1e15 + 1]: Δ = 1 under replace-one, answers near n·1e15


def _far(n: int = 3000, relation: str = "replace") -> Dataset:
    frame = pd.DataFrame({"x": np.full(n, BIG), "age": np.arange(n) % 90})
    schema = infer_schema(frame).with_bounds("x", BIG, BIG + 1)
    schema = schema.with_neighbouring(relation, n if relation == "replace" else None)
    return Dataset.from_frame(frame, "far", schema)


@pytest.mark.parametrize("mechanism, params", [
    ("sparse", {"epsilon": 1.0, "threshold": 0.0, "cutoff": 1}),
    ("numeric_sparse", {"epsilon": 1.0, "threshold": 0.0, "cutoff": 1}),
    ("em_top_c", {"epsilon": 1.0, "cutoff": 1}),
])
def test_an_answer_that_can_leave_the_lattice_is_refused_before_the_charge(tmp_path, mechanism, params):
    ds = _far()
    with Ledger.open(tmp_path / "l.sqlite") as led:
        dataset_identity.register(led, ds, "10")
        with pytest.raises(PlanError, match="beyond the noise lattice"):
            start_run(led, ds, [ClippedSum("x"), RangeCount("age", 0, 30)], mechanism, params)
        assert led.runs() == []  # refused from public facts: the same on every neighbour, nothing charged


def test_the_refusal_comes_from_public_facts_not_from_the_rows():
    """The same plan for rows far below the bounds' reach: only the declared bounds and n decide."""
    frame = pd.DataFrame({"x": np.zeros(3000), "age": np.arange(3000) % 90})
    schema = infer_schema(frame).with_bounds("x", BIG, BIG + 1).with_neighbouring("replace", 3000)
    small = Dataset.from_frame(frame, "small", schema)
    for ds in (_far(), small):
        plan = build(ds, [ClippedSum("x")], "sparse", {"epsilon": 1.0, "threshold": 0.0, "cutoff": 1})
        assert [p.field for p in plan.problems] == ["queries"]
    # under add/remove the same bounds give Δ = 1e15 + 1 and a lattice far wider than n·1e15: it runs
    assert build(_far(relation="add_remove"), [ClippedSum("x")], "sparse",
                 {"epsilon": 1.0, "threshold": 0.0, "cutoff": 1}).ok


def test_more_rows_than_the_public_limit_are_refused_without_a_declared_n():
    schema = infer_schema(pd.DataFrame({"age": [1]}))
    huge = SimpleNamespace(name="huge", schema=schema, n_rows=MAX_ROWS + 1, path=None)
    plan = build(huge, [RangeCount("age", 0, 30)], "sparse", {"epsilon": 1.0, "threshold": 5.0, "cutoff": 1})
    assert [p.field for p in plan.problems] == ["dataset"]


def test_an_adaptive_query_beyond_the_lattice_is_refused_and_nothing_recorded(tmp_path):
    ds = _far()
    with Ledger.open(tmp_path / "l.sqlite") as led:
        dataset_identity.register(led, ds, "10")
        run = start_run(led, ds, [RangeCount("age", 0, 30)], "sparse",
                        {"epsilon": 1.0, "threshold": 1e9, "cutoff": 1, "sensitivity": 1.0})
        with pytest.raises(ValueError, match="beyond the noise lattice"):
            run.submit_query(ClippedSum("x"))
        assert run.answered == 0 and led.responses(run.id) == []
        run.finish()


def test_em_scores_the_answers_lattice_integers():
    """The sampler sees k = rint(q/g) and γ = ε/(2cD): scores whose neighbours differ by at most D,
    however the double of an exact sum was rounded (not the raw doubles with γ = ε/(2cΔ))."""
    em = mechanisms.create("em_top_c", epsilon=1.0, cutoff=1, sensitivity=3.0, rng=mechanisms.seeded(1))
    seen = {}

    def spy(scores, gamma, c):
        seen.update(scores=scores.copy(), gamma=gamma)
        return (0,)

    em._rng.exponential_top_c = spy
    answers = np.array([0.3, 1e6 + 0.1, -2.7])
    em.select(answers)
    lattice = Lattice.for_sensitivity(3.0, integer=False)
    assert np.array_equal(seen["scores"], np.rint(answers / lattice.step))
    assert seen["gamma"] == Fraction(1.0) / (2 * lattice.units)
    with pytest.raises(ValueError, match="too large for the noise lattice"):
        mechanisms.create("em_top_c", epsilon=1.0, cutoff=1, rng=mechanisms.seeded(1)).select([1e300, 0.0])


def test_em_on_counts_keeps_the_integer_lattice():
    em = mechanisms.create("em_top_c", epsilon=1.0, cutoff=1, integer=True, rng=mechanisms.seeded(1))
    assert em.lattice.step == 1.0 and em.lattice.units == 1
    with pytest.raises(ValueError, match="integer"):
        em.select([1.5, 2.0])


# -- issue 21 §10: δ against 1/n ----------------------------------------------------------------------


def _replace_counts(n: int = 500) -> Dataset:
    frame = pd.DataFrame({"age": np.arange(n) % 90})
    return Dataset.from_frame(frame, "people", infer_schema(frame).with_neighbouring("replace", n))


@pytest.mark.parametrize("mechanism, extra", [
    ("sparse", {"threshold": 50.0, "cutoff": 2}),
    ("numeric_sparse", {"threshold": 50.0, "cutoff": 2}),
])
def test_delta_of_at_least_one_over_n_warns_and_a_tenth_is_refused(mechanism, extra):
    ds, queries = _replace_counts(500), [RangeCount("age", 0, 30)]
    small = build(ds, queries, mechanism, {"epsilon": 1.0, "delta": 1e-6, **extra})
    assert small.ok and not any("1/n" in w for w in small.warnings)
    large = build(ds, queries, mechanism, {"epsilon": 1.0, "delta": 1 / 500, **extra})
    assert large.ok and any("at least 1/n = 1/500" in w for w in large.warnings)
    refused = build(ds, queries, mechanism, {"epsilon": 1.0, "delta": 0.1, **extra})
    assert [p.field for p in refused.problems] == ["delta"]


def test_the_cli_prints_the_delta_warning_and_refuses_a_tenth(tmp_path, capsys):
    from svtgui.cli import main

    data = tmp_path / "people.csv"
    data.write_text("age\n" + "".join(f"{i % 90}\n" for i in range(500)))
    schema = tmp_path / "s.json"
    schema.write_text('{"format": "svtgui-schema", "version": 1, "neighbouring": "replace", "n": 500, '
                      '"columns": [{"name": "age", "kind": "numeric"}]}')
    queries = tmp_path / "q.json"
    queries.write_text('{"format": "svtgui-queries", "version": 1, "queries": '
                       '[{"kind": "range", "column": "age", "low": 0, "high": 30}]}')
    common = ["run", "--data", str(data), "--schema", str(schema), "--queries", str(queries),
              "--mechanism", "sparse", "--epsilon", "1", "--threshold", "50", "--cutoff", "1",
              "--ledger", str(tmp_path / "l.sqlite"), "--budget-epsilon", "5", "--budget-delta", "0.5"]
    assert main([*common, "--delta", "0.01"]) == 0
    assert "warning: δ = 0.01 is at least 1/n = 1/500" in capsys.readouterr().err
    assert main([*common, "--delta", "0.2"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "δ = 0.2 is at least 0.1" in err
