"""``svtgui`` / ``python -m svtgui``: start SVT Studio (or render a screenshot offscreen and exit).

svtgui [PATH | --sample [NAME]]            open the window (on a data file or session, or a bundled
                                           sample, default census)
svtgui --screenshot OUT.png [PATH] [--run] [--page NAME]
                                           render the window to a PNG and exit
svtgui --version
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
from pathlib import Path

from svtgui._version import VERSION_TEXT


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="svtgui",
        description="SVT Studio: differential privacy with the Sparse Vector Technique, for data curators.",
    )
    p.add_argument("--version", action="version", version=VERSION_TEXT)
    p.add_argument(
        "path",
        nargs="?",
        metavar="PATH",
        help="a dataset to open at start (CSV, TSV, Parquet, Excel, JSON lines, FIMI baskets) or a "
        ".svtsession file, as File → Open does",
    )
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
    p.add_argument("--startup-probe", action="store_true", help=argparse.SUPPRESS)  # bench/startup.py
    p.add_argument(
        "--page",
        metavar="NAME",
        help="with --screenshot: the view to show (start, main, dataset, schema, mechanism, "
        "queries, run; history, export, release or release-document after a run; or teaching-* "
        "pages of the teaching mode)",
    )
    return p


def main(argv: list[str] | None = None) -> int:
    # Runs stream in a spawned child process (svtgui.app.runs.worker); in a frozen bundle that child
    # is this executable again, and freeze_support() turns it into the child before any parsing.
    multiprocessing.freeze_support()
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.path is not None and args.sample is not None:
        parser.error("give a PATH or --sample, not both")

    if args.screenshot:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
        from svtgui.ui.screenshots import take

        return take(args.screenshot, sample=args.sample or "census", run=args.run, page=args.page,
                    path=args.path)
    from svtgui.ui.common.system_libs import check_before_window

    missing = check_before_window()
    if missing is not None:
        print(missing.message(), file=sys.stderr)
        return 2
    from PySide6.QtCore import QTimer

    from svtgui.ui.app import create_app
    from svtgui.ui.common.splash import show_splash

    probe = StartupProbe() if args.startup_probe else None
    app = create_app(sys.argv[:1])
    splash = show_splash()  # painted on screen before the heavy modules load
    if probe:
        probe.first_frame(splash)
    from svtgui.ui.main_window import MainWindow  # Qt widgets, pandas, pyqtgraph: about a second

    win = MainWindow()
    win.show_page("start")
    win.show()
    splash.finish(win)
    # The data loads once the window has painted (a background task: the window stays usable).
    QTimer.singleShot(0, lambda: open_at_start(win, args))
    if probe:
        QTimer.singleShot(0, lambda: probe.mark("main-window", quit_app=True))
    return app.exec()


def open_at_start(win, args: argparse.Namespace) -> None:
    """Open what the command line names: a file as File → Open does (off the GUI thread; a file that
    cannot be opened is said on the Dataset page), or a bundled sample; nothing: the start page."""
    if args.path is not None:
        win.open_path(Path(args.path).expanduser().absolute())
    elif args.sample is not None:
        win.open_sample(args.sample)


class StartupProbe:
    """``--startup-probe`` (for bench/startup.py): print when each window is on screen, then quit."""

    def first_frame(self, splash) -> None:
        """Print ``first-window`` once the splash's pixels are on screen: on X11 read back from the
        X server (what a person sees), elsewhere once it has painted while exposed."""
        import time

        from PySide6.QtCore import QEventLoop
        from PySide6.QtGui import QColor, QGuiApplication

        from svtgui.ui.common.splash import BACKGROUND

        if QGuiApplication.platformName() == "xcb":
            app, want = QGuiApplication.instance(), QColor(BACKGROUND)
            deadline = time.monotonic() + 10
            while True:
                corner = splash.geometry().topLeft()
                pixel = splash.screen().grabWindow(0, corner.x() + 4, corner.y() + 4, 1, 1).toImage()
                if not pixel.isNull() and pixel.pixelColor(0, 0) == want:
                    break
                if time.monotonic() > deadline:
                    print("first-window-not-painted", flush=True)
                    return
                app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 10)
        elif not splash.painted:
            print("first-window-not-painted", flush=True)
            return
        self.mark("first-window")

    def mark(self, what: str, quit_app: bool = False) -> None:
        print(what, flush=True)
        if quit_app:
            from PySide6.QtWidgets import QApplication

            QApplication.quit()


if __name__ == "__main__":
    sys.exit(main())
