"""A chart axis whose tick labels are numbers as a curator reads them ("30,000,000", "20,950"),
never pyqtgraph's "3e+07" or a "(x0.001)" scale in the axis title."""

from __future__ import annotations

import pyqtgraph as pg

from svtgui.core.wording import plain


class PlainAxis(pg.AxisItem):
    """Tick labels in plain grouped digits; no SI scaling of the axis title."""

    def __init__(self, orientation: str, **kwargs) -> None:
        super().__init__(orientation, **kwargs)
        self.enableAutoSIPrefix(False)

    def tickStrings(self, values, scale, spacing):  # noqa: N802 - pyqtgraph's name
        return [plain(v * scale, 6) for v in values]
