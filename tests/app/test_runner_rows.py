"""The runner's columnar batch gives exactly the rows the Response objects would give."""

from __future__ import annotations

import numpy as np
import pytest

from svtgui.app.runs.runner import released
from svtgui.core.mechanisms import Batch


class _Q:
    def __init__(self, i: int) -> None:
        self.i = i

    def describe(self) -> str:
        return f"query {self.i}"


@pytest.mark.parametrize("with_gaps", [False, True])
def test_batch_rows_match_responses(with_gaps):
    rng = np.random.default_rng(5)
    n, consumed = 200, 150  # rows after the halt (consumed) are not released
    above = rng.random(n) < 0.3
    values = np.where(above, rng.choice([3.0, 2.5, -7.0, 1e16, 4.0], n), np.nan)
    gaps = np.where(above, rng.normal(size=n), np.nan) if with_gaps else None
    out = Batch(above, values, consumed, start_index=40, gaps=gaps)
    queries = [_Q(i) for i in range(n)]
    expected = [(r.index, q.describe(), r.above, r.value, r.gap)
                for r, q in zip(out.responses(), queries, strict=False)]
    batch = released(out, queries)
    got = list(zip(batch.index.tolist(), batch.description, batch.above.tolist(), batch.values(),
                   batch.gaps(), strict=True))
    assert got == expected
    # the same Python types, not only equal values (ints stay ints in the ledger and the CLI)
    assert [tuple(map(type, row)) for row in got] == [tuple(map(type, row)) for row in expected]
    assert any(type(row[3]) is int for row in got) and any(type(row[3]) is float for row in got)
