"""Moving to a team: copy a file ledger into a server ledger, verified by replaying the hash chain.

``svtgui-cli ledger migrate --to postgresql://…`` (issue 26). The source is opened like any ledger,
so its triggers, hash chain and anchor are checked first: a tampered file is refused, not copied.
Every budget-relevant row is copied in the order of the source's chain, in one server transaction
under the ledger's write lock, and chained on the server as it is copied; responses, facts and
declarations follow their run. Then the copy is *verified*: every copied row's chained fields,
read back from the server, must equal the source's, link by link (ids aside: the server numbers
runs itself), and the server's own chain must recompute. Anything else rolls the copy back.

Refused, with nothing copied: a source run still running; a dataset already on the server with
another history (the same history is skipped: running migrate twice copies nothing twice); rows
already bound on the server to another dataset. A new server ledger takes the file's fingerprint
key, so the same rows keep finding their budget; a server ledger made earlier has its own key, and
then the copied datasets' rows are bound again the first time they are opened there (the window and
the CLI ask *same dataset as ds-…?*, by name and columns).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from svtgui.ledger import chain
from svtgui.ledger.errors import LedgerError
from svtgui.ledger.integrity import accepted_state
from svtgui.ledger.records import RUNNING

_DATASET = ("dataset_id, name, total_epsilon, total_delta, neighbouring, bounds_json, registered_at, "
            "columns_json")
_EVENT = "dataset_id, kind, epsilon, delta, previous_epsilon, previous_delta, note, at, login"
_RUN = ("dataset_id, mechanism_id, params_json, epsilon, delta, noise, noise_description, status, "
        "started_at, ended_at, queries_planned, software_version, owner_host, owner_pid")
_RESPONSE = "idx, description, above, value, gap, time, simulated"
_ACCEPT = "found, reason, accepted_json, login, host, at"
_RELATION = "dataset_id, kind, neighbouring, public_n, reason, login, at"


@dataclass
class Copied:
    """What a migration copied (and what it found already there)."""

    datasets: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # already on the server with the same history
    runs: int = 0
    responses: int = 0
    links: int = 0  # chain links copied and verified
    rebind: bool = False  # the server's key differs: rows are bound again on first open


def copy_ledger(source: Any, target: Any) -> Copied:
    """Copy ``source`` (a :class:`~svtgui.ledger.Ledger`) into ``target``; raises LedgerError, copying
    nothing, when it must refuse."""
    src = source._read
    running = [r for (r,) in src("SELECT id FROM runs WHERE status = ?", (RUNNING,))]
    if running:
        raise LedgerError(f"run {running[0]} in {source.path} is still running; let it end (or close the "
                          "program running it), then migrate. Nothing was copied.")
    done = Copied(rebind=source.content_key() != target.content_key())
    for (ds,) in src("SELECT dataset_id FROM datasets ORDER BY registered_at"):
        if target.dataset(ds) is None:
            done.datasets.append(ds)
        elif _history(source, ds) == _history(target, ds):
            done.skipped.append(ds)
        else:
            raise LedgerError(f"dataset {ds} is already in the server ledger {target._db.location} with "
                              "another history; nothing was copied. Migrate each ledger into its own "
                              "server database, or ask the custodian which history is right.")
    if not done.rebind:
        for content, ds in src("SELECT content, dataset_id FROM dataset_contents"):
            owner = target._read("SELECT dataset_id FROM dataset_contents WHERE content = ?", (content,))
            if owner and owner[0][0] != ds:
                raise LedgerError(f"rows of dataset {ds} are already bound to dataset {owner[0][0]} in the "
                                  "server ledger; nothing was copied.")
    wanted = set(done.datasets)
    with target._transaction() as c:
        mapping = _copy(source, c, wanted, done)
        _verify(source, c, mapping)
        target._chained = chain.head(c)  # the anchor follows the commit
    return done


def _history(led: Any, ds: str) -> list[tuple]:
    """A dataset's budget history without the ids a server renumbers: events, then runs."""
    events = led._read(f"SELECT {_EVENT.replace(', login', '')} FROM budget_events WHERE dataset_id = ? "
                       "ORDER BY id", (ds,))
    runs = led._read("SELECT mechanism_id, params_json, epsilon, delta, noise, started_at FROM runs "
                     "WHERE dataset_id = ? ORDER BY id", (ds,))
    return [tuple(map(str, r)) for r in events + runs]


def _copy(source: Any, c: Any, wanted: set[str], done: Copied) -> dict[tuple[str, str], str]:
    """Copy the wanted datasets' rows in the source chain's order; (kind, source ref) → target ref."""
    src = source._read
    mapping: dict[tuple[str, str], str] = {}
    registered: set[str] = set()
    for kind, ref in src("SELECT kind, ref FROM chain ORDER BY seq"):
        if kind == "event":
            (row,) = src(f"SELECT {_EVENT} FROM budget_events WHERE id = ?", (int(ref),))
            if row[0] not in wanted:
                continue
            if row[0] not in registered:
                c.execute(f"INSERT INTO datasets ({_DATASET}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                          src(f"SELECT {_DATASET} FROM datasets WHERE dataset_id = ?", (row[0],))[0])
                registered.add(row[0])
            new = c.execute(f"INSERT INTO budget_events ({_EVENT}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) "
                            "RETURNING id", row).fetchone()[0]
        elif kind == "bind":
            (row,) = src("SELECT content, dataset_id, how, note, at FROM dataset_contents WHERE content = ?",
                         (ref,))
            if row[1] not in wanted or done.rebind:
                continue
            c.execute("INSERT INTO dataset_contents VALUES (?, ?, ?, ?, ?)", row)
            c.executemany("INSERT INTO content_columns (content, position, column_fp, informative) "
                          "VALUES (?, ?, ?, ?)", src("SELECT content, position, column_fp, informative FROM "
                                                     "content_columns WHERE content = ?", (ref,)))
            c.executemany("INSERT INTO content_rows (content, rows, sketch) VALUES (?, ?, ?)",
                          src("SELECT content, rows, sketch FROM content_rows WHERE content = ?", (ref,)))
            new = ref
        elif kind == "run":
            new = _copy_run(source, c, int(ref), wanted, done)
            if new is None:
                continue
        elif kind == "relation":  # registered after its dataset's registration event, so it exists
            (row,) = src(f"SELECT {_RELATION} FROM relation_events WHERE id = ?", (int(ref),))
            if row[0] not in wanted:
                continue
            new = c.execute(f"INSERT INTO relation_events ({_RELATION}) VALUES (?, ?, ?, ?, ?, ?, ?) "
                            "RETURNING id", row).fetchone()[0]
        else:  # an accepted finding: kept, so the server's history says what the file went through
            (row,) = src(f"SELECT {_ACCEPT} FROM integrity_events WHERE id = ?", (int(ref),))
            new = c.execute(f"INSERT INTO integrity_events ({_ACCEPT}) VALUES (?, ?, ?, ?, ?, ?) "
                            "RETURNING id", row).fetchone()[0]
        chain.append(c, kind, new)
        mapping[(kind, ref)] = str(new)
        done.links += 1
    c.executemany("INSERT INTO public_names (dataset_id, name, login, at) VALUES (?, ?, ?, ?)",
                  [r for r in src("SELECT dataset_id, name, login, at FROM public_names ORDER BY id")
                   if r[0] in wanted])
    if not done.rebind:
        c.executemany("INSERT INTO legacy_files VALUES (?, ?)",
                      [r for r in src("SELECT tag, dataset_id FROM legacy_files") if r[1] in wanted])
    return mapping


def _copy_run(source: Any, c: Any, run_id: int, wanted: set[str], done: Copied) -> int | None:
    """One run with its declarations, responses and facts; recorded as running, then ended as it was."""
    src = source._read
    (row,) = src(f"SELECT {_RUN} FROM runs WHERE id = ?", (run_id,))
    if row[0] not in wanted:
        return None
    status, ended = row[7], row[9]
    new = c.execute(f"INSERT INTO runs ({_RUN}) VALUES (?, ?, ?, ?, ?, ?, ?, 'running', ?, NULL, ?, ?, ?, ?) "
                    "RETURNING id", (*row[:7], row[8], *row[10:])).fetchone()[0]
    for (declared,) in src("SELECT declared_json FROM run_declarations WHERE run_id = ?", (run_id,)):
        c.execute("INSERT INTO run_declarations VALUES (?, ?)", (new, declared))
    responses = src(f"SELECT {_RESPONSE} FROM responses WHERE run_id = ? ORDER BY idx", (run_id,))
    c.executemany(f"INSERT INTO responses (run_id, {_RESPONSE}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                  [(new, *r) for r in responses])
    facts = src("SELECT key, value_json, at FROM run_facts WHERE run_id = ?", (run_id,))
    c.executemany("INSERT INTO run_facts VALUES (?, ?, ?, ?)", [(new, *r) for r in facts])
    c.execute("UPDATE runs SET status = ?, ended_at = ? WHERE id = ?", (status, ended, new))
    done.runs += 1
    done.responses += len(responses)
    return int(new)


def _verify(source: Any, c: Any, mapping: dict[tuple[str, str], str]) -> None:
    """Replay: each copied link's chained fields on the server equal the source's; the server's chain
    recomputes. Raising here rolls the whole copy back."""
    with source._lock:
        theirs = chain.current_rows(source._db.conn)
    ours = chain.current_rows(c)
    for (kind, ref), new in mapping.items():
        a, b = theirs[kind].get(ref), ours[kind].get(new)
        if a is None or b is None or a[1:] != b[1:] or (kind == "bind" and a != b):
            raise LedgerError(f"migration check failed: {kind} {ref} does not replay identically on the "
                              "server; nothing was copied.")
    problems = chain.verify(c, accepted_state(c)[0]).findings
    if problems:
        raise LedgerError(f"migration check failed: the server's hash chain: {problems[0]}; "
                          "nothing was copied.")
