"""Vectorised simulators of the catalogue mechanisms, for auditing only.

The auditor needs millions of runs; calling ``submit`` a million times would take minutes. Each
simulator here runs thousands of independent copies of one mechanism at once with numpy, and is
built *from a real mechanism object* created by the catalogue factory: the noise scales, lattice,
cutoff, threshold policy and release rule are read from that object, so the auditor audits what
we ship, not a re-derivation of it. ``tests/core/test_audit_sim.py`` checks each simulator against
the streaming mechanism in distribution.

Noise here comes from a seeded numpy ``Generator`` (fast, reproducible, NOT secure): acceptable
because nothing here is ever released. Discrete Laplace is sampled as the engine does, as the
difference of two ``floor(t·E)`` geometric variables (E standard exponential).

Outputs of ``runs`` copies on one answer vector of length n are an :class:`Outputs`:
``above[r, i]`` is 1 (⊤ / selected), 0 (⊥ / not selected) or −1 (not answered: halted);
``values[r, i]`` is the released number for that query (NaN where none): the released value of
threshold mechanisms, the selection rank for selections.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from svtgui.core import mechanisms
from svtgui.core.audit.events import Event, View, expected_lcb, views_for
from svtgui.core.audit.first_hit import (
    FirstHits,
    Likelihood,
    RatioTable,
    ThresholdModel,
    all_outcomes,
    sample_first_hits,
)
from svtgui.core.audit.inputs import InputPair, number
from svtgui.core.audit.linear_sim import PMWSim, SparseProjectSim
from svtgui.core.audit.outputs import Outputs, Simulator, discrete_laplace
from svtgui.core.mechanisms.engine import Release, ThresholdSVT
from svtgui.core.mechanisms.lyu import ExponentialTopC, RetraversalSVT
from svtgui.core.mechanisms.pmw import PrivateMultiplicativeWeights
from svtgui.core.mechanisms.sparse_project import SparseProject


def _quantised(log_ratio: np.ndarray) -> np.ndarray:
    """Log-likelihood ratios as integer view keys (10^-6 steps; ±700 where one side is impossible)."""
    return np.rint(np.clip(np.nan_to_num(log_ratio, nan=0.0), -700.0, 700.0) * 1e6).astype(np.int64)


class VectorSimulator(Simulator):
    """A simulator of a mechanism on answer vectors: the standard answer-vector views."""

    def views(self, pair: InputPair, sample: Outputs) -> list[View]:
        return views_for(pair, sample)


class ThresholdSim(VectorSimulator):
    """The whole :class:`ThresholdSVT` family (AboveThreshold … lecture notes, Lyu 4–6).

    With cutoff 1 the output is the first ⊤ and its value, drawn by the fast exact sampler of
    :mod:`svtgui.core.audit.first_hit`; otherwise every query is simulated. Besides the standard
    views it offers the exact likelihood-ratio view of the first ⊤ (any cutoff: what follows the
    first ⊤ is simply not looked at), which the final test evaluates from first ⊤s alone.
    """

    def __init__(self, mech: ThresholdSVT) -> None:
        self.mechanism_id = mech.info.id
        lat = mech.lattice
        self.lattice = lat
        self.t_unit = float(lat.threshold_unit(mech.threshold))
        self.rho_scale = lat.scale_units(mech.scales.threshold)
        self.nu_scale = lat.scale_units(mech.scales.query)
        self.num_scale = None if mech.scales.numeric is None else lat.scale_units(mech.scales.numeric)
        self.cutoff = mech.cutoff
        self.refresh = mech.refresh_threshold
        self.release = mech.release
        self.model = ThresholdModel(self.t_unit, self.rho_scale, self.nu_scale, self.num_scale,
                                    mech.release.value)

    @property
    def noiseless(self) -> bool:
        """True when the query noise is always 0 (Lyu's Algorithm 5: every draw is below one step)."""
        return self.nu_scale * 40 < 1

    def first_hits(self, answers: np.ndarray, runs: int, gen: np.random.Generator) -> FirstHits:
        """The first ⊤ of each of ``runs`` runs and its released value (lattice units)."""
        q = self.lattice.to_units(answers).astype(np.float64)
        return sample_first_hits(self.model, q, runs, gen, discrete_laplace(gen, self.rho_scale, runs))

    def search_draw(self, answers: np.ndarray, runs: int, gen: np.random.Generator) -> Outputs | FirstHits:
        """What the search looks at: with cutoff 1 the first ⊤s alone (that is the whole output)."""
        return self.first_hits(answers, runs, gen) if self.cutoff == 1 else self.run(answers, runs, gen)

    def views(self, pair: InputPair, sample: Outputs | FirstHits) -> list[View]:
        """With cutoff 1 only the exact likelihood-ratio view: it orders the whole output optimally
        (Neyman–Pearson), and every further view would only add chances to overfit the search."""
        if isinstance(sample, FirstHits):
            return [self.ratio_view(pair)]
        return [*views_for(pair, sample), self.ratio_view(pair)]

    def exact_event(self, pair: InputPair, runs: int) -> Event | None:
        """With cutoff 1, the best event ``ln(P1/P2) ≥ t`` chosen on exact probabilities, or None.

        Every outcome is enumerated with its probability under both inputs, so the threshold with
        the largest expected ε_lcb at ``runs`` final runs is found without any search sample (no
        winner's curse at all). None for the gap rule and for larger cutoffs: the search samples.
        """
        if self.cutoff != 1:
            return None
        view, p1, p2 = self.ratio_view_and_models(pair)
        outcomes = all_outcomes(p1, p2)
        if outcomes is None:
            return None
        lp1, lp2 = p1.log_p(*outcomes), p2.log_p(*outcomes)
        with np.errstate(invalid="ignore"):
            keys = _quantised(lp1 - lp2)
        order = np.unique(keys)[::-1]
        where = np.searchsorted(-order, -keys)
        cum1 = np.cumsum(np.bincount(where, np.exp(lp1), minlength=len(order)))
        cum2 = np.cumsum(np.bincount(where, np.exp(lp2), minlength=len(order)))
        score = expected_lcb(cum1, cum2, runs)
        j = int(np.argmax(score))
        if not math.isfinite(score[j]):
            return None
        return Event(pair, view, order[: j + 1], float(score[j]), (float(cum1[j]), float(cum2[j])))

    def ratio_view(self, pair: InputPair) -> View:
        return self.ratio_view_and_models(pair)[0]

    def ratio_view_and_models(self, pair: InputPair) -> tuple[View, Likelihood, Likelihood]:
        """Outputs keyed by the exact log-likelihood ratio of their first ⊤ (and value), in 10^-6."""
        to_units = self.lattice.to_units
        p1, p2 = (Likelihood(self.model, to_units(d).astype(np.float64)) for d in (pair.d1, pair.d2))

        table: list[RatioTable] = []  # built on first use: the search of larger cutoffs may never need it

        def hit_keys(hits: FirstHits) -> np.ndarray:
            if not table:
                table.append(RatioTable(p1, p2))
            return _quantised(table[0](hits))

        def keys(o: Outputs | FirstHits) -> np.ndarray:
            return hit_keys(o if isinstance(o, FirstHits) else self._as_hits(o))

        name = "likelihood ratio of the first ⊤" + ("" if self.release is Release.NONE else " and its value")
        view = View(name, keys, lambda k: f"ln(P1/P2) ≥ {k / 1e6:.3f}", ordered=True, hit_keys=hit_keys,
                    plain=self._plain_ratio_event)
        return view, p1, p2

    def _plain_ratio_event(self, event_keys: np.ndarray) -> str:
        factor = math.exp(float(np.min(event_keys)) / 1e6)
        if self.release is Release.NONE:
            what = "the first ⊤ came at a question where, by the mechanism's published noise, that"
            verb = "is"
        else:
            what = ("the first ⊤ came at a question and with a released number that, by the mechanism's "
                    "published noise,")
            verb = "are together"
        if factor > 1e12:
            return f"{what} cannot happen at all with the second list of answers"
        times = number(round(factor, 2 if factor < 10 else 0))
        return (f"{what} {verb} at least {times} times as likely with the first list of answers as with "
                "the second")

    def _as_hits(self, o: Outputs) -> FirstHits:
        n = o.above.shape[1]
        hit = o.above == 1
        first = np.where(hit.any(axis=1), np.argmax(hit, axis=1), n)
        if o.values is None:
            return FirstHits(first, None, n)
        value = np.full(o.runs, np.nan)
        top = np.flatnonzero(first < n)
        value[top] = o.values[top, first[top]] / self.lattice.step
        return FirstHits(first, np.rint(value), n)

    def run(self, answers: np.ndarray, runs: int, gen: np.random.Generator) -> Outputs:
        if self.cutoff == 1:
            return self._materialised(self.first_hits(answers, runs, gen))
        q = self.lattice.to_units(answers).astype(np.float64)
        n = len(q)
        above = np.full((runs, n), -1, dtype=np.int8)
        values = None if self.release is Release.NONE else np.full((runs, n), np.nan)
        live = np.arange(runs)  # runs that have not halted; only they draw noise
        rho = discrete_laplace(gen, self.rho_scale, runs)
        count = np.zeros(runs, dtype=np.int64)
        for i in range(n):
            noise = np.zeros(live.size) if self.noiseless else discrete_laplace(gen, self.nu_scale, live.size)
            noisy = q[i] + noise
            hit = noisy >= self.t_unit + rho[live]
            above[live, i] = hit
            winners = live[hit]
            if values is not None and winners.size:
                values[winners, i] = self._released(gen, q[i], noisy[hit], rho[winners])
            count[winners] += 1
            done = count[winners] >= self.cutoff
            if self.refresh:
                redraw = winners[~done]
                rho[redraw] = discrete_laplace(gen, self.rho_scale, redraw.size)
            if done.any():
                live = live[count[live] < self.cutoff]
            if live.size == 0:
                break
        if values is not None:
            values *= self.lattice.step
        return Outputs(above, values)

    def _materialised(self, hits: FirstHits) -> Outputs:
        """Cutoff 1: ⊥ before the first ⊤, ⊤ there, not answered after."""
        idx = np.arange(hits.n)[None, :]
        first = hits.first[:, None]
        above = np.where(idx < first, 0, np.where(idx == first, 1, -1)).astype(np.int8)
        values = None
        if hits.value is not None:
            values = np.where(idx == first, hits.value[:, None] * self.lattice.step, np.nan)
        return Outputs(above, values)

    def _released(self, gen: np.random.Generator, q: float, noisy: np.ndarray, rho: np.ndarray) -> np.ndarray:
        """Released value (lattice units) of the ⊤ runs, by the engine's release rule."""
        if self.release is Release.FRESH:
            return q + discrete_laplace(gen, self.num_scale, len(noisy))
        if self.release is Release.GAP:
            return noisy - rho
        return noisy  # SAME_NOISE (lecture notes)


class RetraversalSim(VectorSimulator):
    """SVT-ReTr: fresh query noise per traversal, ρ once, first hits in index order until c."""

    def __init__(self, mech: RetraversalSVT) -> None:
        self.mechanism_id = mech.info.id
        self.lattice = mech.lattice
        self.t_unit = float(mech.lattice.threshold_unit(mech.raised_threshold))
        self.rho_scale = mech.lattice.scale_units(mech.scales.threshold)
        self.nu_scale = mech.lattice.scale_units(mech.scales.query)
        self.cutoff = mech.cutoff
        self.max_passes = mech.max_passes

    def run(self, answers: np.ndarray, runs: int, gen: np.random.Generator) -> Outputs:
        q = self.lattice.to_units(answers).astype(np.float64)
        n = len(q)
        rho = discrete_laplace(gen, self.rho_scale, runs)[:, None]
        selected = np.zeros((runs, n), dtype=bool)
        rank = np.full((runs, n), np.nan)
        chosen = np.zeros(runs, dtype=np.int64)
        active = np.ones(runs, dtype=bool)
        for _ in range(self.max_passes):
            rows = np.flatnonzero(active)
            if rows.size == 0:
                break
            noisy = q + discrete_laplace(gen, self.nu_scale, (rows.size, n))
            hits = (noisy >= self.t_unit + rho[rows]) & ~selected[rows]
            order = np.cumsum(hits, axis=1)
            take = hits & (order <= (self.cutoff - chosen[rows])[:, None])
            r_idx, c_idx = np.nonzero(take)
            rank[rows[r_idx], c_idx] = chosen[rows[r_idx]] + order[r_idx, c_idx] - 1
            selected[rows] |= take
            chosen[rows] += take.sum(axis=1)
            active[rows] = (chosen[rows] < self.cutoff) & ~selected[rows].all(axis=1)
        return Outputs(selected.astype(np.int8), rank)


class ExponentialTopSim(VectorSimulator):
    """Top-c by Gumbel-max scores, as :class:`ExponentialTopC` (ranks as values)."""

    def __init__(self, mech: ExponentialTopC) -> None:
        self.mechanism_id = mech.info.id
        factor = 1.0 if mech.monotonic else 2.0
        self.weight = mech.guarantee.epsilon / mech.cutoff / (factor * mech.sensitivity)
        self.cutoff = mech.cutoff

    def run(self, answers: np.ndarray, runs: int, gen: np.random.Generator) -> Outputs:
        q = np.asarray(answers, dtype=np.float64)
        n = len(q)
        scores = self.weight * q + gen.gumbel(size=(runs, n))
        c = min(self.cutoff, n)
        order = np.argsort(-scores, axis=1)[:, :c]
        above = np.zeros((runs, n), dtype=np.int8)
        rank = np.full((runs, n), np.nan)
        rows = np.arange(runs)[:, None]
        above[rows, order] = 1
        rank[rows, order] = np.arange(c)
        return Outputs(above, rank)


class GenericSim(VectorSimulator):
    """Any other mechanism, run one copy at a time through its public API (slow but faithful)."""

    vectorised = False

    def __init__(self, mechanism_id: str, params: Mapping[str, Any]) -> None:
        self.mechanism_id = mechanism_id
        self.params = dict(params)
        self.interactive = mechanisms.info(mechanism_id).interactive

    def run(self, answers: np.ndarray, runs: int, gen: np.random.Generator) -> Outputs:
        n = len(answers)
        above = np.full((runs, n), -1 if self.interactive else 0, dtype=np.int8)
        values = np.full((runs, n), np.nan)
        seeds = gen.integers(0, 2**63 - 1, size=runs)
        for r in range(runs):
            mech = mechanisms.create(self.mechanism_id, rng=mechanisms.seeded(int(seeds[r])),
                                     allow_non_private=True, **self.params)
            if self.interactive:
                batch = mech.submit_many(answers)
                above[r, :batch.consumed] = batch.above[:batch.consumed]
                values[r, :batch.consumed] = batch.values[:batch.consumed]
            else:
                sel = mech.select(answers)
                idx = list(sel.indices)
                above[r, idx] = 1
                values[r, idx] = np.arange(len(idx)) if sel.values is None else sel.values
        return Outputs(above, values)


def simulator_for(mechanism_id: str, params: Mapping[str, Any]) -> Simulator:
    """The fastest faithful simulator of ``mechanism_id`` with these public parameters."""
    mech = mechanisms.create(mechanism_id, rng=mechanisms.seeded(0), allow_non_private=True, **params)
    if isinstance(mech, ThresholdSVT):
        return ThresholdSim(mech)
    if isinstance(mech, RetraversalSVT):
        return RetraversalSim(mech)
    if isinstance(mech, ExponentialTopC):
        return ExponentialTopSim(mech)
    if isinstance(mech, PrivateMultiplicativeWeights):
        return PMWSim(mech)
    if isinstance(mech, SparseProject):
        return SparseProjectSim(mech)
    return GenericSim(mechanism_id, params)


def on_histograms(mechanism_id: str) -> bool:
    """True for the mechanisms that take a histogram over a universe (PMW, SparseProject)."""
    return mechanisms.info(mechanism_id).id in HISTOGRAM_DEFAULTS


# Audit settings of the mechanisms on histograms: PMW's threshold α (a fraction of n̂; T = 0 would
# pay for every query) and a small SparseProject projection (its calibration holds for every T).
HISTOGRAM_DEFAULTS: dict[str, dict[str, Any]] = {"pmw": {"threshold": 0.1},
                                                 "sparse_project": {"projection_size": 16}}


def audit_params(mechanism_id: str, epsilon: float, overrides: Mapping[str, Any] | None = None) -> dict:
    """The public parameters an audit runs with: claimed ε, T = 0, c = 1, Δ = 1, integer answers.

    Integer answers put every mechanism on the step-1 lattice, where neighbouring answers differ by
    exactly one step. PMW audits at α = 0.1, SparseProject at T = 16 (:data:`HISTOGRAM_DEFAULTS`).
    ``overrides`` replaces any of these (e.g. a larger cutoff).
    """
    entry = mechanisms.info(mechanism_id)
    names = {p.name for p in entry.params}
    chosen = {"epsilon": epsilon, "threshold": 0.0, "cutoff": 1, "sensitivity": 1.0, "integer": True,
              **HISTOGRAM_DEFAULTS.get(entry.id, {})}
    params = {k: v for k, v in chosen.items() if k in names}
    if "delta" in names:  # pure ε where the mechanism allows it, else its own default δ
        params["delta"] = entry.param("delta").default or 0.0
    for p in entry.params:
        if p.required and p.name not in params:
            raise ValueError(f"the auditor does not know how to set parameter {p.name!r} of {mechanism_id}; "
                             "pass it explicitly")
    params.update(overrides or {})
    return params
