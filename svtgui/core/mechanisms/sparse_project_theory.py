"""Privacy calibration and accuracy theory of SparseProject (Blum & Roth 2011).

The privacy derivation (issue 4, section 2b: we checked the seed before trusting it)
------------------------------------------------------------------------------------
Write the projection in integer units: ``w_i = Σ_x D[x]·s(i, x)`` with signs s = ±1, so that
``u_i = w_i/√T``. One row of cell x changes D in one place:

* **add/remove one row**: every w_i moves by exactly ±1 (u_i by ±1/√T). L1 sensitivity of u is
  T·(1/√T) = √T, L2 sensitivity is √(T·1/T) = 1.
* **replace one row** (x → x', n fixed and public): w_i moves by s(i,x') − s(i,x) ∈ {−2, 0, 2}.
  L1 of u ≤ 2√T, L2 ≤ 2, per coordinate ≤ 2/√T.

The seed releases v_i = Lap(1/σ), σ = ε/√(8 ln(1/δ)), i.e. Laplace scale b = √(8 ln(1/δ))/ε on
every coordinate, and appeals to advanced composition (Dwork, Rothblum & Vadhan 2010) over the
T coordinates. Coordinate i alone is ε₀-DP with ε₀ = Δ_coord/b, and T such mechanisms are
(ε', δ)-DP with ε' = √(2T ln(1/δ))·ε₀ + T·ε₀·(e^ε₀ − 1) (:func:`seed_epsilon_advanced`). With
Δ_coord = 1/√T (add/remove): ε' = ε/2 + ≈ε²/(8 ln(1/δ)) — **sufficient**, indeed about twice too
much noise for ε ≤ 1. With Δ_coord = 2/√T (replace, the paper's fixed-n setting where n may be
public): ε' = ε + ≈ε²/(2 ln(1/δ)) > ε — advanced composition **does not certify** the claim.

That is a failure of the proof, not a proof of failure. A Rényi-DP argument does certify it for
moderate ε (:func:`seed_epsilon_renyi`): Laplace noise of scale b on a shift of Δ_coord has Rényi
divergence of order α (Mironov 2017, Proposition 6), with ε₀ = Δ_coord/b,

    D_α = 1/(α−1)·ln[ α/(2α−1)·e^((α−1)ε₀) + (α−1)/(2α−1)·e^(−αε₀) ],

the T independent coordinates add up to T·D_α (Rényi divergence is additive over product
distributions, and D_α grows with the shift), and (α, τ)-RDP implies (ε', δ)-DP with
ε' = τ + ln(1 − 1/α) − (ln δ + ln α)/(α − 1) (Canonne, Kamath & Steinke 2020, Proposition 12;
Balle et al. 2020); we take the best α of a fine grid (every α gives a valid bound).

What is shown, replace-one, the seed's calibration (continuous Laplace, as in the seed):
* at ε = 1, δ = 10⁻⁶: ε' ≈ 0.85 for large T (0.72 at T = 16, and the pure L1 bound 2√T·ε₀ wins
  below T ≈ 10): the seed's (1, 10⁻⁶) claim **holds**; so it does on the grid ε ∈ {0.1, 1, 2, 5},
  δ = 10⁻⁶ and ε ∈ {0.1, 1, 2}, δ ∈ {10⁻⁹, 10⁻³}, T from 1 to 2^20
  (``tests/core/test_sparse_project.py``); at ε = 5, δ = 10⁻³ only for T < ≈1000 (ε' ≈ 5.07 at T = 4096).
* What is *not* shown: the claim for large ε. At ε = 10, δ = 10⁻⁶, T ≥ 256 the best bound we
  have (the minimum of the L1, advanced-composition and Rényi bounds, :func:`seed_epsilon`) is
  ≈ 11 > 10; no attack is known either — the bounds are not tight, so the claim is open there.
* Nothing here changes what we implement (below): the calibrations we use are certified directly
  from the sensitivities, for both neighbourings and every (ε, δ).

What we implement instead, both from the same sensitivities:

* ``noise="gaussian"`` (default): discrete Gaussian on w with σ_w = Δ₂/√(2ρ) (Δ₂ = √T or 2√T in
  integer units), ρ from (ε, δ) by the Bun–Steinke conversion. At ε = 1, δ = 10⁻⁶ the per-coordinate
  standard deviation in u units is 5.4 (add/remove) against the seed's Laplace 14.9.
* ``noise="laplace"``: discrete Laplace whose scale is the *smaller* of the advanced-composition
  solution of ε' = ε (solved numerically, so it is correct for either neighbouring) and the pure
  L1 calibration b = Δ₁/ε (which wins only when T < ≈2 ln(1/δ)).

n under add/remove neighbours is itself private: it is released with discrete Laplace noise of
scale 1/ε_n from a share of ε (basic composition), and answers are normalised by the noisy n̂.

Accuracy theory (what "theoretical α" means here)
-------------------------------------------------
Per query, four events each fail with probability τ = β/(4k + 1) (and one more for n̂):
norm preservation of Q + D/‖D‖·‖Q‖, Q − …, and Q under A (Achlioptas 2003:
P[|‖Ax‖² − ‖x‖²| > γ‖x‖²] ≤ 2·exp(−(T/2)(γ²/2 − γ³/3)) for independent ±1/√T signs; the paper's
r-wise independent family matches these moments up to order r = 2 ln(kT/2β), which is how Blum & Roth
carry the bound over), and the noise tail. By polarisation
|⟨AQ, AD⟩ − ⟨Q, D⟩| ≤ γ‖Q‖₂‖D‖₂ ≤ γ√m·n, and ⟨AQ, v⟩ is sub-Gaussian (σ²(1+γ)m) or
sub-exponential (Laplace) with ‖AQ‖∞ ≤ m/√T. The worst case ‖D‖₂ = n is what makes the paper's T
enormous: γ√m must be below the noise term, i.e. T must grow like n².
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np

from svtgui.core import gaussian, validation

ADD_REMOVE = "add_remove"
REPLACE = "replace"
NEIGHBOURINGS = (ADD_REMOVE, REPLACE)
GAUSSIAN = "gaussian"
LAPLACE = "laplace"
NOISES = (GAUSSIAN, LAPLACE)


def coordinate_change(neighbouring: str) -> int:
    """Largest change of one integer coordinate w_i between neighbours (1 add/remove, 2 replace)."""
    if neighbouring not in NEIGHBOURINGS:
        raise ValueError(f"neighbouring must be one of {', '.join(NEIGHBOURINGS)}, got {neighbouring!r}")
    return 1 if neighbouring == ADD_REMOVE else 2


def advanced_composition(eps0: float, k: int, delta: float) -> float:
    """ε' of k adaptively composed ε₀-DP mechanisms at slack δ (Dwork, Rothblum & Vadhan 2010)."""
    return math.sqrt(2 * k * math.log(1 / delta)) * eps0 + k * eps0 * math.expm1(eps0)


def seed_scale(epsilon: float, delta: float) -> float:
    """The seed's Laplace scale 1/σ = √(8 ln(1/δ))/ε (in units of u)."""
    return math.sqrt(8 * math.log(1 / delta)) / epsilon


def _seed_eps0(epsilon: float, delta: float, projection_size: int, neighbouring: str) -> float:
    """ε₀ of one coordinate under the seed's scale: Δ_coord / b."""
    return coordinate_change(neighbouring) / math.sqrt(projection_size) / seed_scale(epsilon, delta)


def seed_epsilon_advanced(epsilon: float, delta: float, projection_size: int, neighbouring: str) -> float:
    """ε' of the seed's calibration by advanced composition (DRV) over the T coordinates, at the same δ."""
    eps0 = _seed_eps0(epsilon, delta, projection_size, neighbouring)
    return advanced_composition(eps0, projection_size, delta)


def laplace_rdp(order: np.ndarray | float, eps0: float) -> np.ndarray:
    """Rényi divergence of order α > 1 between Laplace(0, b) and Laplace(Δ, b), ε₀ = Δ/b (Mironov 2017)."""
    a = np.asarray(order, dtype=np.float64)
    return (np.log(a / (2 * a - 1)) + (a - 1) * eps0
            + np.log1p((a - 1) / a * np.exp(-(2 * a - 1) * eps0))) / (a - 1)


def rdp_to_dp(rdp: np.ndarray | float, order: np.ndarray | float, delta: float) -> np.ndarray:
    """ε of (ε, δ)-DP implied by (α, τ)-RDP: τ + ln(1 − 1/α) − (ln δ + ln α)/(α − 1) (CKS 2020, Prop. 12)."""
    a = np.asarray(order, dtype=np.float64)
    return np.asarray(rdp) + np.log1p(-1 / a) - (math.log(delta) + np.log(a)) / (a - 1)


RDP_ORDERS = np.exp(np.linspace(math.log(1 + 1e-3), math.log(1e6), 4000))


def renyi_epsilon(eps0: float, k: int, delta: float) -> float:
    """ε' at δ of k independent Laplace releases, each shifted by at most ε₀ scales, by RDP (best order)."""
    return float(np.min(rdp_to_dp(k * laplace_rdp(RDP_ORDERS, eps0), RDP_ORDERS, delta)))


def seed_epsilon_renyi(epsilon: float, delta: float, projection_size: int, neighbouring: str) -> float:
    """ε' of the seed's calibration by the Rényi-DP bound (module docstring), at the same δ."""
    eps0 = _seed_eps0(epsilon, delta, projection_size, neighbouring)
    return renyi_epsilon(eps0, projection_size, delta)


def seed_epsilon(epsilon: float, delta: float, projection_size: int, neighbouring: str) -> float:
    """The smallest ε' we can prove for the seed's calibration at the same δ: L1, advanced or Rényi."""
    eps0 = _seed_eps0(epsilon, delta, projection_size, neighbouring)
    return min(projection_size * eps0, seed_epsilon_advanced(epsilon, delta, projection_size, neighbouring),
               seed_epsilon_renyi(epsilon, delta, projection_size, neighbouring))


def laplace_scale(epsilon: float, delta: float, projection_size: int, neighbouring: str) -> float:
    """Laplace scale (units of u) making the T coordinates (ε, δ)-DP; the smaller of two valid routes."""
    T = projection_size
    step = coordinate_change(neighbouring) / math.sqrt(T)  # Δ per coordinate in units of u
    pure = step * T / epsilon  # L1 calibration: Δ₁ = T·step
    lo, hi = 0.0, epsilon  # ε₀ ↦ advanced_composition is increasing; at ε₀ = ε it already exceeds ε
    for _ in range(200):
        mid = (lo + hi) / 2
        if advanced_composition(mid, T, delta) <= epsilon:
            lo = mid
        else:
            hi = mid
    advanced = step / lo if lo > 0 else math.inf
    return min(pure, advanced)


def gaussian_sigma(epsilon: float, delta: float, neighbouring: str) -> float:
    """Discrete-Gaussian σ in units of u (L2 sensitivity 1 or 2): Δ₂/√(2ρ)."""
    return gaussian.sigma_for(coordinate_change(neighbouring), gaussian.rho_for(epsilon, delta))


def paper_projection_size(n: int, m: int, k: int, beta: float) -> float:
    """The paper's T = 4·64²·ln(1/τ)·(m^1.5/2 + n⁴/(2√m) + √m·n²), τ = β/(4k) (a float: it is huge)."""
    tau = beta / (4 * k)
    return 4 * 64**2 * math.log(1 / tau) * (m**1.5 / 2 + n**4 / (2 * math.sqrt(m)) + math.sqrt(m) * n**2)


def independence(k: int, projection_size: int, beta: float) -> int:
    """r = 2·ln(kT/2β) rounded up to an even integer ≥ 2 (the moment argument needs r even)."""
    r = math.ceil(2 * math.log(max(k * projection_size / (2 * beta), math.e)))
    return max(2, r + (r % 2))


def jl_gamma(projection_size: int, tau: float) -> float:
    """Smallest γ ≤ 1 with 2·exp(−(T/2)(γ²/2 − γ³/3)) ≤ τ; ∞ when even γ = 1 is not enough."""
    need = 2 * math.log(2 / tau) / projection_size
    if need > 1 / 6:  # γ²/2 − γ³/3 peaks at 1/6 (γ = 1)
        return math.inf
    lo, hi = 0.0, 1.0
    for _ in range(100):
        mid = (lo + hi) / 2
        if mid * mid / 2 - mid**3 / 3 >= need:
            hi = mid
        else:
            lo = mid
    return hi


@dataclass(frozen=True)
class Accuracy:
    """The (α, β) statement for k m-sparse queries answered from a release, split by source."""

    alpha: float
    beta: float
    gamma: float
    projection: float  # γ√m·(n̂ + dn)/n̂
    noise: float  # noise tail / n̂
    count: float  # dn/n̂ (0 when n is public)
    paper_projection_size: float
    alpha_at_paper_size: float

    def to_dict(self) -> dict[str, float]:
        return asdict(self)


def noise_tail(noise: str, scale: float, m: int, gamma: float, projection_size: int, tau: float) -> float:
    """Bound t with P[|⟨AQ, v⟩| ≥ t] ≤ τ for an m-sparse Q (units of counts)."""
    w2 = math.sqrt((1 + min(gamma, 1.0)) * m)
    log_term = math.log(2 / tau)
    if noise == GAUSSIAN:
        return scale * w2 * math.sqrt(2 * log_term)
    w_inf = m / math.sqrt(projection_size)
    return max(scale * w2 * math.sqrt(8 * log_term), 2 * math.sqrt(2) * scale * w_inf * log_term)


def accuracy(*, projection_size: int, n_released: float, count_error: float, m: int, k: int,
             beta: float, noise: str, scale_for) -> Accuracy:
    """α at projection size T (and at the paper's T); ``scale_for(T)`` gives the noise scale in u units."""
    validation.count("sparsity m", m)
    validation.count("number of queries k", k)
    validation.probability("beta", beta, allow_zero=False)
    tau = beta / (4 * k + 1)
    n_hat = max(float(n_released), 1.0)

    def alpha_at(T: float) -> tuple[float, float, float, float]:
        g = jl_gamma(int(min(T, 2**62)), tau)
        proj = g * math.sqrt(m) * (n_hat + count_error) / n_hat
        noi = noise_tail(noise, scale_for(T), m, g, int(min(T, 2**62)), tau) / n_hat
        cnt = count_error / n_hat
        return proj + noi + cnt, g, proj, noi

    total, g, proj, noi = alpha_at(projection_size)
    paper = paper_projection_size(int(n_hat), m, k, beta)
    return Accuracy(alpha=total, beta=beta, gamma=g, projection=proj, noise=noi, count=count_error / n_hat,
                    paper_projection_size=paper, alpha_at_paper_size=alpha_at(paper)[0])
