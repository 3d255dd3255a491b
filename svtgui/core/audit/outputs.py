"""The auditor's simulators' common ground: their base class, their outputs, discrete Laplace noise.

A simulator runs many copies of a mechanism on one input at once and returns :class:`Outputs`:

``above[r, i]`` is 1 (⊤ / selected), 0 (⊥ / not selected) or −1 (not answered: halted);
``values[r, i]`` is the released number for query i (NaN where none). Mechanisms on histograms
add per-run outputs in ``extra`` (the released row count, a noisy projection, …).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class Outputs:
    """Outputs of many runs on one input (see the module docstring).

    ``extra`` holds further per-run outputs of mechanisms on histograms (first axis = runs), e.g.
    the released row count ``n_hat`` or SparseProject's noisy projection ``w``.
    """

    above: np.ndarray  # int8 (runs, n)
    values: np.ndarray | None  # float64 (runs, n), NaN where nothing was released
    extra: dict[str, np.ndarray] = field(default_factory=dict)

    @property
    def runs(self) -> int:
        return int(self.above.shape[0])

    def part(self, rows: slice) -> Outputs:
        """The outputs of a subset of the runs."""
        return Outputs(self.above[rows], None if self.values is None else self.values[rows],
                       {k: v[rows] for k, v in self.extra.items()})

    def concat(self, other: Outputs) -> Outputs:
        """These runs followed by ``other``'s (same kind of outputs)."""
        return Outputs(np.concatenate([self.above, other.above]),
                       None if self.values is None else np.concatenate([self.values, other.values]),
                       {k: np.concatenate([v, other.extra[k]]) for k, v in self.extra.items()})


def discrete_laplace(gen: np.random.Generator, scale: float, size: int | tuple[int, ...]) -> np.ndarray:
    """Discrete Laplace ``P[Z = z] ∝ exp(−|z|/scale)`` as float64 integers (scale in lattice units)."""
    e = gen.standard_exponential((2,) + (size if isinstance(size, tuple) else (size,)))
    e *= scale
    np.floor(e, out=e)
    return e[0] - e[1]


class Simulator:
    """Runs many independent copies of one mechanism on one input."""

    mechanism_id: str
    vectorised: bool = True

    def run(self, inp, runs: int, gen: np.random.Generator) -> Outputs:
        raise NotImplementedError

    def search_draw(self, inp, runs: int, gen: np.random.Generator):
        """The outputs the event search looks at (by default: :meth:`run`'s)."""
        return self.run(inp, runs, gen)

    def views(self, pair, sample: Outputs) -> list:
        """The output views the event search tries for ``pair`` (``sample``: search-sample outputs)."""
        raise NotImplementedError
