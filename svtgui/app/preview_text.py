"""The Mechanism page's preview in the curator's words: what a run will release, and how accurate.

Qt-free and data-free: every sentence comes from the public parameters, the queue's length and
the mechanism's own bound (``accuracy_bound``, PMW's free/paid bounds, SparseProject's
``accuracy``), built on a source that draws no noise. The wording follows what the mechanism
releases — a ⊤/⊥-only mechanism is never said to release numbers — and numbers are written plainly
(:func:`svtgui.core.wording.plain`), counts with their nouns (:func:`svtgui.core.wording.count`).
"""

from __future__ import annotations

from dataclasses import dataclass

from svtgui.app.params import Params
from svtgui.core import mechanisms
from svtgui.core.mechanisms import HISTOGRAM, RELEASE, Mechanism
from svtgui.core.noise import ScaleProbe
from svtgui.core.preview import TopCurve
from svtgui.core.wording import count, plain

RUN_KEYS = ("universe", "release_out")  # run parameters of PMW / SparseProject, not the mechanism's


CURVE_NOTE = ("Exact chance that a query compared on its own comes back ⊤ (the mechanism's noise on its "
              "lattice; public parameters only, never your data).")


@dataclass(frozen=True)
class Preview:
    """What the preview shows: the sentences, α (None without a closed form), the exact P[⊤] curve of
    a threshold test (None for mechanisms without one) with its threshold, axis words and the note
    under it; ``x_min`` cuts the curve where answers cannot go (PMW's test sees an error, ≥ 0)."""

    text: str
    alpha: float | None = None
    curve: TopCurve | None = None
    threshold: float | None = None
    note: str = ""
    x_label: str = "true answer x of a query"
    y_label: str = "P[⊤]"
    x_min: float | None = None


def queue_words(k: int) -> str:
    """"over the 10,001 queued queries", or the honest word when nothing is queued yet."""
    return f"over the {count(k, 'queued query')}" if k else "for a single query (no queries queued yet)"


def percent(p: float) -> str:
    """A probability as a percentage a curator reads ("95%", "99.9%")."""
    return f"{plain(100 * p, 3)}%"


def releases(mech: Mechanism) -> str:
    """What a run of ``mech`` releases, in words (from the built mechanism, so Standard SVT with a
    numeric share says numbers and without one says ⊤/⊥ only)."""
    release = getattr(mech, "release", None)
    kind = getattr(release, "value", None)
    cutoff = getattr(mech, "cutoff", 1)
    stop = f"it stops after {count(cutoff, '⊤ answer')}"
    if kind == "none":
        return f"⊤ or ⊥ for each query, no numbers; {stop}."
    if kind == "fresh":
        return f"⊤ or ⊥ for each query, and a fresh noisy answer for each ⊤; {stop}."
    if kind == "gap":
        return (f"⊤ or ⊥ for each query, and for each ⊤ its noisy gap above T (an estimate of its answer); "
                f"{stop}.")
    if getattr(mech.info, "id", "") == "em_top_c":
        return f"which {count(cutoff, 'query')} the exponential mechanism selects (no numbers, no threshold)."
    return f"which queries are selected (at most {cutoff}), no numbers."


def threshold_statement(releases_numbers: bool) -> str:
    """A threshold test's (α, β) promise in words that follow what is released (a report's line)."""
    tests = ("queries below T − α come back ⊥ and, until the run stops, queries above T + α come back ⊤, "
             "with probability 1 − β")
    if releases_numbers:
        return f"every released number is within ±α of its true answer; {tests}"
    return f"{tests} (no numbers are released)"


def threshold_words(mech: Mechanism, k: int, beta: float) -> Preview:
    """A threshold-SVT mechanism (AboveThreshold, Sparse, NumericSparse, Standard SVT, free gap)."""
    acc = mech.accuracy_bound(max(1, k), beta)
    a, t = float(acc.alpha), float(mech.threshold)
    lines = [f"Releases: {releases(mech)}",
             f"Accuracy: α = {plain(a)} with probability at least {percent(1 - beta)}, {queue_words(k)}:"]
    if mech.releases_numbers:
        lines.append(f"• every released number is within ±{plain(a)} of its true answer;")
    lines += [f"• a query whose true answer is below T − α = {plain(t - a)} comes back ⊥;",
              f"• one above T + α = {plain(t + a)} comes back ⊤ (until the run stops)."]
    lines.append(f"Source: {acc.source}.")
    return Preview("\n".join(lines), a, TopCurve.of(mech), t, CURVE_NOTE)


def selection_words(mech: Mechanism, k: int, beta: float) -> Preview:
    """A non-interactive selection (EM top-c, SVT with retraversal)."""
    acc = mech.accuracy_bound(max(1, k), beta)
    a = float(acc.alpha)
    statement = acc.statement.removeprefix("with probability 1 − β, ")
    return Preview(f"Releases: {releases(mech)}\nAccuracy: α = {plain(a)} with probability at least "
                   f"{percent(1 - beta)}, {queue_words(k)}: {statement}.\nSource: {acc.source}.", a,
                   note="No P[⊤] curve: this mechanism selects from the whole list, with no single "
                        "threshold test.")


def pmw_words(params: Params, k: int, beta: float) -> Preview:
    """PMW: T is in rows and bounds a free answer's error; paid answers carry fresh noise."""
    m = mechanisms.create("pmw", rng=ScaleProbe(), threshold_unit="rows",
                          **{p: v for p, v in params.items() if p not in RUN_KEYS})
    free, paid = m.free_error_bound(max(1, k), beta), m.paid_error_bound(beta)
    # PMW's own test as bind() builds it: Sparse on |true − free| rows, sensitivity 1
    test = mechanisms.create("sparse", rng=ScaleProbe(), epsilon=m.svt_epsilon, delta=m.delta,
                             threshold=m.threshold, cutoff=m.cutoff, sensitivity=1.0, integer=False)
    return Preview(
        f"Releases: a noisy row count n̂ at the start, then a number for every query — free answers from "
        f"the public synthetic histogram, and at most {count(m.cutoff, 'paid answer')} with fresh noise, "
        f"after which the run stops.\n"
        f"T = {plain(m.threshold)} rows: a query is paid for when its free answer would be off by more than "
        f"about T rows.\n"
        f"Accuracy, with probability at least {percent(1 - beta)}, {queue_words(k)}:\n"
        f"• every free answer is within ±{plain(free)} rows of the truth (T plus the test's α);\n"
        f"• every paid answer is within ±{plain(paid)} rows (Laplace tail, ε = "
        f"{plain(m.answer_epsilon / m.cutoff)} each).\n"
        "Source: Hardt & Rothblum (2010) with the Sparse bound of the test; see docs/linear-queries.md.",
        free - m.threshold, TopCurve.of(test), m.threshold,
        "Exact chance that a query is paid for (one of the c fresh noisy answers) when the free answer "
        "would be off by x rows; below that, the free answer is released. Public parameters only.",
        "how far off the free answer would be (rows)", "P[paid]", 0.0)


def sparse_project_words(params: Params, planning_n: int) -> Preview:
    """SparseProject: a release file; its projection size is not a threshold."""
    m = mechanisms.create("sparse_project", rng=ScaleProbe(),
                          **{p: v for p, v in params.items() if p not in RUN_KEYS})
    acc = m.accuracy(planning_n)
    rows = acc.alpha * planning_n
    return Preview(
        "Releases: one file — a noisy projection of the histogram onto "
        f"{count(m.projection_size, 'random sign')} (the projection size, not a threshold) and a noisy row "
        "count. No query is answered now; anyone answers count queries from the file later, without the "
        "data, at no further cost.\n"
        f"Accuracy, with probability at least {percent(1 - m.beta)} (the release's own β), for "
        f"{count(m.queries, 'query')} touching at most {count(m.sparsity, 'cell')} each: answers (as a "
        f"fraction of n) within ±{plain(acc.alpha)}, about ±{plain(rows)} rows at a planning n of "
        f"{plain(planning_n)} (a worst case: ‖D‖₂ = n).\n"
        f"The paper's projection size for this n would be {plain(acc.paper_projection_size)}.\n"
        "Source: Blum & Roth (2011), calibration corrected; see docs/linear-queries.md.",
        acc.alpha, note="No curve: a SparseProject run answers no query now; it writes a release file.")


def describe(mechanism_id: str, params: Params, k: int, beta: float,
             planning_n: int = 10_000) -> Preview:
    """The preview of ``mechanism_id`` with ``params`` over ``k`` queued queries (``ValueError`` with
    the reason when the parameters do not build a mechanism or it has no closed-form bound)."""
    info = mechanisms.info(mechanism_id)
    if info.input == HISTOGRAM:
        return pmw_words(params, k, beta)
    if info.input == RELEASE:
        return sparse_project_words(params, planning_n)
    mech = mechanisms.create(mechanism_id, rng=ScaleProbe(), **params)
    if info.interactive and hasattr(mech, "lattice") and hasattr(mech, "threshold"):
        return threshold_words(mech, k, beta)
    return selection_words(mech, k, beta)
