"""How long appending one query to a queue of 200,000 holds the GUI thread (issue 23 §4: ≤ 5 ms).

An append is what "Add to queue" does: the query joins the workspace's queue (an evented list),
the Qt model over it announces one inserted row, the queue's facts (Δ, integer, monotonic, kinds)
take in the new query only, and every view that follows the workspace — the queue's summary, the
Run button, the gauge, the mechanism page — updates. Measured on the GUI thread, offscreen, on the
bundled census sample, from the call to the end of the events it posts.

Baseline, same run: a full revalidation of the same queue (:func:`svtgui.app.plan.queue_facts`,
one pass over every query), which is what every edit of the queue cost before (with a copy of the
list on top: 346 ms measured in the window).

    QT_QPA_PLATFORM=offscreen .venv/bin/python bench/queue_edit.py [--queries N] [--appends K]

Prints the median and the worst ms of an append, the median ms of a full revalidation, and their
ratio; and the GUI thread's own CPU time per append (``time.thread_time``), which a loaded machine
inflates far less than the wall clock. Two paired runs at load 7-9 on a shared 2-core machine:
GUI-thread CPU median 5.8 and 7.0 ms before the queue's summary became a steady line, 3.0 and
3.8 ms after (wall medians 16.9 and 20.0 ms before, 3.7 and 9.2 ms after).
"""

from __future__ import annotations

import argparse
import statistics
import time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=200_000)
    parser.add_argument("--appends", type=int, default=30)
    args = parser.parse_args()
    from census_window import census_window
    from PySide6.QtWidgets import QApplication

    from svtgui.app.plan import queue_facts
    from svtgui.data.queries import RangeCount

    win = census_window()
    queue = [RangeCount("age", i % 90, i % 90 + 1 + i % 7) for i in range(args.queries)]  # distinct objects
    win.queries.set_queries(queue)
    win.show_page("queries")
    QApplication.processEvents()

    def append(i: int) -> tuple[float, float]:
        """(wall ms, GUI-thread CPU ms) of one append and the events it posts."""
        q = RangeCount("age", i % 80, 85)
        t0, c0 = time.perf_counter(), time.thread_time()
        win.queries.add([q])
        QApplication.processEvents()
        return (time.perf_counter() - t0) * 1000, (time.thread_time() - c0) * 1000

    def revalidate() -> float:
        t0 = time.perf_counter()
        queue_facts(win.workspace.queries, win.workspace.schema)
        return (time.perf_counter() - t0) * 1000

    append(0)  # warm-up
    timed = [append(i) for i in range(1, args.appends + 1)]
    appends, cpu = [w for w, _ in timed], [c for _, c in timed]
    full = [revalidate() for _ in range(5)]
    assert len(win.workspace.queries) == args.queries + args.appends + 1
    assert win.workspace.facts.count == args.queries + args.appends + 1
    win.close()
    a, b = statistics.median(appends), statistics.median(full)
    print(f"queue: {args.queries:,} queries; appends: {args.appends}")
    print(f"one append: median {a:.2f} ms (worst {max(appends):.2f}); "
          f"full revalidation: median {b:.1f} ms; ratio {b / a:.0f}x (target: append ≤ 5 ms)")
    print(f"GUI-thread CPU of one append: median {statistics.median(cpu):.2f} ms")


if __name__ == "__main__":
    main()
