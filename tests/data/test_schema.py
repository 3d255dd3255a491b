"""Schema: declared bounds, kinds, the neighbouring relation, JSON and its errors."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from svtgui.data.dataset import Dataset
from svtgui.data.errors import DatasetError
from svtgui.data.schema import Column, ColumnKind, Neighbouring, Schema, SchemaError, infer_schema


def test_inference_gives_kinds_and_never_bounds():
    frame = pd.DataFrame(
        {
            "n": [1, 2],
            "f": [0.5, None],
            "c": ["a", "b"],
            "b": [True, False],
            "d": pd.to_datetime(["2020-01-01", "2021-01-01"]),
            "i": [(1, 2), (3,)],
        }
    )
    schema = infer_schema(frame)
    assert [c.kind for c in schema.columns] == [
        ColumnKind.NUMERIC,
        ColumnKind.NUMERIC,
        ColumnKind.CATEGORICAL,
        ColumnKind.BOOLEAN,
        ColumnKind.DATETIME,
        ColumnKind.ITEMSET,
    ]
    assert not any(c.bounded for c in schema.columns)
    assert schema.neighbouring == Neighbouring.ADD_REMOVE


def test_json_round_trip_with_bounds_relation_and_categories():
    schema = Schema(
        (Column("age", "numeric", 0, 120), Column("sex", "categorical", categories=("F", "M"))),
        "replace",
        1000,
    )
    again = Schema.from_json(json.loads(schema.dumps()))
    assert again == schema and again.public_n == 1000 and again.column("age").bounds() == (0.0, 120.0)


def test_edits_return_new_schemas():
    schema = Schema((Column("age", "numeric"), Column("sex", "categorical")))
    bounded = schema.with_bounds("age", 17, 90)
    assert bounded.column("age").bounds() == (17, 90) and not schema.column("age").bounded
    assert bounded.with_bounds("age", None, None).column("age").bounded is False
    assert schema.with_kind("sex", "boolean").column("sex").kind == ColumnKind.BOOLEAN
    assert schema.with_categories("sex", ["F"]).column("sex").categories == ("F",)
    replaced = schema.with_neighbouring("replace", n=10)
    assert replaced.public_n == 10 and replaced.with_neighbouring("add_remove").n is None


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: Column("x", "numeric", 5, 1), "exceeds"),
        (lambda: Column("x", "numeric", 0, None), "both bounds"),
        (lambda: Column("x", "numeric", 0, float("inf")), "finite"),
        (lambda: Column("x", "numeric", "0", 1), "number"),
        (lambda: Column("x", "categorical", 0, 1), "only to numeric"),
        (lambda: Column("x", "colour"), "unknown kind"),
        (lambda: Column("", "numeric"), "name"),
        (lambda: Schema((Column("x", "numeric"), Column("x", "numeric"))), "duplicate"),
        (lambda: Schema((Column("x", "numeric"),), "swap"), "neighbouring"),
        (lambda: Schema((Column("x", "numeric"),), "replace", 0), "positive"),
        (lambda: Schema((Column("x", "numeric"),)).with_neighbouring("replace"), "public number of rows"),
        (lambda: Schema((Column("x", "numeric"),)).public_n, "private"),
        (lambda: Schema((Column("x", "numeric"),)).column("y"), "no column 'y'"),
        (lambda: Schema((Column("x", "numeric"),)).column("x").bounds(), "no declared bounds"),
        (lambda: Schema.from_json("{"), "not valid JSON"),
        (lambda: Schema.from_json({"columns": 3}), "'columns'"),
        (lambda: Schema.from_json({"columns": [{"name": "x"}]}), "'kind'"),
        (lambda: Schema.from_json({"columns": [{"name": "x", "kind": "numeric", "min": 0}]}),
         r"'columns\[0\]\.min'"),
        (lambda: Schema.from_json({"format": "nope", "columns": []}), "not a schema"),
        (lambda: Schema.from_json({"version": 9, "columns": []}), "version"),
    ],
)
def test_bad_schemas_name_the_problem(make, message):
    with pytest.raises(SchemaError, match=message):
        make()


def test_dataset_refuses_a_schema_for_other_columns():
    ds = Dataset.from_frame(pd.DataFrame({"a": [1]}))
    with pytest.raises(DatasetError, match="do not match"):
        ds.with_schema(Schema((Column("b", "numeric"),)))
    bounded = ds.with_schema(ds.schema.with_bounds("a", 0, 9))
    key = bytes(32)
    assert bounded.content_fingerprint(key) == ds.content_fingerprint(key)
    assert bounded.schema.column("a").bounded


def test_frame_fingerprint_depends_on_content_only():
    a = Dataset.from_frame(pd.DataFrame({"a": [1, 2], "b": ["x", "y"]}), name="one")
    b = Dataset.from_frame(pd.DataFrame({"a": [1, 2], "b": ["x", "y"]}), name="two")
    c = Dataset.from_frame(pd.DataFrame({"a": [1, 3], "b": ["x", "y"]}))
    key = bytes(32)
    assert a.content_fingerprint(key) == b.content_fingerprint(key) != c.content_fingerprint(key)
    secret = Dataset.from_frame(pd.DataFrame({"a": ["zebra"]}))
    assert "zebra" not in repr(secret)  # the private frame never shows in a repr
