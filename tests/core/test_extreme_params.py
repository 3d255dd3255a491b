"""Noise can never vanish: extreme parameters are refused by name, or noised at a usable scale.

Property tests (hypothesis) draw ε from 1e-300 to 1e6, cutoffs up to 1e30, Δ from 1e-300 to 1e300,
thresholds and answers near ±1e308, for EVERY mechanism of the catalogue. Each draw must end in
one of two ways:

* a ``ValueError`` at ``create()`` (or at ``submit``/``select`` for an answer) whose message names a
  parameter; when the cause is a noise scale, the ``ParamError`` says which parameter and its
  usable range;
* an accepted mechanism whose every noise scale lies in ``[MIN_SCALE, MAX_SCALE]`` lattice steps
  (the only exemption: a known-non-private variant's deliberately missing noise, ``noiseless``),
  and, for the threshold family with scales of at least one step, noisy answers that differ from
  the exact ones (seen through the teaching trace) — the regression of issue 11, where ε = 1e-30
  released exact counts.

One CLI test checks the same refusal end to end: exit 2, one line, the ledger byte-identical.
"""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from svtgui.core import mechanisms, noise
from svtgui.core.mechanisms import SelectionMechanism
from svtgui.core.mechanisms.engine import ThresholdSVT
from svtgui.core.validation import ParamError

IDS = [entry.id for entry in mechanisms.catalog()]
NAMED = ("epsilon", "cutoff", "sensitivity", "threshold", "answer", "delta", "projection_size")


def log_uniform(low: int, high: int) -> st.SearchStrategy[float]:
    """m·10^e with m in [1, 10) and e in [low, high]: every decade equally likely."""
    return st.builds(lambda m, e: m * 10.0**e, st.floats(1.0, 9.99), st.integers(low, high))


EPSILON = st.one_of(log_uniform(-300, 5), log_uniform(-4, 1))  # half in the usable decades
CUTOFF = st.one_of(st.integers(1, 20), st.builds(lambda e: 10**e, st.integers(1, 30)))
DELTA = st.sampled_from([0.0, 1e-300, 1e-9, 1e-6, 0.5, 0.999999])
SENSITIVITY = st.one_of(st.just(1.0), log_uniform(-300, 299), log_uniform(-3, 3))
THRESHOLD = st.one_of(st.just(10.0), st.floats(0.01, 0.5),  # (a fraction of n for pmw)
                      st.builds(lambda s, x: s * x, st.sampled_from([1.0, -1.0]), log_uniform(-300, 307)),
                      st.sampled_from([1.7e308, -1.7e308]))


def draw_params(entry: mechanisms.MechanismInfo, data: st.DataObject) -> dict:
    declared = {p.name for p in entry.params}
    params = {"epsilon": data.draw(EPSILON, label="epsilon")}
    if "cutoff" in declared:
        params["cutoff"] = data.draw(CUTOFF, label="cutoff")
    if "sensitivity" in declared:
        params["sensitivity"] = data.draw(SENSITIVITY, label="sensitivity")
    if "integer" in declared:
        params["integer"] = data.draw(st.booleans(), label="integer")
    if "threshold" in declared:
        params["threshold"] = data.draw(THRESHOLD, label="threshold")
    if "delta" in declared:
        params["delta"] = data.draw(DELTA, label="delta")
    return params


def assert_names_a_parameter(exc: ValueError, entry: mechanisms.MechanismInfo) -> None:
    text = str(exc)
    assert "\n" not in text and any(name in text for name in NAMED), text
    if isinstance(exc, ParamError):
        assert exc.param in {p.name for p in entry.params}, (exc.param, text)
    if "noise scale" in text:  # a scale out of range: the message gives a usable range
        assert " must be in [" in text or "no single change" in text, text


def traced_noise_seen(mid: str, params: dict, tries: int = 40) -> bool:
    """Does any of ``tries`` fresh traced runs show a noisy answer ≠ the (lattice) answer at T?"""
    for seed in range(tries):
        m = mechanisms.create(mid, rng=mechanisms.seeded(seed), allow_non_private=True, trace=True, **params)
        answer = m.lattice.threshold_unit(m.threshold) * m.lattice.step  # on the lattice: exact if ν = 0
        m.submit(answer)
        step = m.internals()[0]
        if step.noisy_answer != step.answer:
            return True
    return False


def released_noise_seen(mid: str, params: dict, tries: int = 40) -> bool | None:
    """Does any of ``tries`` fresh runs, through ``submit_many``, release a number ≠ the exact answer?

    The answer sits 60 scales above T (a ⊤ except with probability below e^-30); None when that
    point is beyond the lattice or the mechanism releases no number.
    """
    for seed in range(tries):
        m = mechanisms.create(mid, rng=mechanisms.seeded(seed), allow_non_private=True, **params)
        if not m.releases_numbers:
            return None
        units = m.lattice.threshold_unit(m.threshold) + math.ceil(60 * max(m.noise_scales().values()))
        if abs(units) > 2**52:
            return None
        batch = m.submit_many([units * m.lattice.step])
        if batch.above[0] and batch.values[0] != units * m.lattice.step:
            return True
    return False


@pytest.mark.parametrize("mid", IDS)
@settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_extreme_parameters_are_refused_by_name_or_noised(mid, data):
    entry = mechanisms.info(mid)
    params = draw_params(entry, data)
    try:
        m = mechanisms.create(mid, rng=mechanisms.seeded(1), allow_non_private=True, **params)
    except ValueError as exc:
        assert_names_a_parameter(exc, entry)
        return
    scales = m.noise_scales()
    assert scales, f"{mid} reports no noise scale"
    for name, units in scales.items():
        if name not in m.noiseless:
            assert noise.MIN_SCALE <= units <= noise.MAX_SCALE, (name, units)
    if isinstance(m, SelectionMechanism):
        big = data.draw(st.sampled_from([1.7e308, 1e300, 1e3]), label="answer")
        try:
            chosen = m.select([big, 0.0, -big])
        except ValueError as exc:
            assert "answer" in str(exc)
        else:
            assert set(chosen.indices) <= {0, 1, 2}
    if isinstance(m, ThresholdSVT):
        big = data.draw(st.sampled_from([1.7e308, -1.7e308, 1e300]), label="answer")
        try:
            m.submit(big)
        except ValueError as exc:
            assert "answer" in str(exc)
        else:
            assert math.isfinite(m.lattice.step * 2.0**53)  # answer plus noise stays a finite double
        fresh = mechanisms.create(mid, rng=mechanisms.seeded(2), allow_non_private=True, **params)
        try:  # the vectorised path refuses what submit refuses, before drawing anything
            fresh.submit_many([big])
        except ValueError as exc:
            assert "answer" in str(exc)
        # With every scale ≥ 1 step, P[ν = 0] ≤ tanh(1/2) < 0.47 per run, so 40 runs all without
        # noise has probability < 1e-13: a vanished noise cannot pass this. The same holds for the
        # released numbers (fresh noise, or the noisy gap), seen through submit_many.
        if min(u for n, u in scales.items() if n not in m.noiseless) >= 1 and "query" not in m.noiseless:
            assert traced_noise_seen(mid, params), f"{mid} released exact answers with {params}"
            assert released_noise_seen(mid, params) is not False, f"{mid}: exact numbers with {params}"


@pytest.mark.parametrize("mid", [i.id for i in mechanisms.catalog() if i.id in
                                 ("above_threshold", "sparse", "numeric_sparse", "standard_svt", "gap_svt")])
@pytest.mark.parametrize("epsilon", [1e-300, 1e-30, 1e-18, 1e6])
def test_the_reported_cases_are_refused_with_a_usable_range(mid, epsilon):
    # Issue 11: ε = 1e-30 made both geometric draws overflow to the same value: zero noise.
    params = dict(epsilon=epsilon, threshold=10.0, integer=True)
    with pytest.raises(ParamError) as err:
        mechanisms.create(mid, **params)
    assert err.value.param == "epsilon" and "epsilon must be in [" in str(err.value)
    low, high = str(err.value).split("epsilon must be in [")[1].split("]")[0].split(", ")
    # the printed bounds are themselves accepted (rounded inwards)
    mechanisms.create(mid, **{**params, "epsilon": float(low)})
    mechanisms.create(mid, **{**params, "epsilon": float(high)})


@pytest.mark.parametrize("cutoff", [10**18, 10**30])
def test_huge_cutoffs_are_refused_naming_the_cutoff(cutoff):
    with pytest.raises(ParamError) as err:
        mechanisms.create("sparse", epsilon=1.0, threshold=10.0, cutoff=cutoff)
    assert "cutoff must be in [1, " in str(err.value)


def _toy_cli_inputs(tmp_path, rows: int):
    """A toy CSV of ``rows`` rows, a range sweep over it written by the CLI, and a ledger path."""
    from svtgui.cli import main

    data = tmp_path / "toy.csv"
    data.write_text("x\n" + "".join(f"{i % 100}\n" for i in range(rows)))
    queries = tmp_path / "q.json"
    assert main(["queries", "generate", "range-sweep", "--column", "x", "--start", "0", "--stop", "100",
                 "--width", "10", "--out", str(queries)]) == 0
    return data, queries, tmp_path / "ledger.sqlite"


def test_cli_run_with_an_extreme_epsilon_exits_2_and_leaves_the_ledger_untouched(tmp_path, capsys):
    from svtgui.cli import main

    data, queries, ledger = _toy_cli_inputs(tmp_path, 500)
    run = ["run", "--data", str(data), "--queries", str(queries), "--ledger", str(ledger),
           "--mechanism", "numeric_sparse", "--threshold", "40", "--budget-epsilon", "5"]
    assert main([*run, "--epsilon", "1"]) == 0
    before = {p.name: p.read_bytes() for p in tmp_path.glob("ledger.sqlite*")}
    capsys.readouterr()
    assert main([*run, "--epsilon", "1e-30"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "epsilon must be in [" in err, err
    assert {p.name: p.read_bytes() for p in tmp_path.glob("ledger.sqlite*")} == before


# The reported classes, deterministically: ε underflowing to 0 inside a budget split (ε/(1 + split)
# divided by zero in standard_svt, gap_svt, svt_retraversal), a per-round ε of Sparse with δ > 0 too
# small for a finite scale, a threshold beyond the lattice — each a ParamError naming a parameter of
# the mechanism (the GUI marks that field; the CLI prints it), never another exception.
GRID_EPSILONS = [5e-324, 1e-300, 1e-30, 1e-18, 1e6, 1e300, math.inf, math.nan]


@pytest.mark.parametrize("mid", IDS)
def test_a_grid_of_extreme_values_is_refused_by_a_named_parameter_or_noised(mid):
    entry = mechanisms.info(mid)
    declared = {p.name for p in entry.params}
    grid = [{"epsilon": e} for e in GRID_EPSILONS]
    if "delta" in declared:
        grid += [{"epsilon": e, "delta": d} for e in (1e-300, 1e-30, 1.0) for d in (1e-300, 0.5, 0.999999)]
    if "cutoff" in declared:
        grid += [{"epsilon": e, "cutoff": c} for e in (5e-324, 1.0) for c in (10**18, 10**30)]
    if "sensitivity" in declared:
        grid += [{"epsilon": e, "sensitivity": s} for e in (5e-324, 1.0) for s in (1e-300, 1e300)]
    if "threshold" in declared:
        grid += [{"epsilon": e, "threshold": t} for e in (5e-324, 1.0)
                 for t in (1.7e308, -1.7e308, math.inf, math.nan)]
    for changed in grid:
        params = {"threshold": 0.1 if mid == "pmw" else 10.0, **changed}
        params = {k: v for k, v in params.items() if k in declared}
        try:
            m = mechanisms.create(mid, rng=mechanisms.seeded(1), allow_non_private=True, **params)
        except ParamError as exc:
            assert exc.param in declared and "\n" not in str(exc), (params, exc.param, str(exc))
            continue
        for name, units in m.noise_scales().items():
            if name not in m.noiseless:
                assert noise.MIN_SCALE <= units <= noise.MAX_SCALE, (params, name, units)
        assert math.isfinite(m.guarantee.epsilon) and 0 <= m.guarantee.delta < 1, params


@pytest.mark.parametrize("mid", ["standard_svt", "gap_svt", "svt_retraversal"])
def test_an_epsilon_that_underflows_in_the_budget_split_names_epsilon_and_its_range(mid):
    with pytest.raises(ParamError) as err:
        mechanisms.create(mid, epsilon=5e-324, threshold=10.0, cutoff=1)
    assert err.value.param == "epsilon" and "epsilon must be in [" in str(err.value)


def test_a_threshold_beyond_the_lattice_is_a_threshold_error():
    with pytest.raises(ParamError) as err:
        mechanisms.create("sparse", epsilon=1.0, threshold=1e308, cutoff=1)
    assert err.value.param == "threshold"


@pytest.mark.parametrize(("mid", "option"), [
    ("standard_svt", ["--epsilon", "5e-324"]),
    ("gap_svt", ["--epsilon", "5e-324"]),
    ("numeric_sparse", ["--epsilon", "1e-300", "--delta", "0.5", "--cutoff", "1000000000000000000"]),
])
def test_cli_refuses_an_underflowing_epsilon_in_one_line_with_exit_2(tmp_path, capsys, mid, option):
    # was an internal error (exit 70, ZeroDivisionError) or a message without the usable range
    from svtgui.cli import main

    data, queries, ledger = _toy_cli_inputs(tmp_path, 200)
    capsys.readouterr()
    code = main(["run", "--data", str(data), "--queries", str(queries), "--ledger", str(ledger),
                 "--mechanism", mid, "--threshold", "40", "--budget-epsilon", "5", "--budget-delta", "0.9",
                 *option])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "epsilon must be in [" in err, err
    assert main(["ledger", "--ledger", str(ledger), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["datasets"] == []  # nothing registered, nothing charged


def test_retraversal_passes_are_bounded():
    # 10^18 passes with a threshold no answer reaches would never end after the run's charge
    with pytest.raises(ParamError) as err:
        mechanisms.create("svt_retraversal", epsilon=1.0, threshold=1e9, cutoff=1, max_passes=10**18)
    assert err.value.param == "max_passes"
    m = mechanisms.create("svt_retraversal", epsilon=1.0, threshold=1e9, cutoff=1, max_passes=10_000,
                          rng=mechanisms.seeded(0))
    assert m.select([1.0, 2.0]).indices == ()  # the last allowed value runs, and ends
