"""``svtgui-cli ledger``: datasets, budgets spent / remaining and runs; ``ledger raise`` raises a total;
``ledger set-relation`` changes the neighbouring relation a budget is kept under; ``ledger accept``
proceeds past what the ledger's integrity checks found (each logged)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from svtgui.cli.config import amount_option, integer_option
from svtgui.cli.errors import CliError
from svtgui.core.budget import fmt
from svtgui.ledger import ENV_VAR, DatasetRecord, Ledger, LedgerError, RunRecord, default_location, is_server


def add_ledger_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--ledger", metavar="PATH|URL",
                   help="ledger file, or postgresql://user@host/db for a team's ledger on a server "
                        "(default: $SVTGUI_LEDGER, else a file in the per-user data directory)")


def open_ledger(path: str | None, *, existing: bool = False) -> Ledger:
    """Open the ledger, turning an unusable one into a one-line CLI error (exit code 2).

    ``existing``: the command only reads or changes what a ledger holds (a report, a release, the
    ledger actions), so a ledger file that does not exist is refused rather than created empty: a
    typo in --ledger left a new empty ledger behind and said "no run 1 in the ledger". A missing file
    that an anchor knows was deleted: opening it says so (the tamper check)."""
    from svtgui.ledger import anchor

    location = path or default_location()
    file = None if is_server(location) else Path(location).expanduser()
    deleted = file is not None and any(a.count for a in anchor.at_path(file.resolve()))
    if existing and file is not None and not file.exists() and not deleted:
        raise CliError(f"no ledger at {location} (nothing was created): check --ledger or "
                       f"${ENV_VAR}; a run creates the ledger")
    try:
        return Ledger.open(path)
    except LedgerError as exc:
        raise CliError(str(exc)) from None


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "ledger", help="show datasets, budgets spent/remaining and runs (or raise a total budget)",
        description="Show every dataset in the privacy ledger with its total, spent and remaining budget, "
                    "and its runs. `ledger raise` raises a dataset's total budget (logged).",
        epilog="example: svtgui-cli ledger --json | jq '.datasets[0].remaining_epsilon'")
    add_ledger_option(p)
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(handler=show)
    actions = p.add_subparsers(dest="action", metavar="ACTION")
    r = actions.add_parser(
        "raise", help="raise a dataset's total budget (an explicit, logged curator action)",
        description="Raise the total privacy budget of a dataset. Totals can only grow; the change is "
                    "logged with the note in the ledger's budget history.",
        epilog="example: svtgui-cli ledger raise ds-7974 --total-epsilon 2 --note 'approved by the board'")
    r.add_argument("dataset_id", metavar="ID",
                   help="the dataset's id, ds-… as `svtgui-cli ledger` lists it (a unique prefix is enough)")
    r.add_argument("--total-epsilon", required=True, type=amount_option(),
                   help="new total ε (at least the current one)")
    r.add_argument("--total-delta", type=amount_option(delta=True), help="new total δ (default: unchanged)")
    r.add_argument("--note", required=True, help="why the budget was raised (kept in the ledger)")
    add_ledger_option(r)
    r.set_defaults(handler=raise_total)
    a = actions.add_parser(
        "accept", help="proceed past a tampering finding (rollback, deleted rows or file), logged",
        description="When opening the ledger is refused because it was changed outside SVT Studio (its "
                    "triggers dropped, charges edited or deleted, an older copy restored, the file deleted "
                    "or replaced), record the finding with your reason and login in the ledger and proceed. "
                    "History, `svtgui-cli ledger` and every report show it from then on.",
        epilog="example: svtgui-cli ledger accept --reason 'restored the Friday backup after a disk failure'")
    a.add_argument("--reason", required=True, help="why it is right to proceed (kept in the ledger)")
    add_ledger_option(a)
    a.set_defaults(handler=accept)
    s = actions.add_parser(
        "set-relation", help="keep a dataset's budget under another neighbouring relation (logged)",
        description="Change the neighbouring relation (and, under replace-one, the public number of rows "
                    "n) that a dataset's budget is kept under. Runs are refused before their charge unless "
                    "they declare this relation, so changing it is an explicit curator action, logged with "
                    "your reason and login and shown by `svtgui-cli ledger` and History. Earlier runs keep "
                    "the relation they were charged under.",
        epilog="example: svtgui-cli ledger set-relation ds-7974 replace --n 30000 --reason 'n is published "
               "in the census report'")
    s.add_argument("dataset_id", metavar="ID",
                   help="the dataset's id, ds-… as `svtgui-cli ledger` lists it (a unique prefix is enough)")
    s.add_argument("relation", choices=("add_remove", "replace"),
                   help="add_remove: one row added or removed (n private); replace: one row replaced "
                        "(n public)")
    s.add_argument("--n", type=integer_option, metavar="N", help="the public number of rows (replace only)")
    s.add_argument("--reason", required=True, help="why the relation changes (kept in the ledger)")
    add_ledger_option(s)
    s.set_defaults(handler=set_relation)
    n = actions.add_parser(
        "set-name", help="the name reports publish for a dataset (default: its random id)",
        description="Choose the public name release reports use for a dataset. Until one is chosen they "
                    "name it by its random id, never by the data file's name or path (which can say what, "
                    "or whom, the data is about). Logged; the last name set wins.",
        epilog="example: svtgui-cli ledger set-name ds-7974 'Census sample 2024'")
    n.add_argument("dataset_id", metavar="ID",
                   help="the dataset's id, ds-… as `svtgui-cli ledger` lists it (a unique prefix is enough)")
    n.add_argument("name", help="the public name")
    add_ledger_option(n)
    n.set_defaults(handler=set_name)
    m = actions.add_parser(
        "migrate", help="copy this ledger into a team's ledger on a PostgreSQL server (verified)",
        description="Copy every dataset, budget event, charge and response of this ledger into a server "
                    "ledger, in one transaction, verified by replaying the hash chain on the server. "
                    "Refused, copying nothing, if a dataset is already there with another history.",
        epilog="example: svtgui-cli ledger migrate --to postgresql://ana@db.example.org/svt")
    m.add_argument("--to", required=True, metavar="URL", help="the server ledger, postgresql://user@host/db")
    add_ledger_option(m)
    m.set_defaults(handler=migrate)


def find_dataset(led: Ledger, prefix: str) -> DatasetRecord:

    matches = [d for d in led.datasets() if d.dataset_id.startswith(prefix.lower())]
    if len(matches) != 1:
        what = "no dataset" if not matches else f"{len(matches)} datasets"
        raise CliError(f"{what} in the ledger {led.location} with an id starting {prefix!r} "
                       "(`svtgui-cli ledger` lists the ids)")
    return matches[0]


def raise_total(args: argparse.Namespace) -> int:
    with open_ledger(args.ledger, existing=True) as led:
        d = find_dataset(led, args.dataset_id)
        new = led.raise_total(d.dataset_id, args.total_epsilon, args.total_delta, note=args.note)
        print(f"{new.name} ({new.dataset_id}): total ε {fmt(d.total_epsilon)} → "
              f"{fmt(new.total_epsilon)}, δ {fmt(d.total_delta)} → {fmt(new.total_delta)} (logged)")
    return 0


def set_name(args: argparse.Namespace) -> int:
    with open_ledger(args.ledger, existing=True) as led:
        d = find_dataset(led, args.dataset_id)
        try:
            new = led.set_public_name(d.dataset_id, args.name)
        except ValueError as exc:
            raise CliError(str(exc)) from None
    print(f"{new.name} ({new.dataset_id}): reports now name it “{new.public_name}” (was “{d.public_name}”)")
    return 0


def set_relation(args: argparse.Namespace) -> int:
    from svtgui.app.dataset_identity import relation_consequence, relation_text

    if (args.relation == "replace") != (args.n is not None):
        raise CliError("--n: replace-one needs the public number of rows n; add/remove-one has none")
    with open_ledger(args.ledger, existing=True) as led:
        d = find_dataset(led, args.dataset_id)
        try:
            new = led.set_relation(d.dataset_id, args.relation, args.n, reason=args.reason)
        except ValueError as exc:
            raise CliError(str(exc)) from None
        runs = len(led.runs(d.dataset_id))
    now, was = relation_text(new.neighbouring, new.public_n), relation_text(d.neighbouring, d.public_n)
    print(f"{new.name} ({new.dataset_id}): budget now kept under {now} neighbours (was {was}); logged with "
          "your reason.")
    print(relation_consequence(args.relation, runs))
    return 0


def accept(args: argparse.Namespace) -> int:

    if not args.reason.strip():
        raise CliError("--reason: give the reason to proceed (it is recorded in the ledger)")
    try:
        led = Ledger.open(args.ledger, accept=args.reason)
    except LedgerError as exc:
        raise CliError(str(exc)) from None
    with led:
        for finding in led.accepted:
            print(f"accepted: {finding}")
        print(f"recorded in ledger {led.location} with your reason; the ledger can be used again")
    return 0


def migrate(args: argparse.Namespace) -> int:
    from svtgui.ledger.transfer import copy_ledger

    if not is_server(args.to):
        raise CliError(f"--to: {args.to!r} is not a server ledger; give a postgresql://user@host/db URL")
    with open_ledger(args.ledger, existing=True) as source:
        try:
            with Ledger.open(args.to, key=source.content_key()) as target:
                done = copy_ledger(source, target)
                where = target.location
        except LedgerError as exc:
            raise CliError(str(exc)) from None
    print(f"copied {len(done.datasets)} dataset(s), {done.runs} run(s) and {done.responses} response(s) "
          f"from {source.location} to {where}; verified: {done.links} chained record(s) replay identically")
    if done.skipped:
        print(f"already there with the same history (not copied again): {', '.join(done.skipped)}")
    if done.rebind:
        print("the server ledger has its own fingerprint key: the first time each dataset's file is opened "
              "with the server ledger, say it is the same dataset as its ds-… id")
    return 0


def summary(led: Ledger) -> dict[str, Any]:
    """Everything ``ledger`` shows, as JSON-able data (amounts as exact decimal text)."""
    out: dict[str, Any] = {"ledger": led.location, "datasets": [],
                           "integrity_events": [{"found": e.found, "reason": e.reason, "login": e.login,
                                                 "at": e.at} for e in led.integrity_events()]}
    for d in led.datasets():
        b = led.budget(d.dataset_id)
        out["datasets"].append({
            "id": d.dataset_id, "name": d.name, "public_name": d.public_name, "neighbouring": d.neighbouring,
            "public_n": d.public_n,
            "total_epsilon": fmt(b.total_epsilon), "spent_epsilon": fmt(b.spent_epsilon),
            "remaining_epsilon": fmt(b.remaining_epsilon), "total_delta": fmt(b.total_delta),
            "spent_delta": fmt(b.spent_delta), "remaining_delta": fmt(b.remaining_delta),
            "registered_at": d.registered_at,
            "budget_events": [{"kind": e.kind, "epsilon": fmt(e.epsilon), "delta": fmt(e.delta),
                               "note": e.note, "at": e.at, "by": e.login}
                              for e in led.budget_events(d.dataset_id)],
            "relation_events": [{"kind": e.kind, "neighbouring": e.neighbouring, "public_n": e.public_n,
                                 "reason": e.reason, "at": e.at, "by": e.login}
                                for e in led.relation_events(d.dataset_id)],
            "runs": [_run_json(led, r) for r in led.runs(d.dataset_id)],
        })
    return out


def _run_json(led: Ledger, r: RunRecord) -> dict[str, Any]:
    from svtgui.app.domains import recorded

    answered, above = led.response_counts(r.id)
    return {"id": r.id, "mechanism": r.mechanism_id, "status": r.status, "epsilon": fmt(r.epsilon),
            "delta": fmt(r.delta), "noise": r.noise, "started_at": r.started_at, "ended_at": r.ended_at,
            "responses": answered, "above": above, "queries_planned": r.queries_planned,
            # allowed by the curator: such a run is NOT differentially private
            "domains_from_data": list(recorded(led.declarations(r.id)))}


def show(args: argparse.Namespace) -> int:
    from svtgui.app.dataset_identity import relation_text

    with open_ledger(args.ledger, existing=args.ledger is not None) as led:
        data = summary(led)
    if args.json:
        print(json.dumps(data, indent=2, ensure_ascii=False))
        return 0
    print(f"ledger: {data['ledger']}")
    for e in data["integrity_events"]:
        print(f"accepted by {e['login']} on {e['at'][:10]}: {e['found']} (reason: {e['reason']})")
    if not data["datasets"]:
        print("no datasets yet: `svtgui-cli run --budget-epsilon E ...` registers one")
    for d in data["datasets"]:
        print(f"\n{d['name']}  [{d['id']}]  neighbours: {relation_text(d['neighbouring'], d['public_n'])}")
        if d["public_name"] != d["id"]:
            print(f"  reports name it: {d['public_name']}")
        print(f"  ε: total {d['total_epsilon']}, spent {d['spent_epsilon']}, "
              f"remaining {d['remaining_epsilon']}")
        print(f"  δ: total {d['total_delta']}, spent {d['spent_delta']}, remaining {d['remaining_delta']}")
        for e in d["budget_events"]:
            if e["kind"] == "raise":
                who = f" by {e['by']}" if e["by"] else ""
                print(f"  raised to ε {e['epsilon']}, δ {e['delta']} at {e['at']}{who}: {e['note']}")
        for e in d["relation_events"]:
            if e["kind"] == "change":
                who = f" by {e['by']}" if e["by"] else ""
                relation = relation_text(e["neighbouring"], e["public_n"])
                print(f"  relation set to {relation} at {e['at']}{who}: {e['reason']}")
        for r in d["runs"]:
            not_private = "  NOT differentially private: domains read from the data" \
                if r["domains_from_data"] else ""
            print(f"  run {r['id']:>4}  {r['mechanism']:16} {r['status']:11} ε {r['epsilon']:8} "
                  f"δ {r['delta']:8} {r['above']:>5} ⊤ / {r['responses']:<7} {r['noise']:7} "
                  f"{r['started_at'][:19]}{not_private}")
    return 0
