"""Which dataset are these rows? The link between loaded data and its budget in the ledger.

A budget follows the *rows*, whatever the file calls their columns: the ledger looks them up by
their private, keyed fingerprint (:mod:`svtgui.data.fingerprint`: one digest per column of its
canonical values, never of its name or position), so the same rows re-saved with CRLF, another
quoting, encoding, row order, column order or file format, or with headers renamed or upper-cased,
find the same budget. Public outputs name a dataset only by the random id the ledger gave it
(``ds-…``).

Rows new to the ledger that resemble a known dataset are never silently given a budget of their
own: the curator says which it is — :func:`register` with ``different=True`` ("this is a different
dataset", a fresh budget) or :func:`bind` ("these rows are dataset ds-…", sharing its budget). The
GUI asks in a dialog; the CLI takes ``--new-dataset`` or ``--same-dataset-as ID``. Rows resemble a
dataset (:func:`resemblance`) when they carry its name; when enough of their columns hold exactly
the values of its columns under any header: all of them when the rows have one informative column,
else at least two (one dropped, one added, one changed, one renamed, a row-number column added —
each leaves the others as they were; a column whose cells are all one value, a constant or all
missing, is not informative and never counts: it says nothing about who the rows are); or when at
least half of the smaller one's distinct rows are rows of the other (one row removed or added — a
neighbouring dataset —, a sample, a few cells changed in many columns), estimated from the two
row sketches (:func:`svtgui.data.fingerprint.shared_rows`; rows that mostly repeat each other, a
few columns of few values, are not compared that way).

The fingerprint is paid once per file: :func:`fingerprint_of` keeps it in the ledger under the
file's identity and state (:mod:`svtgui.data.file_state`) and reuses it while they are unchanged.

Older ledgers keep their budgets: rows whose schema-5 row fingerprint (which included the column
names) a ledger knew are bound to that dataset the first time they are opened, and the schema the
curator declared for them follows; ledgers migrated from SVT Studio 0.1 keyed budgets by the file's
SHA-256, and the first time that same file is loaded again its rows are bound to the old budget the
same way (:func:`identify`).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from svtgui.core.progress import ProgressState
from svtgui.data.fingerprint import SHARED_ROWS, RowsFingerprint, shared_rows
from svtgui.ledger import ContentIdentity, DatasetRecord, Ledger

if TYPE_CHECKING:  # annotations only: the data layer's types
    from svtgui.data.dataset import Dataset
    from svtgui.data.schema import Schema

SHARED_COLUMNS = 2
RESEMBLES = "the same name, columns holding the same values under any header, or most of the same rows"
"""Why rows resemble a known dataset, as every front end says it."""
"""Informative columns with exactly a known dataset's values that make new rows resemble it (or all
of the rows' informative columns, when they have fewer)."""


class DatasetDecisionNeeded(ValueError):
    """New rows look like a known dataset; the curator must say whether they are the same one."""

    def __init__(self, name: str, lookalikes: tuple[DatasetRecord, ...]) -> None:
        ids = ", ".join(d.dataset_id for d in lookalikes)
        super().__init__(
            f"{name!r} is new to the ledger but resembles {ids} ({RESEMBLES}): say whether it is a different "
            f"dataset (its own new budget) or the same dataset as {lookalikes[0].dataset_id} (sharing its "
            "budget)")
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


def fingerprint_of(ledger: Ledger, ds: Dataset, progress: ProgressState | None = None) -> RowsFingerprint:
    """The rows' fingerprint under the ledger's key: from the ledger's per-file cache while the file
    is unchanged, else computed (one pass over the rows) and cached. Never leaves the ledger."""
    key = ledger.content_key()
    if (known := ds.known_fingerprint(key)) is not None:
        return known
    state = ds.read_state()
    doc = ledger.cached_fingerprint(state.file_id, state.check) if state is not None else None
    if doc is not None and "sketch" in doc["rows"]:  # (entries cached before the row sketch: computed again)
        fp = RowsFingerprint.from_json(doc["rows"])
        ds.adopt_fingerprint(key, fp, doc.get("legacy"))
        return fp
    fp = ds.fingerprint(key, progress)
    _cache(ledger, ds, fp)
    return fp


def _cache(ledger: Ledger, ds: Dataset, fp: RowsFingerprint, legacy: str | None = None) -> None:
    """Keep the fingerprint in the ledger under the file's state, taken again now: a file that changed
    while it was read is not cached."""
    state = ds.read_state()
    if state is not None:
        ledger.cache_fingerprint(state.file_id, state.check,
                                 {"rows": fp.to_json()} | ({"legacy": legacy} if legacy else {}))


def _legacy_of(ledger: Ledger, ds: Dataset, fp: RowsFingerprint) -> str:
    """The rows' schema-5 fingerprint (a second pass, paid once per file: cached with the new one)."""
    key = ledger.content_key()
    known = ds.known_legacy_fingerprint(key)
    if known is None:
        known = ds.legacy_fingerprint(key)
        _cache(ledger, ds, fp, known)
    return known


def _identity(fp: RowsFingerprint) -> ContentIdentity:
    """What the ledger records about the rows for the look-alike search."""
    return ContentIdentity(tuple((c.digest, c.informative) for c in fp.columns), fp.rows, fp.sketch)


def resemblance(ledger: Ledger, name: str, fp: RowsFingerprint) -> tuple[DatasetRecord, ...]:
    """Known datasets these (new) rows resemble, the closest first: the same name, enough informative
    columns holding the same values, or most of the same rows (see the module docstring)."""
    informative = {c.digest for c in fp.columns if c.informative}
    need = min(SHARED_COLUMNS, len(informative))
    columns = ledger.sharing_columns(informative) if need else {}
    rows: dict[str, float] = {}
    for dataset_id, n, sketch in ledger.row_sketches():
        share = shared_rows((fp.rows, fp.sketch), (n, sketch))
        if share is not None and share >= SHARED_ROWS:
            rows[dataset_id] = max(share, rows.get(dataset_id, 0.0))
    alike = [d for d in ledger.datasets() if d.name == name or d.dataset_id in rows
             or (need and columns.get(d.dataset_id, 0) >= need)]
    return tuple(sorted(alike, key=lambda d: (-rows.get(d.dataset_id, 0.0), -columns.get(d.dataset_id, 0))))


def identify(ledger: Ledger, ds: Dataset) -> Identity:
    """Look the rows of ``ds`` up in the ledger; sets ``ds.dataset_id`` when they are known.

    Writes to the ledger only to bind rows an older ledger knew by their schema-5 fingerprint or their
    0.1 file SHA-256 (the same rows, so the same dataset: nothing is decided for the curator), and to
    cache the fingerprint.
    """
    fp = fingerprint_of(ledger, ds)
    record = ledger.dataset_for_content(fp.content)
    if record is None and ledger.unmatched_old_contents():
        record = ledger.adopt_old_content(_legacy_of(ledger, ds, fp), fp.content, _identity(fp))
    if record is None and getattr(ds, "legacy_file_sha256", None) and ledger.legacy_pending():
        record = ledger.adopt_legacy(ds.legacy_file_sha256, fp.content, _identity(fp))
    ds.dataset_id = record.dataset_id if record is not None else None
    if record is not None:
        return Identity(record)
    return Identity(None, resemblance(ledger, ds.name, fp))


#: What the curator declared about the rows, as stored with a charge and read back by reports: a JSON
#: object (``Any``: the relation's name, per-column bounds, the domains read from the data allowed).
Declarations = dict[str, Any]


def declared(schema: Schema) -> Declarations:
    """What the curator declared about the rows that a run's sensitivity comes from, as its report
    states it: the neighbouring relation and each column's public bounds (never read from the data).
    Kept with every charge (``Ledger.start_run(declared=)``). Categorical levels are left out: the
    window can read them off the data (with a warning), and a report must not publish such a list."""
    return {"neighbouring": schema.neighbouring.value,
            "bounds": {c.name: [c.lower, c.upper] for c in schema.columns if c.lower is not None}}


def register(ledger: Ledger, ds: Dataset, total_epsilon: str | float | Fraction,
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
    fp = fingerprint_of(ledger, ds)
    record, _ = ledger.register_dataset(fp.content, ds.name, total_epsilon, total_delta,
                                        neighbouring=ds.schema.neighbouring.value,
                                        bounds=declared(ds.schema)["bounds"], columns=ds.columns,
                                        identity=_identity(fp), public_n=declared_n(ds.schema))
    ds.dataset_id = record.dataset_id
    return record


RELATION_NAMES = {"add_remove": "add/remove-one", "replace": "replace-one"}


def relation_text(neighbouring: str, n: int | None) -> str:
    """``add/remove-one`` or ``replace-one with n = 30,000`` (a declared n is public)."""
    text = RELATION_NAMES.get(neighbouring, neighbouring)
    return f"{text} with n = {n:,}" if neighbouring == "replace" and n is not None else text


def declared_n(schema: Schema) -> int | None:
    """The public n a schema declares (only under replace-one), else None."""
    return None if schema.neighbouring.value != "replace" or schema.n is None else int(schema.n)


def relation_mismatch(record: DatasetRecord, schema: Schema) -> str | None:
    """Why rows declared under ``schema`` cannot be charged to ``record``'s budget, or None.

    A budget holds under one neighbouring relation, and under replace-one for one public n: the
    relation (and n) the dataset's budget is kept under must be the one declared. A dataset
    registered before the ledger recorded n accepts any n under replace-one.
    """
    have = (schema.neighbouring.value, declared_n(schema))
    kept = (record.neighbouring, record.public_n)
    if have[0] == kept[0] and (have[0] != "replace" or kept[1] is None or have == kept):
        return None
    return (f"{record.dataset_id} is budgeted under {relation_text(*kept)} neighbours, but "
            f"{relation_text(*have)} is declared: a budget holds under one relation only")


#: What a change of relation means for the budget already spent (said by the CLI and the window).
_CONSEQUENCES = {
    "replace": "Consequence: a budget under replace-one is not a budget under add/remove-one. The {runs} "
               "run{plural} charged before were private under add/remove-one, which under replace-one "
               "counts each ε twice (a replaced row is one removal and one addition); the ledger keeps "
               "summing the charges as they were, so the total now understates that. Only runs declaring "
               "replace-one with this n are accepted from now on.",
    "add_remove": "Consequence: a budget under add/remove-one is not a budget under replace-one. The {runs} "
                  "run{plural} charged before under replace-one assumed n public and protect nothing about "
                  "whether a row is present; the ledger keeps their charges, but the total guarantee holds "
                  "under add/remove-one only for runs from now on. Only runs declaring add/remove-one are "
                  "accepted from now on.",
}


def relation_consequence(neighbouring: str, runs: int) -> str:
    """What keeping a budget under ``neighbouring`` from now on means for its ``runs`` earlier runs."""
    return _CONSEQUENCES[neighbouring].format(runs=runs, plural="" if runs == 1 else "s")


def bind(ledger: Ledger, ds: Dataset, dataset_id: str) -> DatasetRecord:
    """The curator's statement that the rows of ``ds`` are dataset ``dataset_id``: they share its budget.

    Refused (``ValueError``) when the rows already belong to another dataset, or when the relation
    of neighbouring datasets differs (a budget is only meaningful under one relation).
    """
    record = ledger.dataset(dataset_id)
    if record is None:
        raise ValueError(f"no dataset {dataset_id!r} in the ledger {ledger.path}")
    mismatch = relation_mismatch(record, ds.schema)
    if mismatch:
        raise ValueError(f"{mismatch}; {ds.name!r} cannot share its budget")
    fp = fingerprint_of(ledger, ds)
    record = ledger.bind_content(dataset_id, fp.content, note=f"{ds.name} bound by the curator",
                                 identity=_identity(fp))
    ds.dataset_id = record.dataset_id
    return record


# -- the declared schema, remembered per rows ----------------------------------------------------


def declares_nothing(schema: Schema) -> bool:
    """A schema with no declared bounds and no levels: inferred from the file, nothing promised yet."""
    return all(c.lower is None and c.upper is None and not c.categories for c in schema.columns)


def recall_declared(ledger: Ledger, ds: Dataset) -> Schema | None:
    """The schema the curator last declared for these rows, when the file brought none of its own.

    Keyed like the budget (the rows' private identity), so the same rows re-saved, renamed or moved
    get their bounds and levels back; under renamed or reordered headers each declared column goes to
    the column holding its values (matched by column fingerprint), named as the file names it now.
    A schema that cannot be matched column by column is not applied.
    """
    from dataclasses import replace

    from svtgui.data.schema import Schema, SchemaError

    if not declares_nothing(ds.schema):
        return None  # a sidecar or a session declared this schema: it stands
    fp = fingerprint_of(ledger, ds)
    stored = ledger.remembered_schema(fp.content)
    if stored is None:
        return None
    digests = stored.pop(_DIGESTS, None)  # what each declared column held (remembered since schema 8)
    try:
        schema = Schema.from_json(stored)
    except SchemaError:
        return None
    if schema.names == ds.schema.names:
        return schema
    by_digest = dict(zip(digests or (), schema.columns, strict=False))
    mine = [c.digest for c in fp.columns]
    if len(set(mine)) != len(mine) or any(d not in by_digest for d in mine):
        return None  # two columns with the same values, or a column it never declared: no guessing
    return replace(schema, columns=tuple(replace(by_digest[d], name=name) for d, name in zip(mine, ds.columns,
                                                                                             strict=True)))


_DIGESTS = "svtgui_column_digests"


def remember_declared(ledger: Ledger, ds: Dataset, schema: Schema) -> None:
    """Keep ``schema`` as what the curator declared for the rows of ``ds`` (only in the ledger), with
    the fingerprint of each column it declares, so renamed headers get it back."""
    fp = fingerprint_of(ledger, ds)
    ledger.remember_schema(fp.content, {**schema.to_json(), _DIGESTS: [c.digest for c in fp.columns]})
