"""A ledger that notices tampering, rollback and deletion (issue 21 §7).

Each class of tampering is done the way a curator would do it — ``sqlite3`` on the file, copying
an older file back, deleting it — and must be refused on the next open with one line that names
what was found and how to proceed, without writing anything. Honest use (a crash between the
ledger's commit and the anchor's write, many processes charging at once) is never flagged, and
proceeding is an explicit, logged acceptance.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import stat
from fractions import Fraction
from pathlib import Path

import pytest

from svtgui.cli import main
from svtgui.ledger import Ledger, LedgerError, LedgerTampered, anchor
from tests.app.test_ledger import race

CONTENT = "c" * 64
FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "ledger-v0.1.sqlite"


def _charge(led: Ledger, ds: str, eps: str = "1") -> int:
    return led.start_run(ds, "sparse", {"epsilon": eps}, eps, secure=True, noise_description="secure").id


@pytest.fixture
def used(tmp_path) -> tuple[Path, str]:
    """A ledger with one dataset (total ε 10) and three charges of ε 1, closed."""
    path = tmp_path / "ledger.sqlite"
    with Ledger.open(path) as led:
        ds = led.register_dataset(CONTENT, "adult", 10)[0].dataset_id
        for _ in range(3):
            _charge(led, ds)
    return path, ds


def _sql(path: Path, *statements: str) -> None:
    """What a curator can type into ``sqlite3 ledger.sqlite``."""
    c = sqlite3.connect(path)
    try:
        for s in statements:
            c.execute(s)
        c.commit()
    finally:
        c.close()


def _trigger_sql(path: Path, name: str) -> str:
    c = sqlite3.connect(path)
    try:
        return c.execute("SELECT sql FROM sqlite_master WHERE name = ?", (name,)).fetchone()[0]
    finally:
        c.close()


def _files(path: Path) -> dict[str, bytes]:
    return {f.name: f.read_bytes() for f in path.parent.iterdir() if f.name.startswith(path.name)}


def _refused(path: Path, *words: str) -> str:
    """Opening is refused in one line naming the path, what was found and both ways on; nothing written."""
    before = _files(path) if path.exists() else None
    with pytest.raises(LedgerTampered) as info:
        Ledger.open(path)
    message = str(info.value)
    assert "\n" not in message and str(path) in message and "ledger accept" in message
    assert "backup" in message and all(w in message for w in words), message
    assert (_files(path) if path.exists() else None) == before
    return message


def test_dropping_the_triggers_and_deleting_runs_is_refused(used):
    path, _ = used
    _sql(path, "DROP TRIGGER runs_no_delete", "DELETE FROM runs WHERE id = 2")
    _refused(path, "runs_no_delete", "run 2 was deleted")


def test_deleting_runs_and_their_links_then_restoring_the_triggers_is_caught_by_the_anchor(used):
    """The careful tamperer: the last run and its link deleted, the triggers put back as they were."""
    path, _ = used
    runs, chain = _trigger_sql(path, "runs_no_delete"), _trigger_sql(path, "chain_no_delete")
    _sql(path, "DROP TRIGGER runs_no_delete", "DROP TRIGGER chain_no_delete",
         "DELETE FROM runs WHERE id = 3", "DELETE FROM chain WHERE kind = 'run' AND ref = '3'", runs, chain)
    _refused(path, "older copy was restored, or records were deleted")


def test_restoring_an_older_copy_is_refused(used, tmp_path):
    path, ds = used
    shutil.copy(path, tmp_path / "backup.sqlite")
    with Ledger.open(path) as led:
        _charge(led, ds)
    for f in _files(path):
        (path.parent / f).unlink()
    shutil.copy(tmp_path / "backup.sqlite", path)
    _refused(path, "older copy was restored")


def test_a_deleted_ledger_at_a_known_path_is_refused_and_not_recreated(used):
    path, _ = used
    for f in _files(path):
        (path.parent / f).unlink()
    _refused(path, "is gone")
    assert not path.exists()


def test_editing_a_charges_epsilon_is_refused(used):
    path, _ = used
    fixed = _trigger_sql(path, "runs_charge_fixed")
    _sql(path, "DROP TRIGGER runs_charge_fixed", "UPDATE runs SET epsilon = '0.001' WHERE id = 1", fixed)
    _refused(path, "run 1 no longer matches its hash chain")


def test_a_total_changed_without_a_logged_raise_is_refused(used):
    path, ds = used
    logged = _trigger_sql(path, "datasets_total_logged")
    _sql(path, "DROP TRIGGER datasets_total_logged", "UPDATE datasets SET total_epsilon = '1000'", logged)
    _refused(path, f"dataset {ds}'s total budget (ε 1000) is not its last logged one (ε 10)")


def test_a_recomputed_chain_differs_from_the_anchored_head(used):
    """Rewriting history and recomputing every link with the (public) algorithm: the anchored head
    no longer lies on the chain."""
    path, _ = used
    from svtgui.ledger import chain

    c = sqlite3.connect(path, isolation_level=None)
    fixed, nodel, noup = (c.execute("SELECT sql FROM sqlite_master WHERE name = ?", (n,)).fetchone()[0]
                          for n in ("runs_charge_fixed", "chain_no_delete", "chain_no_update"))
    for n in ("runs_charge_fixed", "chain_no_delete", "chain_no_update"):
        c.execute(f"DROP TRIGGER {n}")
    c.execute("UPDATE runs SET epsilon = '0.001'")
    links = c.execute("SELECT seq, kind, ref FROM chain ORDER BY seq").fetchall()
    c.execute("DELETE FROM chain")
    for _seq, kind, ref in links:
        chain.append(c, kind, int(ref) if kind != "bind" else ref)
    for sql in (fixed, nodel, noup):
        c.execute(sql)
    c.close()
    _refused(path, "differs from the one its anchor recorded")


def test_accepting_records_the_finding_and_reason_and_a_later_change_is_found_again(used, capsys):
    path, ds = used
    _sql(path, "DROP TRIGGER runs_no_delete", "DELETE FROM runs WHERE id = 2")
    assert main(["ledger", "accept", "--ledger", str(path), "--reason", "test of the audit trail"]) == 0
    out = capsys.readouterr().out
    assert "accepted: " in out and "run 2 was deleted" in out
    with Ledger.open(path) as led:  # usable again, the trigger restored, the acceptance public
        (event,) = led.integrity_events()
        assert event.reason == "test of the audit trail" and "run 2 was deleted" in event.found
        assert event.login and led.budget(ds).spent_epsilon == 2
        _charge(led, ds)
    assert main(["ledger", "--ledger", str(path), "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)["integrity_events"]
    assert [e["reason"] for e in shown] == ["test of the audit trail"]
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        _sql(path, "DELETE FROM runs WHERE id = 1")
    fixed = _trigger_sql(path, "runs_charge_fixed")
    _sql(path, "DROP TRIGGER runs_charge_fixed", "UPDATE runs SET epsilon = '0.5' WHERE id = 3", fixed)
    _refused(path, "run 3 no longer matches")


def test_the_cli_refuses_in_one_line_with_exit_2(used, capsys):
    path, _ = used
    _sql(path, "DROP TRIGGER runs_no_delete", "DELETE FROM runs")
    assert main(["ledger", "--ledger", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "ledger accept" in err


def test_accepting_with_nothing_found_or_without_a_reason_is_refused_and_writes_nothing(used):
    path, _ = used
    before = _files(path)
    with pytest.raises(LedgerError, match="nothing to accept"):
        Ledger.open(path, accept="just because")
    _sql(path, "DROP TRIGGER runs_no_delete", "DELETE FROM runs WHERE id = 1")
    broken = _files(path)
    with pytest.raises(LedgerError, match="reason"):
        Ledger.open(path, accept="  ")
    assert _files(path) == broken != before


def test_accepting_a_deleted_ledger_starts_a_new_one_with_the_finding_recorded(used):
    path, _ = used
    for f in _files(path):
        (path.parent / f).unlink()
    with Ledger.open(path, accept="the old disk died; no backup") as led:
        assert led.datasets() == [] and "is gone" in led.integrity_events()[0].found
    Ledger.open(path).close()  # the old ledger is no longer expected here


def test_the_ledger_ahead_of_its_anchor_is_honest_after_a_crash(used):
    """A crash between the ledger's commit and the anchor's write leaves the anchor one charge behind:
    not flagged, and the next open moves the anchor on."""
    path, ds = used
    (file,) = anchor.anchor_folder().glob("lg-*.json")
    behind = file.read_bytes()
    with Ledger.open(path) as led:
        _charge(led, ds)
    file.write_bytes(behind)
    with Ledger.open(path) as led:
        assert led.budget(ds).spent_epsilon == 4
    assert json.loads(file.read_text())["count"] == json.loads(behind)["count"] + 1


def test_the_anchor_is_private_and_outside_the_ledger(used, tmp_path):
    path, _ = used
    folder = anchor.anchor_folder()
    assert folder.parent == tmp_path / "state"  # $SVTGUI_STATE_DIR (conftest), not beside the ledger
    (file,) = folder.glob("lg-*.json")
    assert stat.S_IMODE(file.stat().st_mode) == 0o600 and stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert json.loads(file.read_text())["paths"] == [str(path.resolve())]


def test_concurrent_charges_stay_exact_and_unflagged(tmp_path):
    path = tmp_path / "l.sqlite"
    with Ledger.open(path) as led:
        ds = led.register_dataset(CONTENT, "adult", 5)[0].dataset_id
    assert sum(race(path, ds, "0.5", processes=4, tries=4)) == 10  # 16 attempts of 0.5 for a total of 5
    with Ledger.open(path) as led:
        assert led.budget(ds).spent_epsilon == Fraction(5)
    (file,) = anchor.anchor_folder().glob("lg-*.json")
    assert json.loads(file.read_text())["count"] == 1 + 1 + 1 + 10  # registration, binding, relation, charges


def test_a_migrated_ledger_is_chained_over_its_old_charges(tmp_path):
    path = tmp_path / "old.sqlite"
    shutil.copy(FIXTURE, path)
    with Ledger.open(path) as led:
        runs = led.runs()
    fixed = _trigger_sql(path, "runs_charge_fixed")
    _sql(path, "DROP TRIGGER runs_charge_fixed", f"UPDATE runs SET epsilon = '0' WHERE id = {runs[0].id}",
         fixed)
    _refused(path, f"run {runs[0].id} no longer matches")


def test_reports_state_an_accepted_finding_with_the_day_only(used):
    from svtgui.app.reports.content import facts, report_data

    path, _ = used
    with Ledger.open(path) as led:
        led.finish_run(1, "finished")
        assert report_data(led, 1)["ledger_integrity"] == []
    _sql(path, "DROP TRIGGER events_no_delete")
    with Ledger.open(path, accept="an old script of ours dropped it") as led:
        data = report_data(led, 1)
    (event,) = data["ledger_integrity"]
    assert event["reason"] == "an old script of ours dropped it" and "events_no_delete" in event["found"]
    assert len(event["date"]) == 10 and "T" not in event["date"]  # a day, no time of day (§6)
    text = dict(facts(data))["Ledger integrity"]
    assert "changed outside SVT Studio" in text and "may be understated" in text
    assert event["accepted_by"] in text


def _poison_fingerprint_cache(path: Path) -> int:
    """What an attacker with sqlite3 does to the cache (no trigger guards it; no charge is touched):
    every cached fingerprint made to look like rows nobody knows. Returns the entries changed."""
    with sqlite3.connect(path) as c:
        entries = c.execute("SELECT file_tag, fingerprint_json FROM fingerprint_cache").fetchall()
        for tag, text in entries:
            doc = json.loads(text)
            rows = doc["rows"]
            rows["columns"] = [["f" * 64 if d != "f" * 64 else "e" * 64, i] for d, i in rows["columns"]]
            rows["content"] = "0" * 64
            rows["sketch"] = [v + 1 for v in rows["sketch"]]
            c.execute("UPDATE fingerprint_cache SET fingerprint_json = ? WHERE file_tag = ?",
                      (json.dumps(doc), tag))
    return len(entries)


def test_an_edited_fingerprint_cache_gives_spent_rows_no_fresh_budget(tmp_path, capsys):
    """The cache of file fingerprints decides whose budget a file's rows are charged to and changes
    without a charge (so the chain cannot cover it): an entry edited with sqlite3 must not be
    believed, or the same file runs again on a fresh budget after its budget is spent."""
    data, queries, ledger = tmp_path / "people.csv", tmp_path / "q.json", tmp_path / "l.sqlite"
    data.write_text("age,hours\n" + "".join(f"{17 + (i * 7) % 70},{(i * 13) % 60}\n" for i in range(500)))
    queries.write_text(json.dumps({"format": "svtgui-queries", "version": 1,
                                   "queries": [{"kind": "range", "column": "age", "low": 20, "high": 40}]}))
    run = ["run", "--data", str(data), "--queries", str(queries), "--mechanism", "sparse", "--epsilon", "1",
           "--threshold", "100", "--cutoff", "1", "--budget-epsilon", "1", "--ledger", str(ledger)]
    assert main(run) == 0  # the budget is spent; the file's fingerprint is cached
    assert _poison_fingerprint_cache(ledger) == 1
    capsys.readouterr()
    assert main([*run, "--new-dataset"]) == 3  # still the spent dataset: the edited entry is ignored
    assert "does not fit what remains" in capsys.readouterr().err
    with Ledger.open(ledger) as led:
        assert len(led.runs()) == 1 and len(led.datasets()) == 1


def _replace_ledger_key(path: Path) -> None:
    """Triggers dropped, the fingerprint key replaced, the triggers put back exactly as they were: the
    chain and the triggers look untouched, and every dataset's rows would look new to the ledger."""
    fixed, kept = _trigger_sql(path, "key_fixed"), _trigger_sql(path, "key_no_delete")
    _sql(path, "DROP TRIGGER key_fixed", "DROP TRIGGER key_no_delete",
         "UPDATE ledger_key SET key = randomblob(32)", fixed, kept)


def test_a_replaced_fingerprint_key_is_refused_then_accepted_only_explicitly(used):
    path, _ = used
    _replace_ledger_key(path)
    _refused(path, "fingerprint key")
    with Ledger.open(path, accept="rebuilt the key on purpose") as led:
        assert led.accepted and "fingerprint key" in led.accepted[0]
    with Ledger.open(path) as led:  # the key found was accepted: it is the anchored one now
        assert not led.accepted


def test_an_anchor_written_before_keys_were_anchored_learns_the_key_on_open(used):
    """Old anchors have no key digest: the next honest open records it, and a later change is found."""
    path, _ = used
    (anchored,) = anchor.at_path(path)
    target = anchor.anchor_folder() / f"{anchored.ledger_id}.json"
    old = json.loads(target.read_text(encoding="utf-8"))
    target.write_text(json.dumps({k: v for k, v in old.items() if k != "key"}), encoding="utf-8")
    Ledger.open(path).close()
    assert json.loads(target.read_text(encoding="utf-8"))["key"] == old["key"]
    _replace_ledger_key(path)
    _refused(path, "fingerprint key")
