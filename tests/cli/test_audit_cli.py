"""``svtgui-cli audit``: exit codes 0 (no violation), 1 (violation, witness printed), 2 (bad input)."""

import json

import pytest

from svtgui.cli import main


def test_violation_exits_1_and_prints_the_witness(capsys):
    code = main(["audit", "lyu_alg5_stoddard", "--epsilon", "1", "--seconds", "1", "--seed", "1"])
    out = capsys.readouterr().out
    assert code == 1
    assert "VIOLATION" in out and "d1 = [" in out and "d2 = [" in out and "event:" in out


def test_no_violation_exits_0(capsys):
    code = main(["audit", "sparse", "--epsilon", "1", "--seconds", "1", "--seed", "1"])
    assert code == 0
    assert "No violation found" in capsys.readouterr().out


def test_json_output_is_machine_readable(capsys):
    code = main(["audit", "lyu_alg6_chen", "--epsilon", "1", "--seconds", "1", "--seed", "2", "--json"])
    d = json.loads(capsys.readouterr().out)
    assert code == 1 and d["verdict"] == "violation" and d["epsilon_lcb"] > 1
    assert set(d["witness"]) == {"name", "d1", "d2"}


@pytest.mark.parametrize(("argv", "message"), [
    (["audit", "no_such", "--epsilon", "1"], "unknown mechanism 'no_such'"),
    (["audit", "sparse", "--epsilon", "0"], "--epsilon must be a positive number"),
    (["audit", "sparse", "--epsilon", "1", "--seconds", "nan"], "--seconds must be a positive number"),
    (["audit", "lyu_alg5_stoddard", "--epsilon", "1", "--cutoff", "2"], "has no cutoff parameter"),
    (["audit", "sparse", "--epsilon", "1", "--cutoff", "0"], "cutoff must be >= 1"),
])
def test_bad_input_exits_2_with_a_message(argv, message, capsys):
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_missing_epsilon_is_an_argparse_error(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["audit", "sparse"])
    assert exc.value.code == 2
    assert "--epsilon" in capsys.readouterr().err
