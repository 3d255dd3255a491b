"""``svtgui`` / ``python -m svtgui``: start SVT Studio (or render a screenshot offscreen and exit).

svtgui [--sample [NAME]]                   open the window (on a bundled sample, default census)
svtgui --screenshot OUT.png [--run] [--page NAME]
                                           render the window to a PNG and exit
svtgui --version
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys

from svtgui._version import VERSION_TEXT


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="svtgui",
        description="SVT Studio: differential privacy with the Sparse Vector Technique, for data curators.",
    )
    p.add_argument("--version", action="version", version=VERSION_TEXT)
    p.add_argument(
        "--sample",
        nargs="?",
        const="census",
        default=None,
        metavar="NAME",
        help="open a bundled sample (census, baskets; default census). Without it the window "
        "opens on the start page; --screenshot always loads one (census by default)",
    )
    p.add_argument("--screenshot", metavar="OUT.png", help="render the window offscreen to OUT.png and exit")
    p.add_argument(
        "--run",
        action="store_true",
        help="with --screenshot: stream the sample's default query set to the end first",
    )
    p.add_argument(
        "--page",
        metavar="NAME",
        help="with --screenshot: the view to show (start, main, dataset, schema, mechanism, "
        "queries, run; history or export after a run; or teaching-* pages of the teaching mode)",
    )
    return p


def main(argv: list[str] | None = None) -> int:
    # Runs stream in a spawned child process (svtgui.app.runs.worker); in a frozen bundle that child
    # is this executable again, and freeze_support() turns it into the child before any parsing.
    multiprocessing.freeze_support()
    args = build_parser().parse_args(argv)
    if args.screenshot:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
        from svtgui.ui.screenshots import take

        return take(args.screenshot, sample=args.sample or "census", run=args.run, page=args.page)
    from svtgui.ui.common.system_libs import check_before_window

    missing = check_before_window()
    if missing is not None:
        print(missing.message(), file=sys.stderr)
        return 2
    from svtgui.ui.app import create_app
    from svtgui.ui.main_window import MainWindow

    app = create_app(sys.argv[:1])
    win = MainWindow()
    win.show()
    if args.sample:
        win.open_sample(args.sample)
    else:
        win.show_page("start")
    return app.exec()


if __name__ == "__main__":
    sys.exit(main())
