"""The queue as one evented list: edits in place, told before and after, facts kept as it is edited."""

from __future__ import annotations

import random

import pandas as pd
import pytest

from svtgui.app.plan import queue_facts
from svtgui.app.query_queue import INSERTED, MOVED, REMOVED, RESET, QueryQueue
from svtgui.data import Dataset
from svtgui.data.predicates import Condition
from svtgui.data.queries import ClippedSum, Count, RangeCount


@pytest.fixture
def schema():
    frame = pd.DataFrame({"x": list(range(100)), "name": ["a", "b"] * 50})
    return Dataset.from_frame(frame, "toy").schema.with_bounds("x", 0, 99)


def _queries(n: int, seed: int = 1) -> list:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        k = rng.randrange(4)
        lo = rng.randrange(90)
        out.append(RangeCount("x", lo, lo + 5) if k == 0 else
                   ClippedSum("x", 0, rng.choice([10, 50, 99])) if k == 1 else
                   Count(Condition("x", ">=", lo)) if k == 2 else
                   RangeCount("name", 0, 1))  # a range over text: does not fit the schema
    return out


def test_edits_are_told_before_and_after_with_what_changed():
    q = QueryQueue(_queries(3))
    told = []
    q.subscribe(lambda c: told.append(("after", c.kind, c.start, c.count, c.rows, len(q))),
                before=lambda c: told.append(("before", c.kind, c.start, c.count, c.rows, len(q))))
    new = _queries(2, seed=2)
    q.append(new)
    assert told == [("before", INSERTED, 3, 2, (), 3), ("after", INSERTED, 3, 2, (), 5)]
    assert q[3:] == new
    told.clear()
    first = q[0]
    q.move([0], 5)
    assert q[4] is first and told[-1][1] == MOVED and told[-1][4] == (0,)
    q.remove([4, 0, 99])  # a position past the end is ignored
    assert len(q) == 3 and first not in list(q) and told[-1][1:5] == (REMOVED, 0, 0, (0, 4))
    q.reset([])
    assert q == [] and told[-1][1] == RESET
    told.clear()
    q.append([])
    q.remove([])
    assert told == []  # nothing changed, nothing told


def test_facts_kept_through_edits_equal_a_full_check(schema):
    """After any sequence of edits, the queue's facts are what checking the whole queue gives."""
    rng = random.Random(7)
    q = QueryQueue(_queries(20))
    for step in range(60):
        what = rng.randrange(4)
        if what == 0:
            q.append(_queries(rng.randrange(1, 4), seed=step))
        elif what == 1 and len(q):
            q.remove(rng.sample(range(len(q)), min(len(q), rng.randrange(1, 3))))
        elif what == 2 and len(q):
            q.move([rng.randrange(len(q))], rng.randrange(len(q) + 1))
        else:
            q.insert(rng.randrange(len(q) + 1), _queries(1, seed=100 + step))
        assert q.facts(schema) == queue_facts(list(q), schema), step


def test_an_append_checks_only_the_new_queries(schema, monkeypatch):
    from svtgui.app import plan

    fits = [query for query in _queries(40) if not isinstance(query, RangeCount) or query.column == "x"]
    q = QueryQueue(fits)
    q.facts(schema)
    checked = []
    real = plan.validate_query
    monkeypatch.setattr(plan, "validate_query", lambda query, s: checked.append(query) or real(query, s))
    more = [ClippedSum("x", 0, 99)]
    q.append(more)
    facts = q.facts(schema)
    assert checked == more and facts.count == len(fits) + 1 and facts.sensitivity == 99
    other = schema.with_bounds("x", 0, 199)  # declared again: every query is checked under it
    assert q.facts(other).count == len(fits) + 1 and len(checked) == len(fits) + 2
