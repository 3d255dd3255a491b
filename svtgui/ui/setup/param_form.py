"""A parameter form generated from a mechanism's catalogue ``Param`` schema.

Each parameter gets an editor chosen by its kind, an inline error line right under it (errors are
shown next to the field at fault, never in a modal box), and a tooltip from the catalogue text.
Parameters that follow from the queries — Δ, and whether the queries are integer-valued or
monotonic — are shown read-only with the reason, because a curator must not be able to claim a
smaller sensitivity than the queries have.
"""

from __future__ import annotations

import math
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QSlider,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from svtgui.core.mechanisms import MechanismInfo, Param
from svtgui.ui.common.theme import WARNING_COLOR, named

DERIVED = ("sensitivity", "integer")  # always read off the queries
# Set by the run itself, never typed: the schema's neighbouring notion; PMW's T is in rows.
HIDDEN = ("neighbouring", "threshold_unit")
CHOICES = {"noise": ("gaussian", "laplace")}  # text parameters offered as a list
LABELS = {
    "epsilon": "Privacy budget ε",
    "delta": "δ",
    "threshold": "Threshold T",
    "cutoff": "Cutoff c",
    "sensitivity": "Sensitivity Δ",
    "integer": "Integer answers",
    "monotonic": "Monotonic queries",
    "split": "Noise split ε₂/ε₁",
    "numeric_share": "Budget split",
    "raise_by": "Threshold raise",
    "max_passes": "Maximum passes",
    "projection_size": "Projection size T",
    "queries": "Queries covered k",
    "beta": "Failure probability β",
    "sparsity": "Cells per query m",
    "noise": "Noise",
    "count_share": "Share of ε for n̂",
    "answer_share": "Share of ε for paid answers",
    "learning_rate": "Learning rate η",
}
SHARE_STEPS = 90  # numeric_share slider: 0 … 0.90 in steps of 0.01


def parse_number(text: str, name: str) -> float:
    """The number typed into a field, or ValueError naming the field."""
    t = text.strip().replace("−", "-")
    if not t:
        raise ValueError(f"{name} is empty: type a number")
    try:
        x = float(t)
    except ValueError:
        raise ValueError(f"{name} must be a number, got {text.strip()!r}") from None
    if not math.isfinite(x):
        raise ValueError(f"{name} must be finite, got {text.strip()!r}")
    return x


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
    """Editors for one mechanism's parameters; ``values()`` and ``problems()`` read them back."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.form = QFormLayout(self)
        self.form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.info: MechanismInfo | None = None
        self.editors: dict[str, QWidget] = {}
        self.errors: dict[str, ErrorLabel] = {}
        self.derived: dict[str, Any] = {"sensitivity": 1.0, "integer": False, "monotonic": False}
        self._monotonic_reason = ""

    # -- building ---------------------------------------------------------------------------------
    def set_mechanism(self, info: MechanismInfo, remembered: dict[str, Any]) -> None:
        while self.form.rowCount():
            self.form.removeRow(0)
        self.info, self.editors, self.errors = info, {}, {}
        for p in info.params:
            if p.name in HIDDEN:
                continue
            editor = self._editor(p, remembered.get(p.name, p.default))
            label = LABELS.get(p.name, p.name)
            named(editor, label, p.description)
            error = ErrorLabel(label)
            box = QWidget()
            col = QVBoxLayout(box)
            col.setContentsMargins(0, 0, 0, 0)
            col.setSpacing(2)
            col.addWidget(editor)
            col.addWidget(error)
            self.form.addRow(label, box)
            self.form.labelForField(box).setToolTip(p.description)
            self.editors[p.name], self.errors[p.name] = editor, error
        self.apply_derived()

    def _editor(self, p: Param, value: Any) -> QWidget:
        if p.name in CHOICES:
            combo = QComboBox()
            combo.addItems(CHOICES[p.name])
            combo.setCurrentText(str(value or p.default))
            combo.currentTextChanged.connect(self.changed)
            return combo
        if p.name == "numeric_share":
            w = ShareSlider()
            w.setValue(value or 0.0)
            w.valueChanged.connect(self.changed)
            return w
        if p.kind == "bool":
            cb = QCheckBox()
            cb.setChecked(bool(value))
            cb.toggled.connect(self.changed)
            return cb
        if p.kind == "int":
            sb = QSpinBox()
            sb.setRange(
                int(p.minimum) if p.minimum is not None else 0,
                int(p.maximum) if p.maximum is not None else 10_000_000,
            )
            sb.setGroupSeparatorShown(True)
            sb.setValue(int(value) if value is not None else sb.minimum())
            sb.valueChanged.connect(self.changed)
            return sb
        le = QLineEdit(
            "" if value is None else f"{value:g}" if isinstance(value, float | int) else str(value)
        )
        if p.name == "split":
            le.setPlaceholderText("empty = the paper's optimum")
        elif p.name in DERIVED:
            le.setReadOnly(True)
        le.textChanged.connect(self.changed)
        return le

    # -- derived values ------------------------------------------------------------------------------
    def set_derived(self, sensitivity: float, integer: bool, monotonic_ok: bool, reason: str) -> None:
        """Δ, integrality and monotonicity as the current queries determine them."""
        self.derived = {"sensitivity": sensitivity, "integer": integer, "monotonic": monotonic_ok}
        self._monotonic_reason = reason
        self.apply_derived()

    def apply_derived(self) -> None:
        ed = self.editors
        if "sensitivity" in ed:
            le: QLineEdit = ed["sensitivity"]  # type: ignore[assignment]
            le.setText(f"{self.derived['sensitivity']:g}")
            le.setToolTip(
                "Δ follows from the query definitions and the declared bounds; it cannot be typed in."
            )
        if "integer" in ed:
            cb: QCheckBox = ed["integer"]  # type: ignore[assignment]
            cb.setChecked(bool(self.derived["integer"]))
            cb.setEnabled(False)
            cb.setToolTip(
                "Set when every query is integer-valued (counts): noise and releases are then integers."
            )
        if "monotonic" in ed:
            mono: QCheckBox = ed["monotonic"]  # type: ignore[assignment]
            ok = bool(self.derived["monotonic"])
            mono.setEnabled(ok)
            if not ok:
                mono.setChecked(False)
            mono.setToolTip(
                ("Every query is monotonic, so the query noise can be halved. " if ok else "Not available: ")
                + self._monotonic_reason
            )

    # -- reading back --------------------------------------------------------------------------------
    def values(self) -> tuple[dict[str, Any], dict[str, str]]:
        """(parameters, {parameter: problem}) — only parameters whose field parsed are included."""
        params: dict[str, Any] = {}
        problems: dict[str, str] = {}
        if self.info is None:
            return params, {"mechanism": "choose a mechanism"}
        for p in self.info.params:
            if p.name in HIDDEN:
                continue
            w = self.editors[p.name]
            label = LABELS.get(p.name, p.name)
            try:
                if isinstance(w, QComboBox):
                    params[p.name] = w.currentText()
                elif p.name in DERIVED:
                    params[p.name] = self.derived[p.name]
                elif isinstance(w, ShareSlider):
                    params[p.name] = w.value()
                elif isinstance(w, QCheckBox):
                    params[p.name] = w.isChecked()
                elif isinstance(w, QSpinBox):
                    params[p.name] = w.value()
                elif isinstance(w, QLineEdit):
                    text = w.text()
                    if not text.strip() and not p.required:
                        params[p.name] = p.default
                    else:
                        x = parse_number(text, label)
                        if p.minimum is not None and x < p.minimum or p.maximum is not None and x > p.maximum:
                            raise ValueError(
                                f"{label} must be in [{p.minimum:g}, {p.maximum:g}], got {x:g}"
                                if p.maximum is not None and p.minimum is not None
                                else f"{label} must be ≥ {p.minimum:g}, got {x:g}"
                            )
                        if p.name == "epsilon" and x <= 0:
                            raise ValueError(f"{label} must be > 0, got {x:g}")
                        params[p.name] = x
            except ValueError as exc:
                problems[p.name] = str(exc)
        return params, problems

    def show_problems(self, problems: dict[str, str]) -> None:
        for name, label in self.errors.items():
            label.show_error(problems.get(name))

    def remembered(self) -> dict[str, Any]:
        """The user-set (not derived) values worth restoring next time."""
        params, _ = self.values()
        return {k: v for k, v in params.items() if k not in DERIVED and k != "monotonic"}
