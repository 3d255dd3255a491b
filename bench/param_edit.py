"""How long one parameter edit holds the GUI thread (issue 12: under 10 ms; was ~130 ms).

An edit is: type a new ε into the Mechanism page's form, then the debounced preview update runs
(``MechanismPanel.flush``): the workspace re-plans, the form, the queue summary, the Run button
and the gauge follow, the accuracy bound and its words are computed and the exact P[⊤] curve
(a closed form, :mod:`svtgui.core.preview`) is drawn. Measured on the GUI thread, offscreen, on
the bundled census sample with its 2,000 queued queries, Sparse with c = 5.

Baseline, same run: the same edit plus the simulated curve the window once computed on the GUI
thread (:func:`simulated_curve`, kept here only as the baseline: 31 points × 60 one-query runs,
about two thousand mechanisms built and fed one synthetic answer each).

    QT_QPA_PLATFORM=offscreen .venv/bin/python bench/param_edit.py [--edits N]

Prints the median and the worst ms per edit for both, and their ratio.
"""

from __future__ import annotations

import argparse
import statistics
import time


def simulated_curve(params: dict, scale: float, points: int = 31, reps: int = 60) -> list[float]:
    """The old preview: P[⊤] from ``reps`` one-query Sparse runs per point, within ±1.5·scale of T."""
    import numpy as np

    from svtgui.core import mechanisms

    rng = mechanisms.seeded(20170301)
    u = np.linspace(-1.0, 1.0, points)
    out = []
    for d in np.round(1.5 * scale * np.sign(u) * u**2):  # whole numbers: the census queue counts
        hits = sum(mechanisms.create("sparse", rng=rng, **params).submit(params["threshold"] + float(d)).above
                   for _ in range(reps))
        out.append(hits / reps)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edits", type=int, default=20)
    args = parser.parse_args()
    from census_window import census_window
    from PySide6.QtWidgets import QApplication

    win = census_window()
    mech = win.mechanism
    mech.picker.select("sparse")
    editor = mech.form.editors["epsilon"]

    def settle() -> None:
        QApplication.processEvents()

    def edit(i: int, baseline: bool) -> tuple[float, float]:
        """(ms of the keystroke's own handlers, ms of the preview update that follows the pause)."""
        settle()
        t0 = time.perf_counter()
        editor.setText(f"{0.5 + 0.01 * i:g}")
        t1 = time.perf_counter()
        mech.flush()
        if baseline:  # the curve as it was once computed: simulated, on the GUI thread
            simulated_curve(win.workspace.plan.params, mech.preview.alpha or 10.0)
        return (t1 - t0) * 1000, (time.perf_counter() - t1) * 1000

    edit(0, False)  # warm-up: imports, first plan
    after = [edit(i, False) for i in range(1, args.edits + 1)]
    before = [edit(i, True) for i in range(1, args.edits + 1)]
    settle()
    assert win.workspace.plan.ok, win.workspace.plan.problems
    win.close()
    print(f"queued queries: {len(win.workspace.queries):,}; edits: {args.edits}")
    for name, runs in (("before (simulated curve on the GUI thread)", before),
                       ("after (exact curve, closed form)", after)):
        key = [k for k, _ in runs]
        pre = [p for _, p in runs]
        print(f"{name}: keystroke median {statistics.median(key):.1f} ms (worst {max(key):.1f}); "
              f"preview update median {statistics.median(pre):.1f} ms (worst {max(pre):.1f})")
    b = statistics.median(k + p for k, p in before)
    a = statistics.median(k + p for k, p in after)
    print(f"whole edit: before {b:.1f} ms, after {a:.1f} ms; ratio {b / a:.1f}x (target: under 10 ms)")


if __name__ == "__main__":
    main()
