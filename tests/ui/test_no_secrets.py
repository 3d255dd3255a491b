"""Curator mode never shows a secret: no true answer, no noisy threshold, in any widget, tooltip,
table cell, chart point or log line.

A seeded run of Standard SVT (threshold noise drawn once, numeric answers on) lets the test
rebuild the run's noisy threshold with a traced twin mechanism on the same seed — something the
window itself can never do — and compute every true answer with pandas, independently of the
data layer. Then it scans everything the window shows for those numbers.
"""

from __future__ import annotations

import logging
import re

import numpy as np
from PySide6.QtCore import QAbstractItemModel, QAbstractListModel, Qt
from PySide6.QtWidgets import QAbstractItemView, QComboBox, QWidget

from svtgui.app.workspace import RunOptions
from svtgui.core import mechanisms
from svtgui.data.queries import RangeCount
from svtgui.ui.setup.frame_model import FrameModel

NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?")
SEED = 7


def _model_texts(model: QAbstractItemModel) -> list[str]:
    from PySide6.QtCore import QModelIndex

    out = []
    root = QModelIndex()
    for r in range(model.rowCount(root)):
        for c in range(1 if isinstance(model, QAbstractListModel) else model.columnCount(root)):
            for role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
                v = model.data(model.index(r, c), role)
                if v is not None:
                    out.append(str(v))
    return out


def everything_shown(win) -> list[str]:
    """Every text the window can show, except the data preview (the curator's own rows, by design)."""
    texts = [win.windowTitle()]
    for w in win.findChildren(QWidget):
        for getter in (
            "text",
            "toolTip",
            "accessibleName",
            "accessibleDescription",
            "statusTip",
            "placeholderText",
            "title",
            "format",
        ):
            f = getattr(w, getter, None)
            if callable(f):
                try:
                    v = f()
                except TypeError:
                    continue
                if isinstance(v, str):
                    texts.append(v)
        if isinstance(w, QComboBox):
            texts.extend(w.itemText(i) for i in range(w.count()))
        if (
            isinstance(w, QAbstractItemView)
            and w.model() is not None
            and not isinstance(w.model(), FrameModel)
        ):
            texts.extend(_model_texts(w.model()))
    for a in win.actions():
        texts.extend([a.text(), a.toolTip()])
    return texts


def numbers_in(texts: list[str]) -> set[float]:
    return {
        float(m.replace(",", "")) for t in texts for m in NUMBER.findall(t) if m.replace(",", "") not in "-"
    }


def true_answers(frame, queries) -> np.ndarray:
    """Range counts computed directly with pandas (not with svtgui.data.evaluate)."""
    out = []
    for q in queries:
        assert isinstance(q, RangeCount) and q.closed == "left"
        col = frame[q.column]
        out.append(int(((col >= q.low) & (col < q.high)).sum()))
    return np.array(out)


def test_no_widget_tooltip_or_log_shows_a_secret(qtbot, window, act, caplog):
    caplog.set_level(logging.DEBUG)
    win = window
    act.load(qtbot, win)
    queries = win.queries.queries[:300]
    win.queries.set_queries(queries)
    answers = true_answers(win.ds.frame, queries)
    threshold = float(np.median(answers))  # about half the queries are above: both outcomes occur
    win.mechanism.picker.select("standard_svt")
    act.set_param(win, "epsilon", "1")
    act.set_param(win, "threshold", f"{threshold:g}")
    act.set_param(win, "cutoff", 10)
    win.mechanism.form.editors["numeric_share"].setValue(0.3)
    win.workspace.set_options(RunOptions(seed=SEED))
    act.run_to_end(qtbot, win)
    c = win.run_model
    assert c.state == "ended" and c.run.status == "halted"
    win.run_presenter.refresh()

    # The run's secrets, rebuilt outside the window.
    twin = mechanisms.create("standard_svt", rng=mechanisms.seeded(SEED), trace=True, **c.run.params)
    twin.submit(float(answers[0]))
    noisy_threshold = twin.internals()[0].noisy_threshold
    assert noisy_threshold != threshold  # otherwise this seed would make the threshold check vacuous

    store = win.store
    released = {float(v) for v in store.value[: store.n] if not np.isnan(v)}
    assert len(released) > 0  # numbers were released, so the scan below also covers numeric cells

    for page in ("dataset", "schema", "mechanism", "queries", "run"):
        win.show_page(page)
        shown = numbers_in(everything_shown(win) + [r.getMessage() for r in caplog.records])
        # The noisy threshold appears nowhere (unless a released value happens to equal it).
        if noisy_threshold not in released:
            assert noisy_threshold not in shown, f"noisy threshold {noisy_threshold} shown on {page}"
        # No true answer of an answered query appears. Answers ≤ 1000 are skipped: small numbers
        # legitimately appear as query bounds, row numbers and counts; released values are public.
        for i in range(store.n):
            a = float(answers[store.index[i]])
            if a > 1000 and a not in released:
                assert a not in shown, f"true answer {a} of query {i + 1} shown on {page}"

    # The chart plots only released values (or T for a ⊤ without a number), never anything else.
    chart = win.run_page.chart
    assert set(chart.ys.tolist()) <= released | {threshold}
    # ⊥ rows carry no value at all.
    below = ~store.above[: store.n]
    assert np.isnan(store.value[: store.n][below]).all()
