"""Discrete Gaussian noise and its zero-concentrated-DP calibration.

Why a *discrete* Gaussian
-------------------------
For the same reason :mod:`svtgui.core.noise` uses discrete Laplace: a floating-point Gaussian
added to a secret leaks through the low-order bits of the result (Mironov 2012). SparseProject's
projected counts are integers (in units of 1/√T), so integer noise keeps every release on the
integer lattice and the released value depends on the data only through the exact integer.

Sampler (Canonne, Kamath & Steinke, "The Discrete Gaussian for Differential Privacy", NeurIPS 2020,
Algorithm 3): with t = ⌊σ⌋ + 1, draw Y from the discrete Laplace law P[Y = y] ∝ exp(−|y|/t) and
accept it with probability exp(−(|Y| − σ²/t)² / (2σ²)); the accepted Y has
P[Y = y] ∝ exp(−y²/(2σ²)) exactly. Both steps draw from the project's word source: the discrete
Laplace from :meth:`NoiseSource.discrete_laplace`, the acceptance from a 53-bit uniform. The
acceptance probability is computed in floating point, so each trial deviates from the ideal by
at most 2^-52 (absolute), which with the discrete Laplace's own < 2^-50 gives a total-variation
distance below 2^-48 per sample. The output is an integer, so this deviation is a tiny δ-like
slack, not a Mironov-style channel; we document it rather than hide it (as ``noise.py`` does).

Privacy (CKS20, Theorem 14): adding independent discrete Gaussians of parameter σ to an
integer-valued vector whose L2 sensitivity is Δ₂ is ρ-zCDP with ρ = Δ₂²/(2σ²). Bun & Steinke
(TCC 2016, Proposition 1.3): ρ-zCDP implies (ρ + 2√(ρ·ln(1/δ)), δ)-DP for every δ > 0.
"""

from __future__ import annotations

import math

import numpy as np

from svtgui.core import validation
from svtgui.core.noise import NoiseSource


def discrete_gaussian(rng: NoiseSource, sigma: float, size: int) -> np.ndarray:
    """``size`` independent draws with P[Y = y] ∝ exp(−y²/(2σ²)) on the integers (int64)."""
    s = validation.positive("sigma", sigma)
    n = validation.count("size", size, minimum=0)
    t = math.floor(s) + 1
    out = np.empty(n, dtype=np.int64)
    filled = 0
    while filled < n:
        want = n - filled
        batch = max(16, int(want * 1.6))  # acceptance rate is at least ~0.6 for σ ≥ 1
        y = rng.discrete_laplace(float(t), batch)
        accept = rng.uniform(batch) <= np.exp(-((np.abs(y) - s * s / t) ** 2) / (2 * s * s))
        got = y[accept][:want]
        out[filled:filled + got.size] = got
        filled += got.size
    return out


def rho_for(epsilon: float, delta: float) -> float:
    """The largest ρ whose Bun–Steinke conversion gives (ε, δ)-DP: √ρ = √(ln(1/δ) + ε) − √(ln(1/δ))."""
    eps = validation.positive("epsilon", epsilon)
    dlt = validation.probability("delta", delta, allow_zero=False)
    log_inv = math.log(1 / dlt)
    return (math.sqrt(log_inv + eps) - math.sqrt(log_inv)) ** 2


def epsilon_for(rho: float, delta: float) -> float:
    """ε of the (ε, δ)-DP guarantee implied by ρ-zCDP (Bun & Steinke 2016, Proposition 1.3)."""
    r = validation.positive("rho", rho)
    dlt = validation.probability("delta", delta, allow_zero=False)
    return r + 2 * math.sqrt(r * math.log(1 / dlt))


def sigma_for(l2_sensitivity: float, rho: float) -> float:
    """σ making the discrete Gaussian mechanism ρ-zCDP for the given L2 sensitivity: Δ₂/√(2ρ)."""
    l2 = validation.positive("L2 sensitivity", l2_sensitivity)
    return l2 / math.sqrt(2 * validation.positive("rho", rho))
