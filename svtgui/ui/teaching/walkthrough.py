"""Walk-through: SVT on the toy data, one question at a time, with captions and play controls."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QSlider,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from svtgui.ui.common.theme import ABOVE_COLOR, BELOW_COLOR, THRESHOLD_COLOR, named
from svtgui.ui.teaching import toy
from svtgui.ui.teaching.common import banner, glossary_label, styled_plot, term
from svtgui.ui.teaching.glossary import tip

SPEEDS_MS = [4000, 2800, 1800, 1100, 600]  # slider positions, slow to fast
# A run that shows everything: noise pushing answers both ways, and a true answer above T (question 6)
# falling below the noisy threshold. "New random run" draws others.
DEFAULT_SEED = 153


class WalkthroughPage(QWidget):
    """Steps through :func:`toy.walkthrough`: band, noisy threshold, dots, ⊤ count, captions."""

    title = "Walk-through"

    def __init__(self, parent: QWidget | None = None, seed: int = DEFAULT_SEED) -> None:
        super().__init__(parent)
        self.seed = seed
        self.position = 0
        self.timer = QTimer(self)
        self.timer.timeout.connect(self.step_forward)

        intro = glossary_label(
            f"<h2>Watch the Sparse Vector Technique answer questions</h2>"
            f"We ask questions about a small table. SVT only says whether each noisy answer is "
            f"{term('above', '⊤ (above)')} (⊤) or {term('below', '⊥ (below)')} (⊥) a "
            f"{term('noisy threshold', 'noisy threshold')}, and stops after c ⊤ answers "
            f"({term('cutoff', 'cutoff (c)')}).",
            "⊤ (above)", "⊥ (below)", "noisy threshold", "cutoff (c)", name="Walk-through introduction")

        self.table = named(QTableWidget(len(toy.PEOPLE), 2), "Toy table",
                           "The invented toy dataset: one row per person.")
        self.table.setHorizontalHeaderLabels(["person", "cups a day"])
        for r, (name, cups) in enumerate(toy.PEOPLE):
            self.table.setItem(r, 0, QTableWidgetItem(name))
            self.table.setItem(r, 1, QTableWidgetItem(str(cups)))
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.resizeColumnsToContents()
        self.table.setFixedWidth(170)
        self.table.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.table.setSelectionMode(QTableWidget.SelectionMode.NoSelection)

        self.plot = styled_plot(self, "Walk-through chart",
                                "Question number against count of people. Shaded band: where the nudged "
                                "threshold most likely lands. Solid green line: the noisy threshold. "
                                "Hollow circles: true answers; filled dots: noisy answers (blue ▲ above, "
                                "orange ▼ below).")
        self.plot.setLabel("bottom", "question number")
        self.plot.setLabel("left", "number of people")
        self.legend = self.plot.addLegend(offset=(10, 10), labelTextColor=self.palette().text().color())
        self.band = pg.LinearRegionItem(orientation="horizontal", movable=False,
                                        brush=pg.mkBrush(THRESHOLD_COLOR.red(), THRESHOLD_COLOR.green(),
                                                         THRESHOLD_COLOR.blue(), 40),
                                        pen=pg.mkPen(None))
        self.plot.addItem(self.band)
        t_pen = pg.mkPen(THRESHOLD_COLOR, width=1, style=Qt.PenStyle.DashLine)
        noisy_pen = pg.mkPen(THRESHOLD_COLOR, width=3)
        self.t_line = pg.InfiniteLine(angle=0, pen=t_pen)
        self.plot.addItem(self.t_line)
        self.noisy_t = pg.InfiniteLine(angle=0, pen=noisy_pen)
        self.plot.addItem(self.noisy_t)
        self.links = pg.PlotDataItem(pen=pg.mkPen((128, 128, 128), width=1), connect="pairs")
        self.plot.addItem(self.links)
        self.true_dots = pg.ScatterPlotItem(symbol="o", size=11, pen=pg.mkPen((110, 110, 110), width=2),
                                            brush=pg.mkBrush(None))
        self.above_dots = pg.ScatterPlotItem(symbol="t1", size=15, pen=pg.mkPen(ABOVE_COLOR.darker(130)),
                                             brush=pg.mkBrush(ABOVE_COLOR))
        self.below_dots = pg.ScatterPlotItem(symbol="t", size=15, pen=pg.mkPen(BELOW_COLOR.darker(130)),
                                             brush=pg.mkBrush(BELOW_COLOR))
        for item in (self.true_dots, self.above_dots, self.below_dots):
            self.plot.addItem(item)
        band_sample = pg.PlotDataItem(pen=pg.mkPen(THRESHOLD_COLOR.red(), THRESHOLD_COLOR.green(),
                                                   THRESHOLD_COLOR.blue(), 70, width=12))
        self.plot.addItem(band_sample)
        # legend samples are empty stand-in lines (pyqtgraph legends cannot draw an InfiniteLine),
        # added to the plot so that the scene owns them and deletes them in order
        for pen, label in ((t_pen, f"public threshold T = {toy.THRESHOLD:g}"),
                           (noisy_pen, "noisy threshold (secret)")):
            stand_in = pg.PlotDataItem(pen=pen)
            self.plot.addItem(stand_in)
            self.legend.addItem(stand_in, label)
        self.legend.addItem(band_sample, "where the nudged threshold most likely lands")
        self.legend.addItem(self.true_dots, "true answer (secret)")
        self.legend.addItem(self.above_dots, "noisy answer: ⊤ above")
        self.legend.addItem(self.below_dots, "noisy answer: ⊥ below")

        self.caption = named(QLabel(), "Caption", tip("⊤ (above)") + "<br><br>" + tip("⊥ (below)"))
        self.caption.setWordWrap(True)
        self.caption.setMinimumHeight(70)
        self.caption.setStyleSheet("QLabel { font-size: 13pt; padding: 6px; }")
        self.question = named(QLabel(), "Current question")
        self.question.setWordWrap(True)

        self.tops = named(QProgressBar(), "Above count", tip("cutoff (c)"))
        self.tops.setRange(0, toy.CUTOFF)
        self.tops.setFormat(f"⊤ answers: %v of c = {toy.CUTOFF}")

        self.back_button = named(QPushButton("◀ Back"), "Back", "Show the previous step (←)")
        self.step_button = named(QPushButton("Step ▶"), "Step", "Show the next step (→)")
        self.play_button = named(QPushButton("▶ Play"), "Play", "Play the steps automatically (space)")
        self.play_button.setCheckable(True)
        self.restart_button = named(QPushButton("New random run"), "New run",
                                    "Draw new random noise and start again")
        self.speed = named(QSlider(Qt.Orientation.Horizontal), "Speed", "How fast Play advances")
        self.speed.setRange(0, len(SPEEDS_MS) - 1)
        self.speed.setValue(2)
        self.speed.setFixedWidth(120)
        self.step_label = named(QLabel(), "Step number")

        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.back_button.clicked.connect(self.step_back)
        self.step_button.clicked.connect(self.step_forward)
        self.play_button.toggled.connect(self.set_playing)
        self.restart_button.clicked.connect(self.new_run)
        self.speed.valueChanged.connect(self.set_speed)

        controls = QHBoxLayout()
        for w in (self.back_button, self.step_button, self.play_button):
            controls.addWidget(w)
        controls.addWidget(QLabel("speed:"))
        controls.addWidget(self.speed)
        controls.addWidget(self.step_label)
        controls.addStretch(1)
        controls.addWidget(self.tops, 1)
        controls.addWidget(self.restart_button)

        middle = QHBoxLayout()
        middle.addWidget(self.table)
        middle.addWidget(self.plot, 1)

        lay = QVBoxLayout(self)
        lay.addWidget(banner())
        lay.addWidget(intro)
        lay.addLayout(middle, 1)
        lay.addWidget(self.question)
        lay.addWidget(self.caption)
        lay.addLayout(controls)
        self.load(seed)

    # -- model ---------------------------------------------------------------------------------------
    def load(self, seed: int) -> None:
        self.seed = seed
        self.run = toy.walkthrough(seed)
        band = 2 * self.run.threshold_scale
        self.band.setRegion((toy.THRESHOLD - band, toy.THRESHOLD + band))
        self.t_line.setValue(toy.THRESHOLD)
        ys = [s.answer for s in self.run.trace] + [s.noisy_answer for s in self.run.trace]
        lo = min(ys + [toy.THRESHOLD - band, 0]) - 1
        hi = max(ys + [toy.THRESHOLD + band]) + 1
        self.plot.setXRange(0.5, len(toy.CUPS) + 0.5, padding=0)
        self.plot.getAxis("bottom").setTicks([[(i + 1, str(i + 1)) for i in range(len(toy.CUPS))]])
        self.plot.setYRange(lo, hi, padding=0)
        self.show_step(0)

    def new_run(self) -> None:
        self.load(self.seed + 1)

    @property
    def steps(self) -> list[toy.Step]:
        return self.run.steps

    def show_step(self, position: int) -> None:
        self.position = max(0, min(position, len(self.steps) - 1))
        step = self.steps[self.position]
        shown = self.run.trace[: step.shown]
        self.caption.setText(step.caption)
        self._highlight(toy.CUPS[step.shown - 1] if step.shown and not step.finished else None)
        if step.shown and not step.finished:
            counted = self.run.trace[step.shown - 1].answer
            self.question.setText(f"<b>{toy.question(step.shown - 1)}</b> — the {counted:g} highlighted "
                                  f"people in the table.")
        else:
            self.question.setText("")
        self.noisy_t.setVisible(step.threshold_drawn)
        self.noisy_t.setValue(self.run.noisy_threshold)
        xs = [s.index + 1 for s in shown]
        self.true_dots.setData(xs, [s.answer for s in shown])
        self.above_dots.setData([x for x, s in zip(xs, shown, strict=True) if s.above],
                                [s.noisy_answer for s in shown if s.above])
        self.below_dots.setData([x for x, s in zip(xs, shown, strict=True) if not s.above],
                                [s.noisy_answer for s in shown if not s.above])
        pairs_x = [x for x in xs for _ in range(2)]
        pairs_y = [v for s in shown for v in (s.answer, s.noisy_answer)]
        self.links.setData(pairs_x, pairs_y)
        self.tops.setValue(step.above_count)
        self.step_label.setText(f"step {self.position + 1} of {len(self.steps)}")
        self.back_button.setEnabled(self.position > 0)
        last = self.position == len(self.steps) - 1
        self.step_button.setEnabled(not last)
        if last and self.play_button.isChecked():
            self.play_button.setChecked(False)

    def _highlight(self, cups: int | None) -> None:
        """Mark the people counted by the current question (those with at least ``cups`` cups)."""
        colour = self.palette().highlight().color()
        colour.setAlpha(70)
        for r, (_name, c) in enumerate(toy.PEOPLE):
            counted = cups is not None and c >= cups
            for col in range(2):
                self.table.item(r, col).setBackground(colour if counted else Qt.GlobalColor.transparent)

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 - Qt override
        """→ next step, ← previous step, space play/pause (keys the buttons do not use reach here)."""
        actions = {Qt.Key.Key_Right: self.step_forward, Qt.Key.Key_Left: self.step_back,
                   Qt.Key.Key_Space: self.play_button.toggle}
        action = actions.get(Qt.Key(event.key()))
        if action is None:
            super().keyPressEvent(event)
            return
        action()
        event.accept()

    # -- controls ------------------------------------------------------------------------------------
    def step_forward(self) -> None:
        self.show_step(self.position + 1)

    def step_back(self) -> None:
        self.show_step(self.position - 1)

    def set_speed(self, position: int) -> None:
        self.timer.setInterval(SPEEDS_MS[position])

    def set_playing(self, playing: bool) -> None:
        self.play_button.setText("⏸ Pause" if playing else "▶ Play")
        if playing:
            if self.position == len(self.steps) - 1:
                self.show_step(0)
            self.timer.start(SPEEDS_MS[self.speed.value()])
        else:
            self.timer.stop()
