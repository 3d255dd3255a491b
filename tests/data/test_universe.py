"""The universe view: histograms over column cross products and counting queries as linear queries."""

import numpy as np
import pandas as pd
import pytest

from svtgui.data import Dataset, load_dataset
from svtgui.data.predicates import QueryError, predicate_from_json
from svtgui.data.universe import MISSING, OTHER, Universe

SPECS = ["age@17,25,35,45,55,65,91", "education", "sex", "Salary"]


@pytest.fixture(scope="module")
def adult(shared_data):
    return load_dataset(shared_data / "adult.csv")


def test_histogram_matches_pandas_group_counts(adult):
    u = Universe.of(adult, SPECS)
    hist = u.histogram(adult)
    assert hist.n == adult.n_rows and hist.size == u.size == 7 * 17 * 3 * 3  # levels + (missing)
    f = adult.frame
    bins = pd.cut(f["age"], [-np.inf, 25, 35, 45, 55, 65, np.inf], right=False)
    expected = f.groupby([bins, "education", "sex", "Salary"], observed=True).size()
    assert sorted(hist.counts.tolist()) == sorted(expected[expected > 0].tolist())
    cell = u.marginal({"age": "[35, 45)", "education": "Masters", "sex": "Female", "Salary": ">50K"})
    truth = (
        (f.age >= 35) & (f.age < 45) & (f.education == "Masters") & (f.sex == "Female") & (f.Salary == ">50K")
    ).sum()
    assert cell.sparsity == 1 and cell.count(hist) == truth


@pytest.mark.parametrize(
    "where, mask",
    [
        ({"column": "sex", "op": "=", "value": "Female"}, lambda f: f.sex == "Female"),
        (
            {
                "and": [
                    {"column": "age", "op": ">=", "value": 35},
                    {"column": "Salary", "op": "=", "value": ">50K"},
                ]
            },
            lambda f: (f.age >= 35) & (f.Salary == ">50K"),
        ),
        (
            {
                "or": [
                    {"column": "education", "op": "in", "value": ["Bachelors", "Masters"]},
                    {
                        "and": [
                            {"column": "age", "op": ">=", "value": 25},
                            {"column": "age", "op": "<", "value": 35},
                        ]
                    },
                ]
            },
            lambda f: f.education.isin(["Bachelors", "Masters"]) | ((f.age >= 25) & (f.age < 35)),
        ),
        ({"column": "sex", "op": "!=", "value": "Male"}, lambda f: f.sex.notna() & (f.sex != "Male")),
    ],
)
def test_predicates_become_exact_linear_queries(adult, where, mask):
    u = Universe.of(adult, SPECS)
    q = u.query(predicate_from_json(where))
    assert q.count(u.histogram(adult)) == int(mask(adult.frame).sum())
    assert 0 < q.sparsity < u.size


def test_missing_and_declared_levels():
    frame = pd.DataFrame({"colour": ["red", "blue", None, "green", "red"], "x": [1.0, 5.0, None, 9.0, 50.0]})
    ds = Dataset.from_frame(frame)
    u = Universe.of(ds, ["colour=red,blue", "x@0,4,8,12"])
    assert u.axes[0].levels == ("red", "blue", OTHER, MISSING) and u.axes[0].declared
    assert u.axes[1].levels[-1] == MISSING
    hist = u.histogram(ds)
    assert hist.n == 5  # no row dropped: green → (other), None → (missing), 50 → last bin
    assert u.query(predicate_from_json({"column": "colour", "op": "is_missing"})).count(hist) == 1
    assert u.query(predicate_from_json({"column": "x", "op": ">=", "value": 8})).count(hist) == 2
    with pytest.raises(QueryError, match="'green' is not a declared level"):
        u.query(predicate_from_json({"column": "colour", "op": "=", "value": "green"}))
    assert Universe.from_json(u.to_json()) == u


@pytest.mark.parametrize(
    "specs, message",
    [
        (["age"], "a numeric column needs bins"),
        (["age:8"], "declare the column's bounds"),
        (["age@5,3"], "at least two finite, increasing edges"),
        (["sex:3"], "bins \\(':' or '@'\\) need a numeric column"),
        (["nope"], "universe column 'nope'"),
        (["sex", "sex"], "lists a column twice"),
        ([], "at least one column"),
    ],
)
def test_bad_specs(adult, specs, message):
    with pytest.raises(QueryError, match=message):
        Universe.of(adult, specs)


def test_queries_that_split_a_bin_or_leave_the_universe_are_refused(adult):
    u = Universe.of(adult, SPECS)
    with pytest.raises(QueryError, match="'>= 36' cuts a bin; use a bin edge"):
        u.query(predicate_from_json({"column": "age", "op": ">=", "value": 36}))
    with pytest.raises(QueryError, match="'race' is not in the universe"):
        u.query(predicate_from_json({"column": "race", "op": "=", "value": "White"}))
    with pytest.raises(QueryError, match="has no level 'Martian'"):
        u.marginal({"sex": "Martian"})
    assert u.levels_from_data == ["education", "sex", "Salary"]
