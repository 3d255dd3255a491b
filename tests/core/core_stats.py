"""Tolerances for the statistical tests of the core, derived from the distributions they test.

Every statistical assertion in tests/core uses one of these, so its false-failure probability is
the one stated here (per assertion, for a correct implementation).
"""

from __future__ import annotations

import math

import numpy as np

Z = 5.0
"""Normal quantile used for two-sided CLT tolerances: P(|N(0,1)| > 5) ≈ 5.7e-7 per assertion."""

SECURE_Z = 7.0
"""For samples from the unseeded OS CSPRNG, which differ on every CI run: P(|N(0,1)| > 7) ≈ 2.6e-12
(the normal tail understates the skewed upper one: for test_noise's 50,000 draws of scale 30 the
exact Chernoff bound on the mean of |X| gives 3.8e-11 above + 1.4e-11 below, < 1e-10 in all)."""


def discrete_laplace_mad(scale: float, step: float) -> float:
    """E|Z|·g for discrete Laplace of value-unit scale b on a grid of step g: g·2q/(1 − q²), q = e^(−g/b)."""
    q = math.exp(-step / scale)
    return step * 2 * q / (1 - q * q)


def discrete_laplace_var(scale: float, step: float) -> float:
    """Var Z·g for discrete Laplace of value-unit scale b on a grid of step g: g²·2q/(1 − q)²."""
    q = math.exp(-step / scale)
    return step * step * 2 * q / (1 - q) ** 2


def assert_mad(samples: np.ndarray, scale: float, step: float, what: str, z: float = Z) -> None:
    """Mean |X| of ``samples`` matches discrete Laplace of ``scale`` (CLT, ``z`` standard errors).

    SD(|X|) ≤ b·√(1 + g/b) for discrete Laplace, so z·b/√n bounds the tolerance; the
    false-failure probability is ≈ 5.7e-7 at the default z = Z (seeded samples: fixed outcome).
    Unseeded samples (the OS CSPRNG) need a wider z: see ``SECURE_Z``.
    """
    n = len(samples)
    assert n >= 1000, "too few samples for a CLT tolerance"
    expected = discrete_laplace_mad(scale, step)
    sd = math.sqrt(discrete_laplace_var(scale, step) - expected**2)
    got = float(np.mean(np.abs(samples)))
    tol = z * sd / math.sqrt(n)
    assert abs(got - expected) <= tol, f"{what}: mean |noise| {got:.5g}, expected {expected:.5g} ± {tol:.3g}"


def binomial_upper(n: int, p: float, tail: float = 1e-6) -> int:
    """Smallest f with P[Binomial(n, p) > f] ≤ ``tail`` (exact sum, in log space)."""
    logs = [math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)
            + (k * math.log(p) if k else 0.0) + ((n - k) * math.log1p(-p) if n - k else 0.0)
            for k in range(n + 1)]
    upper = 0.0
    for f in range(n, -1, -1):
        upper += math.exp(logs[f])
        if upper > tail:
            return f
    return 0
