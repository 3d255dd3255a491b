"""Each run's plan, kept in the ledger as a run fact, so a release can be replayed (:mod:`.replay`).

The plan is what the curator asked for, all public: the mechanism or recipe, the parameters as given,
and the query list or item domain (each query is already described in the run's rows). It is the
run's input, not a released value: reports leave it out; only the replay script holds it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from svtgui.app.params import Params
    from svtgui.data.queries import Query

PLAN_FACT = "plan"

#: A run's plan as the ledger keeps it: a JSON document (``Any``: whatever JSON holds — the parameters
#: as given, query definitions, a recipe's arguments), read back only by :mod:`.replay`.
PlanDocument = dict[str, Any]


def mechanism_plan(mechanism_id: str, params: Params, queries: Sequence[Query],
                   monotonic: bool) -> PlanDocument:
    """A catalogue run's plan: what ``start_run`` was given (queries as their JSON definitions; None
    when a query has none, such as a linear query built in code: such a run cannot be replayed)."""
    definitions = [q.to_json() if hasattr(q, "to_json") else None for q in queries]
    return {"mechanism": mechanism_id, "params": plain(params), "monotonic": bool(monotonic),
            "queries": None if None in definitions else definitions}


def recipe_plan(recipe_id: str, epsilon: float, arguments: PlanDocument) -> PlanDocument:
    """A recipe's plan: its id, ε and the keyword arguments of its ``svtgui.app.recipes`` call."""
    return {"recipe": recipe_id, "epsilon": float(epsilon), "arguments": plain(arguments)}


def plain(value: Any) -> Any:
    """``value`` as JSON values (numpy scalars become numbers, tuples lists): any JSON in, the same out."""
    return json.loads(json.dumps(value, default=lambda v: v.item() if hasattr(v, "item") else list(v)))
