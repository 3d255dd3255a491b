"""Runs of the linear-query mechanisms — PMW and SparseProject — over a universe of chosen columns.

The shared run path (:mod:`svtgui.app.runs.runner`) calls into this module for ``pmw`` and
``sparse_project``; everything specific to a universe lives here.

Decisions (documented in ``docs/linear-queries.md``):

* **Universe** (run parameter ``universe``): a list of spec strings as in
  :mod:`svtgui.data.universe`. Categorical levels must be *declared* (schema categories, or listed
  in the spec); numeric bins come from declared bounds (``age:8``) or explicit edges
  (``age@17,25,…``). Levels read off the data are refused, never used silently: they would be
  published in a release and would make the universe itself a function of the private data.
* **Queries**: count queries (and range counts) become exact 0/1 linear queries over the
  universe; anything else — or a comparison that cuts a bin — is refused, naming the query.
* **PMW threshold in rows**: the curator gives T as a number of rows (like every other
  mechanism's T). PMW's test is ``|true − n̂·⟨Q, p⟩| ≥ T`` directly (core ``threshold_unit="rows"``),
  so no private n is needed to set it; the learning rate defaults to α/2 with α = T/n̂ (n̂ is
  released at the start under add/remove neighbours and recorded in the ledger as a run fact).
  Released values are in rows too: normalised answers × n̂ (post-processing of public values).
* **Neighbouring** is the schema's, never a user choice.
* **SparseProject** as a run: the full guarantee is charged, the release is written atomically to
  the user's ``release_out`` path, its SHA-256 and public header facts are recorded, and the run is
  finished. Answering from the file never touches the ledger.
"""

from __future__ import annotations

import hashlib
import math
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from svtgui.app.linear_setup import (  # noqa: F401 - the set-up, re-exported for the run's callers
    LINEAR,
    PMW,
    RELEASE_SUFFIX,
    RUN_PARAMS,
    SET_BY_RUN,
    SPARSE_PROJECT,
    LinearPlan,
    is_linear,
    linear_query,
    prepare,
    release_path,
    set_by_run,
    universe_of,
)
from svtgui.app.plan import describe_query
from svtgui.core.linear import LinearQuery, SparseHistogram
from svtgui.core.mechanisms.base import Batch
from svtgui.core.mechanisms.sparse_project import SparseProject
from svtgui.data.queries import Query
from svtgui.ledger import ResponseBatch

if TYPE_CHECKING:  # annotations only: the universe module imports pandas (svtgui-cli --help needs none)
    from svtgui.data.universe import Universe


class LinearFeed:
    """PMW's side of the run loop: queries → linear queries in; responses → ledger rows (rows units)."""

    def __init__(self, universe: Universe, n_released: int) -> None:
        self.universe = universe
        self.n = n_released  # public: released by PMW at bind()

    def inputs(self, queries: Sequence[Query]) -> list[LinearQuery]:
        return [linear_query(self.universe, q, "query") for q in queries]

    def released(self, out: Batch, queries: Sequence[Query]) -> ResponseBatch:
        """PMW's batch as the ledger records it: values in rows (paid: an integer count on the noise
        lattice; free, from the public synthetic histogram: n̂·⟨Q, p⟩ to 0.1 row), every ⊥ free."""
        k = out.consumed
        above = out.above[:k]
        rows = out.values[:k] * self.n
        value = np.where(above, np.round(rows), np.round(rows, 1))
        return ResponseBatch(np.arange(out.start_index, out.start_index + k, dtype=np.int64),
                             [describe_query(q) for q in queries[:k]], above, value, None, ~above)


def write_release(mechanism: SparseProject, histogram: SparseHistogram, plan: LinearPlan,
                  public_name: str) -> dict[str, str | int | float | None]:
    """Project, add noise, write the file atomically; returns the public facts to record.

    ``public_name`` is the dataset's public name in the ledger (the curator's choice, else its random
    id): the release file is published, and a data file's name can say what or whom it is about."""
    assert plan.release_out is not None
    release = mechanism.release(histogram, metadata={"universe": plan.universe.to_json(),
                                                     "dataset": public_name})
    tmp = plan.release_out.with_name(plan.release_out.name + ".part")
    try:
        release.save(tmp)
        os.replace(tmp, plan.release_out)
    finally:
        tmp.unlink(missing_ok=True)
    acc = release.header["accuracy"]
    return {
        "release_file": str(plan.release_out),
        "release_sha256": hashlib.sha256(plan.release_out.read_bytes()).hexdigest(),
        "n_released": release.n,
        "projection_size": release.projection_size,
        "alpha": _finite(acc.get("alpha")),
        "paper_projection_size": _finite(acc.get("paper_projection_size")),
    }


def _finite(x: object) -> float | None:
    return float(x) if isinstance(x, int | float) and math.isfinite(x) else None
