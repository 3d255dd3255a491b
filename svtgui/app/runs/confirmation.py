"""What the spend confirmation states before a run is charged, as facts first and words second.

Why facts: the confirmation is the curator's last look before budget is spent for good, so each
statement in it comes from the plan and the ledger, not from a widget; other features add their
own sentence (:attr:`Confirmation.notes`) without re-deriving the rest, and tests check the facts.
A dataset's identity is settled *before* the confirmation is worded: rows that look like a known
dataset are asked about first, so it never says "new dataset" about rows that may share a budget.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from svtgui.app.numbers import amount, exact

# Whose budget the run is charged to.
KNOWN, NEW, SHARED, SEPARATE = "known", "new", "shared", "separate"


@dataclass(frozen=True)
class Confirmation:
    """The facts of one spend confirmation (public values only)."""

    dataset: str  # the dataset's name
    epsilon: float  # the run's cost, charged in full before the first answer
    delta: float
    spent_on: str  # what the budget buys: the queue, or a SparseProject release
    when: str  # "before the first answer" / "before the release is computed"
    whose: str  # KNOWN, NEW, SHARED (the curator said: same as a known dataset) or SEPARATE
    remaining: tuple[Fraction, Fraction] | None = None  # before the run (KNOWN, SHARED)
    declared: tuple[str, str] | None = None  # the total recorded by this first run (NEW, SEPARATE)
    shared_with: str | None = None  # the known dataset's id (SHARED, SEPARATE)
    notes: tuple[str, ...] = ()  # further sentences (each a complete sentence)

    @property
    def cost(self) -> str:
        return f"ε = {exact(self.epsilon)}" + (f", δ = {exact(self.delta)}" if self.delta else "")

    @property
    def budget_sentence(self) -> str:
        """Whose budget is charged and what it holds before this run."""
        if self.whose in (KNOWN, SHARED) and self.remaining is not None:
            eps, dlt = self.remaining
            shared = (f"These rows share the budget of {self.shared_with}, as you said. "
                      if self.whose == SHARED else "")
            return f"{shared}Remaining before this run: ε = {amount(eps)}, δ = {amount(dlt)}."
        eps, dlt = self.declared or ("", "0")
        other = (f"As you said, these rows are a different dataset from {self.shared_with}: they "
                 if self.whose == SEPARATE else "This new dataset will be")
        verb = "get" if self.whose == SEPARATE else "recorded in the ledger with"
        return (f"{other} {verb} the total budget you declared, ε = {eps}, δ = {dlt or '0'} "
                "(it can later be raised, never lowered).")

    @property
    def text(self) -> str:
        return " ".join((
            f"This run will spend {self.cost} of the privacy budget of “{self.dataset}” on {self.spent_on}.",
            self.budget_sentence,
            f"The spend is charged now, {self.when}, and is never refunded.",
            *self.notes,
        ))

    @property
    def button(self) -> str:
        return f"Spend {self.cost} and run"
