"""Which dataset are these rows? The link between loaded data and its budget in the ledger.

A budget follows the *rows*: the ledger looks them up by their private, keyed content fingerprint
(:meth:`svtgui.data.Dataset.content_fingerprint`, keyed by the ledger's secret key), so the same
rows re-saved with CRLF, another quoting or encoding, a trailing newline, in another order or in
another file format find the same budget. Public outputs name a dataset only by the random id the
ledger gave it (``ds-…``).

Rows new to the ledger that have the name and columns of a known dataset (a corrected file, or a
different file that happens to share a name) are never silently given a budget of their own: the
curator says which it is — :func:`register` with ``different=True`` ("this is a different dataset",
a fresh budget) or :func:`bind` ("these rows are dataset ds-…", sharing its budget). The GUI asks in
a dialog; the CLI takes ``--new-dataset`` or ``--same-dataset-as ID``.

Ledgers migrated from SVT Studio 0.1 keyed budgets by the file's SHA-256: the first time that same
file is loaded again, its rows are bound to the old budget automatically (:func:`identify`).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from svtgui.ledger import DatasetRecord, Ledger


class DatasetDecisionNeeded(ValueError):
    """New rows look like a known dataset; the curator must say whether they are the same one."""

    def __init__(self, name: str, lookalikes: tuple[DatasetRecord, ...]) -> None:
        ids = ", ".join(d.dataset_id for d in lookalikes)
        super().__init__(
            f"{name!r} has the name and columns of {ids} in the ledger but different rows: say whether it is "
            f"a different dataset (its own new budget) or the same dataset as {lookalikes[0].dataset_id} "
            "(sharing its budget)")
        self.name = name
        self.lookalikes = lookalikes


@dataclass(frozen=True)
class Identity:
    """What the ledger knows about some rows: their dataset, or the known datasets they resemble."""

    record: DatasetRecord | None
    lookalikes: tuple[DatasetRecord, ...] = ()

    @property
    def is_new(self) -> bool:
        return self.record is None

    @property
    def needs_decision(self) -> bool:
        """New rows that look like a known dataset: registering them needs the curator's word."""
        return self.record is None and bool(self.lookalikes)


def identify(ledger: Ledger, ds: Any) -> Identity:
    """Look the rows of ``ds`` up in the ledger; sets ``ds.dataset_id`` when they are known.

    Writes to the ledger only to bind the rows of a file that a migrated 0.1 ledger knew by its
    plain SHA-256 (the same file, so the same dataset: nothing is decided for the curator).
    """
    content = ds.content_fingerprint(ledger.content_key())
    record = ledger.dataset_for_content(content)
    if record is None and getattr(ds, "legacy_file_sha256", None) and ledger.legacy_pending():
        record = ledger.adopt_legacy(ds.legacy_file_sha256, content)
    ds.dataset_id = record.dataset_id if record is not None else None
    if record is not None:
        return Identity(record)
    return Identity(None, tuple(ledger.lookalikes(ds.name, ds.columns)))


def declared(schema: Any) -> dict[str, Any]:
    """What the curator declared about the rows that a run's sensitivity comes from, as its report
    states it: the neighbouring relation and each column's public bounds (never read from the data).
    Kept with every charge (``Ledger.start_run(declared=)``). Categorical levels are left out: the
    window can read them off the data (with a warning), and a report must not publish such a list."""
    return {"neighbouring": schema.neighbouring.value,
            "bounds": {c.name: [c.lower, c.upper] for c in schema.columns if c.lower is not None}}


def register(ledger: Ledger, ds: Any, total_epsilon: str | float | Fraction,
             total_delta: str | float | Fraction = 0, *, different: bool = False) -> DatasetRecord:
    """Register the rows of ``ds`` as a new dataset with this total budget (known rows: unchanged).

    Raises :class:`DatasetDecisionNeeded` when the rows look like a known dataset and the curator
    has not confirmed (``different=True``) that they are a different one.
    """
    identity = identify(ledger, ds)
    if identity.record is not None:
        return identity.record
    if identity.lookalikes and not different:
        raise DatasetDecisionNeeded(ds.name, identity.lookalikes)
    record, _ = ledger.register_dataset(ds.content_fingerprint(ledger.content_key()), ds.name,
                                        total_epsilon, total_delta, neighbouring=ds.schema.neighbouring.value,
                                        bounds=declared(ds.schema)["bounds"], columns=ds.columns)
    ds.dataset_id = record.dataset_id
    return record


def bind(ledger: Ledger, ds: Any, dataset_id: str) -> DatasetRecord:
    """The curator's statement that the rows of ``ds`` are dataset ``dataset_id``: they share its budget.

    Refused (``ValueError``) when the rows already belong to another dataset, or when the relation
    of neighbouring datasets differs (a budget is only meaningful under one relation).
    """
    record = ledger.dataset(dataset_id)
    if record is None:
        raise ValueError(f"no dataset {dataset_id!r} in the ledger {ledger.path}")
    if record.neighbouring != ds.schema.neighbouring.value:
        raise ValueError(f"{dataset_id} is budgeted under {record.neighbouring} neighbours, {ds.name!r} is "
                         f"declared {ds.schema.neighbouring.value}; they cannot share a budget")
    record = ledger.bind_content(dataset_id, ds.content_fingerprint(ledger.content_key()),
                                 note=f"{ds.name} bound by the curator")
    ds.dataset_id = record.dataset_id
    return record


# -- the declared schema, remembered per rows ----------------------------------------------------


def declares_nothing(schema: Any) -> bool:
    """A schema with no declared bounds and no levels: inferred from the file, nothing promised yet."""
    return all(c.lower is None and c.upper is None and not c.categories for c in schema.columns)


def recall_declared(ledger: Ledger, ds: Any) -> Any | None:
    """The schema the curator last declared for these rows, when the file brought none of its own.

    Keyed like the budget (the private content fingerprint), so the same rows re-saved, renamed or
    moved get their bounds and levels back; a schema for other columns is not applied.
    """
    from svtgui.data.schema import Schema, SchemaError

    if not declares_nothing(ds.schema):
        return None  # a sidecar or a session declared this schema: it stands
    stored = ledger.remembered_schema(ds.content_fingerprint(ledger.content_key()))
    if stored is None:
        return None
    try:
        schema = Schema.from_json(stored)
    except SchemaError:
        return None
    return schema if schema.names == ds.schema.names else None


def remember_declared(ledger: Ledger, ds: Any, schema: Any) -> None:
    """Keep ``schema`` as what the curator declared for the rows of ``ds`` (only in the ledger)."""
    ledger.remember_schema(ds.content_fingerprint(ledger.content_key()), schema.to_json())
