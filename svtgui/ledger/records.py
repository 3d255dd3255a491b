"""What the ledger hands out: datasets, runs, responses and budget events, as frozen records.

Every field of these records is public (safe in a report): a dataset is named by its random public
id, never by anything computed from its rows. The private content fingerprints and the key they are
computed with live in the ledger's own tables and are never part of a record.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

RUNNING, FINISHED, HALTED, STOPPED, INTERRUPTED = "running", "finished", "halted", "stopped", "interrupted"
END_STATUSES = (FINISHED, HALTED, STOPPED, INTERRUPTED)
FREE_TEXT, PAID_TEXT = "free (simulated)", "paid"
# What the ledger stores for every seeded run, whatever the caller describes: never the seed itself.
SEEDED_TEXT = "seeded test noise: reproducible, NOT secure, NOT differentially private"


def exact_text(x: Fraction) -> str:
    """Exact decimal text of an amount ("0.1", not "1/10"); ``p/q`` only for non-decimal rationals."""
    den = x.denominator
    twos = fives = 0
    while den % 2 == 0:
        den //= 2
        twos += 1
    while den % 5 == 0:
        den //= 5
        fives += 1
    if den != 1:
        return f"{x.numerator}/{x.denominator}"
    places = max(twos, fives)
    scaled = x * 10**places
    sign = "-" if scaled < 0 else ""
    digits = str(abs(scaled.numerator)).rjust(places + 1, "0")
    text = digits if places == 0 else f"{digits[:-places]}.{digits[-places:]}"
    return sign + text


@dataclass(frozen=True)
class DatasetRecord:
    """A registered dataset: its random public id and its total budget (public information).

    ``columns`` is None for a dataset migrated from a ledger that did not record them.
    ``neighbouring`` and ``public_n`` are the relation its budget is kept under now: the registered
    one, or the last logged change (:class:`RelationEvent`); ``public_n`` is None under add/remove-one
    and for datasets registered before the ledger recorded it. ``name`` is the name the rows were
    registered under (the file's, shown to the curator only); ``public_name`` is the one the curator
    chose for publication, the random id until then: reports and exports use it, never ``name``.
    """

    dataset_id: str
    name: str
    total_epsilon: Fraction
    total_delta: Fraction
    neighbouring: str
    bounds: dict[str, Any]
    registered_at: str
    columns: tuple[str, ...] | None = None
    public_n: int | None = None
    public_name: str = ""


@dataclass(frozen=True)
class RunRecord:
    """One run: what was charged, with which public parameters, and how it ended."""

    id: int
    dataset_id: str
    mechanism_id: str
    params: dict[str, Any]
    epsilon: Fraction
    delta: Fraction
    noise: str  # "secure" or "seeded"
    noise_description: str
    status: str
    started_at: str
    ended_at: str | None
    queries_planned: int | None
    software_version: str

    @property
    def secure(self) -> bool:
        return self.noise == "secure"


@dataclass(frozen=True)
class ResponseRecord:
    """One committed response: exactly what was (or may have been) shown."""

    run_id: int
    index: int
    description: str
    above: bool
    value: float | int | None
    gap: float | None
    time: str
    # PMW: True = answered from the public synthetic histogram (free), False = paid; None = not PMW.
    answered_from_simulation: bool | None = None

    @property
    def symbol(self) -> str:
        return "⊤" if self.above else "⊥"

    @property
    def result(self) -> str:
        """What the curator reads: ⊤/⊥, or whether a PMW answer was free or paid for."""
        if self.answered_from_simulation is None:
            return self.symbol
        return FREE_TEXT if self.answered_from_simulation else PAID_TEXT


@dataclass(frozen=True)
class BudgetEvent:
    """A logged change of a dataset's total budget (registration or an explicit raise)."""

    dataset_id: str
    kind: str  # "register" or "raise"
    epsilon: Fraction
    delta: Fraction
    previous_epsilon: Fraction | None
    previous_delta: Fraction | None
    note: str
    at: str
    login: str | None = None  # who: the database login on a server ledger, the OS login in a file (v7)


@dataclass(frozen=True)
class RelationEvent:
    """The neighbouring relation (and public n) a dataset's budget is kept under, as registered
    (``kind`` "register") or changed by the curator (``kind`` "change", with the reason given)."""

    dataset_id: str
    kind: str
    neighbouring: str
    public_n: int | None
    reason: str
    login: str | None
    at: str


@dataclass(frozen=True)
class IntegrityEvent:
    """A curator's logged decision to proceed past what the ledger's integrity checks found
    (rows changed outside SVT Studio, an older copy restored, a deleted ledger): public, and shown
    wherever the budget is, because the budget it leaves may be smaller than what was really spent."""

    found: str
    reason: str
    login: str
    host: str
    at: str


@dataclass(frozen=True)
class ContentIdentity:
    """What the ledger keeps about a content to find look-alikes (private, like every fingerprint): its
    columns' keyed fingerprints as ``(digest, informative)`` in the dataset's column order, its row
    count and its row sketch (the smallest distinct keyed row hashes, ascending)."""

    columns: tuple[tuple[str, bool], ...] = ()
    rows: int = 0
    sketch: tuple[int, ...] = ()
