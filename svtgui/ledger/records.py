"""What the ledger hands out: datasets, runs, responses and budget events, as frozen records.

Every field of these records is public (safe in a report): a dataset is named by its random public
id, never by anything computed from its rows. The private content fingerprints and the key they are
computed with live in the ledger's own tables and are never part of a record.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

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


@dataclass
class ResponseBatch:
    """Responses to consecutive queries of one run as columns: the one shape a release takes from the
    mechanism's arrays to the ledger (:meth:`Ledger.record`), the run process's messages, the window's
    result store and the CLI's printing — no object per row on the way.

    ``value`` is NaN where nothing was released. The ⊥ mask is applied here, once, when the batch is
    made: a ⊥ row's value is blanked whatever the caller passed, except PMW's free answers
    (``simulated`` True: answered from the public synthetic histogram, a release). ``time`` is the
    commit stamp, set by :meth:`Ledger.record`: a batch with a time is in the ledger.
    """

    index: np.ndarray  # int64: the mechanism's query index
    description: list[str]
    above: np.ndarray  # bool
    value: np.ndarray  # float64, NaN: nothing released
    gap: np.ndarray | None = None  # float64, NaN: none released (mechanisms that release a gap)
    simulated: np.ndarray | None = None  # bool, PMW only: True free, False paid
    time: str = field(default="")

    def __post_init__(self) -> None:
        self.index = np.asarray(self.index, dtype=np.int64).reshape(-1)
        n = len(self.index)
        self.above = np.asarray(self.above, dtype=bool).reshape(-1)
        self.value = np.array(self.value, dtype=np.float64).reshape(-1)  # a copy: masked below
        if self.gap is not None:
            self.gap = np.asarray(self.gap, dtype=np.float64).reshape(-1)
        if self.simulated is not None:
            self.simulated = np.asarray(self.simulated, dtype=bool).reshape(-1)
        self.description = list(self.description)
        columns = [self.above, self.value, self.description, self.gap, self.simulated]
        if any(c is not None and len(c) != n for c in columns):
            raise ValueError(f"a response batch's columns must all have {n} rows")
        released = self.above if self.simulated is None else self.above | self.simulated
        self.value[~released] = np.nan

    @classmethod
    def of(cls, rows: Sequence[tuple]) -> ResponseBatch:
        """A few hand-made rows ``(index, description, above, value, gap[, simulated])`` as a batch
        (a recipe's released rows; test fixtures). ``None`` is NaN."""
        simulated = [r[5] for r in rows if len(r) > 5]
        return cls(np.array([r[0] for r in rows], dtype=np.int64), [str(r[1]) for r in rows],
                   np.array([bool(r[2]) for r in rows], dtype=bool),
                   np.array([np.nan if r[3] is None else r[3] for r in rows], dtype=np.float64),
                   np.array([np.nan if r[4] is None else r[4] for r in rows], dtype=np.float64),
                   np.array(simulated, dtype=bool) if simulated and len(simulated) == len(rows) else None)

    def __len__(self) -> int:
        return len(self.index)

    @property
    def above_count(self) -> int:
        return int(np.count_nonzero(self.above))

    def values(self) -> list[float | int | None]:
        """The released values as the ledger stores and reads them: None where nothing was released,
        an int where the value is integral (a count prints as 12, not 12.0)."""
        return _released(self.value, number)

    def gaps(self) -> list[float | None]:
        return [None] * len(self) if self.gap is None else _released(self.gap, float)

    def results(self) -> list[str]:
        """What the curator reads per row: ⊤/⊥, or whether a PMW answer was free or paid for."""
        if self.simulated is None:
            return ["⊤" if a else "⊥" for a in self.above.tolist()]
        return [FREE_TEXT if s else PAID_TEXT for s in self.simulated.tolist()]


def _released(column: np.ndarray, convert: Callable[[float], Any]) -> list[Any]:
    """A column as Python values, None where NaN: only the released entries are converted (on a long
    stream most rows are ⊥ and released nothing)."""
    out: list[Any] = [None] * len(column)
    for i in np.flatnonzero(~np.isnan(column)).tolist():
        out[i] = convert(column[i])
    return out


def number(v: float) -> float | int:
    """An integral float as an int (below 2**53, where floats are exact integers)."""
    return int(v) if float(v).is_integer() and abs(v) < 2**53 else float(v)


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
