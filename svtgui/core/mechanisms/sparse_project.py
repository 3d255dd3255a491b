"""SparseProject: Blum & Roth, "Fast Private Data Release Algorithms for Sparse Queries" (2011).

A non-interactive release from which anyone answers m-sparse linear queries without the data:

1. a sign matrix A ∈ {±1/√T}^{T×|X|} is defined, never stored, by an r-wise independent hash
   (:mod:`svtgui.core.gf2hash`; point ``i·|X| + x``, lowest output bit → sign), r = 2 ln(kT/2β);
2. the projection ``u_i = Σ_x D[x]·A[i, x]`` is computed over the non-zero cells only — in the
   integer units ``w_i = √T·u_i`` so the noise can be integer (floating-point-safe);
3. noise is added and ``(u + v, hash description)`` is released (plus n, noisy when private);
4. :class:`ProjectionRelease` answers Q by ``Q̂[i] = Σ_{x: Q(x)>0} Q[x]·A[i, x]``,
   ``answer = ⟨Q̂, u + v⟩ / n``.

The privacy calibration is *not* the seed's verbatim: see
:mod:`svtgui.core.mechanisms.sparse_project_theory` for the derivation (the seed's Laplace scale is
certified for add/remove neighbours by advanced composition, for replace-one neighbours only by a
Rényi-DP bound and only for moderate ε, and a discrete Gaussian on the L2 sensitivity is ~2.8× less
noisy than either).
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import os
import stat
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from dataclasses import fields as dataclass_fields
from pathlib import Path
from typing import Any

import numpy as np

from svtgui.core import gaussian, validation
from svtgui.core.gf2hash import PolynomialHash
from svtgui.core.keys import RepeatedKey, parse_json, unknown_key
from svtgui.core.linear import LinearQuery, SparseHistogram, as_query
from svtgui.core.mechanisms import sparse_project_theory as theory
from svtgui.core.mechanisms.base import (
    DELTA,
    EPSILON,
    PRIVATE,
    RELEASE,
    Guarantee,
    Mechanism,
    MechanismHalted,
    MechanismInfo,
    Param,
    register,
)
from svtgui.core.noise import GAUSSIAN

FORMAT = "svtgui-sparse-project"
FORMAT_VERSION = 2  # 2: the header carries CHECKSUM, checked on every load
CHECKSUM = "content_sha256"
# Every key a release header may hold (a sealed file with any other is refused, issue 22 §3), and
# those of its sections; ``metadata`` is what the run adds (the universe is checked where it is read).
HEADER_KEYS = ("format", "version", "bits", "projection_size", "universe_size", "n", CHECKSUM, "mechanism",
               "citation", "epsilon", "delta", "neighbouring", "noise", "noise_scale_u", "projection_epsilon",
               "count_epsilon", "n_is_noisy", "independence", "queries", "sparsity", "beta", "accuracy",
               "secure", "noise_source", "metadata")
ACCURACY_KEYS = tuple(f.name for f in dataclass_fields(theory.Accuracy))
METADATA_KEYS = ("universe", "dataset")
MAX_PROJECTION = 1 << 22  # T beyond this is hours of hashing; the paper's T is shown, not used
_MAX_RELEASE_BYTES = 16 * MAX_PROJECTION + (1 << 24)  # T values at 8 bytes (×2 slack) + header
_CELL_BLOCK = 256  # cells hashed per block when projecting (T × block signs in memory)

CITATION = ("A. Blum and A. Roth, Fast Private Data Release Algorithms for Sparse Queries, "
            "APPROX-RANDOM 2013 (arXiv:1111.6842, 2011), Algorithm SparseProject")


@dataclass
class ProjectionRelease:
    """Everything SparseProject publishes; answers queries without the dataset.

    ``noisy`` holds √T·(u + v) as integers. ``n`` is the released row count (exact when the
    neighbouring notion keeps n fixed, otherwise noisy). ``header`` is the public JSON metadata.
    """

    hash: PolynomialHash
    projection_size: int
    universe_size: int
    noisy: np.ndarray
    n: int
    header: dict[str, Any]
    _columns: dict[int, np.ndarray] = field(default_factory=dict, repr=False)
    sha256: str = ""  # of the file it was loaded from (what the ledger records as release_sha256)

    def signs(self, cells: np.ndarray) -> np.ndarray:
        """Sign block s(i, x) (T × len(cells), int8) of the public matrix √T·A."""
        cells = np.asarray(cells, dtype=np.int64)
        rows = np.arange(self.projection_size, dtype=np.uint64)[:, None]
        points = rows * np.uint64(self.universe_size) + cells.astype(np.uint64)[None, :]
        return self.hash.signs(points).reshape(self.projection_size, cells.size)

    def _cached_signs(self, cells: np.ndarray) -> np.ndarray:
        missing = np.array([c for c in cells.tolist() if c not in self._columns], dtype=np.int64)
        if missing.size:
            block = self.signs(missing)
            for j, c in enumerate(missing.tolist()):
                self._columns[c] = block[:, j]
        if cells.size == 0:
            return np.zeros((self.projection_size, 0), dtype=np.int8)
        return np.stack([self._columns[c] for c in cells.tolist()], axis=1)

    def projected(self, query: LinearQuery) -> np.ndarray:
        """√T·Q̂: the query projected with the public matrix (float, length T)."""
        return self._cached_signs(query.indices).astype(np.float64) @ query.weights

    def answer_count(self, query: LinearQuery | np.ndarray | tuple[np.ndarray, np.ndarray]) -> float:
        """⟨Q̂, u + v⟩: the estimate of Σ_x Q(x)·D[x]."""
        q = as_query(query, self.universe_size)
        return float(self.projected(q) @ self.noisy.astype(np.float64)) / self.projection_size

    def answer(self, query: LinearQuery | np.ndarray | tuple[np.ndarray, np.ndarray]) -> float:
        """⟨Q̂, u + v⟩ / n: the estimate of (1/n)·Σ_x Q(x)·D[x]."""
        return self.answer_count(query) / max(self.n, 1)

    def answer_many(self, queries: Iterable[LinearQuery]) -> np.ndarray:
        """Normalised answers to many queries, hashing each cell's column only once."""
        qs = [as_query(q, self.universe_size) for q in queries]
        if qs:
            self._cached_signs(np.unique(np.concatenate([q.indices for q in qs])))
        return np.array([self.answer(q) for q in qs], dtype=np.float64)

    def save(self, path: str | Path) -> Path:
        """Write ``.npz``: integer arrays plus the JSON header (no pickles), sealed by a checksum."""
        p = Path(path)
        header = dict(self.header, format=FORMAT, version=FORMAT_VERSION, bits=self.hash.bits,
                      projection_size=self.projection_size, universe_size=self.universe_size, n=self.n)
        header.pop(CHECKSUM, None)
        noisy = self.noisy.astype(np.int64)
        coefficients = np.array(self.hash.coefficients, dtype=np.uint64)
        header[CHECKSUM] = _content_digest(json.loads(json.dumps(header)), noisy, coefficients)
        with p.open("wb") as fh:
            np.savez_compressed(fh, noisy=noisy, coefficients=coefficients,
                                header=np.array(json.dumps(header, ensure_ascii=False)))
        return p

    @classmethod
    def load(cls, path: str | Path, expect_sha256: str | None = None) -> ProjectionRelease:
        """Read a release written by :meth:`save`; ``ValueError`` naming the file on anything wrong.

        The header's checksum must match the arrays and the header (an edited ε, n or value, a
        flipped byte, a truncated file are all refused). A checksum sealed into the file stops
        accidents and naive edits, not a forger who recomputes it: against that, the analyst
        compares the file's SHA-256 with the one the curator published (``expect_sha256``; the
        ledger records it as ``release_sha256``).
        """
        p = Path(path)
        data = _read_release_bytes(p)
        digest = hashlib.sha256(data).hexdigest()
        if expect_sha256 is not None and digest != expect_sha256.strip().lower():
            raise ValueError(f"{p}: SHA-256 {digest[:16]}… is not the expected {expect_sha256[:16]}…: "
                             "this is not the published release (changed or replaced)")
        try:
            with np.load(io.BytesIO(data), allow_pickle=False) as z:
                header = parse_json(str(z["header"]))  # a key given twice: refused, as in every format
                noisy = np.asarray(z["noisy"], dtype=np.int64)
                coefficients_array = np.asarray(z["coefficients"], dtype=np.uint64)
                coefficients = tuple(int(c) for c in coefficients_array)
        except RepeatedKey as exc:
            raise ValueError(f"{p}: {exc}") from None
        except Exception as exc:  # noqa: BLE001 - zip/zlib/npy/JSON errors of a damaged file, all alike
            raise ValueError(f"{p}: not a SparseProject release, or a damaged one "
                             f"({type(exc).__name__}: {exc})") from None
        if not isinstance(header, dict) or header.get("format") != FORMAT:
            found = header.get("format") if isinstance(header, dict) else None
            raise ValueError(f"{p}: not a SparseProject release (format {found!r})")
        if header.get("version") != FORMAT_VERSION:
            raise ValueError(f"{p}: SparseProject release format version {header.get('version')!r}; this "
                             f"SVT Studio reads version {FORMAT_VERSION} (checksummed releases)")
        sealed = header.pop(CHECKSUM, None)
        if sealed != _content_digest(header, noisy, coefficients_array):
            raise ValueError(f"{p}: the release's checksum does not match its content: the file was "
                             "changed after it was written (an edited header, ε, n or value, or damage); "
                             "refused")
        header[CHECKSUM] = sealed
        if problem := _unknown_header_key(header):
            raise ValueError(f"{p}: {problem} (a release written by another program or a newer SVT Studio)")
        try:
            T, size, n = int(header["projection_size"]), int(header["universe_size"]), int(header["n"])
            h = PolynomialHash(int(header["bits"]), coefficients)
        except (KeyError, TypeError, ValueError, OverflowError) as exc:
            raise ValueError(f"{p}: damaged release header ({exc})") from None
        if noisy.shape != (T,):
            raise ValueError(f"{p}: damaged release: {noisy.size} projected values for T = {T}")
        return cls(h, T, size, noisy, n, header, sha256=digest)


def _unknown_header_key(header: dict[str, Any]) -> str | None:
    """The first unknown key of the header or of its sections, by its path (``accuracy.x``)."""
    sections = [(header, HEADER_KEYS, "")]
    sections += [(header[name], keys, name) for name, keys in (("accuracy", ACCURACY_KEYS),
                                                                ("metadata", METADATA_KEYS))
                 if isinstance(header.get(name), dict)]
    return next((m for obj, keys, where in sections if (m := unknown_key(obj, keys, where))), None)


def _content_digest(header: dict[str, Any], noisy: np.ndarray, coefficients: np.ndarray) -> str:
    """SHA-256 over the canonical header (without its checksum) and both arrays' bytes."""
    h = hashlib.sha256(json.dumps(header, sort_keys=True, ensure_ascii=False).encode("utf-8"))
    h.update(np.ascontiguousarray(noisy, dtype="<i8").tobytes())
    h.update(np.ascontiguousarray(coefficients, dtype="<u8").tobytes())
    return h.hexdigest()


def _read_release_bytes(p: Path) -> bytes:
    """The file's bytes: a regular file of plausible size only (a FIFO would block, /dev/zero never end)."""
    try:
        st = os.stat(p)
    except FileNotFoundError:
        raise ValueError(f"{p}: no such release file") from None
    except OSError as exc:
        raise ValueError(f"{p}: cannot read the release ({exc.strerror})") from None
    if not stat.S_ISREG(st.st_mode):
        raise ValueError(f"{p}: not a regular file (a folder, pipe or device); give a release .npz file")
    if st.st_size > _MAX_RELEASE_BYTES:
        raise ValueError(f"{p}: {st.st_size} bytes is too large for a SparseProject release")
    try:
        with p.open("rb") as fh:
            return fh.read(_MAX_RELEASE_BYTES + 1)
    except OSError as exc:
        raise ValueError(f"{p}: cannot read the release ({exc.strerror})") from None


class SparseProject(Mechanism):
    """Single use: :meth:`release` projects one histogram and adds the noise."""

    info: MechanismInfo

    def __init__(self, *, projection_size: int, queries: int, beta: float, sparsity: int,
                 neighbouring: str, noise: str, count_share: float, **kw) -> None:
        super().__init__(sensitivity=1.0, **kw)
        self.projection_size = projection_size
        self.queries = queries
        self.beta = beta
        self.sparsity = sparsity
        self.neighbouring = neighbouring
        self.noise = noise
        eps, dlt = self.guarantee.epsilon, self.guarantee.delta
        self.count_epsilon = eps * count_share if neighbouring == theory.ADD_REMOVE else 0.0
        self.projection_epsilon = eps - self.count_epsilon
        self.scale = self._scale(projection_size)
        self.seed_epsilon = theory.seed_epsilon(self.projection_epsilon, dlt, projection_size, neighbouring)
        self.independence = theory.independence(queries, projection_size, beta)

    def noise_scales(self) -> dict[str, float]:
        """The projected counts' noise (integer units of w = √T·u) and, under add/remove, n's noise."""
        name = "projection " + GAUSSIAN if self.noise == theory.GAUSSIAN else "projection"
        scales = {name: self.scale * math.sqrt(self.projection_size)}
        if self.count_epsilon > 0:
            scales["count"] = 1 / self.count_epsilon
        return scales

    def _scale(self, T: float) -> float:
        """Noise scale in units of u (σ for Gaussian, b for Laplace) at projection size T."""
        eps, dlt = self.projection_epsilon, self.guarantee.delta
        if self.noise == theory.GAUSSIAN:
            return theory.gaussian_sigma(eps, dlt, self.neighbouring)
        return theory.laplace_scale(eps, dlt, T, self.neighbouring)

    def release(self, histogram: SparseHistogram,
                metadata: dict[str, Any] | None = None) -> ProjectionRelease:
        """Project the histogram, add noise, and return the public release (once per mechanism)."""
        if self.halted:
            raise MechanismHalted("sparse_project is single-use: release() was already called")
        if not isinstance(histogram, SparseHistogram):
            raise ValueError("sparse_project needs a SparseHistogram (cells, counts, universe size)")
        T, size = self.projection_size, histogram.size
        if T * size >= 2**63:
            raise ValueError(f"T·|X| = {T}·{size} exceeds the hash field GF(2^63); choose a smaller T")
        self.halted = True
        h = PolynomialHash.random(self.independence, T * size, self._rng.words)
        partial = ProjectionRelease(h, T, size, np.zeros(T, dtype=np.int64), 0, {})
        w = np.zeros(T, dtype=np.float64)
        for lo in range(0, histogram.cells.size, _CELL_BLOCK):
            block = partial.signs(histogram.cells[lo:lo + _CELL_BLOCK]).astype(np.float64)
            w += block @ histogram.counts[lo:lo + _CELL_BLOCK].astype(np.float64)
        noisy = np.rint(w).astype(np.int64) + self._draw(T)
        n_released, count_error = self._released_count(histogram.n)
        acc = self.accuracy(n_released, count_error)
        header = {
            "mechanism": self.info.id, "citation": CITATION,
            "epsilon": self.guarantee.epsilon, "delta": self.guarantee.delta,
            "neighbouring": self.neighbouring, "noise": self.noise,
            "noise_scale_u": self.scale, "projection_epsilon": self.projection_epsilon,
            "count_epsilon": self.count_epsilon, "n_is_noisy": self.count_epsilon > 0,
            "independence": self.independence, "queries": self.queries, "sparsity": self.sparsity,
            "beta": self.beta, "accuracy": acc.to_dict(), "secure": self.secure,
            "noise_source": self.noise_description, "metadata": metadata or {},
        }
        return ProjectionRelease(h, T, size, noisy, n_released, header, partial._columns)

    def _draw(self, T: int) -> np.ndarray:
        """Integer noise on w = √T·u (scale √T times the u-unit scale)."""
        scale_w = self.scale * math.sqrt(T)
        if self.noise == theory.GAUSSIAN:
            return gaussian.discrete_gaussian(self._rng, scale_w, T)
        return self._rng.discrete_laplace(scale_w, T)

    def _released_count(self, n: int) -> tuple[int, float]:
        """(n̂, high-probability bound on |n̂ − n|): exact under replace, discrete Laplace otherwise."""
        if self.count_epsilon == 0:
            return n, 0.0
        scale = 1 / self.count_epsilon
        noisy = n + int(self._rng.discrete_laplace(scale, 1)[0])
        tau = self.beta / (4 * self.queries + 1)
        return max(noisy, 1), scale * math.log(2 / tau)

    def accuracy(self, n_released: int, count_error: float = 0.0) -> theory.Accuracy:
        """The theoretical (α, β) for ``queries`` m-sparse queries, given the released n̂."""
        return theory.accuracy(projection_size=self.projection_size, n_released=n_released,
                               count_error=count_error, m=self.sparsity, k=self.queries, beta=self.beta,
                               noise=self.noise, scale_for=self._scale)


def measured_error(release: ProjectionRelease, histogram: SparseHistogram,
                   queries: Sequence[LinearQuery]) -> np.ndarray:
    """|answer − true value| per query (evaluation on public data only: the truth is a secret)."""
    est = release.answer_many(queries)
    truth = np.array([q.value(histogram) for q in queries])
    return np.abs(est - truth)


PROJECTION_SIZE = Param("projection_size", "int",
                        "T, rows of the random projection (the paper's T is astronomically large; "
                        "choose one and read the theoretical α)",
                        default=4096, minimum=1, maximum=MAX_PROJECTION)
QUERIES = Param("queries", "int", "k, number of queries the release must answer accurately together",
                default=1000, minimum=1)
BETA = Param("beta", "float", "β, failure probability of the accuracy statement", default=0.05,
             minimum=0.0, maximum=1.0)
SPARSITY = Param("sparsity", "int", "m, the largest number of universe cells a query touches", default=16,
                 minimum=1)
NEIGHBOURING = Param("neighbouring", "str",
                     "add_remove (n private, released noisily) or replace (n fixed, public; sensitivity 2)",
                     default=theory.ADD_REMOVE)
NOISE = Param("noise", "str", "gaussian (discrete Gaussian, zCDP; default) or laplace (advanced composition)",
              default=theory.GAUSSIAN)
COUNT_SHARE = Param("count_share", "float", "Share of ε spent on the noisy row count n̂ (add_remove only)",
                    default=0.05, minimum=0.0, maximum=1.0)

SPARSE_PROJECT = MechanismInfo(
    id="sparse_project",
    name="SparseProject (random projection release)",
    summary="Non-interactive: publishes a noisy random projection that answers sparse linear queries later.",
    citation=CITATION,
    guarantee="(ε, δ)-DP",
    interactive=False,
    releases_numbers=True,
    status=PRIVATE,
    params=(EPSILON, Param(DELTA.name, DELTA.kind, DELTA.description, default=1e-6,
                           minimum=0.0, maximum=1.0),
            PROJECTION_SIZE, QUERIES, BETA, SPARSITY, NEIGHBOURING, NOISE, COUNT_SHARE),
    notes="Privacy calibration derived anew, not the seed's: its Laplace scale √(8 ln(1/δ))/ε is certified "
          "for add/remove neighbours by advanced composition (ε/2 + O(ε²)); for replace-one neighbours "
          "advanced composition gives ε + ε²/(2 ln(1/δ)) > ε and only a Rényi-DP bound certifies it, for "
          "moderate ε (ε' ≈ 0.85 at ε = 1, δ = 10⁻⁶; unproven at ε = 10). "
          "We calibrate from the sensitivities (L1 = √T, L2 = 1 add/remove; doubled for replace): "
          "discrete Gaussian σ = Δ₂/√(2ρ) (default) or Laplace solved from advanced composition; n is "
          "released with a share of ε under add/remove. Use release(histogram) -> ProjectionRelease.",
    input=RELEASE,
)


@register(SPARSE_PROJECT)
def sparse_project(*, epsilon, delta=1e-6, projection_size=4096, queries=1000, beta=0.05, sparsity=16,
                   neighbouring=theory.ADD_REMOVE, noise=theory.GAUSSIAN, count_share=0.05, rng,
                   trace=False):
    if trace:
        raise ValueError("sparse_project has no teaching trace (its internals are the projected data)")
    eps = validation.positive("epsilon", epsilon)
    dlt = validation.probability("delta", delta, allow_zero=False)
    T = validation.count("projection_size", projection_size)
    if T > MAX_PROJECTION:
        raise validation.ParamError("projection_size",
                                    f"projection_size must be <= {MAX_PROJECTION}, got {projection_size!r}")
    k = validation.count("queries", queries)
    b = validation.probability("beta", beta, allow_zero=False)
    m = validation.count("sparsity", sparsity)
    theory.coordinate_change(neighbouring)
    if noise not in theory.NOISES:
        raise ValueError(f"noise must be one of {', '.join(theory.NOISES)}, got {noise!r}")
    share = validation.finite("count_share", count_share)
    if neighbouring == theory.ADD_REMOVE and not 0 < share < 1:
        raise validation.ParamError("count_share",
                                    "count_share must be strictly between 0 and 1 for add_remove, "
                                    f"got {count_share!r}")
    mech = SparseProject(
        projection_size=T, queries=k, beta=b, sparsity=m, neighbouring=neighbouring, noise=noise,
        count_share=share, guarantee=Guarantee(eps, dlt), rng=rng,
        params=dict(epsilon=eps, delta=dlt, projection_size=T, queries=k, beta=b, sparsity=m,
                    neighbouring=neighbouring, noise=noise, count_share=share))
    mech.info = SPARSE_PROJECT
    return mech
