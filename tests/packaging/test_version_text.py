"""Both executables answer --version with the same line, built from svtgui/_version.py."""

from __future__ import annotations

import pytest

from svtgui import __version__


@pytest.mark.parametrize("module", ["svtgui.cli", "svtgui.__main__"])
def test_version_line_is_the_same_for_gui_and_cli(module, capsys):
    import importlib

    parser = importlib.import_module(module).build_parser()
    with pytest.raises(SystemExit) as done:
        parser.parse_args(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out.strip() == f"SVT Studio {__version__} (svtgui)"
