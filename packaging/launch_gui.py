"""Frozen-bundle entry point for the desktop app (PyInstaller needs a script, not a module path)."""

import sys

from svtgui.__main__ import main

if __name__ == "__main__":
    sys.exit(main())
