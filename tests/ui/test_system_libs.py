"""Qt's system libraries: a missing one is named with the command that installs it, before Qt aborts."""

from __future__ import annotations

import pytest

from svtgui import __main__ as entry
from svtgui.ui.common import system_libs


def only(*binaries: str):
    return lambda name: f"/usr/bin/{name}" if name in binaries else None


@pytest.mark.parametrize(("binary", "expected"), [
    ("apt-get", "sudo apt-get install libegl1 libxcb-cursor0"),
    ("dnf", "sudo dnf install mesa-libEGL xcb-util-cursor"),
    ("pacman", "sudo pacman -S --needed libglvnd xcb-util-cursor"),
])
def test_missing_libraries_are_named_with_one_install_command(binary, expected):
    absent = {"libxcb-cursor.so.0", "libEGL.so.1"}
    missing = system_libs.missing_libraries(loads=lambda s: s not in absent, which=only(binary))
    assert missing is not None
    assert set(missing.libraries) == absent
    assert missing.command == expected
    assert expected in missing.message() and "libxcb-cursor.so.0" in missing.message()


def test_unknown_package_manager_still_names_the_libraries():
    missing = system_libs.missing_libraries(loads=lambda s: s != "libGL.so.1", which=only())
    assert missing is not None and missing.command is None
    assert "libGL.so.1" in missing.message() and "package manager" in missing.message()


def test_nothing_missing_is_none():
    assert system_libs.missing_libraries(loads=lambda s: True, which=only("apt-get")) is None


def test_wayland_sessions_do_not_need_the_xcb_libraries():
    asked: list[str] = []

    def loads(soname: str) -> bool:
        asked.append(soname)
        return not soname.startswith("libxcb")

    assert system_libs.missing_libraries(x11=False, loads=loads, which=only("apt-get")) is None
    assert asked and not any(s.startswith("libxcb") for s in asked)


@pytest.mark.parametrize("platform", ["offscreen", "minimal", "wayland", "offscreen;xcb"])
def test_platforms_without_x11_are_not_checked(platform):
    assert system_libs.check_before_window("linux", {"QT_QPA_PLATFORM": platform}) is None


def test_other_operating_systems_are_not_checked():
    assert system_libs.check_before_window("darwin", {}) is None


def test_the_gui_entry_point_stops_with_the_message_instead_of_a_qt_abort(monkeypatch, capsys):
    monkeypatch.delenv("QT_QPA_PLATFORM", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setattr(system_libs, "_loads", lambda s: s != "libxcb-cursor.so.0")
    monkeypatch.setattr(system_libs.shutil, "which", only("apt-get"))
    monkeypatch.setattr(entry.sys, "platform", "linux")
    assert entry.main([]) == 2
    err = capsys.readouterr().err
    assert "libxcb-cursor.so.0" in err and "sudo apt-get install libxcb-cursor0" in err
