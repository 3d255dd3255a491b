"""The curator's PySide6 window (Qt only; widgets stay thin, the work happens in data/session/core).

Entry point: :func:`svtgui.__main__.main`. The window is :class:`svtgui.ui.main_window.MainWindow`.
"""
