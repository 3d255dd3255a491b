"""The privacy ledger: exact budgets, write-ahead runs, crash recovery, and refusing unusable files."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import threading
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from svtgui.core.budget import BudgetExceeded
from svtgui.ledger import (
    SCHEMA_VERSION,
    Ledger,
    LedgerError,
    ResponseBatch,
    default_path,
    exact_text,
)
from svtgui.ledger.sqlite_db import SqliteDb
from tests.app.ledger_raw import raw

CONTENT, OTHER_CONTENT = "f" * 64, "e" * 64  # keyed content fingerprints (private)
UNKNOWN = "ds-0000000000000000"


@pytest.fixture
def ledger(ledger_location):
    """The same tests against both backends: a file, and a schema on the PostgreSQL test server."""
    with Ledger.open(ledger_location) as led:
        yield led


def _only(led: Ledger) -> str:
    """The id of the one dataset registered (an id no dataset has if none is)."""
    ids = [d.dataset_id for d in led.datasets()]
    return ids[0] if ids else UNKNOWN


def _start(led: Ledger, eps="0.1", delta="0", fp=None):
    return led.start_run(fp or _only(led), "sparse", {"epsilon": float(eps)}, eps, delta, secure=True,
                         noise_description="OS CSPRNG")


def test_exact_decimal_text_round_trips():
    for text in ["0.1", "0.3", "1", "12.5", "0.000001", "3"]:
        assert exact_text(Fraction(text)) == text
    assert exact_text(Fraction(1, 3)) == "1/3"
    assert Fraction(exact_text(Fraction(7, 40))) == Fraction(7, 40)


def test_default_path_follows_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("SVTGUI_LEDGER", str(tmp_path / "x.sqlite"))
    assert default_path() == tmp_path / "x.sqlite"
    monkeypatch.delenv("SVTGUI_LEDGER")
    assert default_path().name == "ledger.sqlite" and "svtgui" in str(default_path())


def test_open_without_path_uses_environment(tmp_path):
    # conftest points SVTGUI_LEDGER into tmp_path
    with Ledger.open() as led:
        assert led.path == tmp_path / "ledger.sqlite"
    assert (tmp_path / "ledger.sqlite").exists()


def test_wal_mode_and_schema_version(tmp_path):
    Ledger.open(tmp_path / "l.sqlite").close()
    conn = sqlite3.connect(tmp_path / "l.sqlite")
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_run_is_charged_exactly_and_committed_before_start_run_returns(ledger):
    fp = ledger.register_dataset(CONTENT, "adult", "0.3")[0].dataset_id
    for _ in range(3):  # 0.1 + 0.1 + 0.1 == 0.3 exactly: the third run fits
        run = _start(ledger)
        # another connection sees the charge at once: it is committed, not pending
        with raw(ledger) as (other, _):
            assert other.execute("SELECT status, epsilon FROM runs WHERE id = ?", (run.id,)).fetchone() == \
                ("running", "0.1")
    b = ledger.budget(fp)
    assert b.spent_epsilon == Fraction(3, 10) and b.remaining_epsilon == 0


def test_refusal_names_total_spent_requested_and_charges_nothing(ledger):
    fp = ledger.register_dataset(CONTENT, "adult", "1", "0.00001")[0].dataset_id
    _start(ledger, "0.75")
    with pytest.raises(BudgetExceeded) as err:
        _start(ledger, "0.5")
    msg = str(err.value)
    assert "total ε = 1" in msg and "spent ε = 0.75" in msg and "requested ε = 0.5" in msg
    with pytest.raises(BudgetExceeded, match="δ"):
        _start(ledger, "0.1", "0.001")
    assert len(ledger.runs(fp)) == 1
    assert ledger.budget(fp).spent_epsilon == Fraction(3, 4)


def test_re_registering_or_renaming_never_resets_budget(ledger):
    rec, created = ledger.register_dataset(CONTENT, "adult.csv", 1)
    assert created and rec.dataset_id.startswith("ds-") and CONTENT not in repr(rec)
    fp = rec.dataset_id
    _start(ledger, "0.6")
    again, created = ledger.register_dataset(CONTENT, "renamed copy.csv", 100)
    assert not created
    assert again.total_epsilon == 1 and again.name == "adult.csv"
    assert ledger.budget(fp).remaining_epsilon == Fraction(2, 5)


def test_raise_total_is_logged_and_only_raises(ledger):
    fp = ledger.register_dataset(CONTENT, "adult", 1)[0].dataset_id
    _start(ledger, "1")
    with pytest.raises(BudgetExceeded):
        _start(ledger, "0.5")
    ledger.raise_total(fp, "1.5", note="board approved 2024-05")
    _start(ledger, "0.5")
    events = ledger.budget_events(fp)
    assert [e.kind for e in events] == ["register", "raise"]
    assert events[1].previous_epsilon == 1 and events[1].epsilon == Fraction(3, 2)
    assert events[1].note == "board approved 2024-05"
    with pytest.raises(ValueError, match="only be raised"):
        ledger.raise_total(fp, "0.5")
    assert ledger.dataset(fp).total_epsilon == Fraction(3, 2)


def test_total_cannot_be_changed_behind_the_ledgers_back(ledger):
    ledger.register_dataset(CONTENT, "adult", 1)
    with raw(ledger) as (conn, refused), pytest.raises(refused, match="logged raise"):
        conn.execute("UPDATE datasets SET total_epsilon = '99'")


def test_append_only_rules_are_enforced_by_the_schema(ledger):
    ledger.register_dataset(CONTENT, "adult", 1)
    run = _start(ledger)
    ledger.record(run.id, ResponseBatch.of([(0, "q0", True, 5.0, None)]))
    with raw(ledger) as (conn, refused):
        for sql in ["DELETE FROM runs", "DELETE FROM responses", "UPDATE responses SET value = 1",
                    "UPDATE runs SET epsilon = '0'", "DELETE FROM datasets", "DELETE FROM budget_events",
                    "UPDATE runs SET noise_description = 'seeded (seed 7)'",
                    "UPDATE ledger_key SET key = key", "DELETE FROM ledger_key",
                    "DELETE FROM dataset_contents", "DELETE FROM chain",
                    "UPDATE chain SET hash = 'x'", "UPDATE dataset_contents SET dataset_id = 'ds-1'",
                    "UPDATE datasets SET dataset_id = 'ds-1'"]:
            with pytest.raises(refused):
                conn.execute(sql)
    assert ledger.runs()[0].epsilon == Fraction(1, 10)


def test_responses_round_trip_and_are_refused_after_the_run_ends(ledger):
    ledger.register_dataset(CONTENT, "adult", 1)
    run = _start(ledger)
    ledger.record(run.id, ResponseBatch.of([(0, "age in [0, 30)", False, None, None),
                                            (1, "count()", True, 12, None),
                                            (2, "sum(hours)", True, 3.25, 1.5)]))
    got = ledger.responses(run.id)
    assert [(r.index, r.description, r.above, r.value, r.gap) for r in got] == [
        (0, "age in [0, 30)", False, None, None), (1, "count()", True, 12, None),
        (2, "sum(hours)", True, 3.25, 1.5)]
    assert ledger.response_counts(run.id) == (3, 2)
    assert [r.index for r in ledger.responses(run.id, only_above=True)] == [1, 2]
    with pytest.raises(ValueError):  # duplicate index: the whole batch is refused
        ledger.record(run.id, ResponseBatch.of([(3, "x", False, None, None), (2, "dup", False, None, None)]))
    assert ledger.response_counts(run.id) == (3, 2)
    ended = ledger.finish_run(run.id, "halted")
    assert ended.status == "halted" and ended.ended_at
    with pytest.raises(ValueError, match="running"):
        ledger.record(run.id, ResponseBatch.of([(3, "late", True, 1.0, None)]))
    with pytest.raises(ValueError, match="already ended"):
        ledger.finish_run(run.id, "finished")


def test_a_columnar_batch_is_committed_as_released_and_stamped(ledger):
    """The batch is the one shape into the ledger: a ⊥ row's value never reaches it (the mask is the
    batch's own), a PMW free answer's does, integral values read back as ints, and the batch carries
    the commit stamp the rows were stored with."""
    ledger.register_dataset(CONTENT, "adult", 1)
    run = _start(ledger)
    batch = ResponseBatch(np.array([0, 1, 2]), ["a", "b", "c"], np.array([True, False, False]),
                          np.array([12.0, 99.0, 4.5]), None, np.array([False, False, True]))
    assert batch.values() == [12, None, 4.5] and not batch.time
    at = ledger.record(run.id, batch)
    got = ledger.responses(run.id)
    assert [(r.value, r.result, r.time) for r in got] == [(12, "paid", at), (None, "paid", at),
                                                          (4.5, "free (simulated)", at)]
    assert batch.time == at and batch.results() == [r.result for r in got]
    with pytest.raises(ValueError, match="3 rows"):
        ResponseBatch(np.arange(3), ["a"], np.zeros(3, dtype=bool), np.zeros(3))


def test_unknown_dataset_and_bad_status_are_refused(ledger):
    with pytest.raises(ValueError, match="not in the ledger"):
        _start(ledger)
    ledger.register_dataset(CONTENT, "adult", 1)
    run = _start(ledger)
    with pytest.raises(ValueError, match="status"):
        ledger.finish_run(run.id, "done")
    with pytest.raises(ValueError, match="total epsilon"):
        ledger.register_dataset(OTHER_CONTENT, "x", 0)
    with pytest.raises(ValueError, match="64 lowercase hex"):
        ledger.register_dataset("other", "x", 1)


def _dead_pid() -> int:
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


def test_runs_of_dead_processes_become_interrupted_and_stay_charged(tmp_path):
    path = tmp_path / "l.sqlite"
    with Ledger.open(path) as led:
        fp = led.register_dataset(CONTENT, "adult", 1)[0].dataset_id
        crashed = _start(led, "0.4")
        live = _start(led, "0.2")  # owned by this (live) process: must be left alone
        led.record(crashed.id, ResponseBatch.of([(0, "q", True, 1.0, None)]))
    conn = sqlite3.connect(path)
    conn.execute("UPDATE runs SET owner_pid = ? WHERE id = ?", (_dead_pid(), crashed.id))
    conn.commit()
    conn.close()
    with Ledger.open(path) as led:
        assert led.recovered == [crashed.id]
        assert led.run(crashed.id).status == "interrupted"
        assert led.run(live.id).status == "running"
        assert led.budget(fp).spent_epsilon == Fraction(3, 5)
        assert len(led.responses(crashed.id)) == 1


def _unchanged_error(path: Path, match: str, **kw) -> None:
    before = path.read_bytes()
    with pytest.raises(LedgerError, match=match):
        Ledger.open(path, **kw)
    assert path.read_bytes() == before


def test_corrupt_file_is_refused_and_left_alone(tmp_path):
    path = tmp_path / "l.sqlite"
    path.write_bytes(b"this is not a database at all, but it is somebody's budget history" * 100)
    _unchanged_error(path, "damaged")


def test_foreign_database_is_refused(tmp_path):
    path = tmp_path / "other.sqlite"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE invoices (id INTEGER)")
    conn.commit()
    conn.close()
    _unchanged_error(path, "not an SVT Studio ledger")


def test_newer_schema_is_refused(tmp_path):
    path = tmp_path / "l.sqlite"
    Ledger.open(path).close()
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.commit()
    conn.close()
    _unchanged_error(path, "newer")


def test_read_only_ledger_is_refused(tmp_path):
    path = tmp_path / "l.sqlite"
    with Ledger.open(path) as led:
        led.register_dataset(CONTENT, "adult", 1)
    path.chmod(0o444)
    try:
        _unchanged_error(path, "read-only")
    finally:
        path.chmod(0o644)


def test_locked_ledger_gives_a_clear_error(tmp_path):
    path = tmp_path / "l.sqlite"
    with Ledger.open(path) as led:
        led.register_dataset(CONTENT, "adult", 1)
        blocker = sqlite3.connect(path, isolation_level=None)
        blocker.execute("BEGIN EXCLUSIVE")
        try:
            with pytest.raises(LedgerError, match="locked"):
                Ledger.open(path, timeout=0.1)
            fast = Ledger(SqliteDb(sqlite3.connect(path, timeout=0.1, isolation_level=None), path))
            with pytest.raises(LedgerError, match="locked"):
                _start(fast)
        finally:
            blocker.execute("ROLLBACK")
        assert led.runs() == []


def test_directory_path_is_refused(tmp_path):
    with pytest.raises(LedgerError, match="not a file"):
        Ledger.open(tmp_path)


def test_usable_from_a_worker_thread(ledger):
    ledger.register_dataset(CONTENT, "adult", 1)
    run = _start(ledger)
    errors: list[BaseException] = []

    def work():
        try:
            rows = [(i, f"q{i}", i % 2 == 0, None, None) for i in range(100)]
            ledger.record(run.id, ResponseBatch.of(rows))
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    t = threading.Thread(target=work)
    t.start()
    t.join()
    assert not errors and ledger.response_counts(run.id) == (100, 50)


def race(path: Path, dataset_id: str, epsilon: str, processes: int, tries: int = 1) -> list[int]:
    """``processes`` processes each try ``tries`` charges of ``epsilon`` at once; charges made by each."""
    script = (
        "from svtgui.ledger import Ledger\nfrom svtgui.core.budget import BudgetExceeded\n"
        f"led = Ledger.open({str(path)!r}, timeout=60)\nn = 0\n"
        f"for _ in range({tries}):\n"
        "    try:\n"
        f"        led.start_run({dataset_id!r}, 'sparse', {{}}, {epsilon!r}, secure=True,\n"
        "                      noise_description='x')\n"
        "        n += 1\n"
        "    except BudgetExceeded:\n        pass\n"
        "print(n)\n")
    procs = [subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True,
                              env={**os.environ}) for _ in range(processes)]
    return [int(p.communicate(timeout=300)[0]) for p in procs]


def test_concurrent_processes_cannot_both_spend_the_last_budget(ledger_location):
    path = ledger_location
    with Ledger.open(path) as led:
        fp = led.register_dataset(CONTENT, "adult", 1)[0].dataset_id
    assert sorted(race(path, fp, "0.6", 4)) == [0, 0, 0, 1]
    with Ledger.open(path) as led:
        assert led.budget(fp).spent_epsilon == Fraction(3, 5)


def test_a_runs_declarations_are_kept_with_its_charge_and_never_change(ledger):
    d = ledger.register_dataset("a" * 64, "d", 5)[0]
    declared = {"neighbouring": "add_remove", "bounds": {"age": [17, 90]}}
    run = ledger.start_run(d.dataset_id, "sparse", {"epsilon": 1}, 1, secure=True, noise_description="x",
                           declared=declared)
    bare = ledger.start_run(d.dataset_id, "sparse", {"epsilon": 1}, 1, secure=True, noise_description="x")
    assert ledger.declarations(run.id) == declared and ledger.declarations(bare.id) is None
    with raw(ledger) as (conn, refused):
        for sql in ("UPDATE run_declarations SET declared_json = '{}'", "DELETE FROM run_declarations"):
            with pytest.raises(refused, match="append-only"):
                conn.execute(sql)


def test_twenty_clients_racing_for_a_budget_that_fits_seven_runs_get_seven(ledger_location):
    with Ledger.open(ledger_location) as led:
        fp = led.register_dataset(CONTENT, "adult", "0.7")[0].dataset_id
    assert sum(race(ledger_location, fp, "0.1", 20)) == 7
    with Ledger.open(ledger_location) as led:
        assert led.budget(fp).spent_epsilon == Fraction(7, 10) and len(led.runs(fp)) == 7


def _reopened_until(location, done, timeout: float = 30.0) -> Ledger:
    """Open the ledger again until ``done(ledger)`` (a server sees a killed client's session end a
    moment after the kill), at most ``timeout`` seconds."""
    import time

    deadline = time.monotonic() + timeout
    while True:
        led = Ledger.open(location)
        if done(led) or time.monotonic() > deadline:
            return led
        led.close()


def test_a_killed_client_loses_no_charge_and_leaves_no_half_written_run(ledger_location):
    with Ledger.open(ledger_location) as led:
        fp = led.register_dataset(CONTENT, "adult", 1)[0].dataset_id
    script = ("import sys\nfrom svtgui.ledger import Ledger, ResponseBatch\n"
              f"led = Ledger.open({str(ledger_location)!r})\n"
              f"run = led.start_run({fp!r}, 'sparse', {{}}, '0.25', secure=True, noise_description='x')\n"
              "rows = [(i, f'q{i}', i % 2 == 0, None, None) for i in range(50)]\n"
              "led.record(run.id, ResponseBatch.of(rows))\n"
              "print(run.id, flush=True)\nsys.stdin.read()\n")
    child = subprocess.Popen([sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             text=True, env={**os.environ})
    run_id = int(child.stdout.readline())  # charged and 50 responses committed: now kill it
    child.kill()
    child.wait()
    led = _reopened_until(ledger_location, lambda d: d.run(run_id).status != "running")
    with led:
        assert led.run(run_id).status == "interrupted" and run_id in led.recovered
        assert led.budget(fp).spent_epsilon == Fraction(1, 4)
        assert led.response_counts(run_id) == (50, 25)


def test_a_lost_connection_mid_run_stops_it_cleanly_with_one_line(server_url):
    import psycopg

    with Ledger.open(server_url) as led:
        fp = led.register_dataset(CONTENT, "adult", 1)[0].dataset_id
        run = _start(led)
        led.record(run.id, ResponseBatch.of([(0, "q0", True, 1.0, None)]))
        pid = led._db.conn.raw.info.backend_pid
        with psycopg.connect(server_url, autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
        with pytest.raises(LedgerError) as lost:
            led.record(run.id, ResponseBatch.of([(1, "q1", False, None, None)]))
    message = str(lost.value)
    assert "\n" not in message and "connection to the server was lost" in message
    with _reopened_until(server_url, lambda d: d.run(run.id).status != "running") as again:
        assert again.run(run.id).status == "interrupted" and again.response_counts(run.id) == (1, 1)
        assert again.budget(fp).spent_epsilon == Fraction(1, 10)
