"""Two curators, two processes, two database logins, one dataset's budget on a server (issue 26)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from fractions import Fraction

import psycopg
import pytest

from svtgui.cli import EXIT_BUDGET, EXIT_OK
from svtgui.ledger import Ledger
from tests.app.test_ledger_server import _as

EPS = "0.5"
ANA, BO = (f"svtgui_test_{who}_{os.getpid()}" for who in ("ana", "bo"))


@pytest.fixture
def curators(server_url):
    with psycopg.connect(server_url, autocommit=True) as admin:
        for login in (ANA, BO):
            admin.execute(f"DROP ROLE IF EXISTS {login}")
            admin.execute(f"CREATE ROLE {login} LOGIN")
    Ledger.open(server_url).close()  # the owner creates the schema (and the roles)
    with psycopg.connect(server_url, autocommit=True) as admin:
        admin.execute(f"GRANT svtgui_curator TO {ANA}, {BO}")
    yield [_as(server_url, login) for login in (ANA, BO)]
    with psycopg.connect(server_url, autocommit=True) as admin:
        for login in (ANA, BO):
            admin.execute(f"DROP OWNED BY {login}")
            admin.execute(f"DROP ROLE {login}")


def _cli(*argv: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "svtgui.cli", *argv], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env={**os.environ})


def test_two_curators_processes_share_one_budget_and_see_the_same_spent(curators, tmp_path):
    data = tmp_path / "toy.csv"
    data.write_text("x\n" + "".join(f"{i % 10}\n" for i in range(500)))
    queries = tmp_path / "q.json"
    queries.write_text(json.dumps({"format": "svtgui-queries", "version": 1, "queries": [
        {"kind": "range", "column": "x", "low": lo, "high": lo + 1} for lo in range(10)]}))
    ana, bo = curators
    first = _cli("run", "--data", str(data), "--queries", str(queries), "--mechanism", "sparse",
                 "--epsilon", EPS, "--threshold", "40", "--cutoff", "2", "--ledger", ana,
                 "--budget-epsilon", "1")
    assert first.wait(timeout=120) == 0, first.stderr.read()
    runs = [_cli("run", "--data", str(data), "--queries", str(queries), "--mechanism", "sparse", "--epsilon",
                 EPS, "--threshold", "40", "--cutoff", "2", "--ledger", who) for who in (ana, bo)]
    codes = sorted(p.wait(timeout=120) for p in runs)
    assert codes == [EXIT_OK, EXIT_BUDGET]  # 0.5 was left: one of them got it, the other was refused
    shown = []
    for who in (ana, bo):
        out = _cli("ledger", "--ledger", who, "--json")
        assert out.wait(timeout=60) == 0
        (d,) = json.loads(out.stdout.read())["datasets"]
        shown.append((d["spent_epsilon"], d["remaining_epsilon"], len(d["runs"])))
    assert shown[0] == shown[1] == ("1", "0", 2)
    with Ledger.open(ana) as led:
        assert sum(r.epsilon for r in led.runs()) == Fraction(1)
