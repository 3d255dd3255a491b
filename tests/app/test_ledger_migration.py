"""A ledger written by SVT Studio 0.1 (tests/fixtures/ledger-v0.1.sqlite) migrates on open.

The fixture was made with the 0.1 release itself (`svtgui-cli run` on the bundled census sample:
two secure runs, one `--seed 7` run, one `ledger raise`), before the schema changed. After the
migration its budgets and spend are intact, they follow the census rows (found through the old
file hash, then by the rows' keyed fingerprint, even re-saved with CRLF), the plain SHA-256 of the
file is gone from every part of the file, and the seed is gone from the seeded run.
"""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
from fractions import Fraction
from pathlib import Path

import pytest

from svtgui.app.dataset_identity import identify
from svtgui.assets import asset
from svtgui.data import load_dataset
from svtgui.ledger import SCHEMA_VERSION, SEEDED_TEXT, Ledger

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "ledger-v0.1.sqlite"
CENSUS = Path(asset("samples/census.csv"))


@pytest.fixture
def old_ledger(tmp_path) -> Path:
    path = tmp_path / "ledger.sqlite"
    shutil.copy(FIXTURE, path)
    return path


def _v01_state(path: Path) -> dict:
    """What the 0.1 file holds, read with plain SQL (the 0.1 schema)."""
    c = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return {"version": c.execute("PRAGMA user_version").fetchone()[0],
                "datasets": c.execute("SELECT fingerprint, name, total_epsilon FROM datasets").fetchall(),
                "runs": c.execute("SELECT id, epsilon, delta, noise, noise_description, status FROM runs "
                                  "ORDER BY id").fetchall(),
                "responses": c.execute("SELECT run_id, idx, above, value FROM responses ORDER BY 1, 2")
                .fetchall()}
    finally:
        c.close()


def test_the_fixture_is_a_0_1_ledger_of_the_census_sample():
    before = _v01_state(FIXTURE)
    assert before["version"] == 2
    assert before["datasets"][0][0] == hashlib.sha256(CENSUS.read_bytes()).hexdigest()
    assert any("seed 7" in r[4] for r in before["runs"])  # what 0.1 stored (and the migration removes)


def test_budgets_spend_and_responses_survive_and_follow_the_rows(old_ledger, tmp_path):
    before = _v01_state(old_ledger)
    total = Fraction(before["datasets"][0][2])
    spent = sum(Fraction(r[1]) for r in before["runs"])
    with Ledger.open(old_ledger) as led:
        assert sqlite3.connect(old_ledger).execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        (record,) = led.datasets()
        assert record.name == "census" and record.dataset_id.startswith("ds-")
        b = led.budget(record.dataset_id)
        assert (b.total_epsilon, b.spent_epsilon) == (total, spent)
        assert [(r.id, r.epsilon, r.status) for r in led.runs()] == \
            [(r[0], Fraction(r[1]), r[5]) for r in before["runs"]]
        after = [(r.run_id, r.index, int(r.above), r.value) for run in led.runs()
                 for r in led.responses(run.id)]
        assert after == [(a, i, t, v) for a, i, t, v in before["responses"]]
        assert [e.kind for e in led.budget_events(record.dataset_id)] == ["register", "raise"]
        # the same census file finds its old budget (through its old hash, kept only keyed) ...
        census = load_dataset(CENSUS)
        assert identify(led, census).record == record and census.dataset_id == record.dataset_id
        # ... and from then on by its rows: the same rows re-saved with CRLF and a blank last line
        resaved = tmp_path / "census.csv"
        resaved.write_bytes(CENSUS.read_bytes().replace(b"\n", b"\r\n") + b"\r\n")
        assert identify(led, load_dataset(resaved)).record == record
        assert not led.legacy_pending()


def test_no_plain_hash_and_no_seed_remain(old_ledger):
    sha = hashlib.sha256(CENSUS.read_bytes()).hexdigest()
    Ledger.open(old_ledger).close()  # migrates, then checkpoints the WAL into the file on close
    raw = b"".join(p.read_bytes() for p in old_ledger.parent.glob(old_ledger.name + "*"))
    for needle in (sha, sha[:16], sha.upper()):
        assert needle.encode() not in raw  # not in any table, not in a free page
    with Ledger.open(old_ledger) as led:
        seeded = [r for r in led.runs() if not r.secure]
        assert len(seeded) == 1 and seeded[0].noise_description == SEEDED_TEXT
    assert b"seed 7" not in b"".join(p.read_bytes() for p in old_ledger.parent.glob(old_ledger.name + "*"))


def test_a_migrated_dataset_is_not_matched_by_other_rows(old_ledger, tmp_path):
    """Other rows under the census name are never silently given the old budget, nor a new one."""
    other = tmp_path / "census.csv"
    lines = CENSUS.read_text().splitlines(keepends=True)
    other.write_text("".join(lines[:-1]))  # one person fewer: a different dataset, or a changed one?
    with Ledger.open(old_ledger) as led:
        identity = identify(led, load_dataset(other))
        assert identity.record is None and identity.needs_decision
        assert [d.name for d in identity.lookalikes] == ["census"]
