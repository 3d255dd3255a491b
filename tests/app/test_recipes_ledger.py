"""Recipes as ledger runs: charged once before the data is read, released values committed, never refunded."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from svtgui.app import dataset_identity, recipes
from svtgui.core.noise import seeded
from svtgui.data import generators
from svtgui.data.dataset import Dataset
from svtgui.data.schema import infer_schema
from svtgui.ledger import FINISHED, INTERRUPTED, Ledger


@pytest.fixture
def ledger(tmp_path):
    with Ledger.open(tmp_path / "ledger.sqlite") as led:
        yield led


def _dataset(ledger: Ledger, frame, name: str = "toy", upper: float | None = None) -> tuple[Dataset, str]:
    """The dataset and its public ledger id (registered with a total ε of 10)."""
    schema = infer_schema(frame)
    if upper is not None:
        schema = schema.with_bounds("age", 0, upper)
    ds = Dataset.from_frame(frame, name, schema)
    return ds, dataset_identity.register(ledger, ds, "10").dataset_id


def _ages(n: int = 4000, top: int = 80):
    import pandas as pd

    rng = np.random.default_rng(3)
    return pd.DataFrame({"age": rng.integers(18, top + 1, n)})


def test_auto_mean_is_one_run_charged_its_whole_epsilon_with_the_svt_stream_and_facts(ledger):
    ds, key = _dataset(ledger, _ages(), upper=100)
    done = recipes.auto_mean(ds, "age", 1.5, rng=seeded(1)).run(ledger)
    assert done.record.status == FINISHED and done.record.epsilon == Fraction(3, 2)
    assert ledger.budget(key).spent_epsilon == Fraction(3, 2)
    rows = ledger.responses(done.record.id)
    facts = ledger.facts(done.record.id)
    plan = facts.pop("plan")  # the recipe's plan, kept to replay it (svtgui.app.replay)
    assert facts == done.facts and plan["recipe"] == "recipe_auto_mean" and plan["epsilon"] == 1.5
    # AboveThreshold: ⊥ until the ⊤ that chose the bound (or all ⊥ when it never fired).
    assert [r.above for r in rows[:-1]] == [False] * (len(rows) - 1)
    assert rows[-1].above == facts["bound_found"]
    assert all(r.value is None for r in rows)  # the SVT stream releases no numbers
    assert facts["mean"] == pytest.approx(facts["noisy_sum"] / facts["noisy_count"])
    lo, hi = facts["mean_interval_90"]
    assert lo <= facts["mean"] <= hi


def test_default_sweep_comes_from_declared_bounds_not_the_data(ledger):
    frame = _ages(top=30)
    declared, _ = _dataset(ledger, frame, "declared", upper=90)
    start, stop, step = recipes.default_sweep(declared, "age")
    assert start == 1 and stop > 90 and step == 1  # past the declared bound, not the data's max (30)
    undeclared = Dataset.from_frame(frame, "undeclared", infer_schema(frame))
    assert recipes.default_sweep(undeclared, "age") == (1.0, 150_000.0, 5.0)


def test_the_true_clipped_mean_lies_in_the_stated_interval_at_least_as_often_as_promised(ledger):
    """The 90 % interval is a promise over the noise. 40 seeded runs: if coverage were exactly 0.9,
    P[fewer than 30 of 40 covered] = 0.0016 (binomial), so this fails falsely with probability < 0.2 %."""
    frame = _ages()
    ds, key = _dataset(ledger, frame, upper=100)
    ledger.raise_total(key, "100")
    covered = 0
    for seed in range(40):
        facts = recipes.auto_mean(ds, "age", 1.0, rng=seeded(seed)).run(ledger).facts
        truth = float(np.clip(frame["age"], 0, facts["bound"]).mean())
        lo, hi = facts["mean_interval_90"]
        covered += lo <= truth <= hi
    assert covered >= 30


def test_the_check_reads_no_data_and_charges_nothing(ledger, monkeypatch):
    ds, _ = _dataset(ledger, _ages(), upper=100)
    monkeypatch.setattr(recipes.recipes, "evaluate", lambda *a, **k: pytest.fail("the data was read"))
    recipes.auto_mean(ds, "age", 1.0).check()
    recipes.screen_ranges(ds, generators.range_sweep("age", 18, 81, 10), 1.0, 300.0, 2).check()
    assert ledger.runs() == []


def test_a_bad_column_is_refused_before_anything_is_charged(ledger):
    ds, key = _dataset(ledger, _ages())
    plan = recipes.auto_mean(ds, "nope", 1.0)
    with pytest.raises(ValueError, match="nope"):
        plan.check()
    with pytest.raises(ValueError, match="nope"):
        plan.run(ledger)
    assert ledger.runs() == []


def test_a_failure_after_the_charge_ends_the_run_interrupted_and_keeps_the_spend(ledger, monkeypatch):
    ds, key = _dataset(ledger, _ages())

    def broken(*_args, **_kwargs):
        raise RuntimeError("disk gone")

    monkeypatch.setattr(recipes.recipes, "evaluate", broken)
    with pytest.raises(RuntimeError, match="disk gone"):
        recipes.auto_mean(ds, "age", 1.0).run(ledger)
    (run,) = ledger.runs()
    assert run.status == INTERRUPTED and ledger.budget(key).spent_epsilon == 1


def test_range_screening_releases_fresh_answers_only_for_the_ranges_found(ledger):
    ds, key = _dataset(ledger, _ages())
    queries = generators.range_sweep("age", 18, 81, 10)
    done = recipes.screen_ranges(ds, queries, 1.0, 300.0, 2, rng=seeded(4)).run(ledger)
    rows = ledger.responses(done.record.id)
    above = [r for r in rows if r.above]
    assert len(above) == done.facts["found"] <= 2
    assert all(r.value is not None for r in above) and all(r.value is None for r in rows if not r.above)
    assert [a["value"] for a in done.facts["answers"]] == [r.value for r in above]
    assert done.facts["epsilon_per_answer"] == pytest.approx(0.25)


def test_frequent_items_needs_a_public_domain_and_records_one_row_per_item(ledger):
    import pandas as pd

    baskets = pd.DataFrame({"items": [tuple(sorted({i % 7, (3 * i) % 11})) for i in range(600)]})
    ds = Dataset.from_frame(baskets, "baskets")
    dataset_identity.register(ledger, ds, "5")
    with pytest.raises(ValueError, match="domain is empty"):
        recipes.frequent_items(ds, [], 3, 1.0).check()
    assert ledger.runs() == []
    done = recipes.frequent_items(ds, list(range(20)), 3, 1.0, rng=seeded(2)).run(ledger)
    rows = ledger.responses(done.record.id)
    assert len(rows) == 3 and all(r.above for r in rows)
    assert set(done.facts["items"]) <= set(range(20))


@pytest.mark.parametrize(("sensitivity", "epsilon", "integer"), [(1.0, 0.5, True), (37.5, 0.2, False)])
def test_laplace_alpha_is_the_smallest_lattice_bound_with_tail_at_most_beta(sensitivity, epsilon, integer):
    from svtgui.core.laplace import laplace_scale
    from svtgui.core.noise import Lattice

    lattice = Lattice.for_sensitivity(sensitivity, integer=integer)
    t = lattice.scale_units(laplace_scale(sensitivity, epsilon, integer=integer))
    p = math.exp(-1 / t)
    alpha = recipes.laplace_alpha(sensitivity, epsilon, integer=integer, beta=0.05)
    k = round((alpha - (0 if integer else lattice.step / 2)) / lattice.step)
    assert 2 * p**k / (1 + p) <= 0.05 < 2 * p ** (k - 1) / (1 + p)


def test_a_noise_scale_out_of_range_is_refused_by_the_check_before_any_charge(ledger):
    ds, key = _dataset(ledger, _ages(), upper=100)
    for plan in (recipes.auto_mean(ds, "age", 1e-30),
                 recipes.screen_ranges(ds, generators.range_sweep("age", 18, 81, 10), 1e-30, 300.0, 2)):
        with pytest.raises(ValueError, match="epsilon|scale|Laplace"):
            plan.check()
        with pytest.raises(ValueError):
            plan.run(ledger)
    assert ledger.runs() == []


def test_a_query_that_does_not_fit_the_schema_is_refused_by_the_check(ledger):
    # Issue 11 §6: a screening query comparing a numeric column with text, or frequent items on a
    # dataset without an item column, passed the recipe's checks and failed after the charge.
    import pandas as pd

    from svtgui.data.predicates import predicate_from_json
    from svtgui.data.queries import Count

    frame = pd.DataFrame({"age": np.arange(200) % 90, "name": [f"n{i % 5}" for i in range(200)]})
    ds, key = _dataset(ledger, frame)
    text_vs_number = Count(predicate_from_json({"column": "age", "op": ">=", "value": "abc"}))
    good = generators.range_sweep("age", 0, 90, 10)
    plans = [recipes.screen_ranges(ds, [*good, text_vs_number], 1.0, 5.0, 2),
             recipes.frequent_items(ds, [1, 2, 3], 2, 1.0),
             recipes.auto_mean(ds, "name", 1.0)]
    for plan in plans:
        with pytest.raises(ValueError, match="query 1|query 10"):
            plan.check()
        with pytest.raises(ValueError, match="query 1|query 10"):
            plan.run(ledger)
    assert ledger.budget(key).spent_epsilon == 0 and ledger.runs(key) == []
