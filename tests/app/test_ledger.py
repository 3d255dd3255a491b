"""The privacy ledger: exact budgets, write-ahead runs, crash recovery, and refusing unusable files."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import threading
from fractions import Fraction
from pathlib import Path

import pytest

from svtgui.core.budget import BudgetExceeded
from svtgui.ledger import (
    SCHEMA_VERSION,
    Ledger,
    LedgerError,
    default_path,
    exact_text,
)

CONTENT, OTHER_CONTENT = "f" * 64, "e" * 64  # keyed content fingerprints (private)
UNKNOWN = "ds-0000000000000000"


@pytest.fixture
def ledger(tmp_path):
    with Ledger.open(tmp_path / "l.sqlite") as led:
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


def test_wal_mode_and_schema_version(ledger):
    conn = sqlite3.connect(ledger.path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_run_is_charged_exactly_and_committed_before_start_run_returns(ledger):
    fp = ledger.register_dataset(CONTENT, "adult", "0.3")[0].dataset_id
    for _ in range(3):  # 0.1 + 0.1 + 0.1 == 0.3 exactly: the third run fits
        run = _start(ledger)
        # another connection sees the charge at once: it is committed, not pending
        other = sqlite3.connect(ledger.path)
        assert other.execute("SELECT status, epsilon FROM runs WHERE id = ?", (run.id,)).fetchone() == \
            ("running", "0.1")
        other.close()
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
    conn = sqlite3.connect(ledger.path)
    with pytest.raises(sqlite3.IntegrityError, match="logged raise"):
        conn.execute("UPDATE datasets SET total_epsilon = '99'")


def test_append_only_rules_are_enforced_by_the_schema(ledger):
    ledger.register_dataset(CONTENT, "adult", 1)
    run = _start(ledger)
    ledger.record(run.id, [(0, "q0", True, 5.0, None)])
    conn = sqlite3.connect(ledger.path)
    for sql in ["DELETE FROM runs", "DELETE FROM responses", "UPDATE responses SET value = 1",
                "UPDATE runs SET epsilon = '0'", "DELETE FROM datasets", "DELETE FROM budget_events",
                "UPDATE runs SET noise_description = 'seeded (seed 7)'", "UPDATE ledger_key SET key = x'00'",
                "DELETE FROM ledger_key", "DELETE FROM dataset_contents",
                "UPDATE dataset_contents SET dataset_id = 'ds-1'", "UPDATE datasets SET dataset_id = 'ds-1'"]:
        with pytest.raises(sqlite3.IntegrityError):
            conn.execute(sql)
    assert ledger.runs()[0].epsilon == Fraction(1, 10)


def test_responses_round_trip_and_are_refused_after_the_run_ends(ledger):
    ledger.register_dataset(CONTENT, "adult", 1)
    run = _start(ledger)
    ledger.record(run.id, [(0, "age in [0, 30)", False, None, None), (1, "count()", True, 12, None),
                           (2, "sum(hours)", True, 3.25, 1.5)])
    got = ledger.responses(run.id)
    assert [(r.index, r.description, r.above, r.value, r.gap) for r in got] == [
        (0, "age in [0, 30)", False, None, None), (1, "count()", True, 12, None),
        (2, "sum(hours)", True, 3.25, 1.5)]
    assert ledger.response_counts(run.id) == (3, 2)
    assert [r.index for r in ledger.responses(run.id, only_above=True)] == [1, 2]
    with pytest.raises(ValueError):  # duplicate index: the whole batch is refused
        ledger.record(run.id, [(3, "x", False, None, None), (2, "dup", False, None, None)])
    assert ledger.response_counts(run.id) == (3, 2)
    ended = ledger.finish_run(run.id, "halted")
    assert ended.status == "halted" and ended.ended_at
    with pytest.raises(ValueError, match="running"):
        ledger.record(run.id, [(3, "late", True, 1.0, None)])
    with pytest.raises(ValueError, match="already ended"):
        ledger.finish_run(run.id, "finished")


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
        led.record(crashed.id, [(0, "q", True, 1.0, None)])
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
            fast = Ledger(sqlite3.connect(path, timeout=0.1, isolation_level=None), path)
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
            ledger.record(run.id, [(i, f"q{i}", i % 2 == 0, None, None) for i in range(100)])
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
    return [int(p.communicate(timeout=120)[0]) for p in procs]


def test_concurrent_processes_cannot_both_spend_the_last_budget(tmp_path):
    path = tmp_path / "l.sqlite"
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
    conn = sqlite3.connect(ledger.path)
    for sql in ("UPDATE run_declarations SET declared_json = '{}'", "DELETE FROM run_declarations"):
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            conn.execute(sql)
    conn.close()
