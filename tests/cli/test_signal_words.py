"""After a signal, whatever a library made of it is reported as the interruption it is."""

from __future__ import annotations

import os
import signal

import pytest

from svtgui.cli import errors
from svtgui.cli.errors import CliError, describe, signals_as_exceptions
from svtgui.core.budget import BudgetExceeded
from svtgui.data.errors import DatasetError


def test_a_parse_error_after_ctrl_c_is_reported_as_the_interruption():
    parse = CliError("--data: big.csv: cannot parse the file: Calling read(nbytes) on source failed")
    with signals_as_exceptions():
        assert describe(parse) == (str(parse), 2)  # no signal: the error as it is
        with pytest.raises(KeyboardInterrupt):
            os.kill(os.getpid(), signal.SIGINT)
        message, code = describe(parse)
        assert code == 2 and "interrupted (Ctrl-C)" in message and "parse" not in message
        assert describe(DatasetError("x"))[0].startswith("interrupted (Ctrl-C)")
        assert describe(BudgetExceeded("over"))[1] == 3  # a refusal stays a refusal
    assert errors._signalled == ["Ctrl-C"]
    with signals_as_exceptions():  # the next command starts with a clean slate
        assert describe(parse) == (str(parse), 2)
