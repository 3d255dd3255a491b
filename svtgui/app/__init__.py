"""The Qt-free application layer shared by the window and the CLI: the workspace and its plan, the task
runner (every job off the GUI thread), runs, project files, reports.

Nothing here imports Qt except the PDF renderer (``reports/pdf.py``), the one listed exception in
the import contracts; the window (``svtgui.ui``) and ``svtgui-cli`` (``svtgui.cli``) both sit above it.
"""
