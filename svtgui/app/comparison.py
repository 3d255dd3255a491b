"""Sparse, NumericSparse, Standard SVT and the exponential mechanism side by side, before spending.

For the current queue length k, ε, c, T, Δ and β, each row says what the mechanism releases, its
α (its own ``accuracy_bound``), and — for a *hypothetical* true answer x the curator types — the
exact chance that a query at x comes back ⊤ (:mod:`svtgui.core.preview`) and how many ⊤ the run
would give before its cutoff if every queued query had that answer.

Why hypothetical: how many ⊤ a run gives depends on the true answers, which are private. Nothing
here reads the data; x is the curator's "what if", like T.

The ⊤ count is an upper bound, exact in the way it is stated: with N the number of ⊤ among k
queries at x, the run gives min(c, N) and E[min(c, N)] ≤ min(c, E[N]) (min is concave). For
Standard SVT each query is ⊤ with probability P[⊤] (ρ is drawn once, the ν_i are independent),
so E[N] = k·P[⊤]; for Sparse, the ρ in force has survived the ⊥ answers since it was drawn, which
only lowers a later query's chance, so E[N] ≤ k·P[⊤]. Either way the run gives at most
min(c, k·P[⊤]) ⊤ on average. The exponential mechanism has no threshold: it selects exactly
min(c, k) queries.
"""

from __future__ import annotations

from dataclasses import dataclass

from svtgui.app.params import Params
from svtgui.app.preview_text import releases
from svtgui.app.workspace import Workspace, read_entry
from svtgui.core import mechanisms
from svtgui.core.noise import ScaleProbe
from svtgui.core.preview import TopCurve
from svtgui.core.wording import plain

COMPARED = ("sparse", "numeric_sparse", "standard_svt", "em_top_c")
SHARED = ("epsilon", "delta", "threshold", "cutoff", "sensitivity", "integer", "monotonic")


@dataclass(frozen=True)
class Row:
    """One mechanism's line of the comparison, in words and plain numbers."""

    mechanism_id: str
    name: str
    releases: str
    alpha: str
    meaning: str  # what α promises for this mechanism
    top_at_x: str  # exact P[⊤] of a query whose true answer is x
    tops: str  # ⊤ before the cutoff among k queries at x (an upper bound, see the module docstring)
    note: str = ""


def chance(p: float) -> str:
    """A probability as a percentage that never rounds to a certainty it is not ("> 99.9%"): Laplace
    noise is unbounded, so no query is ever certain to come back ⊤ or ⊥."""
    if p > 0.999:
        return "> 99.9%"
    if p < 0.001:
        return "< 0.1%"
    return f"{plain(100 * p, 3)}%"


def _params(mechanism_id: str, base: Params) -> tuple[Params, str]:
    """``base`` restricted to what ``mechanism_id`` takes, and a note on what it cannot take (δ)."""
    names = {p.name for p in mechanisms.info(mechanism_id).params}
    params = {k: v for k, v in base.items() if k in names and k in SHARED and v is not None}
    note = ""
    if base.get("delta") and "delta" not in names:
        note = "pure ε-DP: δ is not used"
    return params, note


def row(mechanism_id: str, base: Params, k: int, beta: float, x: float | None) -> Row:
    """The line of one mechanism (its problem in words when the parameters do not build it).

    No query queued yet (``k = 0``) is read as a single query, as the panel's header says: every
    column then speaks of that one query (it said "at most 0 ⊤" under "for a single query")."""
    k = max(1, k)
    info = mechanisms.info(mechanism_id)
    params, note = _params(mechanism_id, base)
    names = {p.name for p in info.params}
    missing = [sign for name, sign in (("epsilon", "ε"), ("threshold", "T"))
               if name in names and base.get(name) is None]
    if missing:  # said in the curator's words, not as the catalogue's "needs parameter 'epsilon'"
        return Row(mechanism_id, info.name, "—", "—", "—", "—", "—",
                   f"type {' and '.join(missing)} on the Mechanism page")
    try:
        mech = mechanisms.create(mechanism_id, rng=ScaleProbe(), **params)
        alpha = plain(float(mech.accuracy_bound(k, beta).alpha))
    except (ValueError, TypeError) as exc:
        return Row(mechanism_id, info.name, "—", "—", "—", "—", "—", str(exc))
    cutoff = int(getattr(mech, "cutoff", 1))
    if not info.interactive:  # EM: no threshold, exactly min(c, k) selected
        return Row(mechanism_id, info.name, releases(mech), alpha, "each pick within α of the best left",
                   "no threshold", f"selects {plain(min(cutoff, k))}", note)
    meaning = "⊥ below T − α, ⊤ above T + α" + ("; numbers within ±α" if mech.releases_numbers else "")
    if x is None:
        return Row(mechanism_id, info.name, releases(mech), alpha, meaning, "type x", "type x", note)
    p = float(TopCurve.of(mech).probability([x])[0])
    return Row(mechanism_id, info.name, releases(mech), alpha, meaning, chance(p),
               f"at most {plain(min(cutoff, k * p), 3)}", note)


def compare(base: Params, k: int, beta: float, x: float | None) -> list[Row]:
    """Every compared mechanism with the shared parameters ``base`` (ε, δ, T, c, Δ, integer,
    monotonic), over ``k`` queued queries, at level β, for a hypothetical answer ``x`` (or None)."""
    return [row(m, base, k, beta, x) for m in COMPARED]


def base_from(workspace: Workspace) -> Params:
    """The shared parameters as the workspace holds them (typed entries read as each compared
    mechanism reads them; Δ, integer and monotonic from the queue, as a run derives them)."""
    facts = workspace.facts
    base: Params = {"sensitivity": facts.sensitivity or 1.0,
                            "integer": bool(facts.count and facts.problem is None and facts.integer),
                            "monotonic": bool(facts.monotonic)}
    entries = workspace.entries
    for name in ("epsilon", "delta", "threshold", "cutoff"):
        param = next(p for m in COMPARED for p in mechanisms.info(m).params if p.name == name)
        try:
            base[name] = read_entry(param, entries.get(name, param.default))
        except ValueError:
            base[name] = None  # the row then says what is missing
    return base
