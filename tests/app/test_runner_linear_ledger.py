"""Ledger schema v2 and later: a v1 ledger migrates in place, its history intact; PMW flags, run facts."""

from __future__ import annotations

import sqlite3

import pytest

from svtgui.ledger import APPLICATION_ID, SCHEMA_VERSION, Ledger, LedgerError, ResponseBatch
from svtgui.ledger.migrations import MIGRATIONS

FP = "f" * 64


def _v1_ledger(path):
    """A ledger exactly as version 1 wrote it, with one run and one response."""
    conn = sqlite3.connect(path)
    MIGRATIONS[1](conn)
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    conn.execute("PRAGMA user_version = 1")
    conn.execute("INSERT INTO datasets VALUES (?, 'old', '2', '0', 'add_remove', '{}', 't0')", (FP,))
    conn.execute("INSERT INTO runs (fingerprint, mechanism_id, params_json, epsilon, delta, noise, "
                 "noise_description, status, started_at, software_version, owner_host, owner_pid) "
                 "VALUES (?, 'sparse', '{}', '0.5', '0', 'secure', 'os', 'running', 't1', '0', 'h', 1)",
                 (FP,))
    conn.execute("INSERT INTO responses VALUES (1, 0, 'q', 1, 42.0, 3.0, 't2')")
    conn.execute("UPDATE runs SET status = 'finished'")
    conn.commit()
    conn.close()


def test_v1_ledger_is_migrated_with_its_history(tmp_path):
    path = tmp_path / "old.sqlite"
    _v1_ledger(path)
    with Ledger.open(path) as led:
        assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        (dataset,) = led.datasets()
        assert dataset.name == "old" and dataset.dataset_id.startswith("ds-")  # a random id, not FP
        old = led.responses(1)
        assert [(r.value, r.gap, r.answered_from_simulation, r.result) for r in old] == [(42, 3.0, None, "⊤")]
        assert float(led.budget(dataset.dataset_id).spent_epsilon) == 0.5
        run = led.start_run(dataset.dataset_id, "pmw", {}, "0.5", secure=True, noise_description="os")
        led.record(run.id, ResponseBatch.of([(0, "a", False, 10.5, None, True),
                                             (1, "b", True, 7, None, False)]))
        led.record(run.id, ResponseBatch.of([(2, "c", True, 1.0, 0.5)]))
        led.record_fact(run.id, "n_released", 29990)
        rows = led.responses(run.id)
        assert [r.result for r in rows] == ["free (simulated)", "paid", "⊤"]
        assert led.facts(run.id) == {"n_released": 29990}
        with pytest.raises(ValueError, match="n_released"):
            led.record_fact(run.id, "n_released", 1)  # a released fact is never changed
    conn = sqlite3.connect(path)
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        conn.execute("UPDATE run_facts SET value_json = '1'")
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        conn.execute("DELETE FROM run_facts")


def test_v2_ledger_missing_its_new_table_is_refused(tmp_path):
    path = tmp_path / "l.sqlite"
    Ledger.open(path).close()
    conn = sqlite3.connect(path)
    conn.execute("DROP TABLE run_facts")
    conn.commit()
    conn.close()
    with pytest.raises(LedgerError, match=r"damaged \(missing tables \['run_facts'\]\)"):
        Ledger.open(path)
