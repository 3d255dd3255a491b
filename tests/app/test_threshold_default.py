"""T belongs to one dataset: another dataset does not inherit it; a default comes from public facts only."""

from __future__ import annotations

import pandas as pd
import pytest

from svtgui.app.threshold_default import propose
from svtgui.app.workspace import Workspace
from svtgui.data import Dataset
from svtgui.data.queries import queries_from_json

COUNT = {"kind": "count", "where": {"column": "x", "op": ">=", "value": 10}}
SUM = {"kind": "sum", "column": "x", "lower": 0, "upper": 99}


def _dataset(rows: int, public_n: int | None = None, name: str = "toy") -> Dataset:
    frame = pd.DataFrame({"x": [i % 100 for i in range(rows)]})
    d = Dataset.from_frame(frame, name=name)
    schema = d.schema.with_bounds("x", 0, 99)
    if public_n is not None:
        schema = schema.with_neighbouring("replace", n=public_n)
    return d.with_schema(schema)


def test_a_threshold_typed_for_another_dataset_is_not_kept():
    w = Workspace("sparse")
    w.set_dataset(_dataset(300, name="census"), queries_from_json([COUNT]))
    w.set_entries({"threshold": 21000.0, "epsilon": "1"})
    w.set_dataset(_dataset(500, name="adult"), queries_from_json([COUNT]))
    assert w.entry("threshold") is None and w.entry("epsilon") == "1"  # ε is not per dataset; T is
    assert "threshold" in w.plan.by_field()  # the field asks for a T


def test_the_default_comes_from_the_declared_public_n_not_the_rows():
    # the declared n (4,000) is public; the rows number 300: the default follows the declaration
    w = Workspace("sparse")
    w.set_dataset(_dataset(300, public_n=4000), queries_from_json([COUNT, COUNT]))
    assert w.entry("threshold") == 400.0
    w.set_queries(queries_from_json([SUM]))  # sums are not in [0, n]: no default rather than a wrong one
    assert w.entry("threshold") is None
    w.set_queries(queries_from_json([COUNT]))
    assert w.entry("threshold") == 400.0
    w.set_entry("threshold", "250")  # the curator's own T stays when the queue changes
    w.set_queries(queries_from_json([COUNT, COUNT, COUNT]))
    assert w.entry("threshold") == "250"


@pytest.mark.parametrize(("public_n", "expected"), [(None, None), (32_561, 3300.0), (95, 10.0)])
def test_proposal_needs_a_public_n(public_n, expected):
    w = Workspace("sparse")
    w.set_dataset(_dataset(200, public_n=public_n), queries_from_json([COUNT]))
    assert propose(w.schema, lambda: w.facts) == expected
