"""The desktop file, the AppStream metainfo, the icon and the version agree with each other and the code.

The validators (desktop-file-validate, appstreamcli from Debian's desktop-file-utils and appstream) run
when installed; .ci/run installs them and also calls them directly.
"""

from __future__ import annotations

import configparser
import re
import shutil
import subprocess
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

from svtgui import __version__
from svtgui.ui.common.app_icon import APP_ID, ICON_SIZES

REPO = Path(__file__).resolve().parents[2]
DESKTOP = REPO / "packaging" / f"{APP_ID}.desktop"
METAINFO = REPO / "packaging" / f"{APP_ID}.metainfo.xml"
ICONS = REPO / "resources" / "icons"


def _desktop_entry() -> configparser.SectionProxy:
    parser = configparser.ConfigParser(interpolation=None, strict=True)
    parser.optionxform = str  # keys are case-sensitive
    parser.read(DESKTOP, encoding="utf-8")
    return parser["Desktop Entry"]


def _project() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def _validator(tool: str) -> str:
    path = shutil.which(tool)
    if path is None:
        pytest.skip(f"{tool} not installed (apt-get install desktop-file-utils appstream)")
    return path


def test_desktop_file_validates():
    done = subprocess.run([_validator("desktop-file-validate"), str(DESKTOP)], capture_output=True, text=True)
    assert done.returncode == 0 and "error" not in done.stdout, done.stdout + done.stderr


def test_metainfo_validates():
    done = subprocess.run([_validator("appstreamcli"), "validate", "--no-net", str(METAINFO)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_ids_icon_and_command_agree():
    entry = _desktop_entry()
    root = ET.parse(METAINFO).getroot()
    assert root.findtext("id") == APP_ID
    assert root.findtext("launchable[@type='desktop-id']") == DESKTOP.name
    assert entry["Icon"] == APP_ID == root.findtext("icon[@type='stock']")
    assert (ICONS / f"{APP_ID}.svg").is_file()
    project = _project()
    assert entry["Exec"].split()[0] in project["gui-scripts"]
    assert {b.text for b in root.iter("binary")} <= set(project["gui-scripts"]) | set(project["scripts"])


def test_metainfo_has_what_software_centres_need():
    root = ET.parse(METAINFO).getroot()
    assert root.get("type") == "desktop-application"
    assert len(root.findall("description/p")) >= 1
    assert root.find("content_rating").get("type").startswith("oars-")
    # The project has no public repository: no home page, bug tracker or screenshot URL may be invented.
    assert not root.findall("url") and not root.findall("screenshots")
    assert root.findtext("project_license") == _project()["license"]


def test_releases_match_the_version_and_the_changelog():
    releases = [(r.get("version"), r.get("date")) for r in ET.parse(METAINFO).getroot().iter("release")]
    assert releases, "metainfo lists no release"
    assert releases[0][0] == __version__, "newest <release> must be svtgui/_version.py's version"
    changelog = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    logged = re.findall(r"^## \[(\d+\.\d+\.\d+)\] - (\d{4}-\d{2}-\d{2})$", changelog, flags=re.MULTILINE)
    assert logged[: len(releases)] == releases


def test_icon_pngs_are_current_renderings_of_the_svg(qapp):
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_icons", ICONS / "make_icons.py")
    make_icons = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(make_icons)
    assert make_icons.SIZES == ICON_SIZES
    from PySide6.QtGui import QImage

    for size in ICON_SIZES:
        committed = QImage(str(make_icons.png_path(size))).convertToFormat(QImage.Format.Format_ARGB32)
        fresh = make_icons.render(size).convertToFormat(QImage.Format.Format_ARGB32)
        assert committed.size() == fresh.size(), size
        # Exact equality would tie the test to one Qt rasteriser; allow antialiasing differences only.
        a, b = (np.frombuffer(bytes(i.constBits()), dtype=np.uint8).astype(int) for i in (committed, fresh))
        assert np.abs(a - b).mean() < 2.0, f"{size}px PNG is stale: run resources/icons/make_icons.py"


# What a file manager's "Open with SVT Studio" may hand over, and the suffix each type is saved with.
_MIME_SUFFIX = {"text/csv": ".csv", "text/tab-separated-values": ".tsv",
                "application/vnd.apache.parquet": ".parquet",
                "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": ".xlsx"}


def test_the_entry_opens_one_file_of_a_type_the_loaders_read():
    from svtgui.data.loaders import _SUFFIXES

    entry = _desktop_entry()
    # svtgui takes one optional PATH, so the entry asks for one file (%f), never a list (%F) or URLs.
    codes = re.findall(r"%[a-zA-Z]", entry["Exec"])
    assert codes == ["%f"], entry["Exec"]
    types = [t for t in entry["MimeType"].split(";") if t]
    assert types and set(types) <= set(_MIME_SUFFIX), types
    assert all(_MIME_SUFFIX[t] in _SUFFIXES for t in types)
