"""The run model without a window: its state machine, clock, budget, confirmation facts, refusals
and the fresh start for each dataset. A stand-in worker plays the run process: it charges the
ledger the way the process does and hands over the messages the process would send."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

from svtgui.app.dataset_identity import register
from svtgui.app.runs.confirmation import KNOWN, NEW, SHARED
from svtgui.app.runs.model import BUDGET, CLEARED, STARTED, Launcher, RunModel
from svtgui.app.runs.process import ReleasedBatch, RunView
from svtgui.app.runs.state import RunState
from svtgui.app.workspace import Workspace
from svtgui.data import Dataset
from svtgui.data.queries import queries_from_json
from svtgui.ledger import Ledger

COUNT = {"kind": "count", "where": {"column": "x", "op": ">=", "value": 10}}


def _dataset(name: str = "toy", n: int = 300) -> Dataset:
    frame = pd.DataFrame({"x": [i % 100 for i in range(n)]})
    d = Dataset.from_frame(frame, name=name)
    return d.with_schema(d.schema.with_bounds("x", 0, 99))


class StandIn:
    """Plays the run process: records the window's requests, sends what the test tells it to."""

    made: list[StandIn] = []

    def __init__(self, job, queries) -> None:
        self.job, self.queries = job, queries
        self.requests: list[str] = []
        self.inbox: list[tuple[str, object]] = []
        StandIn.made.append(self)

    def start(self) -> None:
        self.requests.append("start")

    def events(self):
        out, self.inbox = self.inbox, []
        return out

    def charge(self, epsilon: float) -> RunView:
        """What ``start_run`` does in the process: commit the charge, then report the run."""
        with Ledger.open(self.job.ledger_path) as led:
            record = led.start_run(self.job.dataset.dataset_id, self.job.mechanism_id, {}, epsilon,
                                   secure=True, noise_description="stand-in")
        view = RunView(record, 2, self.job.params)
        self.inbox.append(("started_run", view))
        return view

    def __getattr__(self, name: str):
        if name in ("acknowledge", "pause", "resume", "step", "stop", "finish", "ask", "set_pace",
                    "close", "kill"):
            return lambda *args: self.requests.append(name)
        raise AttributeError(name)

    def wait(self, _ms: int) -> bool:
        return True


@pytest.fixture
def model():
    StandIn.made.clear()
    ws = Workspace("sparse")
    ws.set_dataset(_dataset(), queries_from_json([COUNT] * 3))
    ws.set_entries({"epsilon": "1", "threshold": "150", "cutoff": 2})
    m = RunModel(ws, launcher=Launcher(worker=StandIn, prepare=lambda: None, discard=lambda: None))
    m.budget.refresh()
    yield m
    m.shutdown()


def _batch(n: int, start: int = 0) -> ReleasedBatch:
    index = np.arange(start, start + n)
    above = index % 2 == 0
    return ReleasedBatch(index, index, above, np.where(above, 200.0, np.nan), np.full(n, 1.0))


def _start(model: RunModel) -> StandIn:
    model.workspace.set_totals("5", "0")
    assert model.request_run() is not None
    assert model.confirm()
    return StandIn.made[-1]


def test_a_run_goes_through_its_states_and_says_so(model):
    seen: list[frozenset[str]] = []
    model.subscribe(seen.append)
    worker = _start(model)
    assert model.state == RunState.RUNNING and worker.requests == ["start"]
    assert model.runnable() == (False, "Run is disabled: a run is in progress (Stop it first, Shift+F5)")
    worker.charge(1.0)
    worker.inbox.append(("released", _batch(2)))
    model.poll()
    assert model.run is not None and model.store.n == 2 and "acknowledge" in worker.requests
    assert any(STARTED in e and BUDGET in e for e in seen)
    assert model.budget.gauge().bar == "ε spent 1 of 5" and model.budget.gauge().share == 0.2
    assert model.status == "Running — 2 of 3 planned queries answered."
    model.toggle_pause()
    assert model.state == RunState.PAUSED and worker.requests[-1] == "pause"
    assert model.status.startswith("Paused after 2 answers.")
    model.step()
    assert model.state == RunState.PAUSED and worker.requests[-1] == "step"
    model.toggle_pause()
    assert model.state == RunState.RUNNING and worker.requests[-1] == "resume"
    worker.inbox += [("released", _batch(1, 2)), ("drained", None)]
    model.poll()
    assert model.state == RunState.DRAINED and model.progress() is None
    assert model.status.startswith("All 3 planned queries answered. Ask another query")
    model.stop()
    assert worker.requests[-1] == "finish"  # drained: finish after the queued work, not stop
    worker.inbox.append(("ended", "finished"))
    model.poll()
    assert model.state == RunState.ENDED and model.worker is None
    assert model.status.startswith("Finished: every planned query was answered — 3 answers, 2 ⊤")
    assert model.runnable()[0]  # 1 of 5 spent: another run fits


def test_running_time_leaves_pauses_out(model):
    now = [100.0]
    model.clock = lambda: now[0]
    worker = _start(model)
    worker.charge(1.0)
    now[0] += 2.0
    model.toggle_pause()
    now[0] += 3600.0  # an hour's pause
    model.toggle_pause()
    now[0] += 1.0
    worker.inbox.append(("ended", "stopped"))
    model.poll()
    assert model.elapsed == pytest.approx(3.0)
    assert "running time 3.00 s (pauses left out)." in model.status


def test_progress_tells_the_time_left_only_at_a_chosen_pace(model):
    worker = _start(model)
    worker.inbox.append(("released", _batch(1)))
    model.poll()
    assert model.progress() == (1, 3, None)
    model.set_pace(2.0)
    assert worker.requests[-1] == "set_pace"
    assert model.progress() == (1, 3, 1.0)  # 2 queries left at 2 per second


def test_a_run_refused_by_the_ledger_says_nothing_was_charged(model):
    worker = _start(model)
    worker.inbox.append(("refused", "overspend: ε = 1 does not fit"))
    model.poll()
    assert model.state == RunState.IDLE and model.worker is None and model.refused
    assert model.error_line().startswith("Overspend refused, nothing was charged")
    assert model.status.startswith("Nothing was charged")
    assert "charged before" not in model.charged_line()
    assert "Running" not in model.status


def test_not_ready_is_never_called_ready(model):
    assert not model.runnable()[0]  # no total declared for this new dataset
    assert model.status.startswith("Not ready") and "Ready" not in model.status
    assert "declare its total budget" in model.error_line()
    model.workspace.set_totals("5", "0")
    assert model.runnable()[0] and model.status.startswith("Ready")


def test_another_dataset_starts_over_with_nothing_of_the_last(model):
    worker = _start(model)
    worker.charge(1.0)
    worker.inbox += [("released", _batch(3)), ("drained", None), ("adaptive_failed", "Δ too large")]
    model.poll()
    model.stop()
    worker.inbox.append(("ended", "finished"))
    model.poll()
    assert model.store.n == 3 and model.adaptive_error == "Δ too large"
    seen: list[frozenset[str]] = []
    model.subscribe(seen.append)
    model.workspace.set_dataset(_dataset("other", n=250), [])
    assert any(CLEARED in e for e in seen)
    assert model.store.n == 0 and model.run is None and model.outcome is None and model.adaptive_error is None
    assert model.state == RunState.IDLE and not model.budget.known
    assert model.workspace.totals == ("", "0")  # the previous dataset's total is not pre-filled
    assert model.budget.totals_text() == ("", "0")
    assert model.charged_line() == "No run yet."


def test_a_charge_from_another_path_reaches_the_gauge_and_the_plan(model):
    worker = _start(model)
    worker.charge(1.0)
    worker.inbox.append(("ended", "stopped"))
    model.poll()
    with Ledger.open() as led:  # a recipe charges through its own connection
        led.start_run(model.budget.dataset_id, "recipe_auto_mean", {}, 3, secure=True, noise_description="x")
    seen: list[frozenset[str]] = []
    model.subscribe(seen.append)
    model.refresh_budget()
    assert any(BUDGET in e for e in seen)
    assert model.budget.gauge().bar == "ε spent 4 of 5"
    assert model.workspace.budget.remaining_epsilon == Fraction(1)
    model.workspace.set_entries({"epsilon": "2"})
    assert not model.runnable()[0] and "does not fit" in model.error_line()


def test_lookalike_rows_are_asked_about_before_the_confirmation(model):
    with Ledger.open() as led:
        known = register(led, _dataset(n=299), "8")  # same name and columns, other rows
    model.budget.refresh()
    model.workspace.set_totals("5", "0")
    assert model.identity_question() == known
    assert model.request_run() is None  # no confirmation before the curator says which dataset
    model.choose_identity(True)
    confirmation = model.request_run()
    assert confirmation.whose == SHARED and confirmation.shared_with == known.dataset_id
    assert confirmation.remaining == (Fraction(8), Fraction(0))
    assert "new dataset" not in confirmation.text and known.dataset_id in confirmation.text
    assert model.confirm()
    assert model.budget.dataset_id == known.dataset_id  # bound: the rows share its budget


def test_a_new_dataset_confirmation_names_the_declared_total_and_a_known_one_what_remains(model):
    model.workspace.set_totals("5", "1e-6")
    first = model.request_run()
    assert first.whose == NEW and "ε = 5, δ = 1e-6" in first.text
    worker = _start(model)
    worker.charge(1.0)
    worker.inbox.append(("ended", "stopped"))
    model.poll()
    again = model.request_run()
    assert again.whose == KNOWN and again.remaining == (Fraction(4), Fraction(0))
    assert "Remaining before this run: ε = 4" in again.text


def test_adaptive_queries_need_a_live_run_and_a_refusal_does_not_outlive_it(model):
    query = queries_from_json([COUNT])[0]
    assert not model.ask(query) and "Start a run first" in model.adaptive_error
    worker = _start(model)
    assert model.adaptive_error is None  # a new run starts without the last refusal
    assert model.ask(query) and worker.requests[-1] == "ask"
    worker.inbox.append(("adaptive_failed", "Δ too large"))
    model.poll()
    assert model.adaptive_error == "Δ too large"
    worker.inbox.append(("ended", "stopped"))
    model.poll()
    _start(model)
    assert model.adaptive_error is None


def test_the_gauge_names_delta_only_when_the_dataset_allows_any(model):
    worker = _start(model)  # a total of ε = 5, δ = 0
    worker.charge(1.0)
    model.poll()
    detail = model.budget.gauge().detail
    assert detail.startswith("Remaining: ε = 4. δ: none allowed (pure ε-DP)") and "0 of 0" not in detail
    model.budget.raise_total("5", "1e-6")
    assert model.budget.gauge().detail.startswith("Remaining: ε = 4. δ spent 0 of 0.000001;")


def test_a_run_the_gate_refuses_is_refused_before_anything_is_registered(tmp_path, monkeypatch):
    """The window screens through the gate before registering new rows: private rows inside a demo are
    refused at Spend, with the gate's line, and the ledger stays empty (no dataset, no run process)."""
    from svtgui.app.gate import DEMO_ENV
    from svtgui.data import load_dataset

    StandIn.made.clear()
    path = tmp_path / "people.csv"
    path.write_text("x\n" + "".join(f"{i % 100}\n" for i in range(300)))
    ds = load_dataset(path)
    ws = Workspace("sparse")
    ws.set_dataset(ds.with_schema(ds.schema.with_bounds("x", 0, 99)), queries_from_json([COUNT] * 3))
    ws.set_entries({"epsilon": "1", "threshold": "150", "cutoff": 2})
    m = RunModel(ws, launcher=Launcher(worker=StandIn, prepare=lambda: None, discard=lambda: None))
    try:
        m.budget.refresh()
        ws.set_totals("5", "0")
        monkeypatch.setenv(DEMO_ENV, "1")
        assert m.request_run() is not None
        assert not m.confirm()
        assert "screenshot or demo" in (m.error_line() or "") and StandIn.made == []
        with Ledger.open() as led:
            assert led.datasets() == [] and led.runs() == []
    finally:
        m.shutdown()


def test_a_charge_refused_by_an_in_process_launcher_leaves_the_model_as_it_was(model):
    """The CLI's launcher charges inside ``confirm``: what refuses the charge reaches the caller as it is,
    and the model stays idle with no worker (it said 'Running' with a worker that never ran)."""
    from svtgui.core.budget import BudgetExceeded

    class Refused(StandIn):
        def start(self) -> None:
            raise BudgetExceeded("spent meanwhile by another process")

    model.launcher = Launcher(worker=Refused, prepare=lambda: None, discard=lambda: None)
    model.workspace.set_totals("5", "0")
    with pytest.raises(BudgetExceeded, match="spent meanwhile"):
        model.confirm()
    assert model.state == RunState.IDLE and model.worker is None and not model.state.live
    assert model.runnable()[0]  # Run may be pressed again


def test_the_gauge_says_exactly_what_remains_never_more(model):
    """The widget subtracted floats and rounded what remains to six digits: 0.9999996 left read
    'Remaining: ε = 1', more than the ledger allows; the gauge's words now come from its exact amounts."""
    model.workspace.set_totals("1", "0")
    assert model.request_run() is not None and model.confirm()
    StandIn.made[-1].charge("0.0000004")
    model.poll()
    facts = model.budget.gauge()
    assert facts.bar == "ε spent 0.0000004 of 1"
    assert facts.detail.startswith("Remaining: ε = 0.9999996.")


def test_the_raise_takes_the_totals_as_typed_and_a_lower_one_changes_nothing(model):
    """The Raise box's fields are written to the model as typed (the presenter read them back out of
    the widgets at Apply): the raise, and its refusal, are reached without a window."""
    worker = _start(model)  # a total of ε = 5
    worker.charge(1.0)
    model.poll()
    model.set_raise_entry("epsilon", "4")
    assert "4" in (model.raise_total() or "") and model.budget.gauge().bar == "ε spent 1 of 5"
    model.set_raise_entry("epsilon", "8")
    model.set_raise_entry("delta", "")
    assert model.raise_total() is None and model.budget.gauge().bar == "ε spent 1 of 8"
    with pytest.raises(ValueError, match="'epsilon' or 'delta'"):
        model.set_raise_entry("total", "9")


def test_the_in_process_launcher_charges_answers_adaptively_and_ends_through_the_model(tmp_path):
    """The CLI's launcher (a run in the caller's thread) under the window's model: the charge at
    confirm, an adaptive query answered and told as the run process tells it (its row, ref -1), one
    the run cannot take refused with the reason, and Stop ends the run, which the model follows."""
    from svtgui.app.runs.in_process import in_process_launcher
    from svtgui.data.queries import ClippedSum

    with Ledger.open(tmp_path / "ledger.sqlite") as led:
        ws = Workspace("sparse")
        model = RunModel(ws, open_ledger=lambda: led, launcher=in_process_launcher(led))
        ws.set_dataset(_dataset(), queries_from_json([COUNT] * 3))
        ws.set_entries({"epsilon": "1", "threshold": "150", "cutoff": 2})
        ws.set_totals("5", "0")
        assert model.request_run() is not None and model.confirm()
        model.poll()
        assert model.state == RunState.RUNNING and model.run is not None
        assert led.budget(model.budget.dataset_id).spent_epsilon == 1  # charged at confirm
        assert model.ask(queries_from_json([COUNT])[0])
        model.poll()
        assert model.store.n == 1 and model.store.ref[:1].tolist() == [-1]
        assert model.describe(-1).startswith("(adaptive) ")
        assert model.ask(ClippedSum("x", 0, 99))  # Δ = 99, above this run's Δ = 1
        model.poll()
        assert "above this run's Δ" in (model.adaptive_error or "") and model.store.n == 1
        model.stop()
        model.poll()
        assert model.state == RunState.ENDED and model.run.status == "stopped" and model.worker is None
        assert led.run(model.run.id).status == "stopped"
