"""The privacy budget of a dataset, in exact arithmetic (persistence lives in ``svtgui.ledger``).

Budgets compose sequentially across runs (basic composition: ε and δ add up). Amounts are kept
as :class:`fractions.Fraction` built from the *decimal text* of each number, so 0.1 + 0.2 is
exactly 0.3 and a curator's 1.0 budget is never overspent by rounding. A run is charged its full
guarantee before its first answer and nothing is ever refunded.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from svtgui.core import validation

Amount = float | int | str | Fraction
"""What the budget accepts: numbers, decimal text ("0.1") or exact fractions."""


def exact(name: str, value: Amount) -> Fraction:
    """The exact rational a user meant by ``value`` (0.1 means 1/10, not the nearest double)."""
    if isinstance(value, Fraction):
        result = value
    elif isinstance(value, str):
        try:
            result = Fraction(value.strip())
        except (ValueError, ZeroDivisionError):
            raise ValueError(f"{name} must be a number, got {value!r}") from None
    else:
        result = Fraction(repr(validation.finite(name, value)))
    if result < 0:
        raise ValueError(f"{name} must be >= 0, got {value!r}")
    return result


def guarantee(epsilon: Amount, delta: Amount, prefix: str = "") -> tuple[Fraction, Fraction]:
    """An exact (ε, δ) with ε > 0 and 0 ≤ δ < 1; errors name ``{prefix}epsilon`` / ``{prefix}delta``."""
    eps = exact(f"{prefix}epsilon", epsilon)
    if eps <= 0:
        raise ValueError(f"{prefix}epsilon must be > 0, got {epsilon!r}")
    dlt = exact(f"{prefix}delta", delta)
    if dlt >= 1:
        raise ValueError(f"{prefix}delta must be in [0, 1), got {delta!r}")
    return eps, dlt


def fmt(x: Fraction) -> str:
    """Short human form of an exact amount (exact decimals stay exact: 3/10 -> 0.3)."""
    as_float = float(x)
    return f"{as_float:.12g}" if Fraction(repr(as_float)) == x else f"{as_float:.6g} ({x})"


class BudgetExceeded(ValueError):
    """A run would overspend its dataset's total budget; nothing was charged."""


@dataclass(frozen=True)
class Charge:
    """One run's charge against a dataset's budget."""

    run_id: str
    epsilon: Fraction
    delta: Fraction


@dataclass
class Budget:
    """Total (ε, δ) of a dataset and the charges made against it so far."""

    total_epsilon: Fraction
    total_delta: Fraction = Fraction(0)
    charges: list[Charge] = field(default_factory=list)

    @classmethod
    def of(cls, epsilon: Amount, delta: Amount = 0) -> Budget:
        return cls(*guarantee(epsilon, delta, prefix="total "))

    @property
    def spent_epsilon(self) -> Fraction:
        return sum((c.epsilon for c in self.charges), Fraction(0))

    @property
    def spent_delta(self) -> Fraction:
        return sum((c.delta for c in self.charges), Fraction(0))

    @property
    def remaining_epsilon(self) -> Fraction:
        return self.total_epsilon - self.spent_epsilon

    @property
    def remaining_delta(self) -> Fraction:
        return self.total_delta - self.spent_delta

    def check(self, epsilon: Amount, delta: Amount = 0) -> tuple[Fraction, Fraction]:
        """Validate a request and return it exactly; raise :class:`BudgetExceeded` if it does not fit."""
        eps, dlt = guarantee(epsilon, delta)
        over_eps = self.spent_epsilon + eps > self.total_epsilon
        over_delta = self.spent_delta + dlt > self.total_delta
        if over_eps or over_delta:
            which = "ε" if over_eps else "δ"
            raise BudgetExceeded(
                f"refused: this run would overspend {which}. "
                f"total ε = {fmt(self.total_epsilon)}, spent ε = {fmt(self.spent_epsilon)}, "
                f"requested ε = {fmt(eps)}; "
                f"total δ = {fmt(self.total_delta)}, spent δ = {fmt(self.spent_delta)}, "
                f"requested δ = {fmt(dlt)}")
        return eps, dlt

    def charge(self, run_id: str, epsilon: Amount, delta: Amount = 0) -> Charge:
        """Charge a run its full guarantee (before its first answer). Never refunded."""
        eps, dlt = self.check(epsilon, delta)
        if any(c.run_id == run_id for c in self.charges):
            raise ValueError(f"run {run_id!r} was already charged")
        charge = Charge(run_id, eps, dlt)
        self.charges.append(charge)
        return charge

    def raise_total(self, epsilon: Amount, delta: Amount | None = None) -> None:
        """Raise the total budget: an explicit curator action (the session layer logs it)."""
        eps = exact("total epsilon", epsilon)
        if eps < self.total_epsilon:
            raise ValueError(f"the total budget can only be raised: {fmt(eps)} < {fmt(self.total_epsilon)}")
        dlt = self.total_delta if delta is None else exact("total delta", delta)
        if dlt < self.total_delta or dlt >= 1:
            raise ValueError(f"total delta must be in [{fmt(self.total_delta)}, 1), got {delta!r}")
        self.total_epsilon, self.total_delta = eps, dlt
