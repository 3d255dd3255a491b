"""A signal between a run's charge and its hold waits for the hold (``cli.errors.deferred_signals``).

A signal landing there left the charged run ``running`` in the ledger: the ``with`` that ends a run
``interrupted`` on any exception had not been entered yet."""

from __future__ import annotations

import os
import signal

import pytest

from svtgui.cli.errors import deferred_signals, interrupted, signals_as_exceptions
from svtgui.cli.startup import Interrupted


def test_a_signal_inside_the_block_is_raised_when_it_ends_not_where_it_lands():
    reached = []
    with signals_as_exceptions(), pytest.raises(Interrupted):
        with deferred_signals():
            os.kill(os.getpid(), signal.SIGTERM)  # delivered at once to this (main) thread
            reached.append("after the signal")  # still runs: the charged run gets held here
    assert reached == ["after the signal"] and interrupted()


def test_nested_blocks_raise_once_at_the_outermost_end():
    reached = []
    with signals_as_exceptions(), pytest.raises(KeyboardInterrupt):
        with deferred_signals():
            with deferred_signals():
                os.kill(os.getpid(), signal.SIGINT)
            reached.append("inner block ended")
    assert reached == ["inner block ended"]


def test_without_a_signal_the_block_changes_nothing():
    with signals_as_exceptions(), deferred_signals():
        value = 1
    assert value == 1 and not interrupted()
