"""Kill a real ``svtgui-cli run`` with SIGKILL mid-stream; the ledger must still hold everything shown.

Each repetition starts a streaming run (one query per committed batch, so the stream lasts several
seconds), waits for its first printed ⊤ row, sleeps a seeded random delay, and sends SIGKILL. Then
the ledger is reopened and checked:

* every row the process printed is in the ledger, with the same index, query and value;
* the killed run is marked ``interrupted`` and its full ε stays spent;
* spent budget = the sum of the charges of every run so far (nothing lost, nothing refunded).
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from fractions import Fraction

import pytest

from svtgui.ledger import Ledger

EPS = "0.25"
REPETITIONS = 5


@pytest.fixture
def workload(tmp_path):
    data = tmp_path / "toy.csv"
    data.write_text("x\n" + "".join(f"{i % 100}\n" for i in range(2000)))
    queries = [{"kind": "range", "column": "x", "low": lo, "high": lo + 1} for lo in range(100)] * 40
    qfile = tmp_path / "q.json"
    qfile.write_text(json.dumps({"format": "svtgui-queries", "version": 1, "queries": queries}))
    return data, qfile, tmp_path / "ledger.sqlite"


def _start(data, qfile, ledger_path):
    # threshold 0 with a huge cutoff: many ⊤ rows with released values, so output streams steadily
    cmd = [sys.executable, "-m", "svtgui.cli", "run", "--data", str(data), "--queries", str(qfile),
           "--mechanism", "numeric_sparse", "--epsilon", EPS, "--threshold", "0", "--cutoff", "4000",
           "--batch-size", "1", "--ledger", str(ledger_path), "--budget-epsilon", "100"]
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, encoding="utf-8")


def _collect(stream, lines: list[str], first: threading.Event) -> None:
    for line in stream:
        lines.append(line)
        first.set()
    first.set()


def _parse(line: str) -> tuple[int, str, str]:
    index, symbol, value, query = line.rstrip("\n").split("\t")
    assert symbol == "⊤"
    return int(index), value, query


def test_sigkill_mid_stream_loses_nothing_that_was_shown(workload):
    data, qfile, ledger_path = workload
    rng = random.Random(20240521)  # seeded choice of kill points
    killed = 0
    for _ in range(REPETITIONS):
        proc = _start(data, qfile, ledger_path)
        lines: list[str] = []
        first = threading.Event()
        reader = threading.Thread(target=_collect, args=(proc.stdout, lines, first), daemon=True)
        reader.start()
        assert first.wait(60), "the run printed nothing within 60 s"
        time.sleep(rng.uniform(0.0, 1.0))
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)  # reaped: the pid is gone, so the next open sees the run's owner is dead
        reader.join(30)
        killed += proc.returncode == -signal.SIGKILL
        shown = [_parse(line) for line in lines if line.strip()]
        assert shown, proc.stderr.read()
        with Ledger.open(ledger_path) as led:
            run = led.runs()[-1]
            stored = {(r.index, r.description): r for r in led.responses(run.id)}
            for index, value, query in shown:
                r = stored.get((index, query))
                assert r is not None, f"row {index} was printed but is not in the ledger"
                assert r.above and str(r.value) == value
            assert run.status == "interrupted" if proc.returncode == -signal.SIGKILL else "finished"
            assert run.epsilon == Fraction(EPS)
            b = led.budget(run.dataset_id)
            assert b.spent_epsilon == sum((r.epsilon for r in led.runs()), Fraction(0))
        proc.stdout.close()
        proc.stderr.close()
    assert killed == REPETITIONS, "every repetition should have been killed mid-stream"
    with Ledger.open(ledger_path) as led:
        runs = led.runs()
        assert len(runs) == REPETITIONS and all(r.status == "interrupted" for r in runs)
        assert led.budget(runs[0].dataset_id).spent_epsilon == REPETITIONS * Fraction(EPS)


def test_sigkill_before_any_output_still_leaves_a_consistent_ledger(workload):
    """Killed at a random early moment (perhaps before, perhaps after the charge): no orphan state."""
    data, qfile, ledger_path = workload
    rng = random.Random(7)
    for _ in range(2):
        proc = _start(data, qfile, ledger_path)
        time.sleep(rng.uniform(0.05, 1.5))
        proc.send_signal(signal.SIGKILL)
        out, _ = proc.communicate(timeout=30)
        if not ledger_path.exists():
            continue  # killed before the ledger was created: nothing was charged or shown
        with Ledger.open(ledger_path) as led:
            assert all(r.status == "interrupted" for r in led.runs())
            runs = led.runs()
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
