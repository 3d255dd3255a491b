"""The Laplace mechanism on the noise lattice: one noisy release of one number.

Recipes (auto-clipped mean, range screening) answer a few queries with plain Laplace noise after
SVT chose them. They must use the same floating-point-safe scheme as the mechanisms (see
``svtgui.core.noise``): round the true value to the power-of-two lattice, add discrete Laplace
noise in lattice units, release a lattice point. The scale is Δ_eff/ε with Δ_eff the lattice's
effective sensitivity (≥ Δ), so the release is ε-DP. The noise is exact (see
``svtgui.core.sampling``), and a scale outside ``[MIN_SCALE, MAX_SCALE]`` lattice steps is refused
(:func:`check`; call it before charging the budget) rather than drawn as noise that would vanish.
"""

from __future__ import annotations

from svtgui.core import validation
from svtgui.core.noise import Lattice, NoiseSource, check_scale, secure


def laplace_scale(sensitivity: float, epsilon: float, *, integer: bool = False) -> float:
    """The public noise scale b = Δ_eff/ε actually used for a release (for accuracy statements)."""
    lattice = Lattice.for_sensitivity(sensitivity, integer=integer)
    return lattice.effective_sensitivity / validation.positive("epsilon", epsilon)


def check(sensitivity: float, epsilon: float, *, integer: bool = False) -> float:
    """The release's scale in lattice steps, or ``NoiseRangeError`` if it cannot be drawn usefully."""
    lattice = Lattice.for_sensitivity(sensitivity, integer=integer)
    return check_scale(lattice.scale_units(laplace_scale(sensitivity, epsilon, integer=integer)), "Laplace")


def laplace_release(
    value: float, sensitivity: float, epsilon: float, rng: NoiseSource | None = None, *, integer: bool = False
) -> float | int:
    """``value`` + discrete Laplace noise of scale Δ_eff/ε on the lattice; ε-DP for sensitivity Δ.

    ``integer=True`` for counts: step 1, the release is an int. ``rng`` defaults to the OS CSPRNG.
    """
    scale_units = check(sensitivity, epsilon, integer=integer)
    lattice = Lattice.for_sensitivity(sensitivity, integer=integer)
    source = rng if rng is not None else secure()
    units = int(lattice.to_units(value, "value"))
    noisy = units + int(source.discrete_laplace(scale_units, 1)[0])
    return lattice.to_value(noisy)
