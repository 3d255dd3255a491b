"""``svtgui --screenshot``: render a state of the window offscreen to a PNG, for docs and tests.

The state is reached exactly as a user would reach it (load the sample, press Run, confirm the
spend, wait for the end), so a screenshot is also a smoke test of the whole workflow. It always
runs against a throwaway ledger and throwaway settings (:mod:`svtgui.app.demo`): a picture never
spends from the curator's budget nor touches their remembered choices. A throwaway ledger is an
unlimited budget, so a picture that releases (a run, History, export, PMW/SparseProject, recipes)
shows only the bundled samples (by content) or toy data: any other file is refused with one line,
exit 2, before anything runs — and the gate refuses it again in every release path.

A package of its own beside ``main_window`` (not among the window's ``tools/``): it drives the
whole window and nothing in the window imports it, so no import cycle runs through it. It ships
because ``svtgui --screenshot`` is also the frozen bundle's smoke test; ``docs/make_screenshots.sh``
(outside the package) is what renders the documentation's pictures with it.
"""

from __future__ import annotations

import importlib
import sys
import time
from pathlib import Path

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QWidget

from svtgui.app.reports import write_atomically
from svtgui.ui.app import create_app
from svtgui.ui.screenshots.run_through import run_through

SIZE = (1280, 820)
DECLARED_TOTAL = "10"  # the sample's total ε in pictures that run (the ledger is a throw-away one)
# after a run: View → History, the File → Export release notice, History with the run and an
# auto-clipped mean selected for one release, and that release's document
SESSION_PAGES = ("history", "export", "release", "release-document")
TOOL_PAGES = ("recipes", "compare")  # Queries → Recipes… (after an auto-clipped mean); Compare mechanisms…


def wait_until(predicate, timeout: float = 120.0) -> bool:
    """Process events until ``predicate()`` holds or ``timeout`` seconds pass."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            return False
        QCoreApplication.processEvents()
        time.sleep(0.005)
    return True


def _teaching_widget(page: str) -> QWidget | None:
    """A teaching-mode page, delegated to svtgui.ui.teaching.screenshot (``screenshot_widget(page)``)."""
    try:
        teaching = importlib.import_module("svtgui.ui.teaching.screenshot")
    except ImportError:
        return None
    return teaching.screenshot_widget(page)


def take(out: str | Path, *, sample: str = "census", run: bool = False, page: str | None = None,
         path: str | Path | None = None) -> int:
    """Render ``page`` (after a run of the sample, or of the data file ``path``, if ``run``) to
    ``out``; 0 on success."""
    from svtgui.app.demo import throwaway_ledger, throwaway_settings

    problem = _output_problem(out, path)  # before the throwaway ledger hides the curator's
    if problem is not None:
        print(f"svtgui: --screenshot: {problem}; nothing was rendered", file=sys.stderr)
        return 2
    with throwaway_ledger(), throwaway_settings():
        return _take(out, sample=sample, run=run, page=page, path=path)


def _output_problem(out: str | Path, path: str | Path | None) -> str | None:
    """Why ``out`` cannot take the picture: it is the data file opened (or its sidecar), the curator's
    ledger, one of its side files or anchors (``svtgui --screenshot ledger.sqlite`` left the ledger
    empty), it cannot be created, or its suffix is no image format Qt writes (Qt emptied the file
    before it found that out)."""
    from PySide6.QtGui import QImageWriter

    from svtgui.app.outputs import Inputs, check_output
    from svtgui.ledger import default_location

    try:
        check_output(out, Inputs().add_dataset(path).add_ledger(default_location()))
    except ValueError as exc:
        return str(exc)
    create_app(sys.argv[:1])  # image format plugins are found through the application
    formats = sorted(bytes(f.data()).decode() for f in QImageWriter.supportedImageFormats())
    if Path(out).suffix.lower().lstrip(".") not in formats:
        return f"{out}: not an image file name; end it in .png (or one of .{', .'.join(formats)})"
    return None


def _take(out: str | Path, *, sample: str, run: bool, page: str | None, path: str | Path | None) -> int:
    from svtgui.app.public_data import is_public
    from svtgui.ui.main_window import MainWindow

    create_app(sys.argv[:1])
    if page and page.startswith("teaching"):
        widget = _teaching_widget(page)
        if widget is None:
            print(f"svtgui: the teaching mode cannot render page {page!r}", file=sys.stderr)
            return 2
        return _save(widget, out)
    win = MainWindow()
    win.resize(*SIZE)
    win.show()
    if page == "start":
        win.show_page("start")
        return _save(win, out)
    run = run or page in SESSION_PAGES
    if path is not None:
        win.open_path(Path(path).expanduser().absolute())
    else:
        win.open_sample(sample)
    if not wait_until(lambda: win.ds is not None or win.dataset_panel.error.isVisible(), 60):
        print("svtgui: the data did not load within 60 s", file=sys.stderr)
        return 1
    if win.ds is None:
        print(f"svtgui: {win.dataset_panel.error.text()}", file=sys.stderr)
        return 1
    if not is_public(win.ds):  # every page shows something of the rows: their preview, counts, answers
        print(f"svtgui: --screenshot renders only the bundled samples (--sample) or toy data; {path} is not "
              "one (a picture of its rows, their statistics or answers would be a release nothing charges): "
              "nothing was rendered", file=sys.stderr)
        return 2
    if (run or (page or "").startswith("linear")) and win.run_page.totals.is_new:
        win.run_page.totals.epsilon.setText(DECLARED_TOTAL)  # what a curator declares before a first run
    if page and page.startswith("linear"):  # PMW / SparseProject states: .linear
        from svtgui.ui.screenshots.linear import prepare

        try:
            page, extra = prepare(win, page, wait_until)
        except (ValueError, RuntimeError) as exc:
            print(f"svtgui: {exc}", file=sys.stderr)
            return 2
        if extra is not None:
            return _save(extra, out)
    if page in TOOL_PAGES:
        return _save(_recipes(win) if page == "recipes" else _compare(win), out, resize=False)
    if run:
        refused = run_through(win, wait_until, 600)
        if refused is not None:
            print(f"svtgui: {refused}", file=sys.stderr)
            return 1
    if page in SESSION_PAGES:
        import tempfile

        widget = win.sessions.screenshot_widget(page, Path(tempfile.mkdtemp(prefix="svtgui-release-")))
        return _save(widget, out, resize=page != "export")
    win.show_page(page or ("run" if run else "main"))
    wait_until(lambda: False, 0.3)  # let the debounced preview and layouts settle
    win.mechanism.flush()  # the preview and its exact curve (a closed form: drawn at once)
    return _save(win, out)


def _recipes(win) -> QWidget:
    """The recipes dialog after the auto-clipped mean ran on the sample (throwaway ledger)."""
    from svtgui.app import dataset_identity

    dataset_identity.register(win.run_model.ledger, win.ds, DECLARED_TOTAL)
    win.run_model.refresh_budget()
    dlg = win.open_recipes()
    dlg.run()
    wait_until(lambda: bool(dlg.result.toPlainText()), 120)
    return dlg


def _compare(win) -> QWidget:
    """Mechanism ▸ Compare mechanisms… for the sample's queue, at x = T + 100 (a hypothetical answer)."""
    win.show_page("mechanism")
    dialog = win.mechanism.open_comparison()
    t = dialog.base.get("threshold")
    if t is not None:
        dialog.x.setText(f"{t + 100:g}")
    return dialog


def _save(widget: QWidget, out: str | Path, resize: bool = True) -> int:
    if widget.isWindow() and resize:
        widget.resize(*SIZE)
    widget.show()
    wait_until(lambda: False, 0.2)
    picture, suffix = widget.grab(), Path(out).suffix.lstrip(".").lower()

    def write(tmp: Path) -> None:
        if not picture.save(str(tmp), suffix):
            raise OSError(f"could not write {out}")

    try:  # a file of the same name is replaced whole or not at all
        write_atomically(Path(out), write)
    except OSError as exc:
        print(f"svtgui: {exc}", file=sys.stderr)
        return 1
    print(out)
    return 0
