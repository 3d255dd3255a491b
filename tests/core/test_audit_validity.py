"""The auditor's false-alarm rate on private mechanisms is at most α, whatever the search looked at.

The event is chosen on one sample (or, with cutoff 1, on exact probabilities with no sample at
all) and tested on fresh runs, so the final p-value is valid for the one event reported. This
test checks the consequence over many seeds, at a large α (0.2) so that a rate above α shows at
small sizes. It checks the whole pipeline on two private mechanisms; it is not a proof (a flaw that
raised the rate only on other mechanisms, or only by a few per cent, would pass).

Two paths: above_threshold with cutoff 1 (event chosen on exact probabilities) and sparse with
cutoff 2 (keys ranked and thresholds chosen on a sampled search, several views, both directions).
90 audits in all. If each is a false alarm with probability at most α = 0.2, the number of alarms
X is stochastically below Bin(90, 0.2) (mean 18): P[X ≥ 32] ≤ 4.3e-4, the false-failure
probability of this test. In practice X is far lower: the exact Clopper–Pearson union bound is
conservative and the mechanisms' best events sit below the e^ε boundary.
"""

from svtgui.core.audit import audit

ALPHA = 0.2
CASES = [("above_threshold", None, 60), ("sparse", {"cutoff": 2}, 30)]
MOST_ALARMS = 31  # P[Bin(90, 0.2) ≥ 32] = 4.3e-4


def test_false_alarms_on_private_mechanisms_stay_below_alpha():
    alarms = audits = 0
    for mid, params, seeds in CASES:
        for seed in range(seeds):
            r = audit(mid, 1.0, seed=seed, alpha=ALPHA, params=params, search_runs=400, final_runs=600)
            alarms += r.violation
            audits += 1
            assert r.p_value >= 0.0 and (r.violation == (r.p_value < ALPHA))
    assert audits == 90
    assert alarms <= MOST_ALARMS, f"{alarms} false alarms in {audits} audits at α = {ALPHA}"
