"""The mechanism panel's extra options for PMW and SparseProject, their accuracy words, and the
run page's note about what such a run released.

* PMW: the universe chooser; T is in rows (see ``svtgui.app.runs.linear``) and the preview
  states both guarantees — free answers within T + α_svt, paid answers within the Laplace tail.
* SparseProject: the universe chooser and a release builder — the output file, and the paper's
  projection size shown next to the chosen T, computed at a *public* planning n (the real n is
  private under add/remove neighbours; the release uses its own noisy n̂).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from svtgui.app.preview_text import describe
from svtgui.app.runs.linear import PMW, SPARSE_PROJECT, release_path
from svtgui.app.workspace import Workspace
from svtgui.core import mechanisms
from svtgui.core.mechanisms import MechanismInfo
from svtgui.core.wording import plain
from svtgui.ui.common.theme import named
from svtgui.ui.setup.linear_universe import UniverseChooser
from svtgui.ui.setup.param_form import ErrorLabel

RELEASE_FILTER = "SparseProject releases (*.npz)"
PLANNING_N = 10_000
RUN_KEYS = ("universe", "release_out")  # run parameters, not catalogue ones


class ReleaseBuilder(QGroupBox):
    """Where the SparseProject release goes, and the paper's T at a public planning n."""

    changed = Signal()

    def __init__(self, parent=None) -> None:
        super().__init__("Release file", parent)
        named(self, "SparseProject release builder")
        self.path = named(QLineEdit(), "Release output file",
                          "The .npz file the release is written to. Anyone can answer count queries from "
                          "it later (Tools ▸ Answer from a release file…), without the data.")
        self.path.setPlaceholderText("choose where to write the release (.npz)")
        self.browse = named(QPushButton("Browse…"), "Choose the release file", "Choose the output file")
        self.planning_n = named(QSpinBox(), "Planning n",
                                "A public guess of the number of rows, used only for the preview and "
                                "the paper's T (the release normalises by its own noisy n̂).")
        self.planning_n.setRange(1, 1_000_000_000)
        self.planning_n.setGroupSeparatorShown(True)
        self.planning_n.setValue(PLANNING_N)
        self.paper = named(QLabel(), "Paper's projection size")
        self.paper.setWordWrap(True)
        self.error = ErrorLabel("Release file")
        row = QHBoxLayout()
        row.addWidget(self.path, 1)
        row.addWidget(self.browse)
        form = QFormLayout(self)
        form.addRow("Output file", row)
        form.addRow("", self.error)
        form.addRow("Planning n (public)", self.planning_n)
        form.addRow("Projection size", self.paper)
        self.browse.clicked.connect(self.choose)
        self.path.textChanged.connect(self.changed)
        self.planning_n.valueChanged.connect(self.changed)

    def choose(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Write the SparseProject release to", "release.npz",
                                              RELEASE_FILTER)
        if path:
            self.path.setText(path if path.endswith(".npz") else path + ".npz")

    def set_public_n(self, n: int | None) -> None:
        """Under replace-one neighbours n is public: use it and stop asking."""
        if n is not None:
            self.planning_n.setValue(int(n))
        self.planning_n.setEnabled(n is None)

    def problem(self) -> str | None:
        try:
            release_path(self.path.text())
        except ValueError as exc:
            return str(exc)
        return None

    def show_theory(self, params: dict[str, Any]) -> None:
        """The chosen T next to the paper's T, and the α the header will state (at planning n)."""
        try:
            m = mechanisms.create(SPARSE_PROJECT, rng=mechanisms.seeded(0), **params)
            acc = m.accuracy(self.planning_n.value())
        except (ValueError, TypeError) as exc:
            self.paper.setText(f"— ({exc})")
            return
        self.paper.setText(
            f"{plain(m.projection_size)} (yours) · the paper's would be {plain(acc.paper_projection_size)} "
            f"(for n = {plain(self.planning_n.value())}, m = {m.sparsity}, k = {plain(m.queries)}: never "
            "practical)")


class LinearOptions(QWidget):
    """Shown under the parameter form when PMW or SparseProject is chosen; bound to the workspace
    (its entries ``universe`` and ``release_out``)."""

    changed = Signal()  # the planning n (preview only) changed

    def __init__(self, workspace: Workspace, parent=None) -> None:
        super().__init__(parent)
        named(self, "Linear query options")
        self.workspace = workspace
        self.universe = UniverseChooser()
        self.release = ReleaseBuilder()
        self.unit_note = named(QLabel(), "Threshold unit")
        self.unit_note.setWordWrap(True)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.unit_note)
        lay.addWidget(self.universe)
        lay.addWidget(self.release)
        self.info: MechanismInfo | None = None
        self.universe.changed.connect(lambda: workspace.set_entry("universe", self.universe.specs()))
        self.release.path.textChanged.connect(lambda text: workspace.set_entry("release_out", text.strip()))
        self.release.planning_n.valueChanged.connect(self.changed)
        self.hide()

    @property
    def mechanism_id(self) -> str:
        return self.info.id if self.info else ""

    def set_mechanism(self, info: MechanismInfo) -> None:
        self.info = info
        self.setVisible(info.linear)
        self.release.setVisible(info.input == mechanisms.RELEASE)
        self.unit_note.setVisible(info.input == mechanisms.HISTOGRAM)
        self.unit_note.setText(
            "Threshold T is in rows: a query is paid for (fresh noise, one of the c paid answers) when the "
            "answer from the public synthetic histogram is off by more than about T rows; otherwise the "
            "synthetic answer is released, free. Answers are in rows (normalised answers × n̂).")
        self.refresh()

    def refresh(self) -> None:
        """Show the workspace's universe and release file (a restored session, another mechanism)."""
        specs = list(self.workspace.entry("universe") or [])
        if specs != self.universe.specs():
            self.universe.set_specs(specs)
        path = self.workspace.entry("release_out") or ""
        if path != self.release.path.text().strip():
            self.release.path.setText(path)

    def set_schema(self, schema: Any) -> None:
        self.universe.set_schema(schema)
        n = getattr(schema, "n", None) if getattr(schema.neighbouring, "value", "") == "replace" else None
        self.release.set_public_n(n)

    def show_problems(self, problems: dict[str, str]) -> None:
        """The plan's word on the release file, under the field (once something was typed)."""
        typed = bool(self.release.path.text().strip())
        self.release.error.show_error(problems.get("release_out") if typed else None)

    def release_summary(self) -> str:
        """What a SparseProject run spends its budget on, in the words of the spend confirmation."""
        size = self.universe.size
        cells = f"{size:,} cells" if size else "the chosen columns"
        return (f"one SparseProject release: a noisy projection of the histogram over {cells} "
                f"({' × '.join(self.universe.specs())}), written to {self.release.path.text().strip()}. "
                "No queries are answered now: anyone answers count queries from that file later, without "
                "the data, and that costs nothing more")

    def show_preview(self, preview: Any, params: dict[str, Any], k: int) -> None:
        """Fill the mechanism panel's accuracy preview: PMW's words and its chance of paying, or
        SparseProject's words (no curve: a release answers no query now)."""
        n, beta = self.release.planning_n.value(), preview.beta.value()
        try:
            preview.show_preview(describe(self.mechanism_id, params, k, beta, n))
        except ValueError as exc:
            preview.show_invalid(str(exc))
        if self.mechanism_id == SPARSE_PROJECT:
            self.release.show_theory({p: v for p, v in params.items() if p not in RUN_KEYS})


class LinearRunNote(QLabel):
    """On the run page: what a PMW or SparseProject run released besides the table rows."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        named(self, "Linear run note")
        self.setWordWrap(True)
        self.hide()

    def show_run(self, mechanism_id: str, facts: dict[str, Any]) -> None:
        if mechanism_id == SPARSE_PROJECT and facts.get("release_file"):
            alpha = facts.get("alpha")
            self.setText(
                f"Release written to {Path(facts['release_file']).name} ({facts['release_file']}); "
                f"SHA-256 {str(facts.get('release_sha256', ''))[:16]}…, "
                f"projection size {facts.get('projection_size'):,}, n̂ = {facts.get('n_released'):,}"
                + (f", theoretical α = {plain(alpha, 4)}" if alpha is not None else "")
                + ". Answer count queries from it with Tools ▸ Answer from a release file… (no data needed).")
        elif mechanism_id == PMW and "n_released" in facts:
            self.setText(
                f"PMW released n̂ = {facts['n_released']:,} at the start. “free” answers come from the "
                "public synthetic histogram and cost nothing; “paid” answers are fresh noisy counts, at most "
                "c of them.")
        else:
            self.hide()
            return
        self.show()
