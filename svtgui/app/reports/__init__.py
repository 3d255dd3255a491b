"""Release reports from the ledger: HTML, PDF, JSON (versioned schema) and CSV (released rows).

>>> export(ledger, run_id, "release.html")     # doctest: +SKIP

Reports are built only from the ledger, which holds nothing secret; see :mod:`.content`.
Files are written to a temporary sibling and renamed, so a failed export never leaves half a report.
"""

from __future__ import annotations

import csv
import io
import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

from svtgui.app.outputs import Inputs, check_output
from svtgui.app.reports.content import REPORT_FORMAT, REPORT_VERSION, report_data, value_text
from svtgui.app.reports.csv_tables import STATISTICS_COLUMNS, cell, csv_guarantee, statistics_rows
from svtgui.app.reports.document import Document
from svtgui.ledger import Ledger

FORMATS = (".html", ".pdf", ".json", ".csv")
CSV_COLUMNS = ("number", "query", "result", "released_value", "gap", "guarantee")

__all__ = ["FORMATS", "REPORT_FORMAT", "REPORT_VERSION", "export", "export_release", "pdf_unavailable",
           "report_data"]


def _csv_text(data: Document) -> str:
    """Two tables, a blank line between: the statistics first (what the release is), then every row."""
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    guarantee = csv_guarantee(data["guarantee"])
    w.writerow(STATISTICS_COLUMNS)
    w.writerows(statistics_rows(data["statistics"], guarantee))
    w.writerow([])
    w.writerow(CSV_COLUMNS)
    for r in data["rows"]:
        w.writerow([r["number"], cell(r["query"]), r["result"], value_text(r["value"]), value_text(r["gap"]),
                    guarantee])
    return out.getvalue()


def write_atomically(path: Path, write: Callable[[Path], None]) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    os.close(fd)
    try:
        write(Path(tmp))
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def pdf_unavailable() -> str | None:
    """Why this process cannot write a PDF (Qt, which typesets it, cannot be imported), or None.

    HTML, JSON and CSV reports need no Qt: a headless install without PySide6 writes those.
    """
    try:
        from svtgui.app.reports import pdf  # noqa: F401 - the one module below ui/ that imports Qt
    except ImportError as exc:
        return (f"PDF reports need Qt (PySide6), which cannot be imported here ({exc}); "
                "HTML, JSON and CSV reports do not")
    return None


def report_target(ledger: Ledger, path: str | os.PathLike[str], inputs: Inputs | None,
            what: str) -> tuple[Path, str]:
    """The file to write and its format; refused when the suffix is unknown or the file is the ledger
    or one of ``inputs``."""
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix not in FORMATS:
        raise ValueError(f"unknown {what} format {p.suffix!r} for {p}; use one of {', '.join(FORMATS)}")
    check_output(p, (inputs.copy() if inputs is not None else Inputs()).add_ledger(ledger.path))
    return p, suffix


def export(ledger: Ledger, run_id: int, path: str | os.PathLike[str], inputs: Inputs | None = None) -> Path:
    """Write the report of a finished / halted / stopped / interrupted run; the format follows the suffix.

    ``path`` is never the ledger (a report over it would erase the spend) nor one of ``inputs``, the
    files the caller's command read (:mod:`svtgui.app.outputs`)."""
    p, suffix = report_target(ledger, path, inputs, "report")
    data = report_data(ledger, run_id)
    if suffix == ".json":
        text = json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False)
        write_atomically(p, lambda t: t.write_text(text + "\n", encoding="utf-8"))
    elif suffix == ".csv":
        text = _csv_text(data)
        write_atomically(p, lambda t: t.write_text(text, encoding="utf-8", newline=""))
    else:
        from svtgui.app.reports.chart import chart_svg

        svg = chart_svg(data)
        if suffix == ".html":
            from svtgui.app.reports.html import html_document

            text = html_document(data, svg)
            write_atomically(p, lambda t: t.write_text(text, encoding="utf-8"))
        else:
            from svtgui.app.reports.pdf import write_pdf  # the one module below ui/ that imports Qt

            write_atomically(p, lambda t: write_pdf(data, svg, t))
    return p


def export_release(ledger: Ledger, run_ids: list[int], path: str | os.PathLike[str],
                   inputs: Inputs | None = None) -> Path:
    """Write one release document over several runs of one dataset (:mod:`.release`); the format
    follows the suffix, the target is guarded as a report's is."""
    from svtgui.app.reports.release import release_csv, release_data, release_html

    p, suffix = report_target(ledger, path, inputs, "release")
    data = release_data(ledger, run_ids)
    if suffix == ".json":
        text = json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
    elif suffix == ".csv":
        text = release_csv(data)
    elif suffix == ".html":
        text = release_html(data)
    else:
        from svtgui.app.reports.pdf import write_html_pdf  # the one module below ui/ that imports Qt

        title = f"SVT Studio release, {data['dataset']['name']}, {data['release_date']}"
        creator = f"{data['software']['name']} {data['software']['version']}"
        write_atomically(p, lambda t: write_html_pdf(release_html(data), title, creator, t))
        return p
    write_atomically(p, lambda t: t.write_text(text, encoding="utf-8", newline=""))
    return p
