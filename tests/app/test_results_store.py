"""The run's released rows kept as columns: batches land as the run process sent them."""

from __future__ import annotations

import numpy as np

from svtgui.app.runs.process import ReleasedBatch
from svtgui.app.runs.results import ResultStore


def _batch(index, above, value, time, free=None, ref=None) -> ReleasedBatch:
    index = np.asarray(index)
    refs = index if ref is None else np.asarray(ref)
    return ReleasedBatch(index, refs, np.asarray(above), np.asarray(value), np.full(len(index), time), free)


def test_result_store_keeps_batches_as_sent_and_indexes_tops():
    s = ResultStore(capacity=4)
    idx = np.arange(10)
    above = np.zeros(10, dtype=bool)
    above[[2, 7]] = True
    values = np.where(above, np.arange(10) * 100.0, np.nan)  # as to_arrays sends them: ⊥ blanked
    s.append_batch(_batch(idx, above, values, 1.0))
    s.append_batch(_batch([10], [True], [np.nan], 2.0, ref=[-1]))
    assert s.n == 11 and s.n_tops == 3 and s.n_bottoms == 8
    xs, ys = s.top_points()
    np.testing.assert_array_equal(xs, [2, 7, 10])
    np.testing.assert_array_equal(ys[:2], [200.0, 700.0])
    assert np.isnan(ys[2])
    np.testing.assert_array_equal(s.ref[: s.n], [*range(10), -1])  # grown past its capacity, in order
    assert np.isnan(s.value[: s.n][~s.above[: s.n]]).all()


def test_result_store_keeps_free_answers_values_and_positions():
    s = ResultStore(capacity=4)
    idx = np.arange(6)
    above = np.array([False, True, False, False, True, False])
    free = np.array([True, False, False, True, False, True])  # a ⊤ is never free; row 2 is a plain ⊥
    values = np.where(above | free, np.arange(6) + 0.5, np.nan)
    s.append_batch(_batch(idx, above, values, 1.0, free))
    xs, ys = s.free_points()
    np.testing.assert_array_equal(xs, [0, 3, 5])
    np.testing.assert_array_equal(ys, [0.5, 3.5, 5.5])
    assert s.n_free == 3 and s.n_tops == 2 and np.isnan(s.value[2])
    s.clear()
    assert s.free_points()[0].size == 0
