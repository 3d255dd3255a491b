"""Step 2 and 3: choose a mechanism, set its parameters, see the accuracy before spending anything.

Only mechanisms whose catalogue status is ``private`` are offered; the known-non-private teaching
variants never appear here. The accuracy preview comes from :mod:`svtgui.core.accuracy` (public
parameters only) and from a simulation on synthetic numbers (:mod:`svtgui.ui.setup.preview_sim`), never
from the private data.
"""

from __future__ import annotations

import importlib
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

from svtgui.core import mechanisms
from svtgui.core.mechanisms import PRIVATE, MechanismInfo
from svtgui.ui.common.theme import ABOVE_COLOR, THRESHOLD_COLOR, named
from svtgui.ui.setup import preview_sim
from svtgui.ui.setup.linear_panel import LinearOptions, is_linear
from svtgui.ui.setup.param_form import LABELS, ErrorLabel, ParamForm

GROUPS = (
    (
        True,
        "Interactive (a stream of queries)",
        "Answer queries one at a time; later queries may depend on earlier answers",
    ),
    (False, "Non-interactive (the whole list)", "Look at the whole query list at once and choose from it"),
)


def _accuracy_module():
    """svtgui.core.accuracy if present (it is built alongside the GUI)."""
    try:
        return importlib.import_module("svtgui.core.accuracy")
    except ImportError:
        return None


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

    @staticmethod
    def _words(result, params: dict[str, Any], k: int) -> str:
        """The bound as a sentence with the numbers filled in."""
        a = float(result.alpha)
        text = f"α = {a:,.4g} at β = {result.beta:g}, over {k:,} queries.\n{result.statement}"
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
        self.statement.setText(f"No preview: {why}")
        self.curve.setData([], [])
        self.sim_x, self.sim_p = np.empty(0), np.empty(0)

    def update_for(self, info: MechanismInfo, params: dict[str, Any], k: int) -> None:
        beta = self.beta.value()
        acc = _accuracy_module()
        alpha = None
        if acc is None:
            self.statement.setText("Accuracy bounds are not available in this build.")
        else:
            try:
                result = acc.bound(info.id, params, max(1, k), beta)
                alpha = float(result.alpha)
                self.statement.setText(self._words(result, params, k))
            except Exception as exc:  # noqa: BLE001 - some mechanisms have no closed-form bound
                self.statement.setText(
                    f"No closed-form (α, β) bound for {info.name} with these parameters "
                    f"({type(exc).__name__}: {exc})."
                )
        self.alpha = alpha
        if "threshold" not in params or not info.interactive:
            self.curve.setData([], [])
            self.sim_x, self.sim_p = np.empty(0), np.empty(0)
            self.note.setText(
                "The simulated curve applies to threshold mechanisms; this one selects from the whole list."
            )
            return
        self.note.setText(
            "Curve simulated on synthetic numbers, never your data (60 one-query runs per point)."
        )
        t = float(params["threshold"])
        scale = alpha if alpha and np.isfinite(alpha) else 10 * float(params.get("sensitivity", 1.0))
        offsets = preview_sim.offsets_for(scale, bool(params.get("integer")))
        try:
            self.sim_p = preview_sim.top_probability(info.id, params, offsets)
        except Exception as exc:  # noqa: BLE001 - a mechanism without a plain submit(answer)
            self.curve.setData([], [])
            self.sim_x, self.sim_p = np.empty(0), np.empty(0)
            self.note.setText(f"No simulated curve for this mechanism ({type(exc).__name__}).")
            return
        self.sim_x = t + offsets
        self.curve.setData(self.sim_x, self.sim_p)
        self.t_line.setValue(t)
        show = bool(alpha is not None and np.isfinite(alpha))
        for line, v in ((self.lo_line, t - (alpha or 0)), (self.hi_line, t + (alpha or 0))):
            line.setVisible(show)
            line.setValue(v)
        self.plot.setXRange(float(self.sim_x[0]), float(self.sim_x[-1]), padding=0.02)


class MechanismPanel(QWidget):
    """Picker + description + parameter form + accuracy preview; emits ``changed``."""

    changed = Signal()

    def __init__(self, settings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.settings = settings
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
        self.form = ParamForm()
        self.general_error = ErrorLabel("Parameters")
        self.preview = AccuracyPreview()
        self.linear = LinearOptions()  # PMW / SparseProject: universe, release file
        self.preview.layout().addStretch(0)  # takes the hidden chart's room for PMW / SparseProject
        self.k = 0

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
        self._debounce.timeout.connect(self._recompute)
        self.picker.picked.connect(self._set_mechanism)
        self.form.changed.connect(self._debounce.start)
        self.linear.changed.connect(self._debounce.start)
        self.preview.beta.valueChanged.connect(self._debounce.start)
        self.info: MechanismInfo | None = None
        self.problems: dict[str, str] = {}
        start = settings.last_mechanism
        self.picker.select(start if start in self.picker.items else "sparse")

    @property
    def mechanism_id(self) -> str:
        return self.info.id if self.info else ""

    def _set_mechanism(self, mechanism_id: str) -> None:
        if self.info is not None:
            self.settings.set_last_params(self.info.id, self.form.remembered())
        self.info = info = mechanisms.info(mechanism_id)
        self.settings.last_mechanism = mechanism_id
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
        self.form.set_mechanism(info, self.settings.last_params(mechanism_id))
        self.linear.set_mechanism(mechanism_id)
        self._recompute()

    def set_derived(self, sensitivity: float, integer: bool, monotonic_ok: bool, reason: str, k: int) -> None:
        self.k = k
        self.form.set_derived(sensitivity, integer, monotonic_ok, reason)
        self._debounce.start()

    def params(self) -> tuple[dict[str, Any], dict[str, str]]:
        """(parameters, problems) after full validation by the core (a mechanism is built, never run)."""
        params, problems = self.form.values()
        if self.info is None or problems:
            return params, problems
        try:
            mechanisms.create(self.info.id, rng=mechanisms.seeded(0), **params, **self.linear.core_extras())
        except ValueError as exc:
            text = str(exc)
            field = next(
                (p.name for p in self.info.params if p.name in text.split()[0:3] or text.startswith(p.name)),
                None,
            )
            problems[field or "mechanism"] = (
                text.replace(field, LABELS.get(field, field), 1) if field else text
            )
        if is_linear(self.info.id):
            problems.update(self.linear.problems())
            params.update(self.linear.run_params())
        return params, problems

    def _recompute(self) -> None:
        if self.info is None:
            return
        params, problems = self.params()
        self.problems = problems
        self.form.show_problems(problems)
        self.general_error.show_error(problems.get("mechanism"))
        if problems:
            self.preview.show_invalid(next(iter(problems.values())))
        else:
            self.settings.set_last_params(self.info.id, self.form.remembered())
            self.preview.plot.setVisible(not is_linear(self.info.id))  # no single-threshold curve
            if is_linear(self.info.id):
                self.linear.show_preview(self.preview, params, self.k)
            else:
                self.preview.update_for(self.info, params, self.k)
        self.changed.emit()

    def flush(self) -> None:
        """Apply pending edits now (tests, Run button) instead of after the debounce."""
        if self._debounce.isActive():
            self._debounce.stop()
            self._recompute()


__all__ = ["MechanismPanel", "MechanismPicker", "AccuracyPreview", "offered"]
