"""Regenerate the list of import contracts in docs/contracts.md from pyproject.toml.

    .venv/bin/python docs/make_contracts.py          # rewrite the block in docs/contracts.md
    .venv/bin/python docs/make_contracts.py --check  # exit 1 if the block is stale

The block sits between the two ``CONTRACTS`` marker comments; ``tests/packaging/test_docs.py`` runs
the check, so the document states exactly the contracts ``lint-imports`` enforces.
"""

from __future__ import annotations

import importlib.util
import sys
import tomllib
from pathlib import Path

DOCS = Path(__file__).resolve().parent
PAGE = DOCS / "contracts.md"
PYPROJECT = DOCS.parent / "pyproject.toml"
BEGIN = "<!-- CONTRACTS:BEGIN (generated from pyproject.toml by docs/make_contracts.py; do not edit) -->"
END = "<!-- CONTRACTS:END -->"


def _splice():
    spec = importlib.util.spec_from_file_location("make_mechanism_list", DOCS / "make_mechanism_list.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.splice


def _names(modules: list[str]) -> str:
    return ", ".join(f"`{m}`" for m in modules)


def render() -> str:
    """One bullet per contract: what it forbids, in the words of its configuration."""
    contracts = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["tool"]["importlinter"]["contracts"]
    out = []
    for c in contracts:
        kind = c["type"]
        if kind == "layers":
            rule = "layers, highest first: " + " → ".join(f"`{layer}`" for layer in c["layers"])
            rule += (" (a lower layer never imports a higher one; `|` separates layers that never import "
                     "each other)")
        elif kind == "forbidden":
            direct_only = str(c.get("allow_indirect_imports", False)).lower() == "true"  # default: False
            how = "directly" if direct_only else "directly or through other modules"
            rule = f"{_names(c['source_modules'])} never import {_names(c['forbidden_modules'])} ({how})"
        elif kind == "protected":
            rule = f"only {_names(c['allowed_importers'])} may import {_names(c['protected_modules'])}"
        elif kind == "acyclic_siblings":
            rule = f"no import cycle between sibling modules or packages under {_names(c['ancestors'])}"
        else:
            rule = f"`{kind}` contract"
        out.append(f"* **{c['name']}** — {rule}.")
        for ignored in c.get("ignore_imports", []):
            out.append(f"  Listed exception: `{ignored}`.")
    return "\n".join(out) + "\n"


def main(argv: list[str]) -> int:
    text = PAGE.read_text(encoding="utf-8")
    fresh = _splice()(text, render(), BEGIN, END, PAGE.name)
    if "--check" in argv:
        if fresh != text:
            print(f"{PAGE}: the contract list is stale; run docs/make_contracts.py", file=sys.stderr)
            return 1
        return 0
    PAGE.write_text(fresh, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
