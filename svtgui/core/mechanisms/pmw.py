"""Private Multiplicative Weights: Hardt & Rothblum, "A Multiplicative Weights Mechanism for
Privacy-Preserving Data Analysis", FOCS 2010 — in the "simulate, pay only when wrong" form of
Ligett's and Lyu, Su & Li's slides.

For each linear query Q (a vector over the universe, or an m-sparse (indices, weights) pair):

1. the *simulated* answer ⟨Q, p⟩ comes from a public synthetic distribution p over the universe
   (uniform at the start; it depends only on earlier released answers, so it is public);
2. the error query f(D) = |Σ_x Q(x)D[x] − n̂·⟨Q, p⟩| (sensitivity 1: Q ∈ [0, 1], n̂ public) is fed
   to the catalogue's ``sparse`` mechanism (Dwork & Roth, Algorithm 2 — the engine, not a copy);
3. on ⊥ the simulated answer is returned: *free* (only the SVT test touched the data);
4. on ⊤ a fresh Laplace answer is paid for (ε_answer/c each, on the noise lattice), returned,
   and p is updated by a multiplicative-weights step towards it:
   p(x) ← p(x)·exp(±η·Q(x)), renormalised (+ when the noisy answer exceeds the simulation);
5. after c paid updates SVT halts and so does PMW (c bounds the budget).

Privacy: ε = ε_count (noisy n̂ under add/remove) + ε_svt (Sparse, (ε_svt, δ)) + ε_answer (c Laplace
answers of ε_answer/c, basic composition); the MW update is post-processing of released values.

Accuracy: with probability 1 − β over k queries, every free answer has |simulated − true| below
``threshold·n̂ + α_svt`` counts, with α_svt the catalogue's accuracy bound for ``sparse`` with the
same scales (``accuracy_bound`` of that Sparse), and every paid answer is within the Laplace
tail ``(c/ε_answer)·ln(2c/β)`` of the truth.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from svtgui.core import laplace, validation
from svtgui.core.linear import LinearQuery, SparseHistogram, as_query
from svtgui.core.mechanisms import dwork_roth
from svtgui.core.mechanisms import sparse_project_theory as nb
from svtgui.core.mechanisms.base import (
    CUTOFF,
    DELTA,
    EPSILON,
    HISTOGRAM,
    PRIVATE,
    Batch,
    Guarantee,
    MechanismInfo,
    Param,
    Response,
    StreamingMechanism,
    register,
)
from svtgui.core.mechanisms.sparse_project import COUNT_SHARE, NEIGHBOURING
from svtgui.core.noise import ScaleProbe, seeded

FRACTION, ROWS = "fraction", "rows"  # units of the threshold
CITATION = ("M. Hardt and G. N. Rothblum, A Multiplicative Weights Mechanism for Privacy-Preserving Data "
            "Analysis, FOCS 2010; the SVT form as in K. Ligett's SVT slides and Lyu, Su & Li (PVLDB 2017)")


class PrivateMultiplicativeWeights(StreamingMechanism):
    """Streaming PMW over a universe; :meth:`bind` the private histogram, then :meth:`submit` queries."""

    info: MechanismInfo

    def __init__(self, *, threshold: float, cutoff: int, answer_share: float, learning_rate: float | None,
                 neighbouring: str, count_share: float, threshold_unit: str = FRACTION, **kw) -> None:
        super().__init__(sensitivity=1.0, **kw)
        self.threshold = threshold
        self.threshold_unit = threshold_unit
        self.cutoff = cutoff
        self._eta = learning_rate  # None: α/2 as H&R, fixed at bind() when α is given in rows
        self.learning_rate = threshold / 2 if learning_rate is None and threshold_unit == FRACTION \
            else learning_rate
        self.neighbouring = neighbouring
        eps, self.delta = self.guarantee.epsilon, self.guarantee.delta
        self.count_epsilon = eps * count_share if neighbouring == nb.ADD_REMOVE else 0.0
        rest = eps - self.count_epsilon
        self.answer_epsilon = rest * answer_share
        self.svt_epsilon = rest - self.answer_epsilon
        self.above_count = 0
        self.answered = 0
        self.free_count = 0
        self.n: int | None = None
        self.__hist: SparseHistogram | None = None
        self.__svt = None
        self._p: np.ndarray | None = None
        self._log_w: np.ndarray | None = None

    # -- set-up --------------------------------------------------------------------------------
    def bind(self, histogram: SparseHistogram) -> None:
        """Attach the private histogram (once): releases n̂ (noisy under add/remove) and starts SVT."""
        if self.__hist is not None:
            raise ValueError("pmw is already bound to a histogram; create a new run for another one")
        if not isinstance(histogram, SparseHistogram):
            raise ValueError("pmw needs a SparseHistogram (cells, counts, universe size)")
        self.__hist = histogram
        n = histogram.n
        if self.count_epsilon > 0:
            n = int(laplace.laplace_release(n, 1.0, self.count_epsilon, self._rng, integer=True))
        self.n = max(n, 1)
        if self._eta is None:  # α = test threshold / n̂ (public: n̂ is released)
            self.learning_rate = self.test_threshold / self.n / 2
        self.__svt = dwork_roth.sparse(epsilon=self.svt_epsilon, delta=self.delta,
                                       threshold=self.test_threshold, cutoff=self.cutoff,
                                       sensitivity=1.0, integer=False, rng=self._rng)
        self._p = np.full(histogram.size, 1.0 / histogram.size)
        self._log_w = np.zeros(histogram.size)  # log-weights of p (see _update)

    @property
    def test_threshold(self) -> float:
        """The SVT test's threshold in rows: α·n̂ (unit ``fraction``, needs n̂) or the threshold itself."""
        if self.threshold_unit == ROWS:
            return self.threshold
        if self.n is None:
            raise ValueError("pmw is not bound yet: a threshold given as a fraction of n needs n̂")
        return self.threshold * self.n

    @property
    def universe_size(self) -> int | None:
        return None if self._p is None else self._p.size

    def synthetic(self) -> np.ndarray:
        """The public synthetic distribution p (a copy): answers from it are post-processing."""
        if self._p is None:
            raise ValueError("pmw is not bound to a histogram yet (call bind(histogram) first)")
        return self._p.copy()

    def noise_scales(self) -> dict[str, float]:
        """n̂'s noise, the paid answers' (counting queries: step 1; weighted: step 2^-10) and the
        SVT test's (the catalogue's sparse on sensitivity 1, built here with a probe that draws nothing)."""
        test = dwork_roth.sparse(epsilon=self.svt_epsilon, delta=self.delta, threshold=0.0,
                                 cutoff=self.cutoff, sensitivity=1.0, integer=False, rng=ScaleProbe())
        scales = {f"test {name}": units for name, units in test.noise_scales().items()}
        per_answer = self.answer_epsilon / self.cutoff
        scales["answer"] = 1 / per_answer
        scales["weighted answer"] = laplace.laplace_scale(1.0, per_answer) / 2.0**-10
        if self.count_epsilon > 0:
            scales["count"] = 1 / self.count_epsilon
        return scales

    @property
    def answer_scale(self) -> float:
        """Laplace scale (counts) of each paid answer: Δ_eff·c/ε_answer."""
        return laplace.laplace_scale(1.0, self.answer_epsilon / self.cutoff)

    def free_error_bound(self, k: int, beta: float) -> float:
        """Counts: with probability 1 − β every free answer among k errs by less than this."""
        params = dict(epsilon=self.svt_epsilon, delta=self.delta, threshold=0.0, cutoff=self.cutoff,
                      sensitivity=1.0, integer=False)
        if self.threshold_unit == ROWS:
            rows = self.threshold
        else:
            rows = self.threshold * (self.n if self.n is not None else 0)
        svt = dwork_roth.sparse(**params, rng=seeded(0))  # never sees data: only its scales are read
        return rows + svt.accuracy_bound(k, beta).alpha

    def paid_error_bound(self, beta: float) -> float:
        """Counts: with probability 1 − β every paid answer errs by less than this (Laplace tails)."""
        b = validation.probability("beta", beta, allow_zero=False)
        return self.answer_scale * math.log(2 * self.cutoff / b) + 1.0

    # -- answering -----------------------------------------------------------------------------
    def submit(self, query: LinearQuery | np.ndarray | tuple[np.ndarray, np.ndarray],  # type: ignore[override]
               threshold: float | None = None, sensitivity: float | None = None) -> Response:
        """Answer one linear query; ``value`` is the normalised answer (1/n̂)·Σ Q(x)D[x] estimate.

        ``query``: a :class:`LinearQuery`, a dense vector over the universe, or (indices, weights).
        The threshold is the run's (per-query thresholds are not part of PMW's analysis).
        """
        self._check_open()
        if self._p is None or self.__hist is None or self.__svt is None:
            raise ValueError("pmw is not bound to a histogram yet (call bind(histogram) first)")
        if threshold is not None:
            raise ValueError("pmw uses one threshold for the run; per-query thresholds are not supported")
        self._check_sensitivity(sensitivity)
        q = as_query(query, self._p.size)
        simulated = float(np.dot(q.weights, self._p[q.indices]))
        true = q.count(self.__hist)
        test = self.__svt.submit(abs(true - simulated * self.n))
        index = self.answered
        self.answered += 1
        if not test.above:
            self.free_count += 1
            return Response(index, False, simulated, answered_from_simulation=True)
        integer = bool(np.all(q.weights == 1.0))
        paid = float(laplace.laplace_release(true, 1.0, self.answer_epsilon / self.cutoff, self._rng,
                                             integer=integer)) / self.n
        self._update(q, up=paid > simulated)
        self.above_count += 1
        self.halted = self.__svt.halted
        return Response(index, True, paid, answered_from_simulation=False)

    def _update(self, q: LinearQuery, *, up: bool) -> None:
        """Multiplicative-weights step towards the paid answer (public data only).

        Kept in log space and renormalised by the largest log-weight: ``p·exp(±η·Q)`` computed directly
        overflows for a large η (η = 1000 turned p into NaN after one paid answer, and the next query
        failed after the run was charged); here the largest weight is always 1, so p stays a
        distribution for every η a double can hold.
        """
        log_w = self._log_w
        log_w[q.indices] += (self.learning_rate if up else -self.learning_rate) * q.weights
        log_w -= log_w.max()
        p = np.exp(log_w)
        self._p = p / p.sum()

    def submit_many(self, queries: Sequence[LinearQuery], thresholds=None) -> Batch:  # type: ignore[override]
        """Submit queries in order until they run out or the cutoff halts the run."""
        if thresholds is not None:
            raise ValueError("pmw uses one threshold for the run; per-query thresholds are not supported")
        self._check_open()
        start, n = self.answered, len(queries)
        above = np.zeros(n, dtype=bool)
        values = np.full(n, np.nan)
        for k, q in enumerate(queries):
            r = self.submit(q)
            above[k], values[k] = r.above, float(r.value)
            if self.halted:
                return Batch(above, values, k + 1, start)
        return Batch(above, values, n, start)


PMW_THRESHOLD = Param("threshold", "float",
                      "α: a query is paid for when its simulated answer is off by more than α·n̂ "
                      "(or by more than this many rows when threshold_unit is rows)",
                      required=True, minimum=0.0)
THRESHOLD_UNIT = Param("threshold_unit", "str",
                       "fraction (threshold α < 1, the test compares the error with α·n̂, as H&R) or rows "
                       "(the threshold is a number of rows; n is not needed to set it)", default=FRACTION)
ANSWER_SHARE = Param("answer_share", "float", "Share of ε (after n̂) for the c paid answers; the rest tests",
                     default=0.5, minimum=0.0, maximum=1.0)
LEARNING_RATE = Param("learning_rate", "float", "η of the multiplicative-weights step (empty = α/2, as H&R)",
                      default=None, minimum=0.0)

PMW = MechanismInfo(
    id="pmw",
    name="Private Multiplicative Weights",
    summary="Answers linear queries from a synthetic histogram; pays and learns only when SVT says so.",
    citation=CITATION,
    guarantee="(ε, δ)-DP (ε-DP when δ = 0)",
    interactive=True,
    releases_numbers=True,
    status=PRIVATE,
    params=(EPSILON, DELTA, PMW_THRESHOLD, CUTOFF, ANSWER_SHARE, LEARNING_RATE, NEIGHBOURING, COUNT_SHARE,
            THRESHOLD_UNIT),
    notes="bind(histogram) first; submit(query) takes a LinearQuery, a dense vector over the universe or an "
          "(indices, weights) pair and returns the normalised answer with answered_from_simulation. The test "
          "is the catalogue's sparse mechanism on |true − n̂·⟨Q, p⟩| (sensitivity 1); paid answers are "
          "fresh discrete Laplace with ε_answer/c each; n is released noisily under add/remove.",
    input=HISTOGRAM,
)


@register(PMW)
def pmw(*, epsilon, threshold, cutoff=1, delta=0.0, answer_share=0.5, learning_rate=None,
        neighbouring=nb.ADD_REMOVE, count_share=0.05, threshold_unit=FRACTION, rng, trace=False):
    if trace:
        raise ValueError("pmw has no teaching trace yet")
    eps = validation.positive("epsilon", epsilon)
    dlt = validation.probability("delta", delta)
    alpha = validation.positive("threshold", threshold)
    if threshold_unit not in (FRACTION, ROWS):
        raise validation.ParamError("threshold_unit", f"threshold_unit must be {FRACTION} or {ROWS}, "
                                                      f"got {threshold_unit!r}")
    if threshold_unit == FRACTION and alpha >= 1:
        raise validation.ParamError("threshold",
                                    f"threshold is a fraction of n and must be < 1, got {threshold!r} "
                                    f"(give threshold_unit={ROWS!r} for a threshold in rows)")
    c = validation.count("cutoff", cutoff)
    share = validation.fraction_open("answer_share", answer_share)
    eta = None if learning_rate is None else validation.positive("learning_rate", learning_rate)
    nb.coordinate_change(neighbouring)
    cshare = validation.finite("count_share", count_share)
    if neighbouring == nb.ADD_REMOVE:
        cshare = validation.fraction_open("count_share", count_share)
    mech = PrivateMultiplicativeWeights(
        threshold=alpha, cutoff=c, answer_share=share, learning_rate=eta, neighbouring=neighbouring,
        count_share=cshare, threshold_unit=threshold_unit, guarantee=Guarantee(eps, dlt), rng=rng,
        params=dict(epsilon=eps, delta=dlt, threshold=alpha, cutoff=c, answer_share=share, learning_rate=eta,
                    neighbouring=neighbouring, count_share=cshare, threshold_unit=threshold_unit))
    mech.info = PMW
    return mech
