"""Vectorised evaluation equals naive per-query pandas evaluation (hypothesis property tests).

The naive evaluators below are written independently of ``svtgui.data.evaluate``: one pandas
expression per query, exactly as a notebook would. Integer data gives exact equality; float data
is compared to 1e-9 relative (prefix sums add in a different order).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from svtgui.data.dataset import Dataset
from svtgui.data.evaluate import evaluate
from svtgui.data.predicates import Condition, Junction, QueryError
from svtgui.data.queries import ClipDiff, ClippedSum, Count, ItemSupport, Mean, RangeCount
from svtgui.data.schema import Neighbouring

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
CATS = ["a", "b", "c", "d"]


@st.composite
def frames(draw, floats: bool = False):
    n = draw(st.integers(1, 60))
    if floats:
        x = draw(
            st.lists(
                st.one_of(st.none(), st.floats(-50, 300, allow_nan=False, width=32)), min_size=n, max_size=n
            )
        )
    else:
        x = draw(st.lists(st.one_of(st.none(), st.integers(-20, 300)), min_size=n, max_size=n))
    y = draw(st.lists(st.integers(0, 9), min_size=n, max_size=n))
    cat = draw(st.lists(st.one_of(st.none(), st.sampled_from(CATS)), min_size=n, max_size=n))
    frame = pd.DataFrame(
        {
            "x": pd.array(x, dtype="Float64").astype("float64"),
            "y": y,
            "cat": pd.Categorical(cat, categories=CATS),
        }
    )
    return frame


numbers = st.integers(-30, 320)


@st.composite
def conditions(draw):
    col = draw(st.sampled_from(["x", "y", "cat"]))
    if col == "cat":
        op = draw(st.sampled_from(["=", "!=", "in", "is_missing"]))
        value = {
            "=": draw(st.sampled_from(CATS + ["zz"])),
            "!=": draw(st.sampled_from(CATS)),
            "in": draw(st.lists(st.sampled_from(CATS), min_size=1, max_size=3)),
            "is_missing": None,
        }[op]
    else:
        op = draw(st.sampled_from(["=", "!=", "<", "<=", ">", ">=", "in", "between", "is_missing"]))
        lo, hi = sorted((draw(numbers), draw(numbers)))
        value = {"in": [lo, hi], "between": [lo, hi], "is_missing": None}.get(op, lo)
    return Condition(col, op, value)


predicates = st.recursive(
    conditions(),
    lambda kids: st.builds(
        Junction, st.sampled_from(["and", "or"]), st.lists(kids, min_size=1, max_size=3).map(tuple)
    ),
    max_leaves=5,
)


def naive_mask(frame: pd.DataFrame, p) -> pd.Series:
    if isinstance(p, Junction):
        masks = [naive_mask(frame, c) for c in p.children]
        out = masks[0]
        for m in masks[1:]:
            out = (out & m) if p.op == "and" else (out | m)
        return out
    s = frame[p.column]
    present = s.notna()
    if p.op == "is_missing":
        return ~present
    if p.op == "=":
        return present & (s.astype(object) == p.value)
    if p.op == "!=":
        return present & (s.astype(object) != p.value)
    if p.op == "in":
        return present & s.astype(object).isin(list(p.value))
    if p.op == "between":
        return present & (s >= p.value[0]) & (s <= p.value[1])
    return present & {"<": s < p.value, "<=": s <= p.value, ">": s > p.value, ">=": s >= p.value}[p.op]


def naive(frame: pd.DataFrame, q) -> float:
    if isinstance(q, Mean):
        return naive_mask(frame, q.where).sum() / len(frame)
    if isinstance(q, Count):
        return len(frame) if q.where is None else int(naive_mask(frame, q.where).sum())
    if isinstance(q, RangeCount):
        s = frame[q.column]
        lo = s >= q.low if q.closed in ("left", "both") else s > q.low
        hi = s <= q.high if q.closed in ("right", "both") else s < q.high
        return int((lo & hi).sum())
    if isinstance(q, ClipDiff):
        s = frame[q.column]
        d = s.clip(lower=0, upper=q.bound + q.step).sum() - s.clip(lower=0, upper=q.bound).sum()
        return d / q.step if q.normalised else d
    if isinstance(q, ClippedSum):
        return frame[q.column].clip(lower=q.lower, upper=q.upper).sum()
    if isinstance(q, ItemSupport):
        return int(frame[q.column].map(lambda b: set(q.items) <= set(b)).sum())
    raise AssertionError(q)


def _check(frame, queries, exact=True):
    ds = Dataset.from_frame(frame)
    if any(isinstance(q, Mean) for q in queries):
        ds = ds.with_schema(ds.schema.with_neighbouring(Neighbouring.REPLACE, n=len(frame)))
    got = evaluate(ds, queries)
    want = np.array([naive(frame, q) for q in queries], dtype=float)
    if exact:
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-6)


@SETTINGS
@given(frames(), st.lists(predicates, min_size=1, max_size=8))
def test_counts_and_means_match_pandas(frame, preds):
    _check(frame, [Count(p) for p in preds] + [Count()])
    _check(frame, [Mean(p) for p in preds], exact=False)


@SETTINGS
@given(
    frames(),
    st.lists(
        st.tuples(numbers, numbers, st.sampled_from(["left", "right", "both", "neither"])),
        min_size=1,
        max_size=20,
    ),
)
def test_range_counts_match_pandas(frame, specs):
    queries = [
        RangeCount(col, min(a, b), max(a, b), closed)
        for (a, b, closed), col in zip(specs, ["x", "y"] * len(specs), strict=False)
    ]
    _check(frame, queries)


@SETTINGS
@given(
    frames(),
    st.lists(st.tuples(st.integers(0, 320), st.integers(1, 40), st.booleans()), min_size=1, max_size=20),
)
def test_clip_differences_match_pandas_on_integers(frame, specs):
    _check(frame, [ClipDiff("x", b, s, norm) for b, s, norm in specs], exact=False)
    _check(frame, [ClipDiff("y", b, s) for b, s, _ in specs])


@SETTINGS
@given(
    frames(floats=True), st.lists(st.tuples(st.floats(0, 320), st.floats(0.01, 40)), min_size=1, max_size=20)
)
def test_clip_differences_match_pandas_on_floats(frame, specs):
    _check(frame, [ClipDiff("x", b, s) for b, s in specs], exact=False)


@SETTINGS
@given(frames(floats=True), st.lists(st.tuples(numbers, numbers), min_size=1, max_size=20))
def test_clipped_sums_match_pandas(frame, specs):
    _check(frame, [ClippedSum("x", min(a, b), max(a, b)) for a, b in specs], exact=False)


@SETTINGS
@given(
    st.lists(
        st.lists(st.integers(0, 12), max_size=6).map(lambda b: tuple(sorted(set(b)))), min_size=1, max_size=40
    ),
    st.lists(st.lists(st.integers(0, 14), min_size=1, max_size=3), min_size=1, max_size=15),
)
def test_item_supports_match_pandas(baskets, itemsets):
    frame = pd.DataFrame({"items": pd.Series(baskets, dtype=object)})
    _check(frame, [ItemSupport(tuple(s)) for s in itemsets])


def test_mixed_kinds_keep_their_order():
    frame = pd.DataFrame(
        {
            "x": [1.0, 5.0, 9.0, np.nan],
            "y": [0, 1, 2, 3],
            "cat": pd.Categorical(["a", "b", None, "a"], categories=CATS),
        }
    )
    queries = [
        RangeCount("x", 0, 6),
        Count(Condition("cat", "=", "a")),
        ClipDiff("x", 4, 2),
        Count(),
        ClippedSum("y", 0, 2),
        RangeCount("y", 2, 4),
    ]
    _check(frame, queries)


def test_string_item_ids_and_text_queries_match():
    frame = pd.DataFrame({"items": pd.Series([("milk", "eggs"), ("eggs",), ("bread", "milk")], dtype=object)})
    ds = Dataset.from_frame(frame)
    got = evaluate(ds, [ItemSupport(("milk",)), ItemSupport(("eggs", "milk")), ItemSupport(("tea",))])
    assert got.tolist() == [2, 1, 0]


def test_numeric_item_ids_accept_text_from_json():
    frame = pd.DataFrame({"items": pd.Series([(1, 2), (2, 3), (2,)], dtype=object)})
    got = evaluate(
        Dataset.from_frame(frame), [ItemSupport(("2",)), ItemSupport((2, "3")), ItemSupport(("x",))]
    )
    assert got.tolist() == [3, 1, 0]


@pytest.mark.parametrize("value", [13, "13", "x"])
def test_equality_coerces_json_values_to_the_column_type(value):
    frame = pd.DataFrame({"num": [13, 14], "cat": pd.Categorical(["13", "x"])})
    ds = Dataset.from_frame(frame)
    assert evaluate(ds, [Count(Condition("cat", "=", value))])[0] == 1
    if value == "x":  # text a numeric column cannot hold is refused, not counted as 0 (issue 22 §5)
        with pytest.raises(QueryError, match="'num' is numeric"):
            evaluate(ds, [Count(Condition("num", "=", value))])
    else:
        assert evaluate(ds, [Count(Condition("num", "=", value))])[0] == 1


def test_datetime_and_boolean_predicates():
    frame = pd.DataFrame(
        {
            "d": pd.to_datetime(["2020-01-01", "2021-06-01", None]),
            "b": pd.array([True, False, None], dtype="boolean"),
        }
    )
    ds = Dataset.from_frame(frame)
    queries = [
        Count(Condition("d", ">=", "2021-01-01")),
        Count(Condition("d", "between", ["2019-01-01", "2020-12-31"])),
        Count(Condition("d", "<", "2030-01-01")),
        Count(Condition("d", "=", "2020-01-01")),
        Count(Condition("d", "is_missing")),
        Count(Condition("b", "=", True)),
        Count(Condition("b", "!=", "true")),
        Count(Condition("b", "in", ["false", True])),
    ]
    assert evaluate(ds, queries).tolist() == [1, 1, 2, 1, 1, 1, 1, 2]
    with pytest.raises(QueryError, match="not a date"):
        evaluate(ds, [Count(Condition("d", ">", "soon"))])
