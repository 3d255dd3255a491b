"""The auditor's defaults, shared by the CLI and the benchmark (numbers only, no imports).

``DEFAULT_SECONDS`` is the wall-clock budget of an audit when none is given. At 10 s, on the 2-core
development machine under a load average of 10-17, ``bench/audit_power.py`` missed the power targets of
issue 14 for Lyu's Algorithms 3-5 (the audits got a fraction of a core); at 30 s it met them for
Algorithms 3, 5 and 6 and came within 0.001 of the target for Algorithm 4 (docs/audit.md, Results).
"""

DEFAULT_SECONDS = 30.0
