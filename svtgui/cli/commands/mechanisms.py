"""``svtgui-cli mechanisms [--json]``: print the mechanism catalogue."""

from __future__ import annotations

import argparse
import json

from svtgui.core import mechanisms


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("mechanisms", help="list every mechanism with its guarantee and citation",
                       description="List every mechanism of the catalogue.")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    entries = mechanisms.catalog()
    if args.json:
        print(json.dumps([e.to_dict() for e in entries], indent=2, ensure_ascii=False))
        return 0
    for e in entries:
        setting = "interactive" if e.interactive else "non-interactive"
        flag = "" if e.status == mechanisms.PRIVATE else "  [KNOWN NOT PRIVATE: teaching only]"
        print(f"{e.id:22} {e.name}{flag}")
        print(f"{'':22} {e.guarantee}, {setting}; {e.summary}")
        print(f"{'':22} {e.citation}")
    return 0
