"""``svtgui --screenshot --run``: confirm the spend as a curator would and wait for the run to end."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from svtgui.app.runs.state import RunState


def run_through(win: Any, wait_until: Callable[..., bool], timeout: float) -> str | None:
    """Run the window's set-up to its end (a drained run is stopped); why it could not run, or None."""
    m = win.run_model
    win.show_page("run")
    if m.problems:
        return f"cannot run: {next(iter(m.problems.values()))}"
    if m.identity_question() is not None:
        return "these rows look like a known dataset: say which it is in the window first"
    if m.request_run() is None or not m.confirm():
        return f"run refused: {m.error_line()}"
    wait_until(lambda: m.state in (RunState.DRAINED, RunState.ENDED), timeout)
    if m.state == RunState.DRAINED:
        m.stop()  # planned queries done: finish the run
    wait_until(lambda: m.state == RunState.ENDED, 60)
    return None
