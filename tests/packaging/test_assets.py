"""svtgui.assets.asset(): one lookup for source checkout, installed wheel and frozen bundle."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from svtgui.assets import asset

REPO = Path(__file__).resolve().parents[2]
ICON = "icons/io.github.svtstudio.SvtStudio.svg"


def test_source_checkout_reads_the_top_level_resources():
    assert asset(ICON) == REPO / "resources" / ICON


def test_frozen_bundle_directory_comes_first(tmp_path, monkeypatch):
    bundled = tmp_path / "resources" / ICON
    bundled.parent.mkdir(parents=True)
    bundled.write_text("<svg/>")
    monkeypatch.setattr(sys, "_MEIPASS", str(tmp_path), raising=False)
    assert asset(ICON) == bundled


def test_missing_resource_names_it_and_every_place_searched(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "_MEIPASS", str(tmp_path), raising=False)
    with pytest.raises(FileNotFoundError) as err:
        asset("samples/no-such-file.csv")
    message = str(err.value)
    assert "samples/no-such-file.csv" in message
    assert str(tmp_path / "resources") in message and str(REPO / "resources") in message
