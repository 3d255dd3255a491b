"""``svtgui-cli audit``: exit codes 0 (no violation), 1 (violation, witness printed), 2 (bad input)."""

import json
import re

import pytest

from svtgui.cli import main


def test_violation_exits_1_and_prints_the_witness(capsys):
    code = main(["audit", "lyu_alg5_stoddard", "--epsilon", "1", "--seconds", "1", "--seed", "1"])
    out = capsys.readouterr().out
    assert code == 1
    assert "VIOLATION" in out and "d1 = [" in out and "d2 = [" in out and "event:" in out


# A time-budget audit's sample sizes follow the machine's speed, so even with a seed its counts differ
# between CI runs: a private mechanism's audit is then a fresh test whose false alarm is bounded only by
# its α (Sparse's best event is nearly tight, ε_lcb ≈ 0.95 at the default α = 0.01, so close to 1 %).
# The private audits below run at α = 1e-9 (false alarm ≤ 1e-9 per run). The violations need no such
# care: at the smallest sizes a time budget can give (2,000 search, 500 final runs) their p-values over
# 30 seeds stay below 1e-9 (lyu_alg6_chen) and 1e-25 (lyu_alg5_stoddard), against α = 0.01.
PRIVATE_ALPHA = ["--alpha", "1e-9"]


def test_no_violation_exits_0(capsys):
    code = main(["audit", "sparse", "--epsilon", "1", "--seconds", "1", "--seed", "1", *PRIVATE_ALPHA])
    assert code == 0
    captured = capsys.readouterr()
    assert "No violation found in this audit" in captured.out and "private." not in captured.out
    assert "\r" not in captured.err  # stderr is not a terminal here: no progress line
    # 1 − α in full (a rounded "100%" would claim certainty), and each input's own number of runs
    assert "(99.9999999% confidence)" in captured.out
    _check_run_counts(captured.out)


def _check_run_counts(out: str) -> None:
    """The event line gives each input's own number of runs, those of the summary ("N + M runs")."""
    head = re.search(r"([\d,]+) \+ ([\d,]+) runs", out)
    event = re.search(r"in ([\d,]+) runs on d1 and [\d,]+ times in ([\d,]+) runs on d2", out)
    assert head and event, out
    assert event.groups() == head.groups()


def test_progress_line_is_rewritten_in_place_and_cleared_at_the_end():
    import io

    from svtgui.cli.commands.audit import TerminalProgress

    stream = io.StringIO()
    progress = TerminalProgress(stream)
    progress.set_progress(0.25, "searching: half-half")
    progress.set_progress(0.5, "final test")  # within 0.1 s of the last: coalesced away
    progress.set_progress(1.0, "done")
    text = stream.getvalue()
    assert text.startswith("\r 25.0%  searching: half-half") and "final test" not in text
    assert text.endswith("\r") and "100.0%  done" in text and not progress.is_cancelled()


def test_json_output_is_machine_readable(capsys):
    code = main(["audit", "lyu_alg6_chen", "--epsilon", "1", "--seconds", "1", "--seed", "2", "--json"])
    d = json.loads(capsys.readouterr().out)
    assert code == 1 and d["verdict"] == "violation" and d["epsilon_lcb"] > 1
    assert set(d["witness"]) == {"name", "d1", "d2"}


def test_histogram_mechanisms_are_audited_with_their_witness_histograms(capsys):
    code = main(["audit", "pmw", "--epsilon", "1", "--seconds", "1", "--seed", "1", *PRIVATE_ALPHA])
    out = capsys.readouterr().out
    assert code == 0 and "No violation found" in out
    assert "one row in cell 0" in out and "universe of 16 cells" in out and "queries:" in out


def test_replace_neighbours_for_sparse_project_in_json(capsys):
    code = main(["audit", "sparse_project", "--epsilon", "1", "--seconds", "1", "--seed", "1",
                 "--neighbouring", "replace", "--json", *PRIVATE_ALPHA])
    d = json.loads(capsys.readouterr().out)
    assert code == 0 and d["params"]["neighbouring"] == "replace" and d["delta"] == 1e-6
    w = d["witness"]
    assert "moved from cell" in w["change"]
    assert sum(w["d1"]["counts"]) == sum(w["d2"]["counts"])  # replace keeps n


@pytest.mark.parametrize(("argv", "message"), [
    (["audit", "no_such", "--epsilon", "1"], "unknown mechanism 'no_such'"),
    (["audit", "sparse", "--epsilon", "0"], "--epsilon must be a positive number"),
    (["audit", "sparse", "--epsilon", "1", "--seconds", "nan"], "--seconds must be a positive number"),
    (["audit", "lyu_alg5_stoddard", "--epsilon", "1", "--cutoff", "2"], "has no cutoff parameter"),
    (["audit", "sparse", "--epsilon", "1", "--cutoff", "0"], "cutoff must be >= 1"),
    (["audit", "sparse", "--epsilon", "1", "--neighbouring", "replace"], "no neighbouring parameter"),
    (["audit", "sparse_project", "--epsilon", "1", "--cutoff", "2"], "has no cutoff parameter"),
])
def test_bad_input_exits_2_with_a_message(argv, message, capsys):
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_missing_epsilon_is_an_argparse_error(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["audit", "sparse"])
    assert exc.value.code == 2
    assert "--epsilon" in capsys.readouterr().err
