"""Releases that depend on a domain read off the data: refused by default, NOT private when allowed.

A query list built from the values that occur in a column, schema levels "read from the data", a
universe whose levels were observed, or a frequent-items run over the items that occur: each puts
values of the private rows into public output (a report once listed a country held by one person in
Adult; another published the exact number of distinct items). The provenance of every domain is
recorded where the domain lives (:mod:`svtgui.data.provenance`); this module gathers the notes a
release depends on (:func:`release_notes`) and decides (:func:`problem`):

* by default such a release is **refused** before anything is charged, with one line naming the
  domains and how to declare them instead;
* with the curator's explicit override (``--allow-data-derived-domains``; in the window the
  Queries step's "Allow domains read from the data" and its confirmation) it runs, and the notes are
  stored with its charge in the ledger (:func:`ledger_declarations`). Every report, the History and
  the CLI then say that the release is **NOT differentially private**, as for a seeded run.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from svtgui.app.dataset_identity import Declarations, declared
from svtgui.data import provenance
from svtgui.data.queries import Query
from svtgui.data.schema import Schema
from svtgui.ledger import Ledger

if TYPE_CHECKING:  # annotations only: the universe module imports pandas (svtgui-cli --help needs none)
    from svtgui.data.universe import Universe

#: What a gate request carries about domains read from the data (:func:`gate_extra`): their notes and
#: whether the curator allowed them.
GateExtra = dict[str, list[str] | bool]

OVERRIDE_OPTION = "--allow-data-derived-domains"
OVERRIDE_LABEL = "Allow domains read from the data (the release is NOT differentially private)"
#: Key of the notes in the declarations stored with a run's charge (``Ledger.start_run(declared=)``)
#: and in a gate request's ``extra``; ALLOWED_KEY carries the curator's override there.
LEDGER_KEY = "domains_from_data"
ALLOWED_KEY = "allow_data_derived_domains"
FIELD = "domains"  # the plan's field of the refusal


@dataclass(frozen=True)
class Domains:
    """The data-derived domains a set-up brings besides its schema and universe (a query list's
    notes, a recipe's item domain), and whether the curator allowed them."""

    from_data: tuple[str, ...] = ()
    allowed: bool = False


#: A set-up that brings no domain read from the data, and no override (the default of every path).
DECLARED = Domains()


def release_notes(schema: Schema | None, queries: Sequence[Query], brought: Iterable[str] = (),
                  universe: Universe | None = None, columns: Iterable[str] | None = None) -> tuple[str, ...]:
    """Every domain read off the data that a release depends on: those ``brought`` by its query list
    (or recipe), the schema levels read from the data of a column a query reads, and the universe's
    axes whose levels were not declared (the universe's description is published whole).
    ``columns``: the columns the queries read, when the caller keeps them already (the queue's
    facts: a long queue is then not walked again on every plan)."""
    if columns is None:
        read_by = (getattr(q, "columns", None) for q in queries)
        columns = {c for read in read_by if callable(read) for c in read()}
    from_schema = provenance.schema_notes(schema, sorted(columns)) if schema is not None else []
    axes = []
    if universe is not None:
        in_schema = set(schema.levels_from_data()) if schema is not None else set()
        axes = [provenance.levels_note(c) if c in in_schema else provenance.values_note(c)
                for c in universe.levels_from_data]
    return provenance.merge(brought, from_schema, axes)


def listing(notes: Sequence[str]) -> str:
    """The notes as one phrase: "the values of column 'a' and the items of column 'items'"."""
    return notes[0] if len(notes) == 1 else ", ".join(notes[:-1]) + f" and {notes[-1]}"


def refusal(notes: Sequence[str]) -> str:
    """The one line that refuses a release over domains read from the data."""
    return (f"this release depends on {listing(notes)}, read from the private data: publishing it reveals "
            "which values occur. Declare the domain from public knowledge instead (the schema's levels, a "
            "public list of values or items, a universe spec 'column=level1,level2,…'), or allow domains "
            f"read from the data ({OVERRIDE_OPTION}; in the window, on the Queries step) to release it as "
            "NOT differentially private")


def warning(notes: Sequence[str]) -> str:
    """What an allowed release says before it is charged (plan warning, CLI stderr, confirmation)."""
    return (f"this release depends on {listing(notes)}, read from the private data: it is NOT "
            "differentially private; never publish it")


def reminder(notes: Sequence[str]) -> str:
    """The window's reminder (spend confirmation, export): one sentence, or "" when there is nothing
    read from the data."""
    if not notes:
        return ""
    text = warning(notes)
    return f"⚠ {text[:1].upper()}{text[1:]}."


def problem(notes: Sequence[str], allowed: bool) -> str | None:
    """The refusal of a release over ``notes`` unless ``allowed`` (None: nothing to refuse)."""
    return refusal(notes) if notes and not allowed else None


def gate_extra(notes: Sequence[str], allowed: bool) -> GateExtra:
    """What a release's gate request carries for :func:`svtgui.app.gate.domains_declared_or_allowed`:
    the domains read from the data it depends on, and the curator's override."""
    return {LEDGER_KEY: list(notes), ALLOWED_KEY: bool(allowed)}


def gate_problem(extra: GateExtra) -> str | None:
    """The gate's refusal of a request whose ``extra`` (:func:`gate_extra`) was not allowed."""
    return problem(tuple(extra.get(LEDGER_KEY, ())), bool(extra.get(ALLOWED_KEY)))


def ledger_declarations(schema: Schema, notes: Sequence[str]) -> Declarations:
    """What is stored with the charge: the declarations a run's Δ comes from, plus the domains read
    from the data that the curator allowed (absent when there are none)."""
    out = declared(schema)
    if notes:
        out[LEDGER_KEY] = list(notes)
    return out


def recorded(declarations: Declarations | None) -> tuple[str, ...]:
    """The domains read from the data stored with a run's charge (none for runs before 0.2)."""
    return tuple((declarations or {}).get(LEDGER_KEY, ()))


def recorded_in(ledger: Ledger, run_ids: int | Iterable[int]) -> tuple[str, ...]:
    """The domains read from the data stored with the charges of one run or several (a release)."""
    ids = (run_ids,) if isinstance(run_ids, int) else tuple(run_ids)
    return provenance.merge(*(recorded(ledger.declarations(i)) for i in ids))


def sentence(notes: Sequence[str]) -> str:
    """A report's guarantee sentence for a run that depends on domains read from the data."""
    return (f"This release is NOT differentially private: it depends on {listing(notes)}, read from the "
            "private data, which reveals which values occur. The curator overrode the refusal; never "
            "publish it as private.")
