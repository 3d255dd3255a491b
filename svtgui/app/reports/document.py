"""The type of what reports are made of: JSON documents.

A report is built as one JSON object (what a ``.json`` export writes; the HTML, PDF and CSV forms
are drawn from it), out of JSON objects read from the ledger (a run's facts, its declarations, a
raise or an integrity event). Their values stay ``Any`` here, in this one place: they are whatever
JSON holds, and each report section reads the keys it wrote.
"""

from __future__ import annotations

from typing import Any

Document = dict[str, Any]
