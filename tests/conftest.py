"""Test-wide set-up.

Qt must be told to render offscreen *before* any Qt module is imported anywhere, so this
happens at the very top of the first file pytest loads.
"""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("SVTGUI_SETTINGS_SCOPE", "test")

from pathlib import Path  # noqa: E402

import pytest  # noqa: E402
from hypothesis import settings  # noqa: E402

# Property tests draw the same examples on every run and every machine, so a landing never depends
# on luck (a random draw once found a library-version difference only in CI). To search afresh
# for counterexamples locally: SVTGUI_HYPOTHESIS=explore pytest ... (random draws, failures saved).
settings.register_profile("ci", derandomize=True, database=None)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("SVTGUI_HYPOTHESIS", "ci"))

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The real public datasets (UCI Adult, FIMI retail) that live beside the repository."""
    if not (SHARED_DATA / "adult.csv").exists():
        pytest.fail(f"shared data not found at {SHARED_DATA}; CI provides ../shared next to the clone")
    return SHARED_DATA


@pytest.fixture(autouse=True)
def _isolated_ledger(tmp_path, monkeypatch):
    """Every test gets its own ledger and settings so no test touches the user's real budget."""
    monkeypatch.setenv("SVTGUI_LEDGER", str(tmp_path / "ledger.sqlite"))
    monkeypatch.setenv("SVTGUI_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("SVTGUI_STATE_DIR", str(tmp_path / "state"))  # the ledgers' anchors
    monkeypatch.delenv("SVTGUI_DEMO", raising=False)  # demo mode (svtgui.app.gate.DEMO_ENV) is per test


# -- the ledger's two backends (issue 26) ----------------------------------------------------------
POSTGRES_ENV = "SVTGUI_TEST_POSTGRES"  # a server URL (.ci/start-postgres prints one); its login makes roles
NO_SERVER = (f"PostgreSQL ledger tests need a server: set {POSTGRES_ENV}=postgresql://… "
             "(`.ci/start-postgres` starts a throwaway one)")


@pytest.fixture
def server_url():
    """A fresh, empty schema on the test server, as a ledger URL; skipped (with the reason) without one."""
    base = os.environ.get(POSTGRES_ENV)
    if not base:
        pytest.skip(NO_SERVER)
    import secrets

    import psycopg

    schema = "svtgui_test_" + secrets.token_hex(6)
    with psycopg.connect(base, autocommit=True) as admin:
        admin.execute(f"CREATE SCHEMA {schema}")
    sep = "&" if "?" in base else "?"
    yield f"{base}{sep}options=-csearch_path%3D{schema}"
    with psycopg.connect(base, autocommit=True) as admin:
        admin.execute(f"DROP SCHEMA {schema} CASCADE")


@pytest.fixture(params=["sqlite", "postgresql"])
def ledger_location(request, tmp_path):
    """Where a ledger test's ledger lives: a file, then a schema on the PostgreSQL test server."""
    if request.param == "sqlite":
        return tmp_path / "l.sqlite"
    return request.getfixturevalue("server_url")


@pytest.fixture
def census_copy(tmp_path) -> Path:
    """The bundled census sample's bytes under another name and folder: public rows by content, the only
    kind of file on which seeded (test) noise and demos run (svtgui.app.public_data)."""
    import shutil

    from svtgui.assets import asset

    return Path(shutil.copyfile(asset("samples/census.csv"), tmp_path / "survey.csv"))
