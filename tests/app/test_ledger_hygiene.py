"""Ledger hygiene: owner-only files, concurrent first opens, and a damaged file refused untouched."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from svtgui.cli import main
from svtgui.ledger import Ledger, LedgerDamaged, LedgerError, ResponseBatch

CONTENT = "c" * 64


def _mode(p: Path) -> int:
    return stat.S_IMODE(p.stat().st_mode)


def test_created_owner_only_with_its_side_files(tmp_path):
    old = os.umask(0o022)  # a usual umask would make a plain new file world-readable
    try:
        path = tmp_path / "l.sqlite"
        with Ledger.open(path) as led:
            led.register_dataset(CONTENT, "adult", 1)
            side = [p for p in tmp_path.iterdir() if p.name.startswith("l.sqlite-")]
            assert side, "WAL mode keeps -wal/-shm files while the ledger is open"
            for p in [path, *side]:
                assert _mode(p) == 0o600, (p.name, oct(_mode(p)))
    finally:
        os.umask(old)


def test_an_older_world_readable_ledger_is_tightened(tmp_path):
    path = tmp_path / "l.sqlite"
    Ledger.open(path).close()
    path.chmod(0o644)
    with Ledger.open(path):
        assert _mode(path) == 0o600


FIRST_OPEN = """
import sys
from svtgui.ledger import Ledger
with Ledger.open(sys.argv[1], timeout=60) as led:
    led.datasets()
print("ok")
"""


def test_many_processes_opening_a_fresh_path_at_once_all_succeed(tmp_path):
    """The schema version is read again under the write lock: only one process creates the tables
    ("table datasets already exists" hit 2 of 40 concurrent first opens before)."""
    for round_ in range(2):
        path = tmp_path / f"fresh{round_}.sqlite"
        procs = [subprocess.Popen([sys.executable, "-c", FIRST_OPEN, str(path)], stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True) for _ in range(16)]
        results = [p.communicate(timeout=120) for p in procs]
        failures = [err for (out, err), p in zip(results, procs, strict=True)
                    if p.returncode or out != "ok\n"]
        assert not failures, failures[0]
        with Ledger.open(path) as led:
            assert led.datasets() == [] and len(led.content_key()) == 32


def _damaged(tmp_path: Path) -> Path:
    """A ledger with history whose third page was overwritten (a bad sector, a stray write)."""
    path = tmp_path / "ledger.sqlite"
    with Ledger.open(path) as led:
        dataset_id = led.register_dataset(CONTENT, "adult", 5)[0].dataset_id
        run = led.start_run(dataset_id, "sparse", {}, "1", secure=True, noise_description="OS CSPRNG")
        rows = [(i, f"query {i}", i % 3 == 0, float(i), None) for i in range(2000)]
        led.record(run.id, ResponseBatch.of(rows))
        led.finish_run(run.id, "finished")
    page = 4096
    with path.open("r+b") as f:
        f.seek(2 * page)
        f.write(b"\xa5" * page)
    return path


def test_a_damaged_ledger_is_reported_and_never_written_into(tmp_path):
    path = _damaged(tmp_path)
    before = path.read_bytes()
    with pytest.raises(LedgerDamaged) as err:
        Ledger.open(path)
    message = str(err.value)
    assert isinstance(err.value, LedgerError) and str(path) in message
    assert "damaged" in message and "backup" in message and "nothing was written" in message
    assert path.read_bytes() == before


def test_the_cli_says_so_in_one_line_and_exits_2(tmp_path, capsys):
    path = _damaged(tmp_path)
    before = path.read_bytes()
    assert main(["ledger", "--ledger", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "damaged" in err and str(path) in err
    assert path.read_bytes() == before
