"""What every CSV export shares: the statistics table's columns and rows, the guarantee repeated on
each row, and text cells a spreadsheet never evaluates. Kept apart from the exporter so a run's
report (:mod:`svtgui.app.reports`) and a release document (:mod:`.release`) write the same
tables without importing each other."""

from __future__ import annotations

from svtgui.app.reports.content import value_text
from svtgui.app.reports.document import Document
from svtgui.app.reports.statistics import cells

STATISTICS_COLUMNS = ("statistic", "value", "interval_low", "interval_high", "confidence", "epsilon", "run",
                      "method", "guarantee")


def csv_guarantee(guarantee: Document) -> str:
    """The run's guarantee in a few words, repeated on every CSV row: a CSV carries no sentence above its
    rows, and rows copied out of it must still say whether they are private (a seeded run's are NOT)."""
    if not guarantee["differentially_private"]:
        why = "domains read from the data" if guarantee.get("domains_from_data") else "seeded test noise"
        return f"NOT differentially private ({why}; never publish)"
    eps, delta = guarantee["epsilon"], guarantee["delta"]
    return f"{eps}-differentially private" if delta == "0" else f"({eps}, {delta})-differentially private"


def cell(text: str) -> str:
    """A text cell a spreadsheet shows as text: a leading = + - @ would make it evaluate a formula."""
    return "'" + text if text[:1] in ("=", "+", "-", "@") else text


def statistics_rows(statistics: list[Document], guarantee: str) -> list[list[str | float | int]]:
    """The CSV rows of a statistics table (:data:`STATISTICS_COLUMNS`): numbers in full, intervals split."""
    rows = []
    for st in statistics:
        value = st["value"]
        value = value_text(value) if isinstance(value, int | float) else cells(st)[1]  # full digits / words
        low, high = ("", "") if st["interval"] is None else map(value_text, st["interval"])
        confidence = "" if st["confidence"] is None else st["confidence"]
        rows.append([cell(st["name"]), cell(value), low, high, confidence, st["epsilon"], st["run"],
                     st["method"], guarantee])
    return rows
