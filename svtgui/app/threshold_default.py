"""The threshold T a newly opened dataset starts with: from public facts only, never the data.

Why: T is the one parameter that means something only for a given dataset and queue — 21,000
rows is a sensible bar on the census sample and meaningless on Adult — so a T typed for another
dataset is not kept when a dataset is opened (:class:`~svtgui.app.workspace.Workspace` drops it).
What replaces it may use only what is public: the declared schema and the queue's definitions. So
a default is proposed only when the number of rows is itself public (the "replace one row"
neighbouring relation declares it) and every query is a count (its answer lies in [0, n]): a
tenth of n, a round number the curator is expected to change. Otherwise there is no default and
the field asks for one (:data:`PROMPT`) — never a statistic of the rows, which would leak.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from svtgui.app.plan import QueueFacts
    from svtgui.data.schema import Schema

#: Names of entries that belong to one dataset and are dropped when another is opened.
DATASET_ENTRIES = ("threshold",)
#: What the empty T field says (its placeholder).
PROMPT = "type T from what you know publicly, never from the data"
FRACTION = 0.1  # of the public n, for a queue of counts


def _round(x: float) -> float:
    """Two significant digits: 3,256 → 3,300 (a starting point, not a measurement)."""
    if x < 10:
        return float(max(1, round(x)))
    digits = len(str(int(x))) - 2
    return float(round(x, -digits))


def propose(schema: Schema | None, facts: Callable[[], QueueFacts]) -> float | None:
    """A public default for T from the schema and the queue's facts (``facts()`` gives the
    :class:`~svtgui.app.plan.QueueFacts`, asked only when n is public: validating a long queue is not
    free), or None (then the curator types one: :data:`PROMPT`)."""
    n = getattr(schema, "n", None)
    relation = getattr(getattr(schema, "neighbouring", None), "value", None)
    if relation != "replace" or not n:
        return None
    queue = facts()
    if not queue.count or queue.problem is not None:
        return None
    counts = queue.integer and queue.sensitivity == 1.0  # every answer in [0, n]
    return _round(FRACTION * n) if counts else None
