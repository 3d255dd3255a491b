"""Screenshot states of the linear-query UI (``svtgui --screenshot OUT --page linear-…``).

Each state is reached through the widgets, as a curator would: choose the mechanism, tick universe
columns, queue marginal queries, and (``linear-pmw-run``) run to the end with the sample's ledger.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from svtgui.ui.screenshots.run_through import run_through

PAGES = ("linear-pmw", "linear-pmw-run", "linear-release", "linear-answer")
UNIVERSE = ["age@17,25,35,45,55,65,91", "education", "sex", "income"]


def prepare(win: Any, page: str, wait_until) -> tuple[str | None, Any]:
    """Bring the window into ``page``'s state; returns (window page to show, or None, extra widget)."""
    if page not in PAGES:
        raise ValueError(f"unknown page {page!r}; linear pages: {', '.join(PAGES)}")
    from svtgui.data import generators

    mech = win.mechanism
    mech.picker.select("sparse_project" if page in ("linear-release", "linear-answer") else "pmw")
    for name, value in (("epsilon", "1"), ("delta", "1e-6"), ("threshold", "1500")):
        editor = mech.form.editors.get(name)
        if editor is not None:
            editor.setText(value)
    if "cutoff" in mech.form.editors:
        mech.form.editors["cutoff"].setValue(30)
    mech.linear.universe.set_specs(UNIVERSE)
    win.queries.set_queries(generators.marginals(win.ds.schema, ["education", "sex", "income"], k=2))
    win.run_page.totals.delta.setText("1e-5")
    if page == "linear-release":
        mech.linear.release.path.setText(str(Path(tempfile.gettempdir()) / "census-release.npz"))
    mech.flush()
    if page == "linear-release":
        from PySide6.QtWidgets import QScrollArea

        win.show_page("mechanism")
        wait_until(lambda: False, 0.3)  # lay out first
        scroll = mech.findChild(QScrollArea)
        scroll.verticalScrollBar().setValue(scroll.verticalScrollBar().maximum())
        scroll.horizontalScrollBar().setValue(0)
    if page == "linear-pmw-run":
        refused = run_through(win, wait_until, 120)
        if refused is not None:
            raise RuntimeError(refused)
        return "run", None
    if page == "linear-answer":
        return None, _answer_dialog(win)
    return "mechanism", None


def _answer_dialog(win: Any) -> Any:
    """A demo release of the sample (seeded, no ledger: a picture, never a release) and two answers."""
    from svtgui.core import mechanisms
    from svtgui.data.predicates import Condition, Junction
    from svtgui.data.queries import Count
    from svtgui.data.universe import Universe
    from svtgui.ui.tools.linear_answer import ReleaseAnswerDialog

    universe = Universe.of(win.ds, UNIVERSE)
    m = mechanisms.create("sparse_project", epsilon=1.0, delta=1e-6, projection_size=1024,
                          rng=mechanisms.seeded(1))
    path = Path(tempfile.gettempdir()) / "svtgui-screenshot-release.npz"
    m.release(universe.histogram(win.ds), metadata={"universe": universe.to_json(),
                                                   "dataset": win.ds.name}).save(path)
    dlg = ReleaseAnswerDialog(None, str(path))
    dlg.answer(Count(Condition("sex", "=", "Female")))
    dlg.answer(Count(Junction("and", (Condition("income", "=", ">50K"), Condition("age", ">=", 45)))))
    return dlg
