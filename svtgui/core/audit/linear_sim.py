"""Vectorised simulators of PMW and SparseProject, for auditing only (see :mod:`svtgui.core.audit.sim`).

Each is built from a real mechanism object the catalogue factory created and reads its noise
scales, shares and rules from it, so the auditor audits what we ship;
``tests/core/test_audit_linear.py`` checks each against the real mechanism in distribution.

SparseProject
    The release is ``w = S·D + noise`` with S = √T·A the public ±1 sign matrix (integer units)
    and ``n̂ = max(n + DLap(1/ε_n), 1)`` under add/remove. S·D is computed once; only the noise
    varies across runs, drawn in bulk (discrete Gaussian by the same rejection sampler as
    :mod:`svtgui.core.gaussian`, or discrete Laplace). The hash behind S is drawn once, by the real
    mechanism's own ``release``: the calibration holds for every sign matrix (the sensitivity
    argument bounds every column), so the audit conditions on one public matrix, which is
    exactly what the proof claims.
PMW
    Until a run's first paid answer its public synthetic histogram p is uniform, so all runs
    share the simulated answers ⟨Q, p⟩ and are simulated together; at a paid answer the runs
    split into groups with the same public history (query, direction of the update, η), each
    group continuing with its own p. The arithmetic mirrors the mechanism's operation for
    operation (the same float products, the same lattice rounding of the error, the same
    threshold α·n̂ in lattice units), so the only difference is the noise generator.
"""

from __future__ import annotations

import math

import numpy as np

from svtgui.core import mechanisms
from svtgui.core.audit.events import View
from svtgui.core.audit.linear import ROWS, UNIVERSE, HistogramPair, LinearInput
from svtgui.core.audit.linear_events import pmw_views, sparse_project_views
from svtgui.core.audit.outputs import Outputs, Simulator, discrete_laplace
from svtgui.core.linear import SparseHistogram
from svtgui.core.mechanisms import dwork_roth
from svtgui.core.mechanisms import sparse_project_theory as theory
from svtgui.core.mechanisms.pmw import FRACTION, PrivateMultiplicativeWeights
from svtgui.core.mechanisms.sparse_project import SparseProject
from svtgui.core.noise import Lattice

MAX_GROUPS = 20_000  # PMW histories simulated separately before the simulator gives up


def discrete_gaussian(gen: np.random.Generator, sigma: float, shape: tuple[int, ...]) -> np.ndarray:
    """``P[Y = y] ∝ exp(−y²/(2σ²))`` on the integers (float64), by Canonne–Kamath–Steinke rejection.

    The same algorithm as :func:`svtgui.core.gaussian.discrete_gaussian`: discrete Laplace of
    scale t = ⌊σ⌋ + 1, accepted with probability exp(−(|Y| − σ²/t)²/(2σ²)).
    """
    t = math.floor(sigma) + 1
    total = int(np.prod(shape))
    out = np.empty(total)
    filled = 0
    while filled < total:
        batch = max(16, int((total - filled) * 1.6))
        y = discrete_laplace(gen, t, batch)
        accept = gen.random(batch) <= np.exp(-((np.abs(y) - sigma * sigma / t) ** 2) / (2 * sigma * sigma))
        got = y[accept][: total - filled]
        out[filled:filled + got.size] = got
        filled += got.size
    return out.reshape(shape)


def _noisy_count(gen: np.random.Generator, n: int, count_epsilon: float, runs: int) -> np.ndarray:
    """n̂ = max(n + DLap(1/ε_n), 1) (exact n when ε_n = 0: n is public)."""
    if count_epsilon == 0:
        return np.full(runs, max(n, 1), dtype=np.int64)
    return np.maximum(n + discrete_laplace(gen, 1 / count_epsilon, runs), 1).astype(np.int64)


class SparseProjectSim(Simulator):
    """Many releases of one :class:`SparseProject` configuration on one histogram, one public matrix."""

    def __init__(self, mech: SparseProject) -> None:
        self.mechanism_id = mech.info.id
        self.neighbouring = mech.neighbouring
        self.projection_size = mech.projection_size
        self.gaussian = mech.noise == theory.GAUSSIAN
        self.scale_w = mech.scale * math.sqrt(mech.projection_size)  # as SparseProject._draw
        self.count_epsilon = mech.count_epsilon
        public = mech.release(SparseHistogram(np.array([], dtype=np.int64), np.array([], dtype=np.int64),
                                              UNIVERSE))
        self.signs = public.signs(np.arange(UNIVERSE)).astype(np.int64)

    def run(self, inp: LinearInput, runs: int, gen: np.random.Generator) -> Outputs:
        hist = inp.histogram
        exact = (self.signs @ hist.dense().astype(np.int64)).astype(np.float64)
        shape = (runs, self.projection_size)
        noise = (discrete_gaussian(gen, self.scale_w, shape) if self.gaussian
                 else discrete_laplace(gen, self.scale_w, shape))
        noise += exact
        return Outputs(np.zeros((runs, 0), dtype=np.int8), None,
                       {"w": noise, "n_hat": _noisy_count(gen, hist.n, self.count_epsilon, runs)})

    def views(self, pair: HistogramPair, sample: Outputs) -> list[View]:
        return sparse_project_views(pair, sample, self.signs)


class PMWSim(Simulator):
    """Many runs of one :class:`PrivateMultiplicativeWeights` configuration on one input."""

    def __init__(self, mech: PrivateMultiplicativeWeights) -> None:
        self.mechanism_id = mech.info.id
        svt = dwork_roth.sparse(epsilon=mech.svt_epsilon, delta=mech.delta, threshold=0.0, cutoff=mech.cutoff,
                                sensitivity=1.0, integer=False, rng=mechanisms.seeded(0))  # as pmw.bind
        self.lattice = svt.lattice
        self.rho_scale = svt.lattice.scale_units(svt.scales.threshold)
        self.nu_scale = svt.lattice.scale_units(svt.scales.query)
        self.refresh = svt.refresh_threshold
        self.cutoff = mech.cutoff
        self.count_epsilon = mech.count_epsilon
        self.answer_epsilon = mech.answer_epsilon / mech.cutoff  # per paid answer, as pmw.submit
        self.threshold = mech.threshold
        self.fraction = mech.threshold_unit == FRACTION
        self.eta = mech._eta  # None: derived from the threshold at bind, as pmw.bind
        self.neighbouring = mech.neighbouring

    @property
    def threshold_rows(self) -> float:
        """The SVT test's threshold in rows on the audit datasets (α·n for a fraction α)."""
        return self.threshold * ROWS if self.fraction else self.threshold

    def run(self, inp: LinearInput, runs: int, gen: np.random.Generator) -> Outputs:
        run = _PMWRun(self, inp, runs, gen)
        run.walk(np.arange(runs), 0, np.full(inp.histogram.size, 1.0 / inp.histogram.size))
        return Outputs(run.above, run.values, {"n_hat": run.n_hat})

    def views(self, pair: HistogramPair, sample: Outputs) -> list[View]:
        return pmw_views(pair, sample)


class RealPMW(Simulator):
    """PMW run through its public API once per run: slow (the baseline of ``bench/audit.py``) but
    the mechanism itself, for any cutoff; the reference the vectorised :class:`PMWSim` is tested against."""

    vectorised = False

    def __init__(self, params: dict) -> None:
        self.mechanism_id = "pmw"
        self.params = dict(params)

    def run(self, inp: LinearInput, runs: int, gen: np.random.Generator) -> Outputs:
        k = len(inp.queries)
        above, values = np.full((runs, k), -1, dtype=np.int8), np.full((runs, k), np.nan)
        n_hat = np.zeros(runs, dtype=np.int64)
        for r, seed in enumerate(gen.integers(0, 2**63 - 1, size=runs).tolist()):
            mech = mechanisms.create("pmw", rng=mechanisms.seeded(seed), **self.params)
            mech.bind(inp.histogram)
            n_hat[r] = mech.n
            for i, q in enumerate(inp.queries):
                resp = mech.submit(q)
                above[r, i], values[r, i] = resp.above, resp.value
                if mech.halted:
                    break
        return Outputs(above, values, {"n_hat": n_hat})

    def views(self, pair: HistogramPair, sample: Outputs) -> list[View]:
        return pmw_views(pair, sample)


class _PMWRun:
    """The state of ``runs`` simulated PMW runs on one input (one call of :meth:`PMWSim.run`)."""

    def __init__(self, sim: PMWSim, inp: LinearInput, runs: int, gen: np.random.Generator) -> None:
        self.sim, self.gen, self.queries = sim, gen, inp.queries
        k = len(inp.queries)
        self.true = np.array([q.count(inp.histogram) for q in inp.queries])
        self.n_hat = _noisy_count(gen, inp.histogram.n, sim.count_epsilon, runs)
        n = self.n_hat.astype(np.float64)
        rows_threshold = sim.threshold * n if sim.fraction else np.full(runs, sim.threshold)
        self.t_units = sim.lattice.threshold_units(rows_threshold)
        self.eta = rows_threshold / n / 2 if sim.eta is None else np.full(runs, sim.eta)
        self.rho = discrete_laplace(gen, sim.rho_scale, runs)
        self.count = np.zeros(runs, dtype=np.int64)
        self.above = np.full((runs, k), -1, dtype=np.int8)
        self.values = np.full((runs, k), np.nan)
        self.groups = 0

    def _paid(self, i: int, rows: np.ndarray) -> np.ndarray:
        """Fresh discrete Laplace answers to query i for ``rows``, normalised by n̂ (as pmw.submit)."""
        q = self.queries[i]
        lat = Lattice.for_sensitivity(1.0, integer=bool(np.all(q.weights == 1.0)))
        units = lat.to_units(np.full(rows.size, self.true[i]))
        scale = lat.scale_units(lat.effective_sensitivity / self.sim.answer_epsilon)
        noise = discrete_laplace(self.gen, scale, rows.size).astype(np.int64)
        released = np.asarray(lat.to_value(units + noise))
        return released.astype(np.float64) / self.n_hat[rows]

    def walk(self, rows: np.ndarray, start: int, p: np.ndarray) -> None:
        """Simulate ``rows`` (all with synthetic histogram ``p``) from query ``start`` on."""
        sim, gen = self.sim, self.gen
        self.groups += 1
        if self.groups > MAX_GROUPS:
            raise ValueError(f"pmw audit: more than {MAX_GROUPS} distinct histories; use a smaller cutoff")
        live = rows
        for i in range(start, len(self.queries)):
            if live.size == 0:
                return
            q = self.queries[i]
            simulated = float(np.dot(q.weights, p[q.indices]))
            err = np.abs(self.true[i] - simulated * self.n_hat[live])
            noisy = sim.lattice.to_units(err) + discrete_laplace(gen, sim.nu_scale, live.size)
            hit = noisy >= self.t_units[live] + self.rho[live]
            self.above[live, i] = hit
            self.values[live[~hit], i] = simulated
            winners = live[hit]
            live = live[~hit]
            if winners.size == 0:
                continue
            paid = self._paid(i, winners)
            self.values[winners, i] = paid
            self.count[winners] += 1
            going = self.count[winners] < sim.cutoff
            cont, up = winners[going], paid[going] > simulated
            if sim.refresh:
                self.rho[cont] = discrete_laplace(gen, sim.rho_scale, cont.size)
            self._branch(cont, up, i, p)

    def _branch(self, rows: np.ndarray, up: np.ndarray, i: int, p: np.ndarray) -> None:
        """Continue each group of ``rows`` with the same multiplicative-weights step after query i."""
        if rows.size == 0:
            return
        q = self.queries[i]
        step = np.where(up, self.eta[rows], -self.eta[rows])
        for s in np.unique(step):
            nxt = p.copy()
            nxt[q.indices] *= np.exp(float(s) * q.weights)
            nxt /= nxt.sum()
            self.walk(rows[step == s], i + 1, nxt)
