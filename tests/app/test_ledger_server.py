"""What only a server ledger has (issue 26): database logins in two roles, rights the server enforces,
and the integrity checks on the server's own triggers. Skipped, with the reason, without a server."""

from __future__ import annotations

import os
from fractions import Fraction
from urllib.parse import urlsplit, urlunsplit

import psycopg
import pytest

from svtgui.app.reports.content import facts, report_data
from svtgui.ledger import Ledger, LedgerError, LedgerTampered, ResponseBatch

CONTENT = "b" * 64
# Logins are cluster-wide: one pair per test process, so parallel test workers never share one.
ANA, CY = (f"svtgui_test_{who}_{os.getpid()}" for who in ("ana", "cy"))


def _as(url: str, login: str) -> str:
    """The same ledger, connected as another database login (the test server trusts localhost)."""
    parts = urlsplit(url)
    return urlunsplit(parts._replace(netloc=f"{login}@{parts.netloc.rsplit('@', 1)[-1]}"))


@pytest.fixture
def team(server_url):
    """The ledger created by its owner; a curator (ana) and a custodian (cy) as the docs' GRANTs make them."""
    with Ledger.open(server_url) as led:
        ds = led.register_dataset(CONTENT, "census", 1)[0].dataset_id
    with psycopg.connect(server_url, autocommit=True) as admin:
        for login in (ANA, CY):
            admin.execute(f"DROP ROLE IF EXISTS {login}")
            admin.execute(f"CREATE ROLE {login} LOGIN")
        admin.execute(f"GRANT svtgui_curator TO {ANA}")
        admin.execute(f"GRANT svtgui_custodian TO {CY}")
    yield server_url, ds
    with psycopg.connect(server_url, autocommit=True) as admin:
        for login in (ANA, CY):
            admin.execute(f"DROP OWNED BY {login}")
            admin.execute(f"DROP ROLE {login}")


def test_a_curator_runs_and_reads_but_only_a_custodian_raises_with_a_logged_reason(team):
    url, ds = team
    with Ledger.open(_as(url, ANA)) as ana:
        run = ana.start_run(ds, "sparse", {}, "0.5", secure=True, noise_description="secure")
        ana.record(run.id, ResponseBatch.of([(0, "q", True, 3.0, None)]))
        ana.finish_run(run.id, "finished")
        with pytest.raises(LedgerError, match="needs the svtgui_custodian role"):
            ana.raise_total(ds, 2, note="I would like more")
        assert ana.dataset(ds).total_epsilon == 1 and len(ana.budget_events(ds)) == 1
    with Ledger.open(_as(url, CY)) as cy:
        cy.raise_total(ds, 2, note="approved by the board on 3 May")
    with Ledger.open(_as(url, ANA)) as ana:  # both see one budget
        b = ana.budget(ds)
        assert (b.total_epsilon, b.spent_epsilon) == (2, Fraction(1, 2))
        raised = ana.budget_events(ds)[-1]
        assert (raised.kind, raised.login, raised.note) == ("raise", CY,
                                                           "approved by the board on 3 May")
        report = report_data(ana, run.id)  # a report says who raised, and why
        assert report["budget"]["raises"] == [{
            "date": raised.at[:10], "by": CY, "from_epsilon": "1", "to_epsilon": "2",
            "from_delta": "0", "to_delta": "0", "reason": "approved by the board on 3 May"}]
        assert f"{CY} raised the total from ε 1 to ε 2" in dict(facts(report))["Budget raises"]


def test_the_server_refuses_a_curators_update_and_delete_whatever_the_triggers(team):
    url, ds = team
    with Ledger.open(_as(url, ANA)) as ana:
        ana.start_run(ds, "sparse", {}, "0.5", secure=True, noise_description="secure")
    with psycopg.connect(_as(url, ANA), autocommit=True) as c:
        for sql in ("DELETE FROM runs", "UPDATE runs SET epsilon = '0'",
                    "UPDATE datasets SET total_epsilon = '9'", "DELETE FROM budget_events",
                    "ALTER TABLE runs DISABLE TRIGGER runs_no_delete",
                    "DROP TRIGGER runs_no_delete ON runs"):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                c.execute(sql)


def test_a_login_cannot_pass_itself_off_as_another(team):
    url, ds = team
    with psycopg.connect(_as(url, ANA), autocommit=True) as c:
        c.execute("INSERT INTO budget_events (dataset_id, kind, epsilon, delta, note, at, login) "
                  "VALUES (%s, 'register', '1', '0', 'x', 'now', %s)", (ds, CY))
        assert c.execute("SELECT login FROM budget_events ORDER BY id DESC LIMIT 1").fetchone()[0] == \
            ANA


def test_tampering_on_the_server_is_found_like_in_a_file(server_url):
    with Ledger.open(server_url) as led:
        ds = led.register_dataset(CONTENT, "census", 5)[0].dataset_id
        for _ in range(2):
            led.start_run(ds, "sparse", {}, "1", secure=True, noise_description="secure")
    with psycopg.connect(server_url, autocommit=True) as owner:  # the owner can, and it shows
        owner.execute("ALTER TABLE runs DISABLE TRIGGER runs_charge_fixed")
        owner.execute("UPDATE runs SET epsilon = '0.001' WHERE id = 1")
    with pytest.raises(LedgerTampered) as found:
        Ledger.open(server_url)
    message = str(found.value)
    assert "disabled: runs_charge_fixed" in message and "run 1 no longer matches" in message
    assert "\n" not in message and "ledger accept" in message
    with Ledger.open(server_url, accept="our DBA's test of the audit trail") as led:
        assert led.integrity_events()[0].login == urlsplit(server_url).username
    with psycopg.connect(server_url, autocommit=True) as owner, pytest.raises(psycopg.errors.IntegrityError):
        owner.execute("UPDATE runs SET epsilon = '0' WHERE id = 2")  # the trigger is back


def test_a_run_is_held_by_its_session_before_its_charge_commits(server_url, monkeypatch):
    """Held only after the commit, another client opening in between would find the run running and
    unheld, and mark it interrupted under its owner's feet."""
    from svtgui.ledger.postgres_db import PostgresDb

    states = []
    real = PostgresDb.hold_run

    def hold_run(db, run_id):
        states.append(db.conn.raw.info.transaction_status)
        real(db, run_id)

    monkeypatch.setattr(PostgresDb, "hold_run", hold_run)
    with Ledger.open(server_url) as led:
        ds = led.register_dataset(CONTENT, "census", 1)[0].dataset_id
        run = led.start_run(ds, "sparse", {}, "0.5", secure=True, noise_description="secure")
        assert states == [psycopg.pq.TransactionStatus.INTRANS]
        with Ledger.open(server_url) as other:
            assert other.run(run.id).status == "running" and other.recovered == []


def test_the_ledger_listing_names_a_server_without_its_password(server_url, capsys):
    from svtgui.cli import main

    parts = urlsplit(server_url)
    netloc = f"{parts.username}:s3cret@{parts.hostname}:{parts.port}"
    with_password = urlunsplit(parts._replace(netloc=netloc))
    assert main(["ledger", "--ledger", with_password]) == 0  # the test server trusts localhost
    out = capsys.readouterr().out
    assert "s3cret" not in out and f"{parts.username}:***@" in out
