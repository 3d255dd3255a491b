"""The side-by-side comparison (svtgui.app.comparison): data-free, and its ⊤ count a true upper bound."""

from __future__ import annotations

import math

import numpy as np

from svtgui.app.comparison import COMPARED, compare
from svtgui.core import mechanisms
from svtgui.core.preview import TopCurve

BASE = dict(epsilon=1.0, threshold=100.0, cutoff=3, sensitivity=1.0, integer=True)


def test_every_compared_mechanism_gets_a_row_in_words():
    rows = compare({**BASE, "delta": 1e-6, "monotonic": False}, 2000, 0.05, 100.0)
    assert [r.mechanism_id for r in rows] == list(COMPARED)
    by = {r.mechanism_id: r for r in rows}
    assert "no numbers" in by["sparse"].releases and "fresh noisy answer" in by["numeric_sparse"].releases
    assert "numbers within" in by["numeric_sparse"].meaning and "numbers" not in by["sparse"].meaning
    assert by["em_top_c"].top_at_x == "no threshold" and by["em_top_c"].tops == "selects 3"
    assert "δ is not used" in by["standard_svt"].note and by["sparse"].note == ""
    assert all(r.top_at_x.endswith("%") for r in rows if r.mechanism_id != "em_top_c")


def test_without_a_hypothetical_answer_nothing_is_guessed():
    rows = compare(BASE, 50, 0.05, None)
    assert all(r.top_at_x in ("type x", "no threshold") for r in rows)


def test_bad_parameters_say_so_in_the_row():
    (sparse, *_) = compare({**BASE, "epsilon": -1.0}, 10, 0.05, 100.0)
    assert sparse.alpha == "—" and "epsilon" in sparse.note


def _mean_tops(mechanism_id: str, params: dict, x: float, k: int, runs: int, seed: int) -> float:
    rng = mechanisms.seeded(seed)
    answers = np.full(k, x)
    return float(np.mean([mechanisms.create(mechanism_id, rng=rng, **params).submit_many(answers).above.sum()
                          for _ in range(runs)]))


def test_the_top_count_is_an_upper_bound_on_real_runs_and_exact_without_a_cutoff():
    """Runs on synthetic answers all equal to x (no data). The count of ⊤ lies in [0, k], so by
    Hoeffding the mean of R runs is within k·√(ln(2/10⁻⁶)/(2R)) of its expectation except with
    probability 10⁻⁶ per check."""
    k, runs = 12, 3000
    slack = k * math.sqrt(math.log(2 / 1e-6) / (2 * runs))  # ≈ 0.59
    for mid, x in (("sparse", 80.0), ("standard_svt", 85.0)):  # k·P[⊤] ≈ 1.5 and 1.25: below c = 3
        mech = mechanisms.create(mid, rng=mechanisms.ScaleProbe(), **BASE)
        p = float(TopCurve.of(mech).probability([x])[0])
        bound = min(BASE["cutoff"], k * p)
        assert bound + slack < BASE["cutoff"]  # the check is not implied by the cutoff alone
        assert _mean_tops(mid, BASE, x, k, runs, seed=11) <= bound + slack, mid
    x = 101.0
    # Standard SVT with c ≥ k never halts early: its mean ⊤ count is k·P[⊤] exactly
    free = {**BASE, "cutoff": k}
    p = float(TopCurve.of(mechanisms.create("standard_svt", rng=mechanisms.ScaleProbe(), **free))
              .probability([x])[0])
    assert abs(_mean_tops("standard_svt", free, x, k, runs, seed=12) - k * p) <= slack


def test_no_queued_query_reads_as_one_query_in_every_column():
    """The header says "for a single query" when nothing is queued: the ⊤ column then counts over that
    one query (it said "at most 0 ⊤"), and EM selects one."""
    one, none = compare(BASE, 1, 0.05, 100.0), compare(BASE, 0, 0.05, 100.0)
    assert [r.tops for r in none] == [r.tops for r in one]
    assert all(r.tops != "at most 0" for r in none)
    assert {r.mechanism_id: r.tops for r in none}["em_top_c"] == "selects 1"
