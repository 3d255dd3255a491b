"""A parameter form generated from a mechanism's catalogue ``Param`` schema.

Each parameter gets an editor chosen by its kind, an inline error line right under it (errors are
shown next to the field at fault, never in a modal box), and a tooltip from the catalogue text.
Parameters that follow from the queries — Δ, and whether the queries are integer-valued or
monotonic — are shown read-only with the reason, because a curator must not be able to claim a
smaller sensitivity than the queries have.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QSizePolicy,
    QSlider,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from svtgui.app.numbers import field_text
from svtgui.app.threshold_default import PROMPT as THRESHOLD_PROMPT
from svtgui.app.workspace import DERIVED, HIDDEN, LABELS, Workspace, label, parse_number
from svtgui.core.mechanisms import HISTOGRAM, MechanismInfo, Param
from svtgui.ui.common.theme import WARNING_COLOR, named

__all__ = ["DERIVED", "HIDDEN", "LABELS", "ErrorLabel", "ParamForm", "ShareSlider", "parse_number"]

CHOICES = {"noise": ("gaussian", "laplace")}  # text parameters offered as a list
# What to type, beyond what the parameter is (the catalogue's description says that): advice that
# holds for every threshold mechanism. PMW's T is in rows of error and keeps its own description.
ADVICE = {
    "epsilon": "Smaller ε: more privacy, more noise. The run costs ε however many queries it answers; "
               "the preview on the right says what accuracy it buys.",
    "threshold": "Choose it from what you know publicly about the population, never from this data: where "
                 "“interesting” starts. Keep it at least α (the preview's) away from where most answers lie: "
                 "an answer within α of T can come back either way.",
    "cutoff": "How many ⊤ answers you really need: the noise grows with c, so ask for no more.",
    "delta": "Keep δ far below 1 / (number of rows), such as 0.000001: δ is the chance that the ε promise "
             "fails.",
}
SHARE_STEPS = 90  # numeric_share slider: 0 … 0.90 in steps of 0.01


class ErrorLabel(QLabel):
    """The inline, non-modal message under a field (hidden while the field is fine)."""

    def __init__(self, field: str) -> None:
        super().__init__()
        named(self, f"{field} error")
        self.setWordWrap(True)
        self.setStyleSheet(f"color: {WARNING_COLOR.name()};")
        self.hide()

    def show_error(self, message: str | None) -> None:
        self.setText(f"⚠ {message}" if message else "")
        self.setVisible(bool(message))


class FieldError(ErrorLabel):
    """A field's error in a reserved box of :data:`LINES` lines: fields below never move when it appears.

    Why reserved: a message appearing under a field pushed every field below it down while the
    curator typed (by as many lines as the window is narrow). The box keeps its height while hidden;
    a message longer than the box ends with "…" and is shown whole in the tooltip.
    """

    LINES = 2

    def __init__(self, field: str, lines: int = LINES) -> None:
        """``lines``: the box's height; 0 for a field whose value cannot be wrong as typed (a tick box,
        a value derived from the queue), whose rare message may then move the fields below it."""
        super().__init__(field)
        policy = self.sizePolicy()
        policy.setRetainSizeWhenHidden(lines > 0)
        policy.setHorizontalPolicy(QSizePolicy.Policy.Ignored)  # never widens the form
        self.setSizePolicy(policy)
        self.setFixedHeight(max(lines, 1) * self.fontMetrics().lineSpacing() + 2)
        self.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.field = field
        self._full = ""

    def show_error(self, message: str | None) -> None:
        self.setToolTip(f"⚠ {message}" if message else "")
        if message and message.startswith(self.field + " "):
            message = message[len(self.field) + 1:]  # it sits under the field: "must be a number, …"
        self._full = f"⚠ {message}" if message else ""
        self._fit()
        self.setVisible(bool(message))

    def full_text(self) -> str:
        """The whole message (the box may show it shortened)."""
        return self._full

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().resizeEvent(event)
        self._fit()

    def _fit(self) -> None:
        """The longest prefix of whole words (plus "…") that wraps into the box."""
        fm, box = self.fontMetrics(), self.contentsRect()
        flags = int(Qt.TextFlag.TextWordWrap)

        def fits(text: str) -> bool:
            rect = fm.boundingRect(box.x(), 0, max(box.width(), 40), 10_000, flags, text)
            return rect.height() <= box.height()

        words = self._full.split(" ")
        if fits(self._full):
            self.setText(self._full)
            return
        lo, hi = 0, len(words)  # fits(words[:lo] + "…") holds; words[:hi] does not
        while hi - lo > 1:
            mid = (lo + hi) // 2
            lo, hi = (mid, hi) if fits(" ".join(words[:mid]) + "…") else (lo, mid)
        self.setText(" ".join(words[:lo]) + "…")


class ShareSlider(QWidget):
    """numeric_share in words: more for finding ⊤ queries ◀──▶ more for answering them."""

    valueChanged = Signal()

    def __init__(self) -> None:
        super().__init__()
        self.slider = named(
            QSlider(Qt.Orientation.Horizontal),
            "Budget split slider",
            "Left: more budget for finding the queries above T (fewer false ⊤/⊥). "
            "Right: more for answering them (more accurate released numbers).",
        )
        self.slider.setRange(0, SHARE_STEPS)
        self.slider.setPageStep(10)
        self.words = named(QLabel(), "Budget split in words")
        self.words.setWordWrap(True)
        row = QHBoxLayout()
        row.addWidget(QLabel("more for finding"))
        row.addWidget(self.slider, 1)
        row.addWidget(QLabel("more for answering"))
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addLayout(row)
        lay.addWidget(self.words)
        self.slider.valueChanged.connect(self._changed)
        self._changed()

    def value(self) -> float:
        return self.slider.value() / 100

    def setValue(self, v: float) -> None:  # noqa: N802 - Qt naming
        self.slider.setValue(round(float(v) * 100))

    def _changed(self) -> None:
        share = self.value()
        if share == 0:
            self.words.setText(
                "All of ε goes to finding the queries above T: answers are ⊤/⊥ only, no numbers."
            )
        else:
            self.words.setText(
                f"{100 - round(share * 100)}% of ε finds the queries above T, "
                f"{round(share * 100)}% answers them with fresh noisy numbers."
            )
        self.valueChanged.emit()


class ParamForm(QWidget):
    """Editors for one mechanism's parameters, bound to a :class:`Workspace`.

    Each editor writes its value to the workspace entry of the same name as it changes (the value
    its own signal carries), and shows the workspace's entry when the workspace changes from
    elsewhere (a session restored, a sample's starting values). Nothing is read back from widgets.
    """

    def __init__(self, workspace: Workspace, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.workspace = workspace
        self.form = QFormLayout(self)
        self.form.setContentsMargins(0, 0, 0, 0)  # the Parameters box frames it already
        self.form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.info: MechanismInfo | None = None
        self.editors: dict[str, QWidget] = {}
        self.errors: dict[str, ErrorLabel] = {}
        self._show: dict[str, Callable[[Any], None]] = {}  # entry → editor, per editor kind
        self._updating = False

    # -- building ---------------------------------------------------------------------------------
    def set_mechanism(self, info: MechanismInfo) -> None:
        while self.form.rowCount():
            self.form.removeRow(0)
        self.info, self.editors, self.errors, self._show = info, {}, {}, {}
        self._updating = True
        try:
            for p in info.params:
                if p.name in HIDDEN:
                    continue
                editor = self._editor(p)
                text = label(p.name)
                tip = _tooltip(p, info)
                named(editor, text, tip)
                chosen = p.kind == "bool" or p.name in DERIVED or isinstance(editor, ShareSlider)
                error = FieldError(text, 0 if chosen else FieldError.LINES)  # picked, never mistyped
                box = QWidget()
                col = QVBoxLayout(box)
                col.setContentsMargins(0, 0, 0, 0)
                col.setSpacing(2)
                col.addWidget(editor)
                col.addWidget(error)
                self.form.addRow(text, box)
                self.form.labelForField(box).setToolTip(tip)
                self.editors[p.name], self.errors[p.name] = editor, error
        finally:
            self._updating = False
        self.refresh()

    def _write(self, name: str, value: Any) -> None:
        if not self._updating:
            self.workspace.set_entry(name, value)

    def _editor(self, p: Param) -> QWidget:
        name = p.name
        if name in CHOICES:
            combo = QComboBox()
            combo.addItems(CHOICES[name])
            self._show[name] = lambda v: combo.setCurrentText(str(v or p.default))
            combo.currentTextChanged.connect(lambda text: self._write(name, text))
            return combo
        if name == "numeric_share":
            w = ShareSlider()
            self._show[name] = lambda v: w.setValue(float(v or 0.0))
            w.valueChanged.connect(lambda: self._write(name, w.value()))
            return w
        if p.kind == "bool":
            cb = QCheckBox()
            if name not in ("integer", "monotonic"):  # those two follow the queue (apply_derived)
                self._show[name] = lambda v: cb.setChecked(bool(v))
            cb.toggled.connect(lambda on: self._write(name, on))
            return cb
        if p.kind == "int":
            sb = QSpinBox()
            sb.setRange(int(p.minimum) if p.minimum is not None else 0,
                        int(p.maximum) if p.maximum is not None else 10_000_000)
            sb.setGroupSeparatorShown(True)
            self._show[name] = lambda v: sb.setValue(int(v) if _whole(v) else sb.minimum())
            sb.valueChanged.connect(lambda v: self._write(name, v))
            return sb
        le = QLineEdit()
        if name == "split":
            le.setPlaceholderText("empty = the paper's optimum")
        elif name == "threshold":
            le.setPlaceholderText(THRESHOLD_PROMPT)
        if name in DERIVED:
            le.setReadOnly(True)
        else:
            self._show[name] = lambda v: _set_text(le, v)
            le.textChanged.connect(lambda text: self._write(name, text))
        return le

    # -- following the workspace ------------------------------------------------------------------
    def refresh(self) -> None:
        """Show the workspace's entries (and the queue's derived values) in the editors."""
        self._updating = True
        try:
            for name, show in self._show.items():
                show(self.workspace.entry(name))
        finally:
            self._updating = False
        self.apply_derived()

    def apply_derived(self) -> None:
        """Δ, integrality and monotonicity as the current queue determines them (read-only, with why)."""
        facts, ed = self.workspace.facts, self.editors
        self._updating = True
        try:
            if "sensitivity" in ed:
                le: QLineEdit = ed["sensitivity"]  # type: ignore[assignment]
                le.setText(field_text(facts.sensitivity or 1.0))
                le.setToolTip("Δ follows from the query definitions and the declared bounds; "
                              "it cannot be typed in.")
            if "integer" in ed:
                cb: QCheckBox = ed["integer"]  # type: ignore[assignment]
                cb.setChecked(bool(facts.count and facts.problem is None and facts.integer))
                cb.setEnabled(False)
                cb.setToolTip("Set when every query is integer-valued (counts): noise and releases are "
                              "then integers.")
            if "monotonic" in ed:
                mono: QCheckBox = ed["monotonic"]  # type: ignore[assignment]
                ok = facts.monotonic
                mono.setEnabled(ok)
                mono.setChecked(ok and self.workspace.monotonic_requested())
                reason = facts.monotonic_reason.rstrip(".")
                mono.setToolTip(f"{reason[:1].upper()}{reason[1:]}: the query noise can be halved." if ok
                                else f"Not available: {reason}.")
        finally:
            self._updating = False

    def show_problems(self, problems: dict[str, str]) -> None:
        for name, error in self.errors.items():
            error.show_error(problems.get(name))


def _tooltip(p: Param, info: MechanismInfo) -> str:
    """The parameter's description, and for the common ones what a curator should type."""
    advice = ADVICE.get(p.name)
    if advice is None or (p.name == "threshold" and info.input == HISTOGRAM):
        return p.description
    return f"{p.description.rstrip('.')}. {advice}"


def _whole(v: Any) -> bool:
    try:
        return v is not None and not isinstance(v, bool) and float(v) == int(float(v))
    except (TypeError, ValueError):
        return False


def _set_text(le: QLineEdit, value: Any) -> None:
    text = "" if value is None else field_text(value) if isinstance(value, float | int) else str(value)
    if le.text() != text:
        le.setText(text)
