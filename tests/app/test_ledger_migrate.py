"""Moving to a team: `svtgui-cli ledger migrate --to postgresql://…` (issue 26 §4)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from svtgui.cli import main
from svtgui.ledger import ContentIdentity, Ledger, ResponseBatch

ADULT, CENSUS = "a" * 64, "c" * 64


@pytest.fixture
def file_ledger(tmp_path):
    """A file ledger with two datasets, a raise, runs with responses and facts, and an ended status."""
    path = tmp_path / "mine.sqlite"
    with Ledger.open(path) as led:
        identity = ContentIdentity((("1" * 64, True), ("2" * 64, False)), 300, tuple(range(5, 300, 7)))
        adult = led.register_dataset(ADULT, "adult", 2, columns=["age", "sex"],
                                     identity=identity)[0].dataset_id
        census = led.register_dataset(CENSUS, "census", 1)[0].dataset_id
        for ds, eps in ((adult, "0.5"), (census, "0.25"), (adult, "1")):
            run = led.start_run(ds, "sparse", {"epsilon": eps}, eps, secure=True, noise_description="secure",
                                declared={"neighbouring": "add_remove", "bounds": {}})
            led.record(run.id, ResponseBatch.of([(i, f"q{i}", i % 3 == 0, float(i) if i % 3 == 0 else None,
                                                  None) for i in range(7)]))
            led.record_fact(run.id, "n_hat", 30000)
            led.finish_run(run.id, "halted")
        led.raise_total(adult, 3, note="approved by the board")
    return path, adult, census


def _state(led: Ledger) -> list:
    out = []
    for d in led.datasets():
        b = led.budget(d.dataset_id)
        runs = led.runs(d.dataset_id)
        out.append((d.dataset_id, d.name, b.total_epsilon, b.spent_epsilon,
                    [(e.kind, e.epsilon, e.note) for e in led.budget_events(d.dataset_id)],
                    [(r.mechanism_id, r.epsilon, r.status, r.started_at, led.declarations(r.id),
                      [(x.index, x.above, x.value) for x in led.responses(r.id)], led.facts(r.id))
                     for r in runs]))
    return sorted(out)


def test_a_file_ledger_moves_to_the_server_whole_verified_and_only_once(file_ledger, server_url, capsys):
    path, adult, _ = file_ledger
    assert main(["ledger", "migrate", "--ledger", str(path), "--to", server_url]) == 0
    out = capsys.readouterr().out
    assert "copied 2 dataset(s), 3 run(s) and 21 response(s)" in out and "replay identically" in out
    with Ledger.open(path) as mine, Ledger.open(server_url) as team:
        assert _state(team) == _state(mine)
        assert team.dataset_for_content(ADULT).dataset_id == adult  # the rows find their budget there
        columns = "SELECT content, position, column_fp, informative FROM content_columns ORDER BY 1, 2"
        assert len(mine._read(columns)) == 2
        assert team._read(columns) == mine._read(columns)  # and look-alikes are still recognised
        assert team.row_sketches() == mine.row_sketches() == [(adult, 300, tuple(range(5, 300, 7)))]
        assert team.budget(adult).remaining_epsilon == Fraction(3, 2)
    assert main(["ledger", "migrate", "--ledger", str(path), "--to", server_url]) == 0
    assert "copied 0 dataset(s), 0 run(s)" in capsys.readouterr().out  # nothing twice
    with Ledger.open(server_url) as team:
        assert len(team.runs()) == 3


def test_a_dataset_with_another_history_on_the_server_is_refused_and_nothing_copied(file_ledger, server_url,
                                                                                    capsys):
    path, adult, census = file_ledger
    assert main(["ledger", "migrate", "--ledger", str(path), "--to", server_url]) == 0
    mine = Ledger.open(path)  # the file goes on alone: its adult history now differs
    run = mine.start_run(adult, "sparse", {}, "0.1", secure=True, noise_description="secure")
    mine.register_dataset("d" * 64, "new one", 1)
    capsys.readouterr()
    with Ledger.open(server_url) as team:
        before = _state(team)
    assert main(["ledger", "migrate", "--ledger", str(path), "--to", server_url]) == 2
    assert f"run {run.id} in {path} is still running" in capsys.readouterr().err
    mine.finish_run(run.id, "finished")
    mine.close()
    assert main(["ledger", "migrate", "--ledger", str(path), "--to", server_url]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and f"dataset {adult} is already in the server ledger" in err
    with Ledger.open(server_url) as team:
        assert _state(team) == before  # the new dataset was not copied either


def test_migrate_needs_a_server_url(file_ledger, tmp_path, capsys):
    path, _, _ = file_ledger
    assert main(["ledger", "migrate", "--ledger", str(path), "--to", str(tmp_path / "other.sqlite")]) == 2
    assert "is not a server ledger" in capsys.readouterr().err
    assert not (tmp_path / "other.sqlite").exists()
