"""The one gate every release passes before anything is charged or released.

A curator's promise is about a dataset's whole life: everything ever released about these rows,
together, is ε_total-DP under the neighbouring relation the dataset was registered with. Any path
that releases without passing the accounting breaks it, so every release path — a run from the
window or the CLI (:func:`svtgui.app.runs.runner.start_run`, PMW and SparseProject included, and the
adaptive queries of a run it started), a recipe (:mod:`svtgui.app.recipes`), ``sparse-project
build``, a screenshot or demo — charges through :func:`charge`, and :func:`charge` alone calls the
ledger's ``start_run`` (``tests/app/test_gate.py`` scans the package for any other caller).

How the gate decides
--------------------
A :class:`Request` says what is about to be charged: the rows, what the curator declared about them
(the dataset's schema), the mechanism, its guarantee and its noise. :func:`charge` looks the rows up
in the ledger (they must be a registered dataset: the budget charged is always the one of these
rows), then runs every function of :data:`CHECKS` in order. A check is one small function
``check(request, registration) -> str | None``: it returns a one-line refusal naming what is wrong
and how to proceed, or None. The first refusal raises :class:`Refused` (a ``ValueError``) and
nothing is charged. Only then is the run charged, in one ledger transaction.

``registration`` is the dataset's ledger record, or None while the rows are new to the ledger:
:func:`screen` runs the same checks before a new dataset is registered (the CLI registers a dataset
together with its first run, and a refused run must leave the ledger as it was). A check that needs
the registration passes when it is None (the rows will be registered with this request's
declarations).

To add a check (e.g. domain provenance), write the function and append it to :data:`CHECKS`; every
release path then applies it.

The checks
----------
* :func:`same_relation` — the neighbouring relation, and the public n under replace-one, are part of
  the registration (:meth:`svtgui.ledger.Ledger.relation_events`): a run under another relation or
  another n is refused (a budget under replace-one is not a budget under add/remove). Changing them
  is an explicit, logged curator action (``svtgui-cli ledger set-relation``, History ▸ Neighbouring
  relation…).
* :func:`seeded_only_on_public_data` — seeded (test) noise only on the bundled samples and toy data
  built in memory (:mod:`svtgui.app.public_data`): a known seed makes the noise removable.
* :func:`domains_declared_or_allowed` — a release that depends on a domain read off the data (a
  list of the values or items that occur, schema levels read from the data, a universe over observed
  levels; :mod:`svtgui.app.domains`) only with the curator's override; the domains are then stored
  with the charge, and every report says the release is NOT differentially private.
* :func:`demos_only_on_public_data` — inside a demo (:func:`svtgui.app.demo.throwaway_ledger`, which
  sets :data:`DEMO_ENV`) only public rows run: a throwaway ledger charges nothing that lasts.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field

from svtgui.app import domains
from svtgui.app.dataset_identity import identify, relation_mismatch
from svtgui.app.params import Params
from svtgui.app.public_data import is_public
from svtgui.data.dataset import Dataset
from svtgui.data.schema import Schema
from svtgui.ledger import DatasetRecord, Ledger, RunRecord

#: Set (to any non-empty value) while a demo runs against a throwaway ledger; inherited by the run
#: process. It only ever restricts: with it set, private rows are refused.
DEMO_ENV = "SVTGUI_DEMO"


class Refused(ValueError):
    """The gate refused a release; nothing was charged or released."""


@dataclass(frozen=True)
class Request:
    """What is about to be charged: the rows, the run's public parameters and its guarantee."""

    dataset: Dataset
    mechanism_id: str
    params: Params
    epsilon: str
    delta: str = "0"
    secure: bool = True
    noise_description: str = ""
    queries_planned: int | None = None
    extra: domains.GateExtra = field(default_factory=dict)  # for later checks: domains read from the data

    @property
    def schema(self) -> Schema:
        return self.dataset.schema

    @property
    def name(self) -> str:
        return str(self.dataset.name)


Check = Callable[[Request, DatasetRecord | None], str | None]


def same_relation(request: Request, registration: DatasetRecord | None) -> str | None:
    """The run's neighbouring relation (and public n) must be the one the dataset's budget is kept under."""
    mismatch = None if registration is None else relation_mismatch(registration, request.schema)
    if mismatch is None:
        return None
    return (f"{mismatch}. Declare that relation, or change the dataset's with `svtgui-cli ledger "
            f"set-relation {registration.dataset_id} RELATION --reason TEXT` (nothing was charged)")


def seeded_only_on_public_data(request: Request, _registration: DatasetRecord | None) -> str | None:
    """Seeded noise is removable by whoever knows the seed: only on public rows."""
    if request.secure or is_public(request.dataset):
        return None
    return (f"seeded test noise (--test-seed, test_seed) runs only on the bundled samples or toy data; "
            f"{request.name!r} is neither, and a known seed makes its noise removable (nothing was charged)")


def domains_declared_or_allowed(request: Request, _registration: DatasetRecord | None) -> str | None:
    """Domains read off the data are not public: released over only with the curator's override."""
    refusal = domains.gate_problem(request.extra)
    return None if refusal is None else f"{refusal} (nothing was charged)"


def demos_only_on_public_data(request: Request, _registration: DatasetRecord | None) -> str | None:
    """A demo's throwaway ledger spends nothing that lasts: only public rows may run in it."""
    if not os.environ.get(DEMO_ENV) or is_public(request.dataset):
        return None
    return (f"a screenshot or demo runs only the bundled samples or toy data; {request.name!r} is private "
            "data and would be released for free (run it in the window or with svtgui-cli run, charged)")


#: Every check, in order; the first refusal wins. Append new checks here.
CHECKS: list[Check] = [same_relation, seeded_only_on_public_data, domains_declared_or_allowed,
                       demos_only_on_public_data]


def screen(ledger: Ledger, request: Request) -> DatasetRecord | None:
    """Run every check without charging; returns the rows' registration (None when new).

    Raises :class:`Refused` with the first check's refusal. Call it before registering new rows.
    """
    registration = identify(ledger, request.dataset).record
    for check in CHECKS:
        refusal = check(request, registration)
        if refusal:
            raise Refused(refusal)
    return registration


def charge(ledger: Ledger, request: Request) -> RunRecord:
    """Check the request (:func:`screen`) and charge its full guarantee, committed before this returns.

    The rows must be registered; the charge goes to their dataset, whatever id the dataset object
    carries. Raises :class:`Refused` or the ledger's ``BudgetExceeded``; either way nothing is charged.
    """
    registration = screen(ledger, request)
    if registration is None:
        raise Refused(f"dataset {request.name!r} is not in the ledger yet: register it with a total budget")
    return ledger.start_run(registration.dataset_id, request.mechanism_id, request.params, request.epsilon,
                            request.delta, secure=request.secure, noise_description=request.noise_description,
                            queries_planned=request.queries_planned,
                            declared=domains.ledger_declarations(request.schema,
                                                                 request.extra.get(domains.LEDGER_KEY, ())))
