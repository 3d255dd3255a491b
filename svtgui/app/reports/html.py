"""Self-contained HTML report (inline CSS, the chart as inline SVG), and the HTML the PDF is typeset from.

Every piece of text that came from a user (dataset name, column names inside query descriptions,
parameters) goes through :func:`html.escape`, so a column named ``<script>…</script>`` is shown as
text, never run. The page loads nothing from the network.
"""

from __future__ import annotations

from html import escape

from svtgui.app.reports.content import facts, value_text
from svtgui.app.reports.document import Document
from svtgui.app.reports.statistics import STATISTICS_HEADER, cells

MAX_TABLE_ROWS = 2000  # human formats list every ⊤ and then ⊥ rows up to this; CSV/JSON hold all

CSS = """
body { font-family: 'DejaVu Sans', Arial, sans-serif; margin: 2em; color: #1a1a1a; max-width: 60em; }
h1 { font-size: 1.5em; margin-bottom: 0.2em; }
.warning { background: #fde8d7; border: 2px solid #d55e00; padding: 0.6em; font-weight: bold; }
table { border-collapse: collapse; margin: 0.8em 0; }
th, td { border: 1px solid #999; padding: 0.25em 0.6em; text-align: left; vertical-align: top; }
th { background: #eee; }
td.num { text-align: right; font-family: 'DejaVu Sans Mono', monospace; }
.top { color: #0072b2; font-weight: bold; }
.bottom { color: #555; }
.note { color: #444; font-size: 0.9em; }
"""


def table_rows(data: Document) -> tuple[list[Document], int]:
    """Rows the human formats list (all ⊤, then ⊥ up to the cap) in index order, and how many are left out."""
    rows = data["rows"]
    if len(rows) <= MAX_TABLE_ROWS:
        return rows, 0
    room = max(MAX_TABLE_ROWS - sum(r["above"] for r in rows), 0)
    shown, bottoms = [], 0
    for r in rows:
        if r["above"] or bottoms < room:
            shown.append(r)
            bottoms += not r["above"]
    return shown, len(rows) - len(shown)


STATISTICS_NOTE = ("Each interval holds the true value with at least the stated confidence; it is computed "
                   "exactly from the noise that was added (its law and scale are public), never from the "
                   "data. "
                   "“none released”: the mechanism answers above/below only; its accuracy statement is given "
                   "instead. Statistics of one run share that run's ε.")


def statistics_table(statistics: list[Document]) -> list[str]:
    """The statistics table, what a release report opens with: one row per statistic, its method below."""
    # cellpadding: Qt's document (the PDF, the window) ignores the CSS padding of cells
    parts = ["<h2>Statistics</h2>", "<table class=\"statistics\" cellpadding=\"4\" cellspacing=\"0\"><tr>"
             + "".join(f"<th>{escape(h)}</th>" for h in STATISTICS_HEADER) + "</tr>"]
    for st in statistics:
        name, value, interval, confidence, epsilon, run = cells(st)
        parts.append(f"<tr><td>{escape(name)}<br><span class=\"note\">{escape(st['method'])}</span></td>"
                     f'<td class="num">{escape(value)}</td><td class="num">{escape(interval)}</td>'
                     f'<td class="num">{escape(confidence)}</td><td class="num">{escape(epsilon)}</td>'
                     f'<td class="num">{escape(run)}</td></tr>')
    parts.append("</table>")
    return parts


def page_head(title: str) -> list[str]:
    """The page up to its heading: inline CSS, and a policy that loads nothing (images from data: only)."""
    return ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
            f"<title>{escape(title)}</title>",
            '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; img-src data:; '
            'style-src \'unsafe-inline\'">',
            f"<style>{CSS}</style></head><body>", f"<h1>{escape(title)}</h1>"]


def render(data: Document, chart: str | None) -> str:
    """The report as HTML. ``chart``: the chart's markup (inline ``<svg>`` for HTML, an ``<img>`` of a
    document resource for PDF), placed as is: it is built by this package, never from user text."""
    run = data["run"]
    title = f"Release report — {data['dataset']['name']} — run {run['id']}"
    parts = page_head(title)
    if not data["guarantee"]["differentially_private"]:
        parts.append(f'<p class="warning">{escape(data["guarantee"]["sentence"])}</p>')  # NOT DP, in full
    if run["status"] == "interrupted":
        parts.append('<p class="warning">This run was interrupted; the rows below are every response '
                     "that was recorded. Its full budget was charged.</p>")
    parts += statistics_table(data["statistics"])
    parts.append(f'<p class="note">{escape(STATISTICS_NOTE)}</p>')
    parts.append("<h2>Appendix: how it was released</h2>")
    parts.append('<table class="facts">')
    for label, text in facts(data):
        parts.append(f"<tr><th>{escape(label)}</th><td>{escape(text)}</td></tr>")
    parts.append("</table>")
    if chart:
        parts.append(f"<p>{chart}</p>")
    shown, omitted = table_rows(data)
    has_gap = any(r["gap"] is not None for r in shown)
    parts.append("<h3>Released rows</h3>")
    parts.append("<table><tr><th>#</th><th>query</th><th>result</th><th>released value</th>"
                 + ("<th>gap above T</th>" if has_gap else "") + "</tr>")
    for r in shown:
        cls = "top" if r["above"] else "bottom"
        gap = f'<td class="num">{escape(value_text(r["gap"]))}</td>' if has_gap else ""
        parts.append(f'<tr><td class="num">{r["number"]}</td><td>{escape(r["query"])}</td>'
                     f'<td class="{cls}">{escape(r["result"])}</td>'
                     f'<td class="num">{escape(value_text(r["value"]))}</td>{gap}</tr>')
    parts.append("</table>")
    if omitted:
        parts.append(f'<p class="note">{omitted} ⊥ rows are not listed here; the CSV and JSON exports hold '
                     "every row.</p>")
    if any("answered_from_simulation" in r for r in data["rows"]):
        parts.append('<p class="note">free (simulated): answered from the public synthetic histogram '
                     "(only the SVT test touched the data; does not count toward the cutoff); paid: a fresh "
                     "noisy answer, one of the c paid answers. No true answer, noise value or noisy "
                     "threshold appears in this report.</p>")
    else:
        parts.append('<p class="note">⊤: answer found above the threshold; ⊥: below (releases nothing and '
                     "does not count toward the cutoff). No true answer, noise value or noisy threshold "
                     "appears in this report.</p>")
    parts.append("</body></html>")
    return "\n".join(parts)


def html_document(data: Document, svg: str | None) -> str:
    """The HTML report with ``svg`` (:func:`svtgui.app.reports.chart.chart_svg`) inline."""
    return render(data, svg)
