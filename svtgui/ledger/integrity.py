"""What the ledger checks about itself on open, and how a curator accepts what was found (§7).

Four checks, each turning what it finds into one phrase a curator can act on:

* the schema's protective triggers are all there, exactly as the migrations made them (dropping
  ``runs_no_delete`` is the first step of deleting charges with ``sqlite3``);
* the hash chain (:mod:`svtgui.ledger.chain`) recomputes from the rows as they are now;
* every dataset's total equals its last logged registration or raise;
* the anchor outside the file (:mod:`svtgui.ledger.anchor`) agrees: the chain is at least as long
  as the anchor recorded and passes through the anchored head (else an older copy was restored, or
  the last records were deleted), no other ledger was anchored at this path (replaced), and the
  ledger's fingerprint key is the one anchored (a key changed with ``sqlite3`` would make every
  dataset's rows look new: a fresh budget for rows whose budget is spent).

Proceeding past a finding is an explicit command (``svtgui-cli ledger accept --reason``): the
finding, the reason, the login and the host are recorded in ``integrity_events`` (chained like a
charge), History and reports show it, and exactly the state found is accepted — a later change
is found again.
"""

from __future__ import annotations

import getpass
import hashlib
import json
import socket
from dataclasses import dataclass, field
from datetime import UTC, datetime
from fractions import Fraction
from pathlib import Path
from typing import Any, Protocol

from svtgui.ledger import anchor, chain


class Checked(Protocol):
    """What a backend tells the checks about its own protective rules."""

    def trigger_findings(self, c: Any) -> list[str]: ...

    def restore_triggers(self, c: Any) -> None: ...


def _latest_totals(c: Any) -> dict[str, tuple[int, str, str]]:
    """Dataset → (id, ε, δ) of its last logged registration or raise."""
    rows = c.execute("SELECT id, dataset_id, epsilon, delta FROM budget_events ORDER BY id").fetchall()
    return {ds: (int(i), e, d) for i, ds, e, d in rows}


def totals_findings(c: Any, accepted: dict[str, list]) -> tuple[list[str], dict[str, list]]:
    """Datasets whose total is not what their budget events say (and the totals found, to accept)."""
    current = {ds: (e, d) for ds, e, d in
               c.execute("SELECT dataset_id, total_epsilon, total_delta FROM datasets")}
    findings, found = [], {}
    for ds, (event, e, d) in _latest_totals(c).items():
        now = current.get(ds)
        logged_ok = now is not None and Fraction(now[0]) == Fraction(e) and Fraction(now[1]) == Fraction(d)
        if logged_ok or accepted.get(ds) == [event, *(now or ("", ""))]:
            continue
        found[ds] = [event, *(now or ("", ""))]
        findings.append(f"dataset {ds} was deleted" if now is None else
                        f"dataset {ds}'s total budget (ε {now[0]}) is not its last logged one (ε {e})")
    return findings, found


@dataclass
class Inspection:
    """Everything found about one ledger on open, and what accepting it would record."""

    ledger_id: str
    count: int
    head: str
    findings: list[str] = field(default_factory=list)
    broken: dict[int, str] = field(default_factory=dict)
    totals: dict[str, list] = field(default_factory=dict)
    key: str = ""  # digest of the ledger's fingerprint key, for the anchor


def accepted_state(c: Any) -> tuple[dict[int, str], dict[str, list]]:
    """The chain links and totals curators accepted as they were found (union of every acceptance)."""
    links: dict[int, str] = {}
    totals: dict[str, list] = {}
    for (text,) in c.execute("SELECT accepted_json FROM integrity_events ORDER BY id"):
        data = json.loads(text)
        links.update({int(k): v for k, v in data.get("links", {}).items()})
        totals.update(data.get("totals", {}))
    return links, totals


def key_digest(c: Any) -> str:
    """A digest of the ledger's fingerprint key (the key itself never leaves the ledger)."""
    key = c.execute("SELECT key FROM ledger_key WHERE id = 1").fetchone()[0]
    return hashlib.sha256(b"svtgui ledger key digest:" + bytes(key)).hexdigest()


def deleted_here(path: Path) -> list[str]:
    """Findings for a ledger file that is absent (or empty) where an anchored ledger used to be."""
    return [f"the ledger {a.ledger_id} that was here, with {a.count} budget records, is gone (deleted?)"
            for a in anchor.at_path(path) if a.count > 0]


def inspect(c: Any, db: Checked, anchored: anchor.Anchor | None,
            others: list[anchor.Anchor]) -> Inspection:
    """Run every check in the caller's transaction. ``anchored`` (this ledger's anchor) and ``others``
    (anchors of other ledgers at this path) must be read *before* that transaction began: an anchor
    only advances after a commit, so the snapshot is then never behind it."""
    links, totals = accepted_state(c)
    check = chain.verify(c, links)
    found = Inspection(chain.ledger_id(c), check.count, check.head, broken=check.broken, key=key_digest(c))
    found.findings += db.trigger_findings(c)
    found.findings += check.findings
    total_problems, found.totals = totals_findings(c, totals)
    found.findings += total_problems
    if anchored is not None:
        if check.count < anchored.count:
            found.findings.append(
                f"it holds {check.count} budget records where its anchor recorded {anchored.count}: "
                "an older copy was restored, or records were deleted")
        elif anchored.count and check.hashes.get(anchored.count) != anchored.head:
            found.findings.append("its history differs from the one its anchor recorded "
                                  "(rewritten or replaced)")
        if anchored.key and anchored.key != found.key:
            found.findings.append("its fingerprint key differs from the one its anchor recorded (changed "
                                  "outside SVT Studio: every dataset's rows would look new, with a fresh "
                                  "budget)")
    found.findings += [f"another ledger ({a.ledger_id}, with {a.count} budget records) was at this path "
                       "before (replaced?)" for a in others if a.ledger_id != found.ledger_id and a.count > 0]
    return found


def accept(c: Any, db: Checked, found: Inspection, findings: list[str], reason: str) -> tuple[int, str]:
    """Record the curator's acceptance of ``findings`` (in the caller's write transaction): restore the
    triggers, chain rows added outside SVT Studio, accept the broken links and totals as they are now,
    and log it all with the login, host and reason. Returns the chain's new head."""
    db.restore_triggers(c)
    chain.adopt_unchained(c)
    accepted = {"links": {str(k): v for k, v in found.broken.items()}, "totals": found.totals}
    cur = c.execute("INSERT INTO integrity_events (found, reason, accepted_json, login, host, at) "
                    "VALUES (?, ?, ?, ?, ?, ?) RETURNING id",
                    ("; ".join(findings), reason.strip(), json.dumps(accepted, sort_keys=True), login(),
                     socket.gethostname(), datetime.now(UTC).isoformat(timespec="seconds")))
    return chain.append(c, "accept", int(cur.fetchone()[0]))


def login() -> str:
    """Who the operating system says is running SVT Studio (a server ledger records its own login)."""
    try:
        return getpass.getuser()
    except (OSError, KeyError):
        return "unknown"
