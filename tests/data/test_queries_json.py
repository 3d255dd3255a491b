"""Query definitions: JSON round trips, malformed input, sensitivity, monotonicity, descriptions."""

from __future__ import annotations

import json
import math
import sys

import pandas as pd
import pytest

from svtgui.data.dataset import Dataset
from svtgui.data.evaluate import evaluate
from svtgui.data.predicates import Condition, Junction, QueryError, predicate_from_json
from svtgui.data.queries import (
    ClipDiff,
    ClippedSum,
    Count,
    ItemSupport,
    Mean,
    RangeCount,
    all_integer,
    batch_sensitivity,
    monotonic_under,
    queries_from_json,
    queries_to_json,
    query_from_json,
)
from svtgui.data.schema import Column, ColumnKind, Neighbouring, Schema

SCHEMA = Schema(
    (
        Column("age", ColumnKind.NUMERIC, 0, 120),
        Column("gain", ColumnKind.NUMERIC, -10, 1000),
        Column("raw", ColumnKind.NUMERIC),
        Column("sex", ColumnKind.CATEGORICAL),
        Column("items", ColumnKind.ITEMSET),
    )
)
REPLACE = SCHEMA.with_neighbouring(Neighbouring.REPLACE, n=500)

WHERE = Junction(
    "and",
    (
        Condition("age", ">=", 30),
        Junction("or", (Condition("sex", "in", ["F", "X"]), Condition("sex", "is_missing"))),
        Condition("age", "between", [30, 40]),
        Condition("sex", "≠", "M"),
    ),
)
EVERY_KIND = [
    Count(),
    Count(WHERE),
    RangeCount("age", 30, 40),
    RangeCount("age", 30, 40, "both"),
    ClipDiff("gain", 100, 5),
    ClipDiff("gain", 100, 5, True),
    ClippedSum("gain"),
    ClippedSum("gain", 0, 50),
    ItemSupport((3, 1)),
    ItemSupport(("milk",), "basket"),
    Mean(WHERE),
]


@pytest.mark.parametrize("query", EVERY_KIND, ids=lambda q: q.kind)
def test_json_round_trip(query):
    text = json.dumps(query.to_json())
    assert query_from_json(json.loads(text)) == query
    assert query_from_json(text) == query


def test_list_documents_round_trip():
    doc = queries_to_json(EVERY_KIND)
    assert doc["format"] == "svtgui-queries" and len(doc["queries"]) == len(EVERY_KIND)
    assert queries_from_json(json.dumps(doc)) == EVERY_KIND
    assert queries_from_json(doc["queries"]) == EVERY_KIND


def test_unicode_operator_aliases_normalise():
    assert predicate_from_json({"column": "age", "op": "≥", "value": 3}) == Condition("age", ">=", 3)
    assert Condition("sex", "is missing").op == "is_missing"


@pytest.mark.parametrize(
    "obj, field",
    [
        ({"kind": "median"}, "'kind'"),
        ({"column": "age"}, "'kind'"),
        ({"kind": "range", "column": "age", "low": 1}, "'high'"),
        ({"kind": "range", "column": "age", "low": "a", "high": 3}, "'low'"),
        ({"kind": "range", "column": "age", "low": 5, "high": 3}, "'low'"),
        ({"kind": "range", "column": 3, "low": 1, "high": 3}, "'column'"),
        ({"kind": "range", "column": "age", "low": 1, "high": 3, "closed": "maybe"}, "'closed'"),
        ({"kind": "range", "column": "age", "low": 1, "high": 3, "colour": "red"}, "'colour'"),
        ({"kind": "clip_diff", "column": "gain", "bound": -1}, "'bound'"),
        ({"kind": "clip_diff", "column": "gain", "bound": 1, "step": 0}, "'step'"),
        ({"kind": "clip_diff", "column": "gain", "bound": 1, "normalised": "yes"}, "'normalised'"),
        ({"kind": "sum", "column": "gain", "lower": 0}, "'upper'"),
        ({"kind": "item_support", "items": []}, "'items'"),
        ({"kind": "item_support", "items": [1.5]}, "'items'"),
        ({"kind": "count", "where": {"column": "age", "op": "~", "value": 1}}, "'op'"),
        ({"kind": "count", "where": {"column": "age", "value": 1}}, "where.op"),
        ({"kind": "count", "where": {"and": []}}, "where.and"),
        ({"kind": "count", "where": {"and": [{"column": "a", "op": "=", "value": [1]}]}}, "'value'"),
        ({"kind": "count", "where": {"column": "age", "op": "between", "value": [5, 1]}}, "'value'"),
        ({"kind": "count", "where": {"column": "age", "op": "in", "value": 3}}, "'value'"),
        ({"kind": "count", "where": {"column": "age", "op": "is_missing", "value": 3}}, "'value'"),
        ({"kind": "count", "where": "age > 3"}, "'where'"),
        ({"kind": "count", "where": {"or": [{"column": "a", "op": "="}], "x": 1}}, "'where.x'"),
    ],
)
def test_malformed_queries_name_the_field(obj, field):
    with pytest.raises(QueryError) as e:
        query_from_json(obj)
    assert field in str(e.value)


def test_list_errors_name_the_position_and_bad_text():
    with pytest.raises(QueryError, match="query 2: range: field 'high' is missing"):
        queries_from_json([{"kind": "count"}, {"kind": "range", "column": "age", "low": 1}])
    with pytest.raises(QueryError, match="not valid JSON"):
        queries_from_json("[{")
    with pytest.raises(QueryError, match="not a query file"):
        queries_from_json({"format": "other", "queries": []})


def test_no_code_is_ever_evaluated():
    with pytest.raises(QueryError):
        query_from_json(
            {"kind": "count", "where": {"column": "__import__('os')", "op": "=", "value": 1}}
        ).validate(SCHEMA)


@pytest.mark.parametrize(
    "query, add_remove, replace",
    [
        (Count(WHERE), 1, 1),
        (RangeCount("age", 1, 2), 1, 1),
        (ClipDiff("gain", 10, 7), 7, 7),
        (ClipDiff("gain", 10, 7, True), 1, 1),
        (ClippedSum("gain"), 1000, 1010),  # declared bounds [-10, 1000]
        (ClippedSum("gain", 0, 50), 50, 50),
        (ItemSupport((1, 2)), 1, 1),
    ],
)
def test_sensitivity_follows_the_neighbouring_relation(query, add_remove, replace):
    assert query.sensitivity(SCHEMA) == add_remove
    assert query.sensitivity(REPLACE) == replace


def test_mean_needs_replace_with_public_n():
    assert Mean(WHERE).sensitivity(REPLACE) == 1 / 500
    with pytest.raises(QueryError, match="replace"):
        Mean(WHERE).sensitivity(SCHEMA)


def test_sum_needs_declared_bounds():
    with pytest.raises(QueryError, match="no declared bounds"):
        ClippedSum("raw").sensitivity(SCHEMA)


def test_monotonicity_and_integrality():
    counts = [Count(WHERE), RangeCount("age", 1, 2), ItemSupport((1,)), ClipDiff("gain", 1, 1)]
    assert monotonic_under(counts, SCHEMA) and not monotonic_under(counts, REPLACE)
    assert not monotonic_under([*counts, Mean(WHERE)], REPLACE)
    assert ClippedSum("gain", 0, 5).monotonic and not ClippedSum("gain", -1, 5).monotonic
    assert all_integer(counts[:3]) and not all_integer(counts)
    assert batch_sensitivity([*counts, ClipDiff("gain", 1, 9)], SCHEMA) == 9


def test_monotonic_queries_really_only_grow_when_a_row_is_added():
    frame = pd.DataFrame(
        {"age": [20, 35, 50], "gain": [0, 300, 5000], "raw": [1, 2, 3], "sex": ["F", "M", None]}
    )
    schema = SCHEMA.with_kind("items", "numeric")
    frame["items"] = [1, 2, 3]
    queries = [
        q for q in EVERY_KIND if q.monotonic and "items" not in q.columns() and "basket" not in q.columns()
    ]
    before = evaluate(Dataset.from_frame(frame, schema=schema), queries)
    for row in (
        {"age": 33, "gain": 102, "raw": 0, "sex": "F", "items": 0},
        {"age": 90, "gain": -5, "raw": 9},
    ):
        grown = pd.concat([frame, pd.DataFrame([row])], ignore_index=True)
        after = evaluate(Dataset.from_frame(grown, schema=schema), queries)
        assert (after >= before).all()


@pytest.mark.parametrize(
    "query, text",
    [
        (Count(), "count of all rows"),
        (Count(Condition("age", ">=", 30)), "count of rows where age ≥ 30"),
        (RangeCount("age", 30, 40), "count of rows with 30 ≤ age < 40"),
        (ClipDiff("gain", 100, 5), "Σclip(gain, 0, 105) − Σclip(gain, 0, 100)"),
        (ItemSupport((1, 2)), "baskets containing all of {1, 2}"),
        (Mean(Condition("sex", "=", "F")), "fraction of rows where sex = 'F'"),
    ],
)
def test_descriptions(query, text):
    assert query.describe() == text


@pytest.mark.parametrize(
    "query, message",
    [
        (RangeCount("sex", 1, 2), "numeric column"),
        (Count(Condition("sex", "<", "M")), "numeric or datetime"),
        (ItemSupport((1,), "age"), "itemset"),
        (Count(Condition("height", "=", 1)), "no column 'height'"),
        (Count(Condition("items", "=", 1)), "item sets"),
    ],
)
def test_validation_against_the_schema(query, message):
    with pytest.raises(QueryError, match=message):
        query.validate(SCHEMA)


@pytest.mark.parametrize("bad", [True, False, math.nan, math.inf, -math.inf, 10**400, -(10**400), "5", None,
                                 [1]])
def test_a_bound_that_is_no_finite_number_is_refused_naming_the_field(bad):
    with pytest.raises(QueryError, match="field 'low'"):
        query_from_json({"kind": "range", "column": "age", "low": bad, "high": 10**300})


@pytest.mark.parametrize("good", [-0.0, 0, 7, 2**60, -(2**60), 1e308, -1e308, int(sys.float_info.max), 0.5])
def test_a_finite_bound_is_kept_as_its_double(good):
    q = query_from_json({"kind": "range", "column": "age", "low": good, "high": sys.float_info.max})
    assert q.low == good and q.to_json()["low"] == good
