"""Discrete Gaussian noise and its zero-concentrated-DP calibration.

Why a *discrete* Gaussian
-------------------------
For the same reason :mod:`svtgui.core.noise` uses discrete Laplace: a floating-point Gaussian
added to a secret leaks through the low-order bits of the result (Mironov 2012). SparseProject's
projected counts are integers (in units of 1/√T), so integer noise keeps every release on the
integer lattice and the released value depends on the data only through the exact integer.

Sampler (Canonne, Kamath & Steinke, "The Discrete Gaussian for Differential Privacy", NeurIPS 2020,
Algorithm 3): with t = ⌊σ⌋ + 1, draw Y from the discrete Laplace law P[Y = y] ∝ exp(−|y|/t) and
accept it with probability exp(−(|Y| − σ²/t)²/(2σ²)); the accepted Y has
P[Y = y] ∝ exp(−y²/(2σ²)) exactly. Both steps are exact (:mod:`svtgui.core.sampling`): the
discrete Laplace by exact inversion, the acceptance by CKS's Bernoulli(exp(−γ)) on the rational γ
computed from the exact rational σ (the float σ, rounded up by 2^-40 relative as every scale is,
see :mod:`svtgui.core.noise`). No floating-point probability is involved, so there is no slack
to account for.

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
    """``size`` independent draws with P[Y = y] ∝ exp(−y²/(2σ²)) on the integers (int64), exactly."""
    s = validation.positive("sigma", sigma)
    n = validation.count("size", size, minimum=0)
    return rng.discrete_gaussian(s, n)


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
