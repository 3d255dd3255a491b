"""The "has the sum stopped growing?" form: what AboveThreshold needs to find a clipping bound."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from svtgui.core import mechanisms
from svtgui.data import generators
from svtgui.data.dataset import Dataset
from svtgui.data.evaluate import evaluate
from svtgui.data.queries import ClipDiff, ClipStall, queries_from_json, queries_to_json
from svtgui.data.schema import infer_schema


@pytest.fixture
def ages() -> Dataset:
    frame = pd.DataFrame({"age": np.random.default_rng(1).integers(17, 91, 5000).astype(float)})
    return Dataset.from_frame(frame, "ages", infer_schema(frame).with_bounds("age", 0, 100))


def test_a_stall_is_its_difference_negated_with_the_same_sensitivity(ages):
    diffs = generators.clip_bound_sweep("age", 1, 120, 7)
    stalls = generators.clip_bound_sweep("age", 1, 120, 7, stalls=True)
    assert all(isinstance(q, ClipStall) for q in stalls)
    assert np.array_equal(evaluate(ages, stalls), -evaluate(ages, diffs))
    mixed = [stalls[0], diffs[0], stalls[3]]  # in one batch, each answered by its own kind
    assert list(evaluate(ages, mixed)) == [-evaluate(ages, [diffs[0]])[0], evaluate(ages, [diffs[0]])[0],
                                           -evaluate(ages, [diffs[3]])[0]]
    assert {q.sensitivity(ages.schema) for q in stalls} == {q.sensitivity(ages.schema) for q in diffs}
    assert not ClipStall("age", 5).monotonic and ClipDiff("age", 5).monotonic


def test_a_stall_sweep_survives_the_query_file_format():
    stalls = generators.clip_bound_sweep("age", 1, 50, 5, stalls=True)
    assert queries_from_json(queries_to_json(stalls)) == stalls


def test_above_threshold_on_stalls_finds_a_bound_past_the_data_not_the_first_bound(ages):
    """On the plain differences AboveThreshold halts on the first bound (the trap of the issue); on
    the stall form with T = 0 it halts past the bulk of the data. Seeded; the noise scale at ε = 1
    is 2·Δ/ε = 2, far below the thousands separating the two regimes, so the seed does not matter."""
    stalls = generators.clip_bound_sweep("age", 1, 120, 1, stalls=True)
    plain = [q.diff() for q in stalls]

    def first_top(queries) -> float:
        m = mechanisms.create("above_threshold", epsilon=1.0, threshold=0.0, sensitivity=1.0,
                              rng=mechanisms.seeded(3))
        batch = m.submit_many(evaluate(ages, queries))
        return queries[int(np.flatnonzero(batch.above[: batch.consumed])[0])].bound

    assert first_top(plain) == 1
    assert 80 <= first_top(stalls) <= 100
