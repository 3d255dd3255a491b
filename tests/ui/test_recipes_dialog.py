"""Queries → Recipes…: the cost shows before anything is spent; a run lands in the ledger, described."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from PySide6.QtCore import Qt

from svtgui.app import dataset_identity
from svtgui.app.reports.content import statistics
from svtgui.data.dataset import Dataset
from svtgui.data.schema import infer_schema
from svtgui.ledger import FINISHED, Ledger
from svtgui.ui.app import create_app
from svtgui.ui.setup.recipes_dialog import RecipesDialog


@pytest.fixture
def ages(tmp_path):
    frame = pd.DataFrame({"age": np.random.default_rng(5).integers(18, 91, 3000)})
    ds = Dataset.from_frame(frame, "ages", infer_schema(frame).with_bounds("age", 0, 90))
    path = tmp_path / "ledger.sqlite"
    with Ledger.open(path) as led:
        dataset_id = dataset_identity.register(led, ds, "2").dataset_id
    return ds, path, dataset_id


def _remaining(path, dataset_id):
    def remaining() -> Fraction:
        with Ledger.open(path) as led:
            return led.budget(dataset_id).remaining_epsilon
    return remaining


def _dialog(qtbot, ds, path, dataset_id) -> RecipesDialog:
    create_app()
    dlg = RecipesDialog(ds, path, dataset_id, _remaining(path, dataset_id) if dataset_id else lambda: None)
    qtbot.addWidget(dlg)
    dlg.show()
    return dlg


def test_auto_mean_shows_its_cost_then_runs_and_describes_what_it_released(qtbot, ages):
    ds, path, dataset_id = ages
    dlg = _dialog(qtbot, ds, path, dataset_id)
    assert dlg.picker.currentData() == "auto_mean"
    assert "91" in dlg.mean_sweep.text().split(",")[1] or float(dlg.mean_sweep.text().split(",")[1]) > 90
    assert "spends ε = 1 of the 2 left" in dlg.cost.text() and dlg.run_button.isEnabled()
    with Ledger.open(path) as led:
        assert led.runs() == []  # nothing is spent by opening or editing
    with qtbot.waitSignal(dlg.ran, timeout=30_000) as ran:
        qtbot.mouseClick(dlg.run_button, Qt.MouseButton.LeftButton)
    with Ledger.open(path) as led:
        run = led.run(ran.args[0])
        assert run.status == FINISHED and run.mechanism_id == "recipe_auto_mean" and run.epsilon == 1
        facts = led.facts(run.id)
    text = dlg.result.toPlainText()
    assert "Clipping bound" in text and "mean of age clipped to" in text and "95 %" in text
    with Ledger.open(path) as led:
        mean = statistics(led, run.id)[0]
    assert f"{mean['value']:,}" in text and f"{mean['interval'][0]:,} to {mean['interval'][1]:,}" in text
    assert facts["mean"] == pytest.approx(mean["value"], abs=0.01)
    assert "of the 1 left" in dlg.cost.text()  # the remaining budget follows the ledger


def test_a_bad_field_or_an_overspend_disables_run_with_the_reason(qtbot, ages):
    ds, path, dataset_id = ages
    dlg = _dialog(qtbot, ds, path, dataset_id)
    dlg.mean_epsilon.setText("abc")
    assert not dlg.run_button.isEnabled() and "ε must be a number" in dlg.cost.text()
    dlg.mean_epsilon.setText("")
    assert "ε is empty: type a number" in dlg.cost.text() and "got ''" not in dlg.cost.text()
    dlg.mean_epsilon.setText("5")
    assert not dlg.run_button.isEnabled() and "has ε = 2 left" in dlg.cost.text()
    dlg.picker.setCurrentIndex(1)  # range screening: T has no default (never from the data)
    assert not dlg.run_button.isEnabled() and "Threshold T" in dlg.cost.text()
    dlg.screen_threshold.setText("200")
    assert dlg.run_button.isEnabled(), dlg.cost.text()


def test_a_recipe_can_be_the_first_release_on_a_new_dataset(qtbot, tmp_path):
    """The dialog offers the total budget of rows new to the ledger; the recipe registers them with it
    and is charged against it (issue 24 §4). Nothing is written before Run."""
    frame = pd.DataFrame({"age": np.random.default_rng(6).integers(18, 91, 3000)})
    ds = Dataset.from_frame(frame, "new ages", infer_schema(frame).with_bounds("age", 0, 90))
    path = tmp_path / "ledger.sqlite"
    dlg = _dialog(qtbot, ds, path, None)
    assert dlg.total_row.isVisible()
    assert not dlg.run_button.isEnabled() and "declare its total budget" in dlg.cost.text()
    dlg.total.setText("abc")
    assert not dlg.run_button.isEnabled() and "must be a number" in dlg.cost.text()
    dlg.total.setText("0.5")
    assert not dlg.run_button.isEnabled() and "more than the total ε = 0.5 declared" in dlg.cost.text()
    dlg.total.setText("3")
    assert dlg.run_button.isEnabled() and "spends ε = 1 of the 3 left" in dlg.cost.text()
    if path.exists():  # nothing registered by typing
        with Ledger.open(path) as led:
            assert led.datasets() == []
    with qtbot.waitSignal(dlg.ran, timeout=30_000) as ran:
        qtbot.mouseClick(dlg.run_button, Qt.MouseButton.LeftButton)
    with Ledger.open(path) as led:
        run = led.run(ran.args[0])
        (record,) = led.datasets()
        assert run.dataset_id == record.dataset_id and led.budget(record.dataset_id).total_epsilon == 3
    assert dlg.dataset_id == record.dataset_id and not dlg.total_row.isVisible()


def test_range_screening_lists_the_ranges_it_answered(qtbot, ages):
    ds, path, dataset_id = ages
    dlg = _dialog(qtbot, ds, path, dataset_id)
    dlg.picker.setCurrentIndex(1)
    dlg.screen_threshold.setText("100")
    dlg.screen_cutoff.setText("2")
    with qtbot.waitSignal(dlg.ran, timeout=30_000):
        qtbot.mouseClick(dlg.run_button, Qt.MouseButton.LeftButton)
    with Ledger.open(path) as led:
        (run,) = led.runs()
        answers = led.facts(run.id)["answers"]
    text = dlg.result.toPlainText()
    for a in answers:
        assert a["query"] in text


def test_the_window_opens_recipes_from_the_queries_menu(qtbot, window, act):
    assert window.open_recipes() is None and "Open a dataset first" in window.status_label.text()
    act.load(qtbot, window)
    dlg = window.open_recipes()
    assert dlg is not None and dlg.ds is window.ds and window.act_recipes.text() == "&Recipes…"
    assert not dlg.run_button.isEnabled() and "declare its total budget" in dlg.cost.text()
    dlg.close()


def test_screening_ranges_on_whole_bounds_are_whole(qtbot, ages):
    ds, path, dataset_id = ages
    adult_ages = Dataset.from_frame(ds.frame, "ages", ds.schema.with_bounds("age", 17, 90))
    dlg = _dialog(qtbot, adult_ages, path, None)
    assert dlg.screen_ranges.text() == "17, 91, 8"  # 17 ≤ age < 25, …, 89 ≤ age < 97 (not widths of 7.3)
