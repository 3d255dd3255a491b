"""Faults injected into real ``svtgui-cli`` runs: each ends in one clear line and the documented exit code.

For every fault: stderr holds exactly one line and no traceback, the exit code is 2 (3 for a
budget refusal), a run that had started keeps its whole charge and ends ``interrupted`` (never
left ``running`` once the ledger can be written), nothing is charged when no run had started, and
a damaged ledger is never written. SIGKILL is covered by ``test_crash.py``; output paths that
cannot be written are refused before any charge by the plan (``tests/app``).
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from svtgui import cli
from svtgui.cli import errors
from svtgui.ledger import Ledger

EPS = "0.25"


@pytest.fixture
def workload(tmp_path):
    """A toy dataset and 4,000 range counts that stream one committed row at a time (for seconds)."""
    data = tmp_path / "toy.csv"
    data.write_text("x\n" + "".join(f"{i % 100}\n" for i in range(2000)))
    queries = [{"kind": "range", "column": "x", "low": lo, "high": lo + 1} for lo in range(100)] * 40
    qfile = tmp_path / "q.json"
    qfile.write_text(json.dumps({"format": "svtgui-queries", "version": 1, "queries": queries}))
    return data, qfile, tmp_path / "ledger.sqlite"


def _argv(data: Path, qfile: Path, ledger: Path, *extra: str) -> list[str]:
    # threshold 0 with a huge cutoff: about a third of the answers (20 each, noise scales in the tens of
    # thousands) are ⊤ and printed, never none by chance, so output streams steadily
    return ["run", "--data", str(data), "--queries", str(qfile), "--mechanism", "numeric_sparse",
            "--epsilon", EPS, "--threshold", "0", "--cutoff", "4000", "--batch-size", "1",
            "--ledger", str(ledger), "--budget-epsilon", "100", *extra]


def _spawn(argv: list[str], **env: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "svtgui.cli", *argv], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, encoding="utf-8", env={**os.environ, **env})


def _one_line(stderr: str) -> str:
    lines = [ln for ln in stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, stderr
    assert "Traceback" not in stderr
    return lines[0]


def _runs(ledger: Path) -> list:
    with Ledger.open(ledger) as led:
        return led.runs()


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# -- signals mid-run --------------------------------------------------------------------------------


@pytest.mark.parametrize("sig, said", [(signal.SIGINT, "Ctrl-C"), (signal.SIGTERM, "SIGTERM")])
def test_a_signal_mid_run_ends_it_interrupted_with_its_spend_kept(workload, sig, said):
    data, qfile, ledger = workload
    proc = _spawn(_argv(data, qfile, ledger))
    assert proc.stdout.readline(), "the run printed no row"  # a row printed: the run has started
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 2
    line = _one_line(err)
    assert "interrupted" in line and said in line
    (run,) = _runs(ledger)
    assert run.status == "interrupted" and run.epsilon == Fraction(EPS)


def _reading(proc: subprocess.Popen, path: Path) -> bool:
    """True while ``proc`` holds ``path`` open (it is loading it)."""
    fds = Path(f"/proc/{proc.pid}/fd")
    try:
        return any(os.path.realpath(fd) == str(path) for fd in fds.iterdir())
    except OSError:
        return False


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc to see the file being read")
def test_ctrl_c_while_loading_is_an_interruption_and_charges_nothing(workload):
    _, qfile, ledger = workload
    big = ledger.parent / "big.csv"
    with big.open("w") as f:  # large enough to be still loading when the signal arrives
        f.write("x,y\n")
        f.writelines(f"{i % 97},{i % 89}\n" for i in range(3_000_000))
    proc = _spawn(_argv(big, qfile, ledger))
    while not _reading(proc, big):  # wait (polling every 10 ms) until it is reading the data
        with pytest.raises(subprocess.TimeoutExpired):
            proc.wait(timeout=0.01)  # it must not end before it has read the file
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 2 and out == ""
    line = _one_line(err)
    assert "interrupted (Ctrl-C)" in line and "parse" not in line
    assert _runs(ledger) == []


# -- a ledger locked by another program ------------------------------------------------------------


def _lock(ledger: Path) -> sqlite3.Connection:
    """Another program holding the ledger's write lock."""
    conn = sqlite3.connect(ledger, isolation_level=None, timeout=60)
    conn.execute("BEGIN IMMEDIATE")
    return conn


class _Failing:
    """A ledger connection whose response writes fail with SQLite's ``message`` (a full disk, a lock)."""

    def __init__(self, conn: sqlite3.Connection, message: str) -> None:
        self._conn, self._message = conn, message

    def __getattr__(self, name: str):
        return getattr(self._conn, name)

    def _check(self, sql: str) -> None:
        if "INSERT INTO responses" in sql:
            raise sqlite3.OperationalError(self._message)

    def execute(self, sql: str, *args):
        self._check(sql)
        return self._conn.execute(sql, *args)

    def executemany(self, sql: str, *args):
        self._check(sql)
        return self._conn.executemany(sql, *args)


def test_a_ledger_locked_before_the_run_charges_nothing(workload):
    data, qfile, ledger = workload
    Ledger.open(ledger).close()
    holder = _lock(ledger)
    try:
        proc = _spawn(_argv(data, qfile, ledger))
        out, err = proc.communicate(timeout=120)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert proc.returncode == 2 and out == ""
    assert "locked" in _one_line(err)
    assert _runs(ledger) == []


def test_a_ledger_locked_during_the_run_leaves_it_interrupted_not_running(workload):
    data, qfile, ledger = workload
    proc = _spawn(_argv(data, qfile, ledger), SVTGUI_LOCK_PATIENCE="0")
    assert proc.stdout.readline(), "the run printed no row"
    holder = _lock(ledger)  # held until the process has given up
    try:
        _, err = proc.communicate(timeout=120)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert proc.returncode == 2
    line = _one_line(err)
    assert "locked" in line and "ε stays spent" in line
    (run,) = _runs(ledger)  # this open marks the dead process's run
    assert run.status == "interrupted" and run.epsilon == Fraction(EPS)


def test_ending_a_run_waits_for_the_lock_then_marks_it_interrupted(workload, monkeypatch, capsys):
    """The lock taken mid-run is released while the run waits to record its end: it ends interrupted."""
    from svtgui.cli.commands import run as run_command
    from svtgui.ledger import LedgerError

    data, qfile, ledger = workload
    real_open = run_command.open_ledger
    waits: list[float] = []
    monkeypatch.setattr(errors.time, "sleep", waits.append)  # the waits are counted, not slept

    def locked_mid_run(path):
        led = real_open(path)
        led._db.conn = _Failing(led._db.conn, "database is locked")
        real_finish, refusals = led.finish_run, [2]

        def finish_run(run_id, status):  # still locked for the first two attempts to end the run
            if refusals[0]:
                refusals[0] -= 1
                raise LedgerError(f"ledger {path} is locked by another program; close it (or wait) and retry")
            return real_finish(run_id, status)

        led.finish_run = finish_run
        return led

    monkeypatch.setattr(run_command, "open_ledger", locked_mid_run)
    assert cli.main(_argv(data, qfile, ledger)) == 2
    line = _one_line(capsys.readouterr().err)
    assert "locked" in line and "is marked interrupted" in line
    assert len(waits) == 1  # one refusal inside the run's own clean-up, one waited out here
    (run,) = _runs(ledger)
    assert run.status == "interrupted" and run.epsilon == Fraction(EPS)


# -- a full disk ------------------------------------------------------------------------------------


def test_a_full_disk_mid_run_names_the_disk_and_keeps_the_spend(workload, monkeypatch, capsys):
    from svtgui.cli.commands import run as run_command

    data, qfile, ledger = workload
    real_open = run_command.open_ledger

    def full_disk_ledger(path):
        led = real_open(path)
        led._db.conn = _Failing(led._db.conn, "database or disk is full")
        return led

    monkeypatch.setattr(run_command, "open_ledger", full_disk_ledger)
    assert cli.main(_argv(data, qfile, ledger)) == 2
    line = _one_line(capsys.readouterr().err)
    assert "disk is full" in line and "cannot rollback" not in line
    (run,) = _runs(ledger)
    assert run.status == "interrupted" and run.epsilon == Fraction(EPS)


def test_a_full_disk_when_writing_the_report_says_so_and_keeps_the_run(workload, monkeypatch, capsys):
    data, qfile, ledger = workload
    report = data.parent / "release.json"
    real_write_text = Path.write_text

    def no_space(self, text, *args, **kwargs):  # the disk fills up as the report itself is written
        if self.parent == report.parent and "svtgui-release-report" in str(text):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(self))
        return real_write_text(self, text, *args, **kwargs)

    monkeypatch.setattr(Path, "write_text", no_space)
    assert cli.main(_argv(data, qfile, ledger, "--cutoff", "3", "--report", str(report))) == 2
    lines = capsys.readouterr().err.strip().splitlines()  # the run's summary and statistics, then the error
    summary, line = lines[0], lines[-1]
    assert summary.startswith("run 1: halted")
    assert not any("error" in text for text in lines[:-1])
    assert "disk is full" in line and str(report) in line and "svtgui-cli report 1" in line
    assert not report.exists()
    (run,) = _runs(ledger)
    assert run.status in ("finished", "halted") and run.epsilon == Fraction(EPS)


# -- a damaged or unwritable ledger ----------------------------------------------------------------


def test_a_damaged_ledger_is_refused_in_one_line_and_never_written(workload):
    data, qfile, ledger = workload
    proc = _spawn(_argv(data, qfile, ledger, "--cutoff", "2"))
    proc.communicate(timeout=120)
    assert proc.returncode == 0
    with sqlite3.connect(ledger) as conn:  # fold the write-ahead log into the file first
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        page = conn.execute("PRAGMA page_size").fetchone()[0]
    raw = bytearray(ledger.read_bytes())
    assert len(raw) >= 3 * page
    raw[page: page + 512] = b"\xa5" * 512  # the second page's b-tree header and cell pointers
    ledger.write_bytes(bytes(raw))
    before = _sha(ledger)
    proc = _spawn(_argv(data, qfile, ledger))
    out, err = proc.communicate(timeout=120)
    assert (proc.returncode, out) == (2, ""), err
    assert "damaged" in _one_line(err)
    assert _sha(ledger) == before


def test_a_ledger_in_a_read_only_folder_is_blamed_on_the_folder(workload):
    data, qfile, ledger = workload
    Ledger.open(ledger).close()
    folder = ledger.parent
    mode = folder.stat().st_mode
    folder.chmod(0o555)
    try:
        proc = _spawn(_argv(data, qfile, ledger))
        out, err = proc.communicate(timeout=120)
    finally:
        folder.chmod(mode)
    assert proc.returncode == 2 and out == ""
    line = _one_line(err)
    assert "folder" in line and "read-only" in line
    assert _runs(ledger) == []
