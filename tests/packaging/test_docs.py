"""The documentation cannot drift from the code: generated parts are current, figures reproduce,
and every image a document shows exists."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, DOCS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_mechanism_list_in_user_guide_is_current():
    assert _load("make_mechanism_list").main(["--check"]) == 0, "run docs/make_mechanism_list.py"


def test_mechanism_list_names_every_catalogue_entry_once():
    from svtgui.core import mechanisms

    guide = (DOCS / "user-guide.md").read_text(encoding="utf-8")
    for entry in mechanisms.catalog():
        assert guide.count(f"(`{entry.id}`)") == 1, entry.id
        assert entry.citation in guide, entry.id


def test_contract_list_in_contracts_md_is_current():
    assert _load("make_contracts").main(["--check"]) == 0, "run docs/make_contracts.py"


def test_contract_list_names_every_import_contract():
    import tomllib

    page = (DOCS / "contracts.md").read_text(encoding="utf-8")
    contracts = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    for contract in contracts["contracts"]:
        assert page.count(f"* **{contract['name']}** — ") == 1, contract["name"]


def test_splice_refuses_a_guide_without_markers():
    with pytest.raises(ValueError, match="markers"):
        _load("make_mechanism_list").splice("# no markers here\n", "x")


@pytest.mark.slow
def test_user_guide_tables_reproduce_from_the_script(shared_data):
    script = DOCS / "choosing_parameters.py"
    out = subprocess.run([sys.executable, str(script), str(shared_data / "adult.csv")],
                         check=True, capture_output=True, text=True, timeout=300).stdout
    tables = [block for block in re.split(r"\n\s*\n", out) if block.startswith("|")]
    assert len(tables) == 3
    guide = (DOCS / "user-guide.md").read_text(encoding="utf-8")
    for table in tables:
        assert table.strip() in guide, "user guide figures are stale:\n" + table


def test_every_image_the_docs_show_exists():
    missing = []
    for doc in [REPO / "README.md", *DOCS.glob("*.md")]:
        for target in re.findall(r"!\[[^\]]*\]\(([^)\s]+)", doc.read_text(encoding="utf-8")):
            if not target.startswith(("http://", "https://")) and not (doc.parent / target).is_file():
                missing.append(f"{doc.relative_to(REPO)} -> {target}")
    assert not missing, "run docs/make_screenshots.sh: " + ", ".join(missing)
