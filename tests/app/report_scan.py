"""Helpers for the tests that scan release reports for true answers."""

from __future__ import annotations

import re


def without_id(text: str, dataset_id: str) -> str:
    """``text`` minus the dataset's public id, even where pdftotext wrapped it.

    The id is 16 random hex digits: it can spell a true count ('ds-…a14961f…'), which a scan for
    numbers would report as a leak by chance (about 2e-5 to 5e-5 per id for the reports tested).
    """
    return re.sub(r"\s*".join(map(re.escape, dataset_id)), "", text)


def csv_tables(text: str) -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    """A CSV report's two tables, split at the blank line: (statistics, released rows)."""
    import csv

    statistics, rows = text.split("\n\n", 1)
    return list(csv.DictReader(statistics.splitlines())), list(csv.DictReader(rows.splitlines()))
