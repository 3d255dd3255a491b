"""The Laplace mechanism on the noise lattice: one noisy release of one number.

Recipes (auto-clipped mean, range screening) answer a few queries with plain Laplace noise after
SVT chose them. They must use the same floating-point-safe scheme as the mechanisms (see
``svtgui.core.noise``): round the true value to the power-of-two lattice, add discrete Laplace
noise in lattice units, release a lattice point. The scale is Δ_eff/ε with Δ_eff the lattice's
effective sensitivity (≥ Δ), so the release is ε-DP.
"""

from __future__ import annotations

from svtgui.core import validation
from svtgui.core.noise import Lattice, NoiseSource, secure


def laplace_scale(sensitivity: float, epsilon: float, *, integer: bool = False) -> float:
    """The public noise scale b = Δ_eff/ε actually used for a release (for accuracy statements)."""
    lattice = Lattice.for_sensitivity(sensitivity, integer=integer)
    return lattice.effective_sensitivity / validation.positive("epsilon", epsilon)


def laplace_release(
    value: float, sensitivity: float, epsilon: float, rng: NoiseSource | None = None, *, integer: bool = False
) -> float | int:
    """``value`` + discrete Laplace noise of scale Δ_eff/ε on the lattice; ε-DP for sensitivity Δ.

    ``integer=True`` for counts: step 1, the release is an int. ``rng`` defaults to the OS CSPRNG.
    """
    eps = validation.positive("epsilon", epsilon)
    lattice = Lattice.for_sensitivity(sensitivity, integer=integer)
    source = rng if rng is not None else secure()
    units = int(lattice.to_units(value, "value"))
    scale_units = lattice.scale_units(lattice.effective_sensitivity / eps)
    noisy = units + int(source.discrete_laplace(scale_units, 1)[0])
    return lattice.to_value(noisy)
