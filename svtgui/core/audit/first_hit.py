"""The first ⊤ of threshold SVTs: a fast exact sampler and its exact likelihood ratio.

Everything before a threshold mechanism's first ⊤ is decided by the first noisy threshold
``T + ρ`` and the query noise, whatever the cutoff and threshold policy. So the pair *(position
of the first ⊤, the value released with it)* can be sampled in O(blocks) per run instead of
O(queries): within a block of equal answers the number of ⊥ before a ⊤ is geometric given ρ, and
the ⊤'s noise is the query noise conditioned on passing. With cutoff 1 that pair *is* the output.

Its probability under an input is also a one-dimensional sum over ρ, computed here from the
mechanism's public noise scales: ``log P(first ⊤ at k, value v)``. The auditor ranks outputs by the
ratio of these (the Neyman–Pearson order, DP-Sniper's "threshold attack" with the exact ratio
instead of a learned one), so its search only has to choose a threshold on that ratio.

Noise is APPROXIMATE in the release sense (numpy's seeded generator, float logarithms): fine for an
audit, whose results are statistics, never releases. All arithmetic is in lattice units.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

RHO_SPAN = 40.0  # ρ is summed over ±RHO_SPAN scales (outside: mass below e^-40)


@dataclass
class FirstHits:
    """Per run: index of the first ⊤ (``n`` when none) and its released value in lattice units."""

    first: np.ndarray  # int64 (runs,)
    value: np.ndarray | None  # float64 (runs,), NaN where no ⊤ or nothing released
    n: int

    @property
    def runs(self) -> int:
        return int(self.first.shape[0])

    def concat(self, other: FirstHits) -> FirstHits:
        value = None if self.value is None else np.concatenate([self.value, other.value])
        return FirstHits(np.concatenate([self.first, other.first]), value, self.n)


@dataclass(frozen=True)
class ThresholdModel:
    """The public parameters of a threshold SVT, in lattice units (read from the mechanism object).

    ``release`` is the engine's release rule name: "none", "fresh", "gap" or "same_noise".
    """

    t: float
    rho_scale: float
    nu_scale: float
    num_scale: float | None
    release: str


def _dl_log_pmf(x: np.ndarray, scale: float) -> np.ndarray:
    a = 1.0 / scale
    return math.log(math.tanh(a / 2)) - a * np.abs(x)


def dl_log_sf(x: np.ndarray, scale: float) -> np.ndarray:
    """``log P[Z ≥ x]`` for discrete Laplace Z of ``scale`` and integer x."""
    a = 1.0 / scale
    x = np.asarray(x, dtype=np.float64)
    lead = math.log1p(math.exp(-a))
    pos = -a * np.maximum(x, 0) - lead  # x ≥ 0: e^{-a x}/(1 + e^{-a})
    neg = np.log1p(-np.exp(a * np.minimum(x, 0) - a - lead))  # x ≤ 0: 1 − P[Z ≤ x − 1]
    return np.where(x >= 0, pos, neg)


def _dl_log_cdf(x: np.ndarray, scale: float) -> np.ndarray:
    """``log P[Z ≤ x]`` (by symmetry, P[Z ≥ −x])."""
    return dl_log_sf(-np.asarray(x, dtype=np.float64), scale)


def _tail_sample(gen: np.random.Generator, x: np.ndarray, scale: float) -> np.ndarray:
    """Discrete Laplace Z of ``scale`` conditioned on ``Z ≥ x``, one draw per entry of ``x``.

    Above 0 the law is memoryless: ``max(x, 0) + floor(scale·E)``. For x < 0 the draw is that with
    probability P[Z ≥ 0 | Z ≥ x], else ``−j`` with j in 1..−x by a truncated geometric inverse CDF.
    """
    a = 1.0 / scale
    out = np.maximum(x, 0) + np.floor(scale * gen.standard_exponential(x.shape))
    neg = np.flatnonzero(x < 0)
    if neg.size:
        xs = x[neg]
        log_nonneg = dl_log_sf(np.zeros_like(xs), scale) - dl_log_sf(xs, scale)
        below = np.log(gen.random(neg.size)) >= log_nonneg
        m = -xs[below]
        u = gen.random(m.size)
        j = np.minimum(np.floor(-np.log1p(-u * -np.expm1(-a * m)) * scale), m - 1)
        out[neg[below]] = -(j + 1)
    return out


def blocks(q: np.ndarray) -> list[tuple[int, int]]:
    """``(start, stop)`` of each run of equal consecutive answers."""
    edges = np.flatnonzero(np.diff(q) != 0) + 1
    starts = np.concatenate([[0], edges])
    stops = np.concatenate([edges, [len(q)]])
    return list(zip(starts.tolist(), stops.tolist(), strict=True))


def sample_first_hits(model: ThresholdModel, q: np.ndarray, runs: int, gen: np.random.Generator,
                      rho: np.ndarray) -> FirstHits:
    """Exact draws of (first ⊤, its value) on answers ``q`` (lattice units) given thresholds ``rho``."""
    n = len(q)
    if model.nu_scale * 40 < 1 and model.release == "none":  # no query noise: the first answer ≥ T + ρ
        first = np.searchsorted(np.maximum.accumulate(q), np.ceil(model.t + rho), side="left")
        return FirstHits(first.astype(np.int64), None, n)
    first = np.full(runs, n, dtype=np.int64)
    value = None if model.release == "none" else np.full(runs, np.nan)
    live = np.arange(runs)
    for start, stop in blocks(q):
        if live.size == 0:
            break
        x = np.ceil(model.t + rho[live] - q[start])  # ⊤ iff ν ≥ x
        with np.errstate(divide="ignore", over="ignore"):
            rate = -np.log1p(-np.exp(dl_log_sf(x, model.nu_scale)))  # −log P[⊥]
            misses = np.floor(gen.standard_exponential(live.size) / rate)  # ⊥ before the first ⊤
        hit = misses < stop - start
        winners = live[hit]
        first[winners] = start + misses[hit].astype(np.int64)
        if value is not None and winners.size:
            value[winners] = _released(model, gen, q[start], x[hit], rho[winners])
        live = live[~hit]
    return FirstHits(first, value, n)


def _released(model: ThresholdModel, gen: np.random.Generator, q: float, x: np.ndarray,
              rho: np.ndarray) -> np.ndarray:
    if model.release == "fresh":
        e = gen.standard_exponential((2, x.size)) * model.num_scale
        return q + np.floor(e[0]) - np.floor(e[1])
    nu = _tail_sample(gen, x, model.nu_scale)
    return q + nu - rho if model.release == "gap" else q + nu


class Likelihood:
    """``log P(first ⊤ at k, value v)`` on one input ``q`` (lattice units), summed over ρ.

    The sums over ρ that do not depend on the value are tabulated once per input; with the
    lecture notes' rule (value = the compared noisy answer) a running log-sum over ρ turns each
    value's sum into a lookup. Only the gap rule sums per distinct outcome (cached).
    """

    def __init__(self, model: ThresholdModel, q: np.ndarray) -> None:
        self.model, self.q, self.n = model, np.asarray(q, dtype=np.float64), len(q)
        span = math.ceil(RHO_SPAN * model.rho_scale)
        self.grid = np.arange(-span, span + 1, dtype=np.float64)
        x = np.ceil(model.t + self.grid[None, :] - self.q[:, None])  # ⊤ at query j iff ν ≥ x[j]
        log_miss = _dl_log_cdf(x - 1, model.nu_scale)
        self.acc = _dl_log_pmf(self.grid, model.rho_scale) + np.vstack(
            [np.zeros(len(self.grid)), np.cumsum(log_miss, axis=0)])  # ρ and the ⊥ before query k
        self.first_only = np.array([_lse(row) for row in np.vstack(
            [self.acc[:-1] + dl_log_sf(x, model.nu_scale), self.acc[-1:]])])
        self.running = np.logaddexp.accumulate(self.acc, axis=1) if model.release == "same_noise" else None
        self.cache: dict[tuple[int, float], float] = {}

    def log_p(self, first: np.ndarray, value: np.ndarray | None) -> np.ndarray:
        """Per outcome (not per run): log-probability of ``first`` and, where released, ``value``."""
        m, out = self.model, self.first_only[first].copy()
        if value is None or m.release == "none":
            return out
        top = first < self.n
        k, v = first[top], value[top]
        if m.release == "fresh":
            out[top] += _dl_log_pmf(v - self.q[k], m.num_scale)
        elif m.release == "same_noise":  # v = q + ν, and ⊤ iff ρ ≤ v − t
            idx = np.floor(v - m.t - self.grid[0]).astype(np.int64)
            ok = idx >= 0
            part = np.full(len(k), -np.inf)
            part[ok] = self.running[k[ok], np.minimum(idx[ok], len(self.grid) - 1)]
            out[top] = part + _dl_log_pmf(v - self.q[k], m.nu_scale)
        else:  # gap: v = q + ν − ρ, and ⊤ iff v ≥ t
            out[top] = [self._gap(int(a), float(b)) for a, b in zip(k, v, strict=True)]
        return out

    def _gap(self, k: int, v: float) -> float:
        if (k, v) not in self.cache:
            inside = self.acc[k] + _dl_log_pmf(v + self.grid - self.q[k], self.model.nu_scale)
            self.cache[k, v] = _lse(inside) if v >= self.model.t else -math.inf
        return self.cache[k, v]


def all_outcomes(p1: Likelihood, p2: Likelihood) -> tuple[np.ndarray, np.ndarray | None] | None:
    """Every outcome (first ⊤, value) of either input with probability above about e^-30, or None.

    None for the gap rule, whose per-outcome sums would be too slow to enumerate.
    """
    m = p1.model
    if m.release == "gap":
        return None
    n = p1.n
    if m.release == "none":
        return np.arange(n + 1), None
    scale = m.num_scale if m.release == "fresh" else m.nu_scale
    span = math.ceil(30 * scale)
    answers = np.concatenate([p1.q, p2.q])
    values = np.arange(answers.min() - span, answers.max() + span + 1)
    first = np.concatenate([np.repeat(np.arange(n), len(values)), [n]])
    value = np.concatenate([np.tile(values, n), [np.nan]])
    return first, value


def _lse(x: np.ndarray) -> float:
    m = float(np.max(x))
    return m if not math.isfinite(m) else m + math.log(float(np.sum(np.exp(x - m))))


def log_ratios(p1: Likelihood, p2: Likelihood, hits: FirstHits) -> np.ndarray:
    """Per run, ``log P1(outcome)/P2(outcome)`` (clipped to ±700 where one side is impossible)."""
    first = hits.first.astype(np.int64)
    if hits.value is None or p1.model.release == "none":  # the first ⊤ alone: a table lookup
        with np.errstate(invalid="ignore"):
            table = p1.first_only - p2.first_only
        return np.clip(np.nan_to_num(table, nan=0.0), -700.0, 700.0)[first]
    else:  # one int64 key per (first, value): values are lattice integers, far below 2^31
        released = np.isfinite(hits.value)
        code = np.where(released, np.nan_to_num(hits.value) + 2**31, 0).astype(np.int64)
        outcomes, inverse = np.unique(first * 2**32 + code, return_inverse=True)
        first, code = np.divmod(outcomes, 2**32)
        value = np.where(code == 0, np.nan, code - 2.0**31)
    with np.errstate(invalid="ignore"):
        lr = p1.log_p(first, value) - p2.log_p(first, value)
    return np.clip(np.nan_to_num(lr, nan=0.0), -700.0, 700.0)[inverse.ravel()]


class RatioTable:
    """``log P1/P2`` of every likely outcome, tabulated once, so each run costs one lookup.

    The final test evaluates the event on tens of millions of runs; sorting each chunk's outcomes
    to sum over ρ per distinct one would cost more than simulating them. Outcomes outside the table
    (probability below about e^-30, or the gap rule) fall back to :func:`log_ratios`.
    """

    def __init__(self, p1: Likelihood, p2: Likelihood) -> None:
        self.p1, self.p2 = p1, p2
        self.n = p1.n
        outcomes = all_outcomes(p1, p2)
        self.table: np.ndarray | None = None
        if outcomes is None:
            return
        first, value = outcomes
        with np.errstate(invalid="ignore"):
            lr = np.clip(np.nan_to_num(p1.log_p(first, value) - p2.log_p(first, value), nan=0.0), -700, 700)
        if value is None:
            self.table, self.lo, self.width = lr, 0.0, 0
        else:
            self.lo = float(value[0])
            self.width = (len(value) - 1) // self.n
            self.table = lr  # row k·width + (v − lo) for k < n, then the single "no ⊤" entry

    def __call__(self, hits: FirstHits) -> np.ndarray:
        if self.table is None:
            return log_ratios(self.p1, self.p2, hits)
        if self.width == 0:
            return self.table[hits.first]
        top = hits.first < self.n
        offset = np.where(top, np.nan_to_num(hits.value) - self.lo, 0).astype(np.int64)
        inside = ~top | ((offset >= 0) & (offset < self.width))
        index = np.where(top, hits.first * self.width + offset, self.n * self.width)
        out = self.table[np.where(inside, index, 0)]
        if not inside.all():
            rest = np.flatnonzero(~inside)
            out[rest] = log_ratios(self.p1, self.p2, FirstHits(hits.first[rest], hits.value[rest], self.n))
        return out
