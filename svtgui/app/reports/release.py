"""One release document from several runs of one dataset: what a curator publishes (issue 24 §2).

A curator publishes a release, not a run: a mean, a range screening and the frequent items, together.
The document holds one statistics table over all the runs (:mod:`.statistics`), the total ε and δ they
spent (basic composition: the sum), the declarations each run was charged under (the neighbouring
relation and the public bounds), the guarantee in one sentence, and per run the method in plain words
with its citation. Like a run's report it is built from the ledger alone, and holds no released row
trace, true answer, noisy threshold, noise value, seed or time of day: dates only.
"""

from __future__ import annotations

import csv
import io
from fractions import Fraction
from html import escape

from svtgui import __version__
from svtgui.app import domains, recipes
from svtgui.app.reports.content import (
    NEIGHBOURS,
    SEEDED_SENTENCE,
    bounds_text,
    guarantee_sentence,
    integrity_records,
    integrity_text,
    raise_records,
    raises_text,
    release_date,
    statistics,
)
from svtgui.app.reports.csv_tables import STATISTICS_COLUMNS, csv_guarantee, statistics_rows
from svtgui.app.reports.document import Document
from svtgui.core import mechanisms
from svtgui.core.budget import fmt
from svtgui.ledger import RUNNING, Ledger, RunRecord

RELEASE_FORMAT = "svtgui-release"
RELEASE_VERSION = 1
OMITTED_PARAMETERS = ("release_out",)  # a path on the curator's machine, not a parameter of the method


def runs_label(runs: int | tuple[int, ...]) -> str:
    """"run 3" for one run's report, "runs 3, 4 and 7" for a release over several."""
    if isinstance(runs, int):
        return f"run {runs}"
    names = [str(r) for r in runs]
    return f"run {names[0]}" if len(names) == 1 else f"runs {', '.join(names[:-1])} and {names[-1]}"


def checked_runs(ledger: Ledger, run_ids: list[int]) -> list[RunRecord]:
    """The runs of one release, in the order given; ValueError naming the run that cannot be in it."""
    if not run_ids:
        raise ValueError("a release needs at least one run")
    seen: set[int] = set()
    runs = []
    for run_id in run_ids:
        if run_id in seen:
            raise ValueError(f"run {run_id} is given twice")
        seen.add(run_id)
        try:
            run = ledger.run(run_id)
        except (KeyError, ValueError):
            raise ValueError(f"run {run_id} is not in the ledger {ledger.path}") from None
        if run.status == RUNNING:
            raise ValueError(f"run {run_id} is still running; a release is made from ended runs")
        if runs and run.dataset_id != runs[0].dataset_id:
            raise ValueError(f"run {run_id} is of dataset {run.dataset_id}, run {runs[0].id} of "
                             f"{runs[0].dataset_id}: a release covers one dataset")
        runs.append(run)
    relations = {_declared(ledger, r)["neighbouring"] for r in runs}
    if len(relations) > 1:
        raise ValueError(f"these runs were charged under different neighbouring relations "
                         f"({', '.join(sorted(relations))}): their ε do not add up to one guarantee")
    return runs


def _declared(ledger: Ledger, run: RunRecord) -> Document:
    dataset = ledger.dataset(run.dataset_id)
    assert dataset is not None  # the schema's foreign key guarantees it
    return ledger.declarations(run.id) or {"neighbouring": dataset.neighbouring, "bounds": dataset.bounds}


def _method(run: RunRecord) -> dict[str, str]:
    info = recipes.info(run.mechanism_id) or mechanisms.info(run.mechanism_id)
    return {"id": info.id, "name": info.name, "summary": info.summary, "citation": info.citation}


def release_data(ledger: Ledger, run_ids: list[int]) -> Document:
    """The release as JSON-able data (this is also the JSON file)."""
    runs = checked_runs(ledger, run_ids)
    dataset = ledger.dataset(runs[0].dataset_id)
    assert dataset is not None
    relation = _declared(ledger, runs[0])["neighbouring"]
    epsilon, delta = sum((r.epsilon for r in runs), Fraction(0)), sum((r.delta for r in runs), Fraction(0))
    from_data = domains.recorded_in(ledger, [r.id for r in runs])  # allowed by the curator: NOT private
    private = all(r.secure for r in runs) and not from_data
    b = ledger.budget(dataset.dataset_id)
    today = release_date()
    return {
        "format": RELEASE_FORMAT,
        "version": RELEASE_VERSION,
        "software": {"name": "SVT Studio (svtgui)", "version": __version__},
        "release_date": today,
        "dataset": {"name": dataset.public_name, "id": dataset.dataset_id, "neighbouring": relation},
        "statistics": [st for r in runs for st in statistics(ledger, r.id)],
        "guarantee": {"epsilon": fmt(epsilon), "delta": fmt(delta), "differentially_private": private,
                      "composition": f"basic composition of {len(runs)} runs: their ε and δ add up",
                      "sentence": (guarantee_sentence(epsilon, delta, relation) if private
                                   else SEEDED_SENTENCE if not all(r.secure for r in runs)
                                   else domains.sentence(from_data)),
                      **({"domains_from_data": list(from_data)} if from_data else {})},
        "runs": [{"id": r.id, "date": r.started_at[:10], "method": _method(r),
                  "parameters": {k: v for k, v in r.params.items() if k not in OMITTED_PARAMETERS},
                  "epsilon": fmt(r.epsilon), "delta": fmt(r.delta),
                  "declarations": {"neighbouring": _declared(ledger, r)["neighbouring"],
                                   "declared_bounds": _declared(ledger, r)["bounds"]},
                  "differentially_private": r.secure and not domains.recorded_in(ledger, r.id)}
                 for r in runs],
        "budget": {"total_epsilon": fmt(b.total_epsilon), "spent_epsilon": fmt(b.spent_epsilon),
                   "remaining_epsilon": fmt(b.remaining_epsilon), "total_delta": fmt(b.total_delta),
                   "spent_delta": fmt(b.spent_delta), "remaining_delta": fmt(b.remaining_delta),
                   "as_of": today, "raises": raise_records(ledger, dataset.dataset_id)},
        "ledger_integrity": integrity_records(ledger),
    }


def release_csv(data: Document) -> str:
    """The statistics table first, then one row per run (its method, cost and declarations)."""

    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(STATISTICS_COLUMNS)
    w.writerows(statistics_rows(data["statistics"], csv_guarantee(data["guarantee"])))
    w.writerow([])
    w.writerow(("run", "method", "citation", "epsilon", "delta", "date", "neighbouring", "declared_bounds"))
    for r in data["runs"]:
        declared = r["declarations"]
        w.writerow([r["id"], r["method"]["name"], r["method"]["citation"], r["epsilon"], r["delta"],
                    r["date"], declared["neighbouring"], bounds_text(declared["declared_bounds"] or {})])
    return out.getvalue()


def release_html(data: Document) -> str:
    """The release as a self-contained HTML page (also what the PDF is typeset from)."""
    from svtgui.app.reports.html import STATISTICS_NOTE, page_head, statistics_table

    ds, g, b = data["dataset"], data["guarantee"], data["budget"]
    title = f"Release — {ds['name']} — {data['release_date']}"
    parts = page_head(title)
    sentence = escape(g["sentence"])
    parts.append(f'<p class="{"" if g["differentially_private"] else "warning"}">{sentence}</p>')
    if data["ledger_integrity"]:
        parts.append(f'<p class="warning">{escape(integrity_text(data["ledger_integrity"]))}</p>')
    parts += statistics_table(data["statistics"])
    parts.append(f'<p class="note">{escape(STATISTICS_NOTE)}</p>')
    parts.append(f"<p><b>Total privacy cost:</b> ε = {escape(g['epsilon'])}, δ = {escape(g['delta'])} "
                 f"({escape(g['composition'])}). <b>Budget of the dataset as of {escape(b['as_of'])}:</b> "
                 f"ε spent {escape(b['spent_epsilon'])} of {escape(b['total_epsilon'])} (remaining "
                 f"{escape(b['remaining_epsilon'])}). {escape(raises_text(b['raises']))}</p>")
    parts.append("<h2>Methods and declarations</h2><table><tr><th>run</th><th>method</th><th>ε, δ</th>"
                 "<th>declared (neighbours; public bounds)</th><th>date</th></tr>")
    for r in data["runs"]:
        m, d = r["method"], r["declarations"]
        parts.append(f'<tr><td class="num">{r["id"]}</td><td><b>{escape(m["name"])}</b>: '
                     f'{escape(m["summary"])}<br><span class="note">{escape(m["citation"])}</span></td>'
                     f'<td class="num">{escape(r["epsilon"])}, {escape(r["delta"])}</td>'
                     f"<td>{escape(NEIGHBOURS.get(d['neighbouring'], d['neighbouring']))}; "
                     f"{escape(bounds_text(d['declared_bounds'] or {}))}</td>"
                     f"<td>{escape(r['date'])}</td></tr>")
    parts.append("</table>")
    parts.append(f'<p class="note">Dataset {escape(ds["name"])} (dataset id {escape(ds["id"])}). '
                 f"{escape(data['software']['name'])} {escape(data['software']['version'])}. No true answer, "
                 "noisy threshold, noise value, seed or time appears in this release.</p>")
    parts.append("</body></html>")
    return "\n".join(parts)
