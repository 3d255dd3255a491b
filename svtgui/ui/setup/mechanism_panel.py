"""Step 2 and 3: choose a mechanism, set its parameters, see the accuracy before spending anything.

Only mechanisms whose catalogue status is ``private`` are offered; the known-non-private teaching
variants never appear here. The accuracy preview comes from :mod:`svtgui.core.accuracy` (public
parameters only), its words from :mod:`svtgui.app.preview_text`, and the P[⊤] curve is exact
(:mod:`svtgui.core.preview`, a closed form from the mechanism's noise scales) — never the private data.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QDoubleSpinBox,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSplitter,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from svtgui.app import preview_text
from svtgui.app.plan import DOES_NOT_FIT
from svtgui.app.workspace import DATASET, MECHANISM, PARAMS, Workspace
from svtgui.core import mechanisms
from svtgui.core.mechanisms import PRIVATE, MechanismInfo
from svtgui.ui.common.plain_axis import PlainAxis
from svtgui.ui.common.theme import ABOVE_COLOR, THRESHOLD_COLOR, named
from svtgui.ui.setup.comparison_panel import ComparisonDialog
from svtgui.ui.setup.linear_panel import LinearOptions
from svtgui.ui.setup.param_form import ErrorLabel, ParamForm

GROUPS = (
    (
        True,
        "Interactive (a stream of queries)",
        "Answer queries one at a time; later queries may depend on earlier answers",
    ),
    (False, "Non-interactive (the whole list)", "Look at the whole query list at once and choose from it"),
)


def offered() -> list[MechanismInfo]:
    """The mechanisms a curator may run: status ``private`` only."""
    return [m for m in mechanisms.catalog() if m.status == PRIVATE]


class MechanismPicker(QTreeWidget):
    """Mechanisms grouped by setting; emits the selected id."""

    picked = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        named(
            self,
            "Mechanism picker",
            "Choose how queries are answered. Every mechanism here is "
            "differentially private; broken variants live in the teaching mode.",
        )
        self.setHeaderHidden(True)
        self.setRootIsDecorated(False)
        self.items: dict[str, QTreeWidgetItem] = {}
        for interactive, title, tip in GROUPS:
            group = QTreeWidgetItem(self, [title])
            group.setToolTip(0, tip)
            group.setFlags(Qt.ItemFlag.ItemIsEnabled)
            font = group.font(0)
            font.setBold(True)
            group.setFont(0, font)
            for m in offered():
                if m.interactive == interactive:
                    item = QTreeWidgetItem(group, [m.name])
                    item.setData(0, Qt.ItemDataRole.UserRole, m.id)
                    item.setToolTip(0, m.summary)
                    self.items[m.id] = item
            group.setExpanded(True)
        self.currentItemChanged.connect(self._changed)

    def _changed(self, item: QTreeWidgetItem | None, _prev: QTreeWidgetItem | None) -> None:
        mid = item.data(0, Qt.ItemDataRole.UserRole) if item is not None else None
        if mid:
            self.picked.emit(mid)

    def select(self, mechanism_id: str) -> None:
        self.setCurrentItem(self.items[mechanism_id])


class AccuracyPreview(QGroupBox):
    """The (α, β) statement and a curve of P[⊤] against the distance of a query from T."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Accuracy preview (before any budget is spent)", parent)
        named(self, "Accuracy preview")
        self.beta = named(
            QDoubleSpinBox(), "Failure probability β", "β: the probability that the accuracy statement fails."
        )
        self.beta.setRange(0.001, 0.5)
        self.beta.setDecimals(3)
        self.beta.setSingleStep(0.01)
        self.beta.setValue(0.05)
        self.statement = named(QLabel(), "Accuracy statement")
        self.statement.setWordWrap(True)
        self.statement.setTextFormat(Qt.TextFormat.PlainText)
        font = self.statement.font()
        font.setPointSizeF(font.pointSizeF() * 1.1)
        self.statement.setFont(font)
        pal = self.palette()
        self.plot = pg.PlotWidget(background=pal.color(QPalette.ColorRole.Base),
                                  axisItems={"left": PlainAxis("left"), "bottom": PlainAxis("bottom")})
        named(
            self.plot,
            "Exact preview chart",
            "The exact chance that a query whose true answer is x comes back ⊤, from the mechanism's "
            "noise (public parameters only, never your data).",
        )
        self.plot.setMinimumHeight(150)
        fg = pal.color(QPalette.ColorRole.Text)
        for axis in ("left", "bottom"):
            self.plot.getAxis(axis).setTextPen(fg)
            self.plot.getAxis(axis).setPen(fg)
        self.plot.setLabel("bottom", "true answer x of a query")
        self.plot.setLabel("left", "P[⊤]")
        self.plot.setYRange(0, 1.05, padding=0)
        self.plot.setMouseEnabled(False, False)
        self.curve = self.plot.plot(pen=pg.mkPen(ABOVE_COLOR, width=2))
        dash = pg.QtCore.Qt.PenStyle.DashLine
        self.t_line = pg.InfiniteLine(
            angle=90,
            pen=pg.mkPen(THRESHOLD_COLOR, width=2, style=dash),
            label="T",
            labelOpts={"position": 0.9, "color": THRESHOLD_COLOR},
        )
        self.lo_line = pg.InfiniteLine(
            angle=90,
            pen=pg.mkPen(fg, style=pg.QtCore.Qt.PenStyle.DotLine),
            label="T−α",
            labelOpts={"position": 0.75, "color": fg},
        )
        self.hi_line = pg.InfiniteLine(
            angle=90,
            pen=pg.mkPen(fg, style=pg.QtCore.Qt.PenStyle.DotLine),
            label="T+α",
            labelOpts={"position": 0.75, "color": fg},
        )
        for line in (self.t_line, self.lo_line, self.hi_line):
            self.plot.addItem(line)
        self.note = QLabel("")
        self.note.setWordWrap(True)
        self.note.setEnabled(False)
        row = QHBoxLayout()
        row.addWidget(QLabel("β"))
        row.addWidget(self.beta)
        row.addStretch(1)
        self.compare = named(QPushButton("Compare mechanisms…"), "Compare mechanisms",
                             "Sparse, NumericSparse, Standard SVT and the exponential mechanism side by side "
                             "for this queue and ε — before anything is spent.")
        row.addWidget(self.compare)
        lay = QVBoxLayout(self)
        lay.addWidget(self.statement)
        lay.addLayout(row)
        lay.addWidget(self.plot, 1)
        lay.addWidget(self.note)
        self.alpha: float | None = None
        self.curve_x = np.empty(0)  # the curve drawn (x, P[⊤]); tests read them
        self.curve_p = np.empty(0)

    def show_invalid(self, why: str) -> None:
        """No preview: the reason, and neither a chart nor a note left over from the last preview."""
        self.alpha = None
        self.statement.setText(f"No preview: {why}" if why else "")
        self.note.setText("")
        self._clear_curve()

    def update_for(self, info: MechanismInfo, params: dict[str, Any], k: int) -> None:
        """The words and the exact P[⊤] curve (a closed form: instant, drawn on the spot)."""
        try:
            shown = preview_text.describe(info.id, params, k, self.beta.value())
        except (ValueError, TypeError) as exc:
            self.show_invalid(str(exc))
            return
        self.show_preview(shown)

    def show_preview(self, shown: preview_text.Preview) -> None:
        """Show a preview: its words, and its curve (with T and T ± α) when it has one."""
        self.statement.setText(shown.text)
        self.alpha = shown.alpha
        self.note.setText(shown.note)
        if shown.curve is None or shown.threshold is None:
            self._clear_curve()
            return
        self.plot.setLabel("bottom", shown.x_label)
        self.plot.setLabel("left", shown.y_label)
        t, alpha = shown.threshold, shown.alpha
        x = shown.curve.span(include=() if alpha is None else (t - alpha, t + alpha))
        if shown.x_min is not None:
            x = x[x >= shown.x_min]
        self.t_line.setValue(t)
        for line, v in ((self.lo_line, t - (alpha or 0)), (self.hi_line, t + (alpha or 0))):
            line.setVisible(alpha is not None and (shown.x_min is None or v >= shown.x_min))
            line.setValue(v)
        self.curve_x, self.curve_p = x, shown.curve.probability(x)
        self.curve.setData(self.curve_x, self.curve_p)
        self.plot.setXRange(float(x[0]), float(x[-1]), padding=0.02)
        self.plot.show()

    def _clear_curve(self) -> None:
        """Without a curve the chart is hidden: its axes, T and T ± α lines would describe nothing
        (or the last mechanism's threshold)."""
        self.curve.setData([], [])
        self.curve_x, self.curve_p = np.empty(0), np.empty(0)
        self.plot.hide()


class MechanismPanel(QWidget):
    """Picker + description + parameter form + accuracy preview, bound to the workspace.

    The form and the problems follow every workspace change at once; the preview follows after
    a short pause in typing (its exact curve is a closed form: a few milliseconds).
    """

    def __init__(self, settings, workspace: Workspace, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.settings = settings
        self.workspace = workspace
        self.picker = MechanismPicker()
        self.title = named(QLabel(), "Mechanism name")
        font = self.title.font()
        font.setPointSizeF(font.pointSizeF() * 1.3)
        font.setBold(True)
        self.title.setFont(font)
        self.summary = named(QLabel(), "Mechanism summary")
        self.guarantee = named(QLabel(), "Mechanism guarantee")
        self.citation = named(QLabel(), "Mechanism citation")
        for lab in (self.summary, self.guarantee, self.citation):
            lab.setWordWrap(True)
            lab.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.citation.setEnabled(False)
        self.form = ParamForm(workspace)
        self.general_error = ErrorLabel("Parameters")
        self.warning = named(QLabel(), "Parameter warning")
        self.warning.setWordWrap(True)
        self.warning.hide()
        self.preview = AccuracyPreview()
        self.linear = LinearOptions(workspace)  # PMW / SparseProject: universe, release file
        self.preview.layout().addStretch(0)  # takes the hidden chart's room for PMW / SparseProject

        about = QWidget()
        al = QVBoxLayout(about)
        al.addWidget(self.title)
        al.addWidget(self.summary)
        al.addWidget(self.guarantee)
        al.addWidget(self.citation)
        params_box = QGroupBox("Parameters")
        pl = QVBoxLayout(params_box)
        pl.addWidget(self.form)
        pl.addWidget(self.general_error)
        pl.addWidget(self.warning)
        al.addWidget(params_box)
        al.addWidget(self.linear)
        al.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(about)
        left = QWidget()
        ll = QVBoxLayout(left)
        ll.setContentsMargins(0, 0, 0, 0)
        ll.addWidget(QLabel("Mechanism"))
        ll.addWidget(self.picker)
        split = QSplitter()
        split.addWidget(left)
        split.addWidget(scroll)
        split.addWidget(self.preview)
        split.setSizes([260, 420, 420])
        lay = QHBoxLayout(self)
        lay.addWidget(split)

        self._debounce = QTimer(self, singleShot=True, interval=200)
        self._debounce.timeout.connect(self._update_preview)
        self.picker.picked.connect(self._pick)
        self.preview.beta.valueChanged.connect(self._debounce.start)
        self.preview.compare.clicked.connect(self.open_comparison)
        self.linear.changed.connect(self._debounce.start)
        self.info: MechanismInfo | None = None
        workspace.subscribe(self._workspace_changed)
        start = settings.last_mechanism
        start = start if start in self.picker.items else "sparse"
        workspace.set_entries(settings.last_params(start))
        workspace.set_mechanism(start)
        self.picker.select(start)
        self._show_mechanism()

    @property
    def mechanism_id(self) -> str:
        return self.info.id if self.info else ""

    def _pick(self, mechanism_id: str) -> None:
        """The picker chose: the workspace follows (its entries carry over by name)."""
        self.settings.set_last_params(self.workspace.mechanism_id, self.workspace.remembered())
        self.settings.last_mechanism = mechanism_id
        self.workspace.set_mechanism(mechanism_id)

    def _workspace_changed(self, what: frozenset[str]) -> None:
        if DATASET in what and self.workspace.schema is not None:  # its columns, its public n
            self.linear.set_schema(self.workspace.schema)
        if MECHANISM in what or self.info is None:
            self._show_mechanism()
        elif PARAMS in what:
            self.form.refresh()
            self.linear.refresh()
        else:
            self.form.apply_derived()
        self._show_problems()
        self._debounce.start()

    def _show_mechanism(self) -> None:
        self.info = info = self.workspace.info
        if self.picker.currentItem() is not self.picker.items.get(info.id):
            self.picker.blockSignals(True)
            self.picker.select(info.id)
            self.picker.blockSignals(False)
        self.title.setText(info.name)
        self.summary.setText(info.summary)
        self.guarantee.setText(
            f"Guarantee: {info.guarantee}. "
            + (
                "Answers a stream of queries, one at a time, and can take queries "
                "composed after seeing earlier answers."
                if info.interactive
                else "Looks at the whole query list at once."
            )
        )
        self.citation.setText(info.citation)
        self.form.set_mechanism(info)
        self.linear.set_mechanism(info)
        self.preview.compare.setEnabled(not info.linear)  # those answer other (linear) queries

    def _show_problems(self) -> None:
        plan = self.workspace.plan
        problems = plan.by_field()
        self.form.show_problems(problems)
        self.general_error.show_error(problems.get("mechanism"))
        self.linear.show_problems(problems)
        self.warning.setText("⚠ " + "\n⚠ ".join(plan.warnings))
        self.warning.setVisible(bool(plan.warnings))

    def _update_preview(self) -> None:
        ws = self.workspace
        params, typed = ws.parameters()
        # Over the budget, the preview still shows what this ε would buy, and says why it cannot run
        # (it used to vanish, leaving the curator to guess how far to lower ε).
        over = [p.message for p in ws.plan.problems if DOES_NOT_FIT in p.message]
        problems = {p.field: p.message for p in ws.plan.problems
                    if (p.field in typed or p.field in {q.name for q in ws.info.params}
                        or p.field in ("mechanism", "universe", "release_out")) and p.message not in over}
        if problems:
            self.preview.show_invalid(next(iter(problems.values())))
            return
        self.settings.set_last_params(ws.mechanism_id, ws.remembered())
        k = len(ws.queries)
        if ws.info.linear:
            self.linear.show_preview(self.preview, params, k)
        else:
            self.preview.update_for(ws.info, ws.plan.params, k)
        if over:
            note = self.preview.note.text()
            reason = f"⚠ Cannot run as it stands: {over[0]}."
            self.preview.note.setText(reason + (f"\n{note}" if note else ""))

    def open_comparison(self) -> ComparisonDialog:
        """The side-by-side comparison for the current queue and parameters (shown, not modal)."""
        self.flush()
        dialog = ComparisonDialog(self.workspace, self.preview.beta.value(), self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.show()
        return dialog

    def flush(self) -> None:
        """Apply pending edits now (tests, Run button) instead of after the debounce."""
        if self._debounce.isActive():
            self._debounce.stop()
            self._update_preview()


__all__ = ["MechanismPanel", "MechanismPicker", "AccuracyPreview", "offered"]
