"""Kill a real ``svtgui-cli run`` with SIGKILL mid-stream; the ledger must still hold everything shown.

Each repetition starts a streaming run (one query per committed batch) and reads its output up to a
seeded, random number of printed ⊤ rows; then it stops reading and sends SIGKILL. The run cannot end
before the kill, whatever the machine's speed: it prints far more than a pipe holds (about 7,000 ⊤
rows of 40 bytes against 64 KiB), so once the reader stops, the process blocks on its next write. Then the
rest of the output is drained and the ledger reopened and checked:

* every row the process printed is in the ledger, with the same index, query and value;
* the killed run is marked ``interrupted`` and its full ε stays spent;
* spent budget = the sum of the charges of every run so far (nothing lost, nothing refunded).

No test here waits a fixed time: kills follow observed output.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
from fractions import Fraction

import pytest

from svtgui.ledger import Ledger

EPS = "0.25"
REPETITIONS = 5
QUERIES = 20_000  # about a third printed, ~40 bytes each: far more than a pipe buffers (64 KiB on Linux)
TIMEOUT = 60  # seconds; only reached when something is broken


@pytest.fixture
def workload(tmp_path):
    data = tmp_path / "toy.csv"
    data.write_text("x\n" + "".join(f"{i % 100}\n" for i in range(2000)))
    ranges = [{"kind": "range", "column": "x", "low": lo, "high": lo + 1} for lo in range(100)]
    queries = ranges * (QUERIES // len(ranges))
    qfile = tmp_path / "q.json"
    qfile.write_text(json.dumps({"format": "svtgui-queries", "version": 1, "queries": queries}))
    return data, qfile, tmp_path / "ledger.sqlite"


def _start(data, qfile, ledger_path, *extra):
    # threshold 0 with a huge cutoff: at these noise scales (threshold 180,000, query 360,000) about a third
    # of the answers (20 each) are ⊤ with a released value: ~7,200 ± 180 rows (least 6,690 over 60 seeds),
    # far from the 1,700 rows of 40 bytes a 64 KiB pipe holds, so output streams steadily and fills it
    cmd = [sys.executable, "-m", "svtgui.cli", "run", "--data", str(data), "--queries", str(qfile),
           "--mechanism", "numeric_sparse", "--epsilon", EPS, "--threshold", "0", "--cutoff", str(QUERIES),
           "--batch-size", "1", "--ledger", str(ledger_path), "--budget-epsilon", "100", *extra]
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, encoding="utf-8")


def _read_lines(stream, n: int, lines: list[str], reached: threading.Event) -> None:
    """Read ``n`` lines (or to the end), then stop reading: the writer blocks once the pipe is full."""
    for line in stream:
        lines.append(line)
        if len(lines) >= n:
            break
    reached.set()


def _parse(line: str) -> tuple[int, str, str]:
    index, symbol, value, query = line.rstrip("\n").split("\t")
    assert symbol == "⊤"
    return int(index), value, query


def _check_ledger(ledger_path, shown: list[tuple[int, str, str]]) -> None:
    with Ledger.open(ledger_path) as led:
        run = led.runs()[-1]
        stored = {(r.index, r.description): r for r in led.responses(run.id)}
        for index, value, query in shown:
            r = stored.get((index, query))
            assert r is not None, f"row {index} was printed but is not in the ledger"
            assert r.above and str(r.value) == value
        assert run.status == "interrupted"
        assert run.epsilon == Fraction(EPS)
        b = led.budget(run.dataset_id)
        assert b.spent_epsilon == sum((r.epsilon for r in led.runs()), Fraction(0))


def test_sigkill_mid_stream_loses_nothing_that_was_shown(workload):
    data, qfile, ledger_path = workload
    rng = random.Random(20240521)  # seeded choice of kill points (rows read before the kill)
    for _ in range(REPETITIONS):
        proc = _start(data, qfile, ledger_path)
        lines: list[str] = []
        reached = threading.Event()
        kill_after = rng.randint(1, 60)  # each row is one commit (~20 ms): a second or so of streaming
        reader = threading.Thread(target=_read_lines, args=(proc.stdout, kill_after, lines, reached),
                                  daemon=True)
        reader.start()
        assert reached.wait(TIMEOUT), "the run printed too little within 60 s"
        reader.join(TIMEOUT)
        assert len(lines) == kill_after, proc.stderr.read()  # the run was still printing: not ended
        proc.send_signal(signal.SIGKILL)
        rest, _ = proc.communicate(timeout=TIMEOUT)  # reaped: the next open sees the run's owner is dead
        assert proc.returncode == -signal.SIGKILL
        shown = [_parse(line) for line in [*lines, *rest.splitlines(keepends=True)] if line.strip()]
        assert len(shown) < QUERIES  # killed mid-stream
        _check_ledger(ledger_path, shown)
    with Ledger.open(ledger_path) as led:
        runs = led.runs()
        assert len(runs) == REPETITIONS and all(r.status == "interrupted" for r in runs)
        assert led.budget(runs[0].dataset_id).spent_epsilon == REPETITIONS * Fraction(EPS)


def _killed_at(proc, moment) -> str:
    """SIGKILL ``proc`` at ``moment`` ("start": at once; "charged": when it says so on stderr, with the
    first rows possibly printed); returns what it printed on stdout."""
    if moment == "charged":
        # --test-seed makes the run say, on stderr, that it has been charged, before it streams
        assert "NOT differentially private" in proc.stderr.readline()
    proc.send_signal(signal.SIGKILL)
    out, _ = proc.communicate(timeout=TIMEOUT)
    return out


@pytest.mark.parametrize("moment", ["start", "charged"])
def test_sigkill_before_or_at_the_charge_leaves_a_consistent_ledger(workload, census_copy, moment):
    """Killed before anything happened, or just after the charge: no orphan state, nothing refunded."""
    data, qfile, ledger_path = workload
    if moment == "charged":  # seeded noise (whose warning says the charge is done) runs only on public rows
        data = census_copy
        ages = [{"kind": "range", "column": "age", "low": lo, "high": lo + 1} for lo in range(17, 91)]
        qfile.write_text(json.dumps({"format": "svtgui-queries", "version": 1,
                                     "queries": ages * (QUERIES // len(ages))}))
    proc = _start(data, qfile, ledger_path, *(["--test-seed", "7"] if moment == "charged" else []))
    out = _killed_at(proc, moment)
    if moment == "start" and not ledger_path.exists():
        return  # killed before the ledger was created: nothing was charged or shown
    with Ledger.open(ledger_path) as led:
        runs = led.runs()
        assert all(r.status == "interrupted" for r in runs)
        if moment == "charged":
            assert len(runs) == 1  # it said it was charged: the run is in the ledger, interrupted
        stored = {(r.index, r.description) for r in led.responses(runs[-1].id)} if runs else set()
        for line in out.splitlines():
            index, _value, query = _parse(line)
            assert (index, query) in stored
        for d in led.datasets():
            spent = led.budget(d.dataset_id).spent_epsilon
            assert spent == sum((r.epsilon for r in led.runs(d.dataset_id)), Fraction(0))


def test_cli_run_uses_the_environment_ledger(workload, monkeypatch):
    data, qfile, _ = workload
    env_ledger = os.environ["SVTGUI_LEDGER"]  # set per test by conftest
    proc = subprocess.run(
        [sys.executable, "-m", "svtgui.cli", "run", "--data", str(data), "--queries", str(qfile),
         "--mechanism", "sparse", "--epsilon", "0.5", "--threshold", "1000", "--cutoff", "1",
         "--budget-epsilon", "1", "--batch-size", "500"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    with Ledger.open(env_ledger) as led:
        assert [r.status for r in led.runs()] == ["finished"]
