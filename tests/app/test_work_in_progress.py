"""Each dataset's work in progress (queue, mechanism, parameters) comes back with its rows."""

from __future__ import annotations

import pandas as pd

from svtgui.app.work_in_progress import WorkInProgress
from svtgui.app.workspace import Workspace
from svtgui.data import Dataset
from svtgui.data.queries import queries_from_json
from svtgui.ledger import Ledger

COUNT = {"kind": "count", "where": {"column": "x", "op": ">=", "value": 10}}


def _rows(n: int = 300) -> Dataset:
    d = Dataset.from_frame(pd.DataFrame({"x": [i % 100 for i in range(n)]}), name="toy")
    return d.with_schema(d.schema.with_bounds("x", 0, 99))


def test_the_set_up_left_on_some_rows_comes_back_with_the_same_rows_only(tmp_path):
    work = WorkInProgress(tmp_path / "work")
    with Ledger.open() as led:
        ws = Workspace("sparse")
        ws.set_dataset(_rows(), queries_from_json([COUNT] * 4), from_data=("x",))  # x's levels, read off rows
        ws.set_mechanism("numeric_sparse")
        ws.set_entries({"epsilon": "0.7", "threshold": "42", "cutoff": 3})
        assert work.keep(ws, led) is None
        again = Workspace("sparse")
        again.set_dataset(_rows(), [])  # the same rows, loaded again: another object
        assert work.restore(again, led)
        assert [q.to_json() for q in again.queries] == [q.to_json() for q in ws.queries]
        assert again.queries_from_data == ("x",)  # the queue's provenance comes back with it
        assert again.mechanism_id == "numeric_sparse"
        assert (again.entry("epsilon"), again.entry("threshold"), again.entry("cutoff")) == (0.7, 42.0, 3)
        other = Workspace("sparse")
        other.set_dataset(_rows(250), [])
        assert not work.restore(other, led) and len(other.queries) == 0
    assert [p.suffix for p in (tmp_path / "work").iterdir()] == [".svtsession"]
    assert (tmp_path / "work").stat().st_mode & 0o777 == 0o700


def test_a_set_up_that_cannot_be_kept_says_why(tmp_path):
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    ws = Workspace("sparse")
    ws.set_dataset(_rows(), queries_from_json([COUNT]))
    with Ledger.open() as led:
        why = WorkInProgress(blocked / "work").keep(ws, led)
    assert why is not None and "“toy”" in why and "could not be kept" in why
