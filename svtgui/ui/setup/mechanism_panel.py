"""Step 2 and 3: choose a mechanism, set its parameters, see the accuracy before spending anything.

Only mechanisms whose catalogue status is ``private`` are offered; the known-non-private teaching
variants never appear here. The accuracy preview comes from :mod:`svtgui.core.accuracy` (public
parameters only) and from a simulation on synthetic numbers (:mod:`svtgui.ui.setup.preview_sim`), never
from the private data.
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
    QScrollArea,
    QSplitter,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from svtgui.app.workspace import MECHANISM, PARAMS, Workspace
from svtgui.core import accuracy, mechanisms
from svtgui.core.mechanisms import PRIVATE, MechanismInfo
from svtgui.core.wording import count
from svtgui.ui.common.background import Background
from svtgui.ui.common.theme import ABOVE_COLOR, THRESHOLD_COLOR, named
from svtgui.ui.setup import preview_sim
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
        self.plot = pg.PlotWidget(background=pal.color(QPalette.ColorRole.Base))
        named(
            self.plot,
            "Simulated preview chart",
            "Simulated on synthetic numbers, never your data: the chance that a query whose true "
            "answer is x comes back ⊤.",
        )
        self.plot.setMinimumHeight(150)
        fg = pal.color(QPalette.ColorRole.Text)
        for axis in ("left", "bottom"):
            self.plot.getAxis(axis).setTextPen(fg)
            self.plot.getAxis(axis).setPen(fg)
        self.plot.setLabel("bottom", "true answer of a query (synthetic)")
        self.plot.setLabel("left", "P[⊤]")
        self.plot.setYRange(0, 1.05, padding=0)
        self.plot.setMouseEnabled(False, False)
        self.curve = self.plot.plot(
            pen=pg.mkPen(ABOVE_COLOR, width=2), symbol="o", symbolSize=5, symbolBrush=ABOVE_COLOR
        )
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
        self.note = QLabel("Simulated on synthetic numbers, not your data.")
        self.note.setEnabled(False)
        row = QHBoxLayout()
        row.addWidget(QLabel("β"))
        row.addWidget(self.beta)
        row.addStretch(1)
        lay = QVBoxLayout(self)
        lay.addWidget(self.statement)
        lay.addLayout(row)
        lay.addWidget(self.plot, 1)
        lay.addWidget(self.note)
        self.alpha: float | None = None
        self.sim_x = np.empty(0)
        self.sim_p = np.empty(0)
        self.sim = Background("accuracy preview", self)  # the simulated curve, off the GUI thread

    @staticmethod
    def _words(result, params: dict[str, Any], k: int) -> str:
        """The bound as a sentence with the numbers filled in."""
        a = float(result.alpha)
        text = f"α = {a:,.4g} at β = {result.beta:g}, over {count(k, 'query')}.\n{result.statement}"
        if "threshold" in params:
            t = float(params["threshold"])
            text += (
                f"\nWith T = {t:,.6g}: queries whose true answer is below {t - a:,.6g} come back ⊥, "
                f"those above {t + a:,.6g} come back ⊤ (until the run halts), "
                f"with probability at least {1 - result.beta:g}."
            )
        return text + f"\nSource: {result.source}."

    def show_invalid(self, why: str) -> None:
        self.alpha = None
        self.sim.cancel()
        self.statement.setText(f"No preview: {why}")
        self._clear_curve()

    def update_for(self, info: MechanismInfo, params: dict[str, Any], k: int) -> None:
        """The bound now (one mechanism built); the simulated curve off the GUI thread (it builds
        about two thousand mechanisms), drawn when it arrives — a newer edit supersedes it."""
        beta = self.beta.value()
        alpha = None
        try:
            result = accuracy.bound(info.id, params, max(1, k), beta)
            alpha = float(result.alpha)
            self.statement.setText(self._words(result, params, k))
        except Exception as exc:  # noqa: BLE001 - some mechanisms have no closed-form bound
            self.statement.setText(
                f"No closed-form (α, β) bound for {info.name} with these parameters "
                f"({type(exc).__name__}: {exc})."
            )
        self.alpha = alpha
        if "threshold" not in params or not info.interactive:
            self.sim.cancel()
            self._clear_curve()
            self.note.setText(
                "The simulated curve applies to threshold mechanisms; this one selects from the whole list."
            )
            return
        t = float(params["threshold"])
        scale = alpha if alpha and np.isfinite(alpha) else 10 * float(params.get("sensitivity", 1.0))
        offsets = preview_sim.offsets_for(scale, bool(params.get("integer")))
        self.t_line.setValue(t)
        show = bool(alpha is not None and np.isfinite(alpha))
        for line, v in ((self.lo_line, t - (alpha or 0)), (self.hi_line, t + (alpha or 0))):
            line.setVisible(show)
            line.setValue(v)
        self.note.setText("Simulating the curve on synthetic numbers, never your data …")
        self.sim.start(preview_sim.curve_task, lambda p: self._curve(t + offsets, p), self._no_curve,
                       info.id, dict(params), offsets)

    def _curve(self, x: np.ndarray, p: np.ndarray) -> None:
        self.sim_x, self.sim_p = x, p
        self.curve.setData(x, p)
        self.plot.setXRange(float(x[0]), float(x[-1]), padding=0.02)
        self.note.setText(
            f"Curve simulated on synthetic numbers, never your data ({preview_sim.REPS} one-query runs "
            "per point).")

    def _no_curve(self, exc: BaseException) -> None:
        self._clear_curve()
        self.note.setText(f"No simulated curve for this mechanism ({type(exc).__name__}).")

    def _clear_curve(self) -> None:
        self.curve.setData([], [])
        self.sim_x, self.sim_p = np.empty(0), np.empty(0)


class MechanismPanel(QWidget):
    """Picker + description + parameter form + accuracy preview, bound to the workspace.

    The form and the problems follow every workspace change at once; the preview follows after
    a short pause in typing (and its simulated curve is computed off the GUI thread).
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
        self.preview.plot.setVisible(not info.linear)  # no single-threshold curve

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
        problems = {p.field: p.message for p in ws.plan.problems
                    if p.field in typed or p.field in {q.name for q in ws.info.params}
                    or p.field in ("mechanism", "universe", "release_out")}
        if problems:
            self.preview.show_invalid(next(iter(problems.values())))
            return
        self.settings.set_last_params(ws.mechanism_id, ws.remembered())
        k = max(1, len(ws.queries))
        if ws.info.linear:
            self.linear.show_preview(self.preview, params, k)
        else:
            self.preview.update_for(ws.info, ws.plan.params, k)

    def flush(self) -> None:
        """Apply pending edits now (tests, Run button) instead of after the debounce."""
        if self._debounce.isActive():
            self._debounce.stop()
            self._update_preview()


__all__ = ["MechanismPanel", "MechanismPicker", "AccuracyPreview", "offered"]
