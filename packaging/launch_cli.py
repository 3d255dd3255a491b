"""Frozen-bundle entry point for ``svtgui-cli`` (PyInstaller needs a script, not a module path)."""

import sys

from svtgui.cli import main

if __name__ == "__main__":
    sys.exit(main())
