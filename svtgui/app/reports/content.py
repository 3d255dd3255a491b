"""What a release report says, gathered once from the ledger and rendered by every format.

Only public facts go in: the dataset's name and random public id (never its contents, nor any hash
of them: anyone who knows every row but one could test candidate values against a hash), the public
parameters the mechanism reports about itself, the guarantee charged, the accuracy bound, the
released rows exactly as the ledger holds them (⊥ rows carry no value), the budget and the noise
source. The ledger never held a true answer, a noise draw or the noisy threshold, so a report
built from it cannot leak them.
"""

from __future__ import annotations

from datetime import UTC, datetime
from fractions import Fraction

from svtgui import __version__
from svtgui.app import domains, recipes
from svtgui.app.dataset_identity import relation_text
from svtgui.app.preview_text import threshold_statement
from svtgui.app.reports.document import Document
from svtgui.app.reports.statistics import Statistic, run_statistics
from svtgui.app.run_plans import PLAN_FACT
from svtgui.core import mechanisms
from svtgui.core.bounds import STATEMENT
from svtgui.core.budget import fmt
from svtgui.core.noise import ScaleProbe
from svtgui.core.wording import count
from svtgui.ledger import RUNNING, Ledger, ResponseRecord, RunRecord

REPORT_FORMAT = "svtgui-release-report"
# 2: dataset.id (random) replaced dataset.fingerprint (the file's SHA-256)
# 3: dates only: release_date and run.date replaced generated_at, started_at and ended_at; rows lost "time";
#    a top-level "statistics" list (name, value, interval, confidence, epsilon, run, method)
REPORT_VERSION = 3
ACCURACY_BETA = 0.05
SEEDED_SENTENCE = ("This release is NOT differentially private: it was made with seeded test noise, which "
                   "is reproducible, so the noise (and with it the exact answers) can be recomputed. "
                   "Never publish it.")
NEIGHBOURS = {"add_remove": "adding or removing one person's record",
              "replace": "replacing one person's record with another"}


def guarantee_sentence(epsilon: Fraction, delta: Fraction, neighbouring: str) -> str:
    """The privacy guarantee in one plain sentence."""
    change = NEIGHBOURS.get(neighbouring, f"changing one record ({neighbouring})")
    core = f"{change} changes the probability of any released output by at most a factor of e^{fmt(epsilon)}"
    if delta == 0:
        return f"This release is {fmt(epsilon)}-differentially private: {core}."
    return (f"This release is ({fmt(epsilon)}, {fmt(delta)})-differentially private: {core}, "
            f"except with probability at most {fmt(delta)}.")


def _accuracy(mechanism_id: str, params: Document, k: int) -> Document:
    """The (α, β) statement from the core, or the reason it is unavailable (never fatal)."""
    if recipes.info(mechanism_id) is not None:
        return {"available": False, "reason": "each released number's 95 % accuracy (α) is listed with the "
                                              "released values"}
    try:
        from svtgui.core.accuracy import bound

        names = {p.name for p in mechanisms.info(mechanism_id).params}  # not PMW's universe, a release file
        acc = bound(mechanism_id, {n: v for n, v in params.items() if n in names}, max(k, 1), ACCURACY_BETA)
    except Exception as exc:  # a missing or failing bound must not block the report
        return {"available": False, "reason": f"no accuracy bound for this configuration ({exc})"}
    statement = str(acc.statement)
    if statement == STATEMENT:  # a threshold test: say numbers only if the run released some
        statement = threshold_statement(_releases_numbers(mechanism_id, params))
    return {"available": True, "alpha": float(acc.alpha), "beta": float(acc.beta),
            "statement": statement, "source": str(getattr(acc, "source", ""))}


def _releases_numbers(mechanism_id: str, params: Document) -> bool:
    """Whether the run released numbers: from the mechanism as configured (Standard SVT releases
    some only with a numeric share), else from the catalogue."""
    try:
        return bool(mechanisms.create(mechanism_id, rng=ScaleProbe(), **dict(params)).releases_numbers)
    except Exception:  # an old ledger's parameters: the catalogue's word is the next best
        return mechanisms.info(mechanism_id).releases_numbers


def release_date() -> str:
    """Today's date (UTC), the one time a release states: how long a run took, and when in the day it
    ran, depend on the private rows (evaluation time grows with what the data holds), so no time of
    day, duration or per-batch time ever reaches an export."""
    return datetime.now(UTC).date().isoformat()


def report_data(ledger: Ledger, run_id: int) -> Document:
    """The whole report as JSON-able data (this is also the JSON export, schema :data:`REPORT_VERSION`)."""
    run = ledger.run(run_id)
    if run.status == RUNNING:
        raise ValueError(f"run {run_id} is still running; reports are made from finished or interrupted runs")
    dataset = ledger.dataset(run.dataset_id)
    assert dataset is not None  # the schema's foreign key guarantees it
    # What was declared when this run was charged (its Δ came from it); runs charged before the
    # ledger kept that fall back to the declarations made when the dataset was registered.
    declared = ledger.declarations(run_id) or {"neighbouring": dataset.neighbouring, "bounds": dataset.bounds}
    from_data = domains.recorded(declared)  # domains read off the data, allowed by the curator
    private = run.secure and not from_data
    info = recipes.info(run.mechanism_id) or mechanisms.info(run.mechanism_id)
    b = ledger.budget(run.dataset_id)
    rows = ledger.responses(run_id)
    above = sum(r.above for r in rows)
    k = run.queries_planned or len(rows)
    today = release_date()
    accuracy = _accuracy(run.mechanism_id, run.params, k)
    # the run's plan is its input (kept to replay it), not a released value
    recorded = ledger.facts(run_id)
    released = {k: v for k, v in recorded.items() if k != PLAN_FACT}
    table = _statistics(run, rows, recorded, accuracy, k)  # the plan says which answers are counts
    return {
        "format": REPORT_FORMAT,
        "version": REPORT_VERSION,
        "software": {"name": "SVT Studio (svtgui)", "version": __version__,
                     "run_recorded_by": run.software_version},
        "release_date": today,
        "statistics": [st.to_json() for st in table],
        # named by the curator's public name (the random id until one is chosen), never the file's name
        "dataset": {"name": dataset.public_name, "id": dataset.dataset_id,
                    "neighbouring": declared["neighbouring"], "declared_bounds": declared["bounds"]},
        "mechanism": {"id": info.id, "name": info.name, "summary": info.summary, "citation": info.citation,
                      "guarantee": info.guarantee, "interactive": info.interactive},
        "parameters": run.params,
        "guarantee": {"epsilon": fmt(run.epsilon), "delta": fmt(run.delta),
                      "differentially_private": private,
                      "sentence": guarantee_sentence(run.epsilon, run.delta, declared["neighbouring"])
                      if private else SEEDED_SENTENCE if not run.secure else domains.sentence(from_data),
                      **({"domains_from_data": list(from_data)} if from_data else {})},
        "accuracy": accuracy,
        "run": {"id": run.id, "status": run.status, "date": run.started_at[:10],
                "queries_planned": run.queries_planned, "answered": len(rows), "above": above,
                "cutoff": run.params.get("cutoff")},
        "noise": {"source": run.noise, "secure": run.secure, "description": run.noise_description},
        "budget": {"total_epsilon": fmt(b.total_epsilon), "total_delta": fmt(b.total_delta),
                   "spent_epsilon": fmt(b.spent_epsilon), "spent_delta": fmt(b.spent_delta),
                   "remaining_epsilon": fmt(b.remaining_epsilon), "remaining_delta": fmt(b.remaining_delta),
                   "charged_by_this_run": {"epsilon": fmt(run.epsilon), "delta": fmt(run.delta)},
                   "as_of": today, "raises": raise_records(ledger, run.dataset_id),
                   "relation_changes": relation_changes(ledger, run.dataset_id)},
        "rows": [_row(r) for r in rows],
        "released": released,  # public values besides the rows (PMW's n̂, a release file)
        # Tampering a curator accepted (issue 21 §7): the spent budget above may then be understated.
        "ledger_integrity": integrity_records(ledger),
    }


def _statistics(run: RunRecord, rows: list[ResponseRecord], released: Document,
                accuracy: Document, k: int) -> list[Statistic]:
    tops = [r for r in rows if r.above or r.answered_from_simulation is not None]  # PMW: every answer
    return run_statistics(run, tops, released, accuracy_text(accuracy, k))


def statistics(ledger: Ledger, run_id: int, limit: int | None = None) -> list[Document]:
    """The statistics table of one run (JSON form), as its report opens with it; reads only ⊤ rows
    (and PMW's answers), so it is cheap for the CLI and History even after a long run. ``limit``: at
    most about that many (History's headline needs the first few, not a PMW run's 100,000)."""
    run = ledger.run(run_id)
    catalogue = recipes.info(run.mechanism_id) is None
    pmw = catalogue and mechanisms.info(run.mechanism_id).input == mechanisms.HISTOGRAM
    rows = ledger.responses(run_id, only_above=not pmw, limit=limit)
    k = run.queries_planned or ledger.response_counts(run_id)[0]
    accuracy = _accuracy(run.mechanism_id, run.params, k)
    return [st.to_json() for st in _statistics(run, rows, ledger.facts(run_id), accuracy, k)]


def _row(r: ResponseRecord) -> Document:
    # "index": the ledger's, from 0; "number": as the window numbers rows, from 1 (human formats)
    row = {"index": r.index, "number": r.index + 1, "query": r.description, "result": r.result,
           "above": r.above, "value": r.value, "gap": r.gap}
    if r.answered_from_simulation is not None:  # PMW: free (from the public synthetic data) or paid
        row["answered_from_simulation"] = r.answered_from_simulation
    return row


STATUS_WORDS = {"finished": "Finished", "halted": "Halted at the cutoff", "stopped": "Stopped by the curator",
                "interrupted": "Interrupted"}


def result_text(run: Document, rows: list[Document]) -> str:
    """The run's outcome in words: how far it got ("after 4 of 2,000 planned queries"), then ⊤ and ⊥
    (or, for PMW, free and paid answers)."""
    answered, planned = run["answered"], run["queries_planned"]
    how_far = (f"after {answered:,} of {count(planned, 'planned query')}" if planned is not None
               else f"after {count(answered, 'answer')}")
    status = STATUS_WORDS.get(run["status"], run["status"])
    if any("answered_from_simulation" in r for r in rows):
        free = sum(bool(r.get("answered_from_simulation")) for r in rows)
        return f"{status} {how_far}: {free:,} free (simulated), {answered - free:,} paid"
    return f"{status} {how_far}: {run['above']:,} ⊤, {answered - run['above']:,} ⊥"


def noise_line(data: Document) -> str:
    """The source in words; its description already says secure or, for a test seed, NOT secure."""
    return data["noise"]["description"]


PARAM_WORDS = {"epsilon": "ε", "delta": "δ", "threshold": "threshold T", "cutoff": "cutoff c",
               "sensitivity": "sensitivity Δ"}


def params_text(params: Document) -> str:
    """Parameters as a curator reads them: symbols for numbers, sentences for yes/no settings."""
    parts = []
    for name, value in params.items():
        if isinstance(value, bool):
            parts.append(_flag(name, value))
        else:
            parts.append(f"{PARAM_WORDS.get(name, name.replace('_', ' '))} = {_param(value)}")
    return "; ".join(parts)


def _flag(name: str, value: bool) -> str:
    words = {"integer": ("every query is integer-valued (noise on whole numbers)",
                         "queries may take non-integer values"),
             "monotonic": ("monotonic queries (the monotonic variant)", "queries not assumed monotonic")}
    yes, no = words.get(name, (f"{name.replace('_', ' ')}: yes", f"{name.replace('_', ' ')}: no"))
    return yes if value else no


def bounds_text(bounds: Document) -> str:
    """Declared public bounds, "age 17 – 90; hours_per_week 1 – 99" (never read from the data)."""
    if not bounds:
        return "none declared"
    return "; ".join(f"{name} {_param(lo)} – {_param(hi)}" for name, (lo, hi) in sorted(bounds.items()))


def facts(data: Document) -> list[tuple[str, str]]:
    """The (label, text) pairs every human-readable format shows, in order."""
    run, budget, ds, mech = data["run"], data["budget"], data["dataset"], data["mechanism"]
    acc = data["accuracy"]
    params = params_text(data["parameters"])
    return [
        ("Dataset", ds["id"] if ds["name"] == ds["id"] else f"{ds['name']} (dataset id {ds['id']})"),
        ("Neighbouring relation", NEIGHBOURS.get(ds["neighbouring"], ds["neighbouring"])),
        ("Declared public bounds", bounds_text(ds.get("declared_bounds") or {})),
        ("Mechanism", f"{mech['name']} ({mech['id']}), {mech['guarantee']}"),
        ("Citation", data["mechanism"]["citation"]),
        ("Parameters", params),
        ("Privacy guarantee", data["guarantee"]["sentence"]),
        ("Accuracy", accuracy_text(acc, run["queries_planned"] or run["answered"])),
        ("Result", result_text(run, data["rows"])),
        *((("Also released", ", ".join(f"{k} = {_param(v)}" for k, v in data["released"].items())),)
          if data.get("released") else ()),
        (f"Budget of the dataset as of {budget['as_of']}",
         f"ε spent {budget['spent_epsilon']} of {budget['total_epsilon']} "
         f"(remaining {budget['remaining_epsilon']}); "
         + (f"δ spent {budget['spent_delta']} of {budget['total_delta']} "
            f"(remaining {budget['remaining_delta']}); " if budget["total_delta"] != "0" else "")
         + f"this run charged ε {budget['charged_by_this_run']['epsilon']}"
         + (f", δ {budget['charged_by_this_run']['delta']}" if budget["total_delta"] != "0" else "")),
        *((("Budget raises", raises_text(budget["raises"])),) if budget.get("raises") else ()),
        *((("Neighbouring relation changed", relation_changes_text(budget["relation_changes"])),)
          if budget.get("relation_changes") else ()),
        *((("Ledger integrity", integrity_text(data["ledger_integrity"])),)
          if data.get("ledger_integrity") else ()),
        ("Noise source", noise_line(data)),
        ("Software", f"{data['software']['name']} {data['software']['version']}"),
        ("Run date", run["date"]),
        ("Release date", data["release_date"]),
    ]


def raise_records(ledger: Ledger, dataset_id: str) -> list[Document]:
    """Every raise of the dataset's total: when (the day), by whom (the database login on a team's
    server ledger), from what to what, and why (issue 26: a raise is shown with its reason)."""
    return [{"date": e.at[:10], "by": e.login or "", "from_epsilon": fmt(e.previous_epsilon or 0),
             "to_epsilon": fmt(e.epsilon), "from_delta": fmt(e.previous_delta or 0), "to_delta": fmt(e.delta),
             "reason": e.note} for e in ledger.budget_events(dataset_id) if e.kind == "raise"]


def _on_day(record: Document, what: str) -> str:
    """A logged curator action as a sentence: "On <day>, <who> <what>" (who only when known)."""
    who = f", {record['by']}" if record["by"] else ""
    return f"On {record['date']}{who} {what}"


def raises_text(raises: list[Document]) -> str:
    """The raises of a dataset's total, one sentence each."""
    return " ".join(_on_day(r, f"raised the total from ε {r['from_epsilon']} to ε {r['to_epsilon']} "
                               f"(δ {r['from_delta']} to {r['to_delta']}): {r['reason']}.") for r in raises)


def relation_changes(ledger: Ledger, dataset_id: str) -> list[Document]:
    """Every change of the relation the dataset's budget is kept under (issue 21 §3): the day, by
    whom, to what, and why. Runs charged before a change were private under the earlier relation."""
    return [{"date": e.at[:10], "by": e.login or "", "relation": relation_text(e.neighbouring, e.public_n),
             "reason": e.reason} for e in ledger.relation_events(dataset_id) if e.kind == "change"]


def relation_changes_text(changes: list[Document]) -> str:
    """The relation changes of a dataset, one sentence each."""
    return " ".join(_on_day(c, f"set the budget to be kept under {c['relation']} neighbours: {c['reason']}. "
                               "Runs charged before are private under the relation they declared.")
                    for c in changes)


def integrity_records(ledger: Ledger) -> list[Document]:
    """The tampering findings curators accepted, as reports and History show them (the day only)."""
    return [{"found": e.found, "reason": e.reason, "accepted_by": e.login, "date": e.at[:10]}
            for e in ledger.integrity_events()]


def integrity_text(events: list[Document]) -> str:
    """Every accepted tampering finding, so a reader knows the spent budget may be understated."""
    return " ".join(f"On {e['date']}, {e['accepted_by']} accepted that the ledger was changed outside "
                    f"SVT Studio ({e['found']}; reason: {e['reason']}); the budget spent before then may be "
                    "understated." for e in events)


def accuracy_text(acc: Document, k: int) -> str:
    if not acc["available"]:
        return acc["reason"]
    source = f" (bound: {acc['source']})" if acc.get("source") else ""
    return (f"α = {acc['alpha']:.4g}, β = {acc['beta']:g} over {count(k, 'query')}: "
            f"{acc['statement']}{source}")


def _param(v: object) -> str:
    if v is None:
        return "default"
    if isinstance(v, float):
        return value_text(v)
    return str(v)


def value_text(v: float | int | None) -> str:
    """A released number in full (shortest text that round-trips; never rounded to 6 digits)."""
    if v is None:
        return ""
    return str(int(v)) if float(v).is_integer() and abs(v) < 2**53 else repr(float(v))
