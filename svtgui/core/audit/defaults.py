"""The auditor's defaults, shared by the CLI, the window and the benchmark (numbers only, no imports).

``DEFAULT_SECONDS`` is the time budget of an audit when none is given: the smallest budget at which
``bench/audit_power.py`` met every target on the 2-core development machine (see docs/audit.md).
"""

DEFAULT_SECONDS = 10.0
DEFAULT_ALPHA = 0.01
