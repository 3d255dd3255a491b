"""The hash chain over every budget-relevant row of the ledger (issue 21 §7).

Why: the schema's triggers stop SVT Studio (and a careless script) from deleting a charge, but
``sqlite3 ledger.sqlite 'DROP TRIGGER runs_no_delete; DELETE FROM runs'`` resets a budget in one
line. Each *link* of the chain commits to one row that the budget depends on — a registration or
raise of a total (``budget_events``), a charge (``runs``, with the declarations it was charged
under), a binding of rows to a dataset (``dataset_contents``: deleting one would make the rows look
new) and an accepted integrity finding (``integrity_events``) — and to the link before it. The
link is appended in the same transaction as its row, so a committed row is always chained.

On open, :func:`verify` recomputes every link from the rows as they are now: a row edited
(a charge's ε lowered), deleted or added outside SVT Studio breaks its link. What the chain alone
cannot see — the *last* links deleted together with their rows, or the whole chain recomputed —
the anchor outside the file sees (:mod:`svtgui.ledger.anchor`: the count and head of the chain).

The hash is a plain SHA-256: it is not a secret and proves nothing to someone who can rewrite both
the file and its anchor; it makes tampering *evident*, not impossible (docs/ledger.md).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

# Per kind of link: the row it commits to (its key column first, then the committed fields).
# Fields that legitimately change later (a run's status and end) are not committed.
_SOURCES: dict[str, tuple[str, str]] = {
    "event": ("SELECT id, dataset_id, kind, epsilon, delta, previous_epsilon, previous_delta, note, at "
              "FROM budget_events", "id"),
    "bind": ("SELECT content, dataset_id, how, note, at FROM dataset_contents", "content"),
    "run": ("SELECT r.id, r.dataset_id, r.mechanism_id, r.params_json, r.epsilon, r.delta, r.noise, "
            "r.noise_description, r.started_at, d.declared_json "
            "FROM runs r LEFT JOIN run_declarations d ON d.run_id = r.id", "r.id"),
    "accept": ("SELECT id, found, reason, accepted_json, login, host, at FROM integrity_events", "id"),
    "relation": ("SELECT id, dataset_id, kind, neighbouring, public_n, reason, at FROM relation_events",
                 "id"),
}
#: The kinds a ledger had when the chain began (schema 6): what its migration chains.
V6_KINDS = ("event", "bind", "run", "accept")
# What a curator reads for each kind ("run 7", "budget event 3").
_NAMES = {"event": "budget event", "bind": "content binding", "run": "run", "accept": "accepted finding",
          "relation": "relation event"}


def genesis(ledger_id: str) -> str:
    """The hash before the first link: ties the chain to this ledger's id."""
    return hashlib.sha256(f"svtgui-ledger-chain-v1:{ledger_id}".encode()).hexdigest()


def link(previous: str, kind: str, row: tuple[Any, ...]) -> str:
    """The hash of one link: the previous link's hash, the kind and the row's committed fields."""
    body = json.dumps([kind, *[None if v is None else str(v) for v in row]], ensure_ascii=False,
                      separators=(",", ":"))
    return hashlib.sha256(f"{previous}\n{body}".encode()).hexdigest()


def ledger_id(c: Any) -> str:
    return str(c.execute("SELECT ledger_id FROM ledger_identity WHERE id = 1").fetchone()[0])


def head(c: Any) -> tuple[int, str]:
    """(number of links, hash of the last one); (0, genesis) for an empty chain."""
    row = c.execute("SELECT seq, hash FROM chain ORDER BY seq DESC LIMIT 1").fetchone()
    return (int(row[0]), str(row[1])) if row else (0, genesis(ledger_id(c)))


def append(c: Any, kind: str, ref: object) -> tuple[int, str]:
    """Chain the row ``ref`` of ``kind``, inside the caller's write transaction; returns the new head."""
    sql, key = _SOURCES[kind]
    row = c.execute(f"{sql} WHERE {key} = ?", (ref,)).fetchone()
    if row is None:
        raise ValueError(f"cannot chain {_NAMES[kind]} {ref}: no such row")
    seq, previous = head(c)
    digest = link(previous, kind, tuple(row))
    c.execute("INSERT INTO chain (seq, kind, ref, hash) VALUES (?, ?, ?, ?)",
              (seq + 1, kind, str(ref), digest))
    return seq + 1, digest


def adopt_unchained(c: Any, kinds: tuple[str, ...] = tuple(_SOURCES)) -> list[str]:
    """Chain every budget-relevant row of ``kinds`` that has no link yet (a migrated ledger's history,
    or rows an accepted finding adopts); returns what was chained, as a curator reads it."""
    chained = {(k, r) for k, r in c.execute("SELECT kind, ref FROM chain")}
    adopted = []
    for kind in kinds:
        for ref in _refs(c, kind):
            if (kind, str(ref)) not in chained:
                append(c, kind, ref)
                adopted.append(f"{_NAMES[kind]} {ref}")
    return adopted


def _refs(c: Any, kind: str) -> list[Any]:
    """The keys of every row of ``kind``, oldest first (bindings, keyed by a hash, by their time)."""
    rows = c.execute(_SOURCES[kind][0]).fetchall()
    rows.sort(key=(lambda r: r[-1]) if kind == "bind" else (lambda r: r[0]))
    return [r[0] for r in rows]


def current_rows(c: Any) -> dict[str, dict[str, tuple]]:
    """Every chained row as it is now, by kind and key (the key first in each row)."""
    return {kind: {str(r[0]): tuple(r) for r in c.execute(_SOURCES[kind][0])} for kind in _SOURCES}


@dataclass
class ChainCheck:
    """What :func:`verify` found: the chain's length and head, and every problem as one phrase."""

    count: int
    head: str
    findings: list[str] = field(default_factory=list)
    broken: dict[int, str] = field(default_factory=dict)  # seq → the hash recomputed from the rows now
    hashes: dict[int, str] = field(default_factory=dict)  # seq → stored hash (the anchor checks one)


def verify(c: Any, accepted: dict[int, str]) -> ChainCheck:
    """Recompute every link from the rows as they are now.

    ``accepted`` maps a link to the recomputed hash a curator accepted (``ledger accept``): that
    link is sound as long as the rows still give exactly that hash.
    """
    rows = current_rows(c)
    links = c.execute("SELECT seq, kind, ref, hash FROM chain ORDER BY seq").fetchall()
    check = ChainCheck(0, genesis(ledger_id(c)))
    previous, expected_seq = check.head, 1
    chained: set[tuple[str, str]] = set()
    for seq, kind, ref, stored in links:
        chained.add((kind, ref))
        row = rows.get(kind, {}).get(ref)
        now = "" if row is None else link(previous, kind, row)
        if now != stored and accepted.get(seq) != now:
            if seq != expected_seq:
                check.findings.append(f"links {expected_seq}–{seq - 1} of its hash chain were deleted")
            elif row is None:
                check.findings.append(f"{_NAMES.get(kind, kind)} {ref} was deleted")
            else:
                check.findings.append(f"{_NAMES[kind]} {ref} no longer matches its hash chain "
                                      "(edited outside SVT Studio)")
            check.broken[seq] = now
        expected_seq = seq + 1
        check.hashes[seq] = stored
        previous = stored
        check.count, check.head = seq, stored
    for kind, table in rows.items():
        missing = [ref for ref in table if (kind, ref) not in chained]
        if missing:
            check.findings.append(f"{_NAMES[kind]} {', '.join(missing[:3])}"
                                  f"{f' and {len(missing) - 3} more' if len(missing) > 3 else ''} "
                                  "not in its hash chain (added outside SVT Studio)")
    return check
