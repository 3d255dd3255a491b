"""Teaching mode: SVT explained on toy data, for people who have never heard of differential privacy.

Everything here uses an invented toy dataset and says so on every page, which is why these pages
may show internals (noisy threshold, noisy and true answers) that a release never shows.

:mod:`.catalogue` lists the pages (``pages()``: name → factory); :class:`.window.TeachingWindow`
shows them all as tabs; :mod:`.screenshot` renders one for ``svtgui --screenshot --page
teaching-<name>``. This package module imports none of them, so none of them imports it back.
"""
