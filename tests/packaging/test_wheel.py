"""`python -m build` makes an installable wheel that carries the bundled resources.

Builds sdist and wheel exactly as a release would (isolated build environment, wheel built from the
sdist), installs the wheel without dependencies into a fresh venv and runs its console script. The
fresh venv borrows the dependencies (numpy, pandas, Qt…) from the test interpreter's site-packages
through a .pth line, which does *not* activate that site's editable install of svtgui: the test
checks that the svtgui it runs is the installed wheel, not this checkout.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import pytest

from svtgui import __version__
from svtgui._version import VERSION_TEXT
from svtgui.core import mechanisms

REPO = Path(__file__).resolve().parents[2]
SAMPLE_RESOURCE = "icons/io.github.svtstudio.SvtStudio.svg"

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    subprocess.run([sys.executable, "-m", "build", "--outdir", str(out), str(REPO)],
                   check=True, capture_output=True, text=True, timeout=600)
    return out


@pytest.fixture(scope="module")
def installed(built, tmp_path_factory) -> Path:
    """A fresh venv with the wheel installed; returns its bin directory."""
    env_dir = tmp_path_factory.mktemp("venv")
    venv.EnvBuilder(with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    (wheel,) = built.glob("svtgui-*.whl")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet",
                    "--no-deps", "--no-index", str(wheel)], check=True, capture_output=True, text=True)
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          check=True, capture_output=True, text=True).stdout.strip()
    Path(site, "zz_borrowed_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return env_dir / "bin"


def _run(bin_dir: Path, *args: str, cwd: Path) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    done = subprocess.run([str(bin_dir / args[0]), *args[1:]], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_wheel_and_sdist_are_versioned(built):
    names = sorted(p.name for p in built.iterdir())
    assert f"svtgui-{__version__}-py3-none-any.whl" in names
    assert f"svtgui-{__version__}.tar.gz" in names


def test_wheel_carries_every_resource_and_no_build_script(built):
    (wheel,) = built.glob("svtgui-*.whl")
    inside = set(zipfile.ZipFile(wheel).namelist())
    expected = {f"svtgui/_resources/{p.relative_to(REPO / 'resources').as_posix()}"
                for p in (REPO / "resources").rglob("*")
                if p.is_file() and p.suffix not in (".py", ".pyc") and "__pycache__" not in p.parts}
    assert expected, "resources/ is empty"
    assert expected <= inside, sorted(expected - inside)[:10]
    assert not any(n.startswith("svtgui/_resources/") and n.endswith(".py") for n in inside)


def test_installed_console_script_lists_the_catalogue(installed, tmp_path):
    listed = json.loads(_run(installed, "svtgui-cli", "mechanisms", "--json", cwd=tmp_path))
    assert [e["id"] for e in listed] == [e.id for e in mechanisms.catalog()]
    assert _run(installed, "svtgui-cli", "--version", cwd=tmp_path).strip() == VERSION_TEXT


def test_installed_wheel_finds_resources_inside_itself(installed, tmp_path):
    code = ("import svtgui, svtgui.assets as a; "
            f"print(svtgui.__file__); print(a.asset({SAMPLE_RESOURCE!r}))")
    module_file, resource = _run(installed, "python", "-c", code, cwd=tmp_path).split()
    venv_root = installed.parent.resolve()
    assert Path(module_file).resolve().is_relative_to(venv_root), module_file
    assert Path(resource).resolve().is_relative_to(venv_root), resource
    assert "_resources" in Path(resource).parts
    assert Path(resource).read_bytes() == (REPO / "resources" / SAMPLE_RESOURCE).read_bytes()
