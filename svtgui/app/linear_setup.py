"""The public set-up of a linear-query run — PMW or SparseProject — before anything is charged.

What :mod:`svtgui.app.plan` checks and :mod:`svtgui.app.runs.linear` runs with: the universe of
chosen columns (levels and bins *declared*; levels read from the data only with the curator's
override, :mod:`svtgui.app.domains`), count queries as exact 0/1
linear queries over it, the release file (writable, checked before the charge), and the
parameters a run sets itself (the schema's neighbouring notion; PMW's threshold in rows). The
decisions behind them are in :mod:`svtgui.app.runs.linear` and ``docs/linear-queries.md``.

Kept apart from ``runs/`` so that the plan, which the runner uses, never imports the runner's
package (no import cycle between the two).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from svtgui.app.outputs import folder_problem
from svtgui.app.params import Params
from svtgui.core.linear import LinearQuery
from svtgui.core.mechanisms.pmw import ROWS
from svtgui.core.validation import ParamError

if TYPE_CHECKING:  # annotations only: the functions below import the data layer where they use it
    from svtgui.data.dataset import Dataset
    from svtgui.data.queries import Query
    from svtgui.data.universe import Universe

PMW, SPARSE_PROJECT = "pmw", "sparse_project"
LINEAR = (PMW, SPARSE_PROJECT)
# Run parameters that are not catalogue parameters (they describe the universe and the output).
RUN_PARAMS = {PMW: ("universe",), SPARSE_PROJECT: ("universe", "release_out")}
# Set by the runner: from the schema (neighbouring) or by the decision above (threshold_unit).
SET_BY_RUN = ("neighbouring", "threshold_unit")
RELEASE_SUFFIX = ".npz"


def is_linear(mechanism_id: str) -> bool:
    return mechanism_id in LINEAR


@dataclass(frozen=True)
class LinearPlan:
    """The public part of a linear run: the universe and (SparseProject) where the release goes."""

    specs: tuple[str, ...]
    universe: Universe
    release_out: Path | None = None

    def ledger_params(self) -> Params:
        """What the ledger records besides the catalogue parameters (public)."""
        out: Params = {"universe": list(self.specs), "universe_size": self.universe.size}
        if self.release_out is not None:
            out["release_out"] = str(self.release_out)
        return out


def universe_of(dataset: Dataset, specs: str | Sequence[str]) -> Universe:
    """The universe of ``specs``; ``ValueError`` naming the spec for anything not declared."""
    from svtgui.data.universe import Universe

    if isinstance(specs, str):
        specs = [specs]
    if not isinstance(specs, list | tuple) or not specs:
        raise ValueError("universe: choose at least one column whose histogram answers the queries")
    for s in specs:
        if not isinstance(s, str) or not s.strip():
            raise ValueError(f"universe: every column spec must be a non-empty string, got {s!r}")
    # QueryError (a ValueError) names the spec. Levels read off the data (Universe.levels_from_data)
    # are refused by the plan unless the curator allows them (svtgui.app.domains).
    return Universe.of(dataset, list(specs))


def linear_query(universe: Universe, query: Query | LinearQuery, position: str) -> LinearQuery:
    """A count query as an exact 0/1 linear query over the universe; ``position`` names it in errors."""
    from svtgui.data.predicates import Condition, Junction
    from svtgui.data.queries import Count, Mean, RangeCount

    text = _describe(query)
    if isinstance(query, RangeCount):
        lower = ">=" if query.closed in ("left", "both") else ">"
        upper = "<=" if query.closed in ("right", "both") else "<"
        where = Junction("and", (Condition(query.column, lower, query.low),
                                 Condition(query.column, upper, query.high)))
    elif isinstance(query, Count) and not isinstance(query, Mean):
        where = query.where
    else:
        kind = getattr(query, "kind", type(query).__name__)
        raise ValueError(f"{position} ({text}): a {kind} query is not a linear query over a universe; "
                         "PMW and SparseProject answer counts (count and range queries)")
    try:
        return universe.query(where, label=text)
    except ValueError as exc:
        raise ValueError(f"{position} ({text}): cannot be answered over the universe: {exc}") from None


def _describe(q: object) -> str:
    try:
        return str(q.describe())
    except Exception:  # a broken description must not hide the real error
        return type(q).__name__


def release_path(value: object) -> Path:
    """Check the release file path before anything is charged (directory exists and is writable)."""
    if not isinstance(value, str | os.PathLike) or not str(value).strip():
        raise ValueError("release_out: choose the file the SparseProject release is written to")
    p = Path(value).expanduser()
    if p.suffix != RELEASE_SUFFIX:
        raise ValueError(f"release_out: {p.name!r} must end in {RELEASE_SUFFIX} (an .npz release file)")
    if p.is_dir():
        raise ValueError(f"release_out: {p} is a directory; give a file name")
    if problem := folder_problem(p):  # a missing folder, or a regular file where a folder must be
        raise ValueError(f"release_out: {problem}")
    if not os.access(p.parent, os.W_OK):
        raise ValueError(f"release_out: directory {p.parent} is not writable")
    return p


def prepare(dataset: Dataset, queries: Sequence[Query], mechanism_id: str,
            params: Params) -> tuple[Params, LinearPlan]:
    """Split the run parameters off, derive neighbouring (and PMW's threshold unit), check queries."""
    params = dict(params)
    for key in SET_BY_RUN:
        if key in params:
            raise ParamError(key, f"parameter {key!r} cannot be set for a run: "
                             + ("it is the schema's neighbouring notion" if key == "neighbouring"
                                else "a PMW run's threshold is in rows"))
    extra = {k: params.pop(k) for k in RUN_PARAMS[mechanism_id] if k in params}
    if "universe" not in extra:
        raise ParamError("universe", f"{mechanism_id} needs a universe: the run parameter 'universe' lists "
                         "its columns, e.g. sex, education, age@17,25,35,45,55,65,91")
    with _field("universe"):
        universe = universe_of(dataset, extra["universe"])
    specs = tuple([extra["universe"]] if isinstance(extra["universe"], str) else extra["universe"])
    out = None
    if mechanism_id == SPARSE_PROJECT:
        with _field("release_out"):
            out = release_path(extra.get("release_out"))
    else:
        with _field("queries"):
            for i, q in enumerate(queries):
                linear_query(universe, q, f"query {i + 1}")
    params.update(set_by_run(dataset, mechanism_id))
    return params, LinearPlan(specs, universe, out)


def set_by_run(dataset: Dataset, mechanism_id: str) -> Params:
    """The parameters a run sets itself: the schema's neighbouring notion, PMW's threshold in rows."""
    unit = {"threshold_unit": ROWS} if mechanism_id == PMW else {}
    return {"neighbouring": _neighbouring(dataset), **unit}


@contextlib.contextmanager
def _field(name: str) -> Iterator[None]:
    """Tie a refusal to the run parameter it belongs to (:class:`ParamError`), for the plan."""
    try:
        yield
    except ParamError:
        raise
    except ValueError as exc:
        raise ParamError(name, str(exc)) from None


def _neighbouring(dataset: Dataset) -> str:
    return str(getattr(getattr(dataset.schema, "neighbouring", None), "value", "add_remove"))
