"""Query generators: shapes, public inputs only, and their bad parameters."""

from __future__ import annotations

import itertools

import pandas as pd
import pytest

from svtgui.data import generators as g
from svtgui.data.dataset import Dataset
from svtgui.data.evaluate import evaluate
from svtgui.data.predicates import QueryError
from svtgui.data.queries import ClipDiff
from svtgui.data.schema import Column, Schema

SCHEMA = Schema(
    (
        Column("age", "numeric", 0, 100),
        Column("sex", "categorical", categories=("F", "M")),
        Column("edu", "categorical", categories=("a", "b", "c")),
        Column("job", "categorical"),
    )
)


def test_range_sweep_tiles_the_interval():
    qs = g.range_sweep("age", 20, 60, 10)
    assert [(q.low, q.high) for q in qs] == [(20, 30), (30, 40), (40, 50), (50, 60)]
    assert len(g.range_sweep("age", 0, 10, 4, step=1)) == 10


def test_random_ranges_are_seeded_inside_and_wide_enough():
    a = g.random_ranges("age", 17, 91, 500, seed=4, min_width=3)
    assert a == g.random_ranges("age", 17, 91, 500, seed=4, min_width=3)
    assert a != g.random_ranges("age", 17, 91, 500, seed=5, min_width=3)
    # integer values 17 … 91: a range [low, high) may end at 92, so 91 itself can be counted
    assert all(17 <= q.low and q.high <= 92 and q.high - q.low >= 3 for q in a)
    assert any(q.high == 92 for q in a)
    assert all(float(q.low).is_integer() and float(q.high).is_integer() for q in a)
    assert len({(q.low, q.high) for q in a}) > 100


def test_real_valued_random_ranges_stay_inside_the_interval():
    a = g.random_ranges("x", 0.5, 2.5, 300, seed=1, integer=False, min_width=0.25)
    assert all(0.5 <= q.low and q.high <= 2.5 and q.high - q.low >= 0.25 for q in a)


class Watch:
    """A progress state that cancels itself after ``stop_after`` reports."""

    def __init__(self, stop_after: int | None = None) -> None:
        self.reports: list[float | None] = []
        self.stop_after = stop_after

    def set_progress(self, fraction, text=""):
        self.reports.append(fraction)

    def is_cancelled(self) -> bool:
        return self.stop_after is not None and len(self.reports) >= self.stop_after


def test_long_generations_report_progress_and_can_be_cancelled():
    watch = Watch()
    qs = g.random_ranges("age", 17, 90, 3 * g.CHUNK + 7, seed=2, progress=watch)
    assert qs == g.random_ranges("age", 17, 90, 3 * g.CHUNK + 7, seed=2)  # same queries with or without
    assert watch.reports == sorted(watch.reports) and watch.reports[-1] == 1.0 and len(watch.reports) == 5
    with pytest.raises(g.GenerationCancelled, match="of 150,000"):
        g.range_sweep("age", 0, 150_000, 1, progress=Watch(stop_after=2))


def test_linear_clip_sweep_is_the_notebooks():
    qs = g.clip_bound_sweep("gain", 1, 150_000, 5)
    assert len(qs) == 30_000 and [q.bound for q in qs] == list(range(1, 150_000, 5))
    assert all(q.step == 1 and not q.normalised for q in qs)


def test_geometric_clip_sweep_covers_contiguous_bands():
    qs = g.clip_bound_sweep("gain", 1, 100_000, 2, geometric=True)
    assert qs[0].bound == 1 and all(isinstance(q, ClipDiff) and q.normalised for q in qs)
    for a, b in itertools.pairwise(qs):
        assert a.bound + a.step == pytest.approx(b.bound)
    assert qs[-1].bound + qs[-1].step >= 100_000 > qs[-1].bound
    assert {q.sensitivity(SCHEMA) for q in qs} == {1.0}


def test_every_item_and_value():
    ds = Dataset.from_frame(pd.DataFrame({"items": pd.Series([(3, 1), (1,), (7,)], dtype=object)}))
    items = g.observed_items(ds)
    assert items == [1, 3, 7]
    assert evaluate(ds, g.every_item(items)).tolist() == [2, 1, 1]
    assert [q.where.value for q in g.every_value(SCHEMA, "sex")] == ["F", "M"]
    assert len(g.every_value(SCHEMA, "job", ["x", "y", "z"])) == 3


def test_marginals_cover_every_cell_and_match_groupby():
    frame = pd.DataFrame(
        {"age": [1, 2, 3, 4, 5, 6], "sex": list("FMFMFF"), "edu": list("abcabc"), "job": list("xxyyzz")}
    )
    ds = Dataset.from_frame(frame, schema=SCHEMA)
    qs = g.marginals(SCHEMA, ["sex", "edu"], k=2)
    assert len(qs) == 6
    got = dict(zip([tuple(c.value for c in q.where.children) for q in qs], evaluate(ds, qs), strict=True))
    want = frame.groupby(["sex", "edu"]).size()
    assert all(got[k] == want.get(k, 0) for k in got) and sum(got.values()) == len(frame)
    one_way = g.marginals(SCHEMA, ["sex", "edu", "job"], k=1, values={"job": ["x", "y", "z"]})
    assert len(one_way) == 2 + 3 + 3 and sum(evaluate(ds, one_way)) == 3 * len(frame)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: g.range_sweep("age", 5, 1, 1), "stop"),
        (lambda: g.range_sweep("age", 0, 5, 0), "width"),
        (lambda: g.random_ranges("age", 0, 1, 5, min_width=3), "narrower"),
        (lambda: g.random_ranges("age", 0, 20, 0), "k must"),
        (lambda: g.clip_bound_sweep("gain", -1, 5), "start"),
        (lambda: g.clip_bound_sweep("gain", 1, 5, 1, geometric=True), "ratio"),
        (lambda: g.clip_bound_sweep("gain", 0, 5, 2, geometric=True), "start > 0"),
        (lambda: g.clip_bound_sweep("gain", 0, 1e12, 1e-3), "limit"),
        (lambda: g.every_item([]), "empty"),
        (lambda: g.every_value(SCHEMA, "job"), "no declared categories"),
        (lambda: g.every_value(SCHEMA, "nope"), "no column"),
        (lambda: g.marginals(SCHEMA, ["sex", "edu"], k=3), "k must"),
        (lambda: g.marginals(SCHEMA, ["sex", "sex"], k=1), "distinct"),
        (lambda: g.marginals(SCHEMA, ["sex", "job"], k=2), "job"),
    ],
)
def test_bad_generator_parameters(call, message):
    with pytest.raises(QueryError, match=message):
        call()
