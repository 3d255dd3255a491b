"""The type of a run's parameters, shared by every module that carries them (plan, runs, gate, set-up).

A run's parameters by name, as the curator gives them and the ledger records them (a JSON object):
the catalogue's numbers, whole numbers and flags, a linear run's universe (column specs) and its
release file. The values stay ``Any`` here, in this one place: which type each one has is the
catalogue's ``Param.kind``, checked by the mechanism's constructor (``core.validation``), not
something the app layer could narrow without repeating the catalogue.
"""

from __future__ import annotations

from typing import Any

Params = dict[str, Any]
