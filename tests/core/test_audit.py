"""Verdicts of the auditor on every catalogue entry, with fixed (small) sample sizes.

The test claims ε = 1 (noise scales of a few units, so a leak shows within 10^5 runs) with
10^4 search runs and 10^5 final runs per input, seed fixed, so each verdict is reproducible.

False alarms: for a private mechanism every event satisfies P1 ≤ e^ε·P2, and the final test is
an exact level-α test on a sample independent of the search, so a private mechanism is flagged
with probability at most α = 0.01 per audit (much less in practice: the chosen event's true
ratio is below e^ε, not at it). Misses: each broken variant's true leak at ε = 1 is large
(Alg. 4: 1.75ε; the others unbounded in the number of queries); at these sizes the p-values are
below 1e-20 in our runs, so a miss would need a change of behaviour, not bad luck.
"""

import json
import math

import numpy as np
import pytest

from svtgui.core import mechanisms
from svtgui.core.audit import NO_VIOLATION, VIOLATION, audit, auditable

SIZES = dict(search_runs=10_000, final_runs=100_000)
AUDITABLE = [e.id for e in mechanisms.catalog() if auditable(e.id)]
PRIVATE = [m for m in AUDITABLE if mechanisms.info(m).status == mechanisms.PRIVATE]
BROKEN = [m for m in AUDITABLE if mechanisms.info(m).status == mechanisms.KNOWN_NON_PRIVATE]


def test_the_catalogue_has_private_and_broken_entries_to_audit():
    assert len(PRIVATE) >= 7
    assert set(BROKEN) >= {"lecture_sparse_2011", "lyu_alg4_lee_clifton", "lyu_alg5_stoddard",
                           "lyu_alg6_chen"}


@pytest.mark.parametrize("mid", PRIVATE)
def test_private_mechanisms_pass_at_their_claimed_epsilon(mid):
    r = audit(mid, 1.0, seed=3, **SIZES)
    assert r.verdict == NO_VIOLATION and r.p_value >= 0.01, r.summary()
    assert r.epsilon_lcb <= 1.0


@pytest.mark.parametrize("mid", BROKEN)
def test_known_non_private_variants_are_flagged(mid):
    r = audit(mid, 1.0, seed=3, **SIZES)
    assert r.verdict == VIOLATION and r.p_value < 0.01, r.summary()
    assert r.epsilon_lcb > 1.0
    # the witness is a genuine neighbouring pair: every answer moves by at most Δ = 1
    assert np.max(np.abs(r.witness.d1 - r.witness.d2)) <= 1.0
    assert r.counts[0] / r.runs > r.counts[1] / r.runs_d2 * math.exp(1.0)


def test_lyu_algorithm_4_leak_is_bounded_by_its_true_epsilon():
    # Lyu et al. prove Algorithm 4 is ((1 + 6c)/4)·ε-DP: 1.75 at ε = 1, c = 1. A 99% lower bound
    # above that would mean our implementation leaks more than the published algorithm.
    r = audit("lyu_alg4_lee_clifton", 1.0, seed=4, **SIZES)
    assert 1.0 < r.epsilon_lcb <= 1.75


def test_reference_setting_stoddard_at_epsilon_0_1():
    # DP-Sniper's setting (ε = 0.1, c = 1): Algorithm 5 has outputs impossible on the neighbour,
    # so even a small sample bounds ε far above DP-Sniper's 1.76.
    r = audit("lyu_alg5_stoddard", 0.1, seed=1, **SIZES)
    assert r.violation and r.epsilon_lcb > 1.76


def test_same_seed_and_sizes_give_the_same_result():
    a = audit("lecture_sparse_2011", 1.0, seed=9, **SIZES)
    b = audit("lecture_sparse_2011", 1.0, seed=9, **SIZES)
    assert (a.counts, a.event, a.witness.name) == (b.counts, b.event, b.witness.name)


def test_time_budget_mode_sizes_the_samples_itself():
    r = audit("sparse", 1.0, seconds=1.0, seed=1)
    assert r.runs >= 2000 and r.search_runs >= 2000 and r.seconds > 0


def test_result_serialises_to_json():
    r = audit("lyu_alg5_stoddard", 1.0, seed=1, **SIZES)
    d = json.loads(json.dumps(r.to_dict()))
    assert d["verdict"] == VIOLATION and d["mechanism"] == "lyu_alg5_stoddard"
    assert len(d["witness"]["d1"]) == len(d["witness"]["d2"])


class Watching:
    """A progress state (:class:`svtgui.core.progress.ProgressState`) that records every report and
    says cancelled from the ``cancel_after``-th report on."""

    def __init__(self, cancel_after: int | None = None) -> None:
        self.seen: list[tuple[float, str]] = []
        self.cancel_after = cancel_after

    def set_progress(self, fraction, text=""):
        self.seen.append((fraction, text))

    def is_cancelled(self):
        return self.cancel_after is not None and len(self.seen) >= self.cancel_after


def test_progress_is_reported_and_reaches_the_end():
    state = Watching()
    audit("sparse", 1.0, seed=1, progress=state, **SIZES)
    fractions = [f for f, _ in state.seen]
    assert fractions[-1] == 1.0 and all(0 <= f <= 1 for f in fractions)
    assert any(text.startswith("searching") for _, text in state.seen)


def test_cancel_tests_the_runs_made_so_far():
    planned = 300_000  # more than one chunk of the final test
    cut = audit("sparse", 1.0, seed=1, progress=Watching(cancel_after=1), search_runs=10_000,
                final_runs=planned)
    assert 0 < cut.runs < planned  # the final test stopped after its first chunk


@pytest.mark.parametrize(("kwargs", "message"), [
    (dict(mechanism_id="nope", epsilon=1.0), "unknown mechanism 'nope'"),
    (dict(mechanism_id="sparse", epsilon=0.0), "epsilon must be > 0"),
    (dict(mechanism_id="sparse", epsilon=float("nan")), "epsilon must be finite"),
    (dict(mechanism_id="sparse", epsilon=1.0, seconds=-1), "seconds must be > 0"),
    (dict(mechanism_id="sparse", epsilon=1.0, alpha=1.5), "alpha must be strictly between 0 and 1"),
    (dict(mechanism_id="sparse", epsilon=1.0, search_runs=10), "search_runs must be >= 100"),
    (dict(mechanism_id="sparse", epsilon=1.0, params={"colour": 3}), "no parameter 'colour'"),
])
def test_bad_input_is_refused_with_a_clear_message(kwargs, message):
    with pytest.raises(ValueError, match=message):
        audit(**kwargs)


def test_every_catalogue_entry_is_auditable():
    # answer-vector mechanisms and, since PMW and SparseProject, the mechanisms on histograms
    assert AUDITABLE == [e.id for e in mechanisms.catalog()]
    assert {"pmw", "sparse_project"} <= set(PRIVATE)
