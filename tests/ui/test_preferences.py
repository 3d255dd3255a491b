"""Tools ▸ Preferences…: the ledger on this computer or on a team's server, with a connection test."""

from __future__ import annotations

import os

import pytest
from PySide6.QtCore import Qt

from svtgui.ledger import ENV_VAR, Ledger
from tests.ui.conftest import load

LEFT = Qt.MouseButton.LeftButton


def _tested(qtbot, dlg) -> str:
    qtbot.mouseClick(dlg.test, LEFT)
    qtbot.waitUntil(lambda: dlg.test.isEnabled(), timeout=30_000)
    return dlg.result.text() or dlg.error.text()


def test_a_file_chosen_in_preferences_is_tested_saved_and_used_at_once(qtbot, window, tmp_path):
    load(qtbot, window)
    other = tmp_path / "team-copy.sqlite"
    with Ledger.open(other) as led:
        led.register_dataset("e" * 64, "someone else's", 3)
    dlg = window.show_preferences()
    assert dlg.local.isChecked() and not dlg.url.isEnabled()
    dlg.path.setText(str(other))
    assert _tested(qtbot, dlg) == f"✓ ledger file {other}: 1 dataset"
    qtbot.mouseClick(dlg.buttons.button(dlg.buttons.StandardButton.Ok), LEFT)
    assert window.settings.ledger_location == str(other) and os.environ[ENV_VAR] == str(other)
    assert window.run_model.budget.ledger_path == other  # the window reopened its ledger there
    assert window.run_model.budget.identity is not None and window.run_model.budget.error is None


def test_a_server_needs_a_url_and_a_failed_test_says_why_in_one_line(qtbot, window):
    dlg = window.show_preferences()
    dlg.server.setChecked(True)
    qtbot.mouseClick(dlg.test, LEFT)
    assert "type the server ledger's URL" in dlg.error.text()
    dlg.url.setText("/home/ana/ledger.sqlite")
    qtbot.mouseClick(dlg.buttons.button(dlg.buttons.StandardButton.Ok), LEFT)
    assert "postgresql://user@host/database URL" in dlg.error.text() and dlg.isVisible()
    dlg.url.setText("postgresql://nobody@127.0.0.1:1/none")  # nothing listens on port 1
    said = _tested(qtbot, dlg)
    assert "cannot reach the server ledger postgresql://nobody@127.0.0.1:1/none" in said and "\n" not in said
    assert window.settings.ledger_location == ""  # nothing saved without OK


def test_a_server_ledger_test_says_what_the_login_may_do(qtbot, window, server_url):
    dlg = window.show_preferences()
    dlg.server.setChecked(True)
    dlg.url.setText(server_url)
    said = _tested(qtbot, dlg)
    assert said.startswith("✓ server ledger") and "0 datasets" in said and "custodian" in said


def test_a_saved_choice_applies_at_start_unless_the_environment_names_a_ledger(monkeypatch, tmp_path):
    from svtgui.app import ledger_choice

    assert not ledger_choice.apply_saved(str(tmp_path / "saved.sqlite"))  # conftest sets SVTGUI_LEDGER
    monkeypatch.delenv(ENV_VAR)
    assert ledger_choice.apply_saved(str(tmp_path / "saved.sqlite"))
    assert os.environ[ENV_VAR] == str(tmp_path / "saved.sqlite")


@pytest.fixture(autouse=True)
def _restore_ledger_env(monkeypatch):
    """OK sets $SVTGUI_LEDGER for the process; monkeypatch puts the test's value back afterwards."""
    monkeypatch.setenv(ENV_VAR, os.environ[ENV_VAR])


def test_the_ledger_is_never_chosen_over_a_file_the_window_reads(qtbot, window, tmp_path):
    # the absent sidecar's name became a SQLite ledger, which the next load read as the data's "schema"
    data = tmp_path / "toy.csv"
    data.write_text("x\n" + "".join(f"{i}\n" for i in range(50)))
    window.open_path(data)
    qtbot.waitUntil(lambda: window.ds is not None, timeout=30_000)
    used = window.run_model.budget.ledger_path
    dlg = window.show_preferences()
    for chosen, said in ((data, "is the dataset"), (tmp_path / "toy.schema.json", "schema sidecar")):
        dlg.path.setText(str(chosen))
        qtbot.mouseClick(dlg.buttons.button(dlg.buttons.StandardButton.Ok), LEFT)
        assert said in dlg.error.text() and dlg.isVisible(), dlg.error.text()
        qtbot.mouseClick(dlg.test, LEFT)  # the test would create the ledger there: refused too
        assert said in dlg.error.text() and dlg.result.text() == ""
    assert not (tmp_path / "toy.schema.json").exists() and data.read_text().startswith("x\n0\n")
    assert window.settings.ledger_location == "" and window.run_model.budget.ledger_path == used
