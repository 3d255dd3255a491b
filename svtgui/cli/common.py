"""Helpers shared by several ``svtgui-cli`` commands (``run``, ``sparse-project``, ``recipe``).

They live here, not in one command's module, so that commands never import each other's internals
(the import contracts forbid cycles between siblings: ``run`` and ``sparse-project`` each need the
other's helpers).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from svtgui.app import dataset_identity
from svtgui.cli.config import amount_option, seed_option
from svtgui.cli.errors import EXIT_BAD_INPUT, EXIT_BUDGET, CliError
from svtgui.core.budget import Budget, fmt
from svtgui.core.mechanisms.sparse_project import ProjectionRelease
from svtgui.ledger import DatasetRecord, Ledger

TEST_SEED_WARNING = ("warning: --test-seed: the noise is reproducible, so this release is NOT differentially "
                     "private; never publish it")


def add_dataset_options(p: argparse.ArgumentParser) -> None:
    """The options that say which dataset (budget) the rows are, and the test-only seed."""
    p.add_argument("--budget-epsilon", type=amount_option(), metavar="E",
                   help="total ε budget of a dataset new to the ledger (ignored for known datasets)")
    p.add_argument("--budget-delta", type=amount_option(delta=True), metavar="D",
                   help="total δ budget of a new dataset (default 0)")
    who = p.add_mutually_exclusive_group()
    who.add_argument("--new-dataset", action="store_true", default=None,
                     help="these rows are a different dataset from the known one they resemble (its name, "
                          "or columns with its values): give them their own budget (with --budget-epsilon)")
    who.add_argument("--same-dataset-as", metavar="ID",
                     help="these rows (a changed file) are the known dataset ID (ds-…, see `svtgui-cli "
                          "ledger`): charge its budget")
    p.add_argument("--allow-data-derived-domains", action="store_true", default=None,
                   help="run even though the release depends on a domain read off the data (observed values "
                        "or items, schema levels read from the data): it is then recorded and reported as "
                        "NOT differentially private. Without it such a release is refused")
    p.add_argument("--test-seed", type=seed_option, metavar="N",
                   help="TESTS ONLY: seeded, reproducible noise; the release is NOT differentially private "
                        "(the ledger and reports say so, and never record N)")


def applicable_budget(led: Ledger, ds: Any, s: dict[str, Any]) -> Budget:
    """The budget a run on these rows would be charged to, before anything is registered or bound:
    the known dataset's, the one ``--same-dataset-as`` names, or the total a new dataset declares."""
    from svtgui.app.plan import declared_budget

    identity = dataset_identity.identify(led, ds)
    known = identity.record
    if known is not None or s.get("same_dataset_as"):
        try:
            return led.budget(known.dataset_id if known is not None else s["same_dataset_as"])
        except ValueError as exc:
            raise CliError(f"--same-dataset-as: {exc}") from None
    if identity.needs_decision and not s.get("new_dataset"):
        raise _decision_needed(led, ds, identity.lookalikes)  # before asking for a budget it may not need
    if s.get("budget_epsilon") is None:
        raise _budget_needed(led, ds)
    try:
        return declared_budget(str(s["budget_epsilon"]), str(s.get("budget_delta") or 0))
    except ValueError as exc:
        raise CliError(f"--budget-epsilon/--budget-delta: {exc}") from None


def screen(led: Ledger, request: Any) -> None:
    """The gate's checks (:func:`svtgui.app.gate.screen`) before anything is registered or charged;
    a refusal is one line, exit 2, nothing written."""
    from svtgui.app import gate

    try:
        gate.screen(led, request)
    except gate.Refused as exc:
        raise CliError(str(exc)) from None


def warn(command: str, warnings: Any) -> None:
    """A plan's warnings (they change what the run means, without blocking it), one line each on stderr."""
    for w in warnings:
        print(f"svtgui-cli {command}: warning: {w}", file=sys.stderr)


def register_dataset(led: Ledger, ds: Any, s: dict[str, Any]) -> DatasetRecord:
    """The dataset these rows are, registering or binding them as the options say (see
    :mod:`svtgui.app.dataset_identity`); rows that look like a known dataset need the curator's word."""
    same_as, new = s.get("same_dataset_as"), bool(s.get("new_dataset"))
    if same_as and new:
        raise CliError("--new-dataset and --same-dataset-as contradict each other; pass one of them")
    identity = dataset_identity.identify(led, ds)
    known = identity.record
    if known is not None:
        if same_as and same_as != known.dataset_id:
            raise CliError(f"--same-dataset-as {same_as}: these rows are already dataset {known.dataset_id} "
                           "in the ledger; drop the option")
        if s.get("budget_epsilon") is not None and Fraction(str(s["budget_epsilon"])) != known.total_epsilon:
            print(f"svtgui-cli: note: {ds.name} is already in the ledger as {known.dataset_id} with total ε "
                  f"{fmt(known.total_epsilon)}; --budget-epsilon is ignored (raise a total with "
                  "`svtgui-cli ledger raise`)", file=sys.stderr)
        return known
    if same_as:
        try:
            record = dataset_identity.bind(led, ds, same_as)
        except ValueError as exc:
            raise CliError(f"--same-dataset-as: {exc}") from None
        print(f"svtgui-cli: note: the rows of {ds.name} are now dataset {record.dataset_id} (sharing its "
              "budget)", file=sys.stderr)
        return record
    if identity.needs_decision and not new:
        raise _decision_needed(led, ds, identity.lookalikes)
    if s.get("budget_epsilon") is None:
        raise _budget_needed(led, ds)
    return dataset_identity.register(led, ds, str(s["budget_epsilon"]), str(s.get("budget_delta") or 0),
                                     different=new)


def _budget_needed(led: Ledger, ds: Any) -> CliError:
    """Rows new to the ledger (and like no known dataset): their total budget must be given."""
    return CliError(f"dataset {ds.name!r} is new to the ledger {led.path}: "
                    "give its total budget with --budget-epsilon (and --budget-delta)")


def _decision_needed(led: Ledger, ds: Any, lookalikes: tuple[DatasetRecord, ...]) -> CliError:
    """New rows that resemble a known dataset: the curator must say which they are."""
    ids = ", ".join(d.dataset_id for d in lookalikes)
    return CliError(f"{ds.name!r} is new to the ledger {led.path} but resembles dataset {ids} "
                    f"({dataset_identity.RESEMBLES}): pass --same-dataset-as {lookalikes[0].dataset_id} if "
                    "it is that dataset (a changed file: it shares that budget), or --new-dataset if it is a "
                    "different dataset (its own budget, with --budget-epsilon)")


def plan_refusal(plan: Any, options: dict[str, str], earlier: Sequence[str] = ()) -> CliError:
    """Every problem of a refused plan (``app.plan.Plan``) in one line, each named by its option
    (``options``: field → option), after the ``earlier`` problems the command found itself (a report
    format it cannot write), and the exit code docs/cli.md promises: 3 only when the budget is all
    that is wrong, 2 when any input is bad (a second problem was dropped, and a bad --out beside an
    overspend exited 2 under the budget's message)."""
    texts = list(dict.fromkeys([*earlier, *(f"{options[p.field]}: {p.message}" if p.field in options
                                            else p.message for p in plan.problems)]))
    budget_only = plan.fits is False and len(plan.problems) == 1 and not earlier
    code = EXIT_BUDGET if budget_only else EXIT_BAD_INPUT
    return CliError("; ".join(texts) + " (nothing was charged)", code)


def load_release(path: str, expect_sha256: str | None = None) -> ProjectionRelease:
    """The release, its checksum verified (and its SHA-256 against the published one when given)."""
    try:
        return ProjectionRelease.load(path, expect_sha256=expect_sha256)
    except ValueError as exc:
        raise CliError(str(exc)) from None


def print_theory(release: ProjectionRelease) -> None:
    h, acc = release.header, release.header["accuracy"]
    print(f"universe |X| = {release.universe_size}, T = {release.projection_size}, n = {release.n}"
          f"{' (noisy)' if h['n_is_noisy'] else ''}, hash: degree-{release.hash.independence - 1} polynomial "
          f"over GF(2^{release.hash.bits})")
    print(f"privacy: {h['noise']} noise, scale {h['noise_scale_u']:.4g} per coordinate, "
          f"(ε = {h['epsilon']:g}, δ = {h['delta']:g}), {h['neighbouring']} neighbours")
    print(f"paper's T for n = {release.n}, m = {h['sparsity']}, k = {h['queries']}: "
          f"{acc['paper_projection_size']:.3g} (α there = {acc['alpha_at_paper_size']:.4g})")
    print(f"theoretical α at T = {release.projection_size}: {acc['alpha']:.4g} with probability "
          f"{1 - acc['beta']:g} over k = {h['queries']} {h['sparsity']}-sparse queries "
          f"(projection {acc['projection']:.3g} worst case ‖D‖₂ = n, noise {acc['noise']:.3g}, "
          f"count {acc['count']:.3g})")


def print_release(facts: dict[str, Any]) -> None:
    path = facts.get("release_file")
    print_theory(load_release(path, facts.get("release_sha256") or None))
    print(f"wrote {path} (sha256 {facts.get('release_sha256', '')[:16]}…); answer queries from it, without "
          f"the data: svtgui-cli sparse-project answer --release {path} --query JSON")
