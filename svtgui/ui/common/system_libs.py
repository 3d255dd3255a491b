"""Qt's system libraries on Linux desktops, checked before the first window.

Why: PySide6 wheels carry Qt itself but not the X11/GL libraries its ``xcb`` platform plugin links
against. When one is missing (``libxcb-cursor0`` is absent from many desktop installs) Qt aborts with
"could not load the Qt platform plugin "xcb"", which names neither the library nor the fix. This
module tries to load each library the plugin needs and, when some are missing, says which ones and
gives the one command that installs them with the machine's package manager (apt, dnf or pacman).

It imports nothing from Qt, so it can run before Qt would abort.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass

# The shared libraries Qt 6's xcb plugin and the window need, with the package that provides each
# on Debian/Ubuntu (apt), Fedora (dnf) and Arch (pacman).
_MANAGERS = ("apt", "dnf", "pacman")
_LIBRARIES: dict[str, dict[str, str]] = {
    soname: dict(zip(_MANAGERS, packages, strict=True)) for soname, packages in {
        "libxcb-cursor.so.0": ("libxcb-cursor0", "xcb-util-cursor", "xcb-util-cursor"),
        "libxcb-icccm.so.4": ("libxcb-icccm4", "xcb-util-wm", "xcb-util-wm"),
        "libxcb-keysyms.so.1": ("libxcb-keysyms1", "xcb-util-keysyms", "xcb-util-keysyms"),
        "libxcb-image.so.0": ("libxcb-image0", "xcb-util-image", "xcb-util-image"),
        "libxcb-render-util.so.0": ("libxcb-render-util0", "xcb-util-renderutil", "xcb-util-renderutil"),
        "libxkbcommon-x11.so.0": ("libxkbcommon-x11-0", "libxkbcommon-x11", "libxkbcommon-x11"),
        "libEGL.so.1": ("libegl1", "mesa-libEGL", "libglvnd"),
        "libGL.so.1": ("libgl1", "mesa-libGL", "libglvnd"),
        "libfontconfig.so.1": ("libfontconfig1", "fontconfig", "fontconfig"),
        "libdbus-1.so.3": ("libdbus-1-3", "dbus-libs", "dbus"),
    }.items()
}

_INSTALL = {
    "apt": "sudo apt-get install {}",
    "dnf": "sudo dnf install {}",
    "pacman": "sudo pacman -S --needed {}",
}

# Platforms that draw without X11 (tests, screenshots, remote sessions): nothing to check.
_NO_X11 = ("offscreen", "minimal", "vnc", "eglfs", "linuxfb", "wayland")


@dataclass(frozen=True)
class Missing:
    """The libraries that failed to load, and the command that installs them (None: unknown manager)."""

    libraries: tuple[str, ...]
    command: str | None

    def message(self) -> str:
        names = ", ".join(self.libraries)
        how = (f"Install them with:\n    {self.command}" if self.command
               else "Install them with your distribution's package manager.")
        return (f"SVT Studio cannot open a window: Qt needs system libraries that are missing: {names}.\n"
                f"{how}\nThen start SVT Studio again.")


def _loads(soname: str) -> bool:
    try:
        ctypes.CDLL(soname)
    except OSError:
        return False
    return True


def package_manager(which: Callable[[str], str | None] = shutil.which) -> str | None:
    """The first of apt, dnf, pacman found on PATH."""
    for manager, binary in (("apt", "apt-get"), ("dnf", "dnf"), ("pacman", "pacman")):
        if which(binary):
            return manager
    return None


def missing_libraries(*, x11: bool = True, loads: Callable[[str], bool] | None = None,
                      which: Callable[[str], str | None] | None = None) -> Missing | None:
    """None when every library loads; otherwise what is missing and how to install it.

    ``x11=False`` (a Wayland session) skips the xcb libraries, which only the X11 plugin needs.
    """
    wanted = [s for s in _LIBRARIES if x11 or not s.startswith(("libxcb", "libxkbcommon-x11"))]
    absent = [soname for soname in wanted if not (loads or _loads)(soname)]
    if not absent:
        return None
    manager = package_manager(which or shutil.which)
    command = None
    if manager is not None:
        packages = sorted({_LIBRARIES[s][manager] for s in absent})
        command = _INSTALL[manager].format(" ".join(packages))
    return Missing(tuple(absent), command)


def check_before_window(platform: str | None = None,
                        environ: dict[str, str] | os._Environ | None = None) -> Missing | None:
    """What a Linux desktop lacks for Qt's window, or None (also None off Linux and for offscreen).

    Qt picks Wayland when ``WAYLAND_DISPLAY`` is set and no platform is chosen, X11 otherwise.
    """
    platform = sys.platform if platform is None else platform
    environ = os.environ if environ is None else environ
    if not platform.startswith("linux"):
        return None
    chosen = environ.get("QT_QPA_PLATFORM", "").split(";")[0].strip().lower()
    if chosen.startswith(_NO_X11):
        return None
    x11 = chosen == "xcb" or not environ.get("WAYLAND_DISPLAY")
    return missing_libraries(x11=x11)


if __name__ == "__main__":
    # `make run` runs this file with the system Python before it creates the venv or downloads
    # anything: a desktop that lacks a library hears so in seconds, not after a long install.
    found = check_before_window()
    if found is not None:
        print(found.message(), file=sys.stderr)
    sys.exit(0 if found is None else 2)
