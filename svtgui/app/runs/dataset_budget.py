"""The open dataset's standing in the privacy ledger: the ledger handle, its budget, the raise.

Why one object: the window used to open the ledger in the Run page's controller and every other
part of the window reached into that controller for it; the budget shown on the gauge was read
in one place and told to the workspace in another, so a recipe's charge reached the plan but not
the gauge. Here the ledger is opened once (lazily; a ledger that refuses to open is one clear
line, :attr:`DatasetBudget.error`), the dataset's :class:`~svtgui.core.budget.Budget` is read
again after every charge from any path (:meth:`refresh`), and the workspace is told in the same
step, so the plan and every view read the same figures.

Nothing here writes to the ledger except :meth:`raise_total` (an explicit, logged raise) and
:meth:`register_or_bind` (the first charge's registration, called just before the charge).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from svtgui.app import dataset_identity
from svtgui.app.dataset_identity import Identity
from svtgui.app.numbers import amount
from svtgui.app.workspace import Workspace
from svtgui.core.budget import Budget
from svtgui.core.wording import count
from svtgui.data.dataset import Dataset
from svtgui.ledger import DatasetRecord, Ledger, LedgerError, default_location

SAME, DIFFERENT = "same", "different"  # the curator's word on rows that look like a known dataset


@dataclass(frozen=True)
class IdentityChoice:
    """What the curator said about new rows that look like a known dataset (nothing written yet)."""

    choice: str  # SAME or DIFFERENT
    known: DatasetRecord  # the lookalike they were asked about


@dataclass(frozen=True)
class GaugeFacts:
    """The dataset's budget as the gauge shows it (public figures only), worded here from the ledger's
    exact amounts: the widget only draws them (it subtracted floats, and rounded what remains to six
    digits — up, too: 0.9999996 remaining read "1")."""

    share: float | None  # the bar's fill: ε spent / total (None: no dataset, or not in the ledger)
    bar: str  # the text on the bar
    detail: str  # the line under it


class DatasetBudget:
    """The ledger handle and the open dataset's budget, kept current after every charge."""

    def __init__(self, workspace: Workspace, open_ledger: Callable[[], Ledger] = Ledger.open) -> None:
        self.workspace = workspace
        self._open_ledger = open_ledger
        self._ledger: Ledger | None = None
        self.identity: Identity | None = None  # None: no dataset, or the ledger could not be read
        self.budget: Budget | None = None  # the ledger's, for a dataset it knows
        # Why the ledger cannot be used (damaged, locked, tampered with), in the CLI's one line; Run
        # stays disabled with it until the ledger opens again.
        self.error: str | None = None
        self.choice: IdentityChoice | None = None

    # -- the ledger -------------------------------------------------------------------------------
    @property
    def ledger(self) -> Ledger:
        """The window's connection to the ledger (opened on first use; ``LedgerError`` if it cannot be)."""
        if self._ledger is None:
            self._ledger = self._open_ledger()
        return self._ledger

    @property
    def ledger_path(self) -> Path | str:
        """The ledger's file or server URL, without opening it (the default one until it is opened)."""
        return self._ledger.path if self._ledger is not None else default_location()

    def close(self) -> None:
        if self._ledger is not None:
            self._ledger.close()
            self._ledger = None

    @property
    def dataset(self) -> Dataset | None:
        return self.workspace.dataset

    # -- reading ----------------------------------------------------------------------------------
    @property
    def record(self) -> DatasetRecord | None:
        """The open dataset's ledger record (None: no dataset, new rows, or an unreadable ledger)."""
        return self.identity.record if self.identity is not None else None

    @property
    def known(self) -> bool:
        return self.record is not None

    @property
    def dataset_id(self) -> str | None:
        record = self.record
        return record.dataset_id if record is not None else None

    @property
    def lookalike(self) -> DatasetRecord | None:
        """The known dataset new rows resemble, while the curator has not said which they are."""
        identity = self.identity
        if identity is None or not identity.needs_decision or self.choice is not None:
            return None
        return identity.lookalikes[0]

    def refresh(self) -> None:
        """Read the dataset's identity and budget from the ledger again and tell the workspace.

        Called when a dataset is opened and after every charge or raise, from any path (runs,
        recipes, SparseProject, History exports). An unreadable ledger leaves the dataset new
        to the window, with :attr:`error` saying why in one line.
        """
        self.identity, self.budget, self.error = None, None, None
        ds = self.dataset
        if ds is not None:
            try:
                self.identity = dataset_identity.identify(self.ledger, ds)
                if self.identity.record is not None:
                    self.budget = self.ledger.budget(self.identity.record.dataset_id)
                    self.choice = None
            except (LedgerError, OSError) as exc:
                self.error = str(exc)
        self.workspace.set_budget(self.planning_budget())

    def planning_budget(self) -> Budget | None:
        """The budget a run is planned against: the dataset's, or the known dataset's that the curator
        said these rows are (None: new rows, planned against the declared totals)."""
        choice = self.choice
        if self.budget is None and choice is not None and choice.choice == SAME:
            return self.ledger.budget(choice.known.dataset_id)
        return self.budget

    def forget(self) -> None:
        """Another dataset is opening: nothing of this one's decision carries over."""
        self.choice = None

    def gauge(self) -> GaugeFacts:
        """Spent of total and the line under it (what remains, exactly); δ is named only when the
        dataset allows any."""
        b, record = self.budget, self.record
        if self.error is not None:
            return GaugeFacts(None, "not in the ledger yet", "The ledger cannot be used: see below.")
        if b is None or record is None:
            if self.dataset is None:
                return GaugeFacts(None, "no dataset", "")
            return GaugeFacts(None, "not in the ledger yet", "Not yet in the ledger: nothing spent.")
        runs = count(len(b.charges), "run")
        delta = (f"δ spent {amount(b.spent_delta)} of {amount(b.total_delta)}; " if b.total_delta
                 else "δ: none allowed (pure ε-DP); ")
        share = float(min(Fraction(1), b.spent_epsilon / b.total_epsilon)) if b.total_epsilon else None
        return GaugeFacts(share, f"ε spent {amount(b.spent_epsilon)} of {amount(b.total_epsilon)}",
                          f"Remaining: ε = {amount(b.remaining_epsilon)}. {delta}{runs} across sessions.")

    def state_line(self) -> str:
        """Under the totals: since when the ledger knows the dataset and how many runs it charged."""
        record, b = self.record, self.budget
        if record is None or b is None:
            return ""
        return f"In the ledger since {record.registered_at[:10]}: {count(len(b.charges), 'run')} charged."

    def totals_text(self) -> tuple[str, str]:
        """The totals the fields show: the ledger's for a known dataset, else what the curator typed."""
        b = self.budget
        if b is not None:
            return amount(b.total_epsilon, grouped=False), amount(b.total_delta, grouped=False)
        return self.workspace.totals

    def remaining(self) -> tuple[Fraction, Fraction] | None:
        """What remains of the budget a run would be charged to (None: new rows, their own new budget)."""
        b = self.planning_budget()
        return None if b is None else (b.remaining_epsilon, b.remaining_delta)

    # -- the curator's word on lookalike rows ------------------------------------------------------
    def choose(self, choice: str | None) -> None:
        """``SAME`` (the rows share the lookalike's budget), ``DIFFERENT`` (their own), None (undecided).
        Nothing is written: the choice is carried out by :meth:`register_or_bind`, just before the charge."""
        identity = self.identity
        if choice is not None and choice not in (SAME, DIFFERENT):
            raise ValueError(f"choice must be {SAME!r} or {DIFFERENT!r}, got {choice!r}")
        needed = identity is not None and identity.needs_decision
        self.choice = IdentityChoice(choice, identity.lookalikes[0]) if choice and needed else None
        self.workspace.set_budget(self.planning_budget())

    def register_or_bind(self) -> DatasetRecord:
        """The dataset's record, registering new rows with the declared totals (or binding them to the
        known dataset the curator named) first. ``ValueError`` (nothing written) for a bad total or
        rows whose identity the curator has not given."""
        ds = self.dataset
        if ds is None:
            raise ValueError("open a dataset first")
        if self.record is not None:
            return self.record
        ledger, choice = self.ledger, self.choice
        if choice is not None and choice.choice == SAME:
            record = dataset_identity.bind(ledger, ds, choice.known.dataset_id)
        else:
            epsilon, delta = self.workspace.totals
            record = dataset_identity.register(ledger, ds, epsilon, delta or "0",
                                               different=choice is not None)
        self.refresh()
        return record

    # -- writing ------------------------------------------------------------------------------------
    def raise_total(self, epsilon: str, delta: str) -> None:
        """Raise the known dataset's total (logged in the ledger); ``ValueError``, nothing changed,
        for a lower or malformed total."""
        dataset_id = self.dataset_id
        if dataset_id is None:
            raise ValueError("the dataset is not in the ledger yet: its first run records the total")
        self.ledger.raise_total(dataset_id, epsilon.strip(), delta.strip() or None, note="raised in the GUI")
        self.refresh()
