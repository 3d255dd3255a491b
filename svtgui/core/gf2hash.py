"""r-wise independent hashing: a random polynomial over the finite field GF(2^s).

Why this construction (Blum & Roth 2011, the SparseProject seed)
----------------------------------------------------------------
SparseProject needs a T × |X| sign matrix that is never stored: T·|X| can be 10^10 entries.
A random polynomial ``f(z) = c_0 + c_1 z + … + c_d z^d`` with independent uniform coefficients
in GF(2^s) takes *(d+1)-wise independent*, uniform values at any d+1 distinct points (the
Vandermonde system has a unique solution), so its description is only d+1 field elements and any
entry is computed on demand. The lowest output bit of a uniform field element is a fair coin, so
``(-1)^bit`` gives (d+1)-wise independent ±1 signs — exactly the limited independence the
limited-independence Johnson–Lindenstrauss lemma of the paper needs.

Arithmetic
----------
Field elements are s-bit integers (polynomials over GF(2) in their bits), 1 ≤ s ≤ 63, so they
fit numpy ``uint64``. Addition is XOR. Multiplication is carry-less multiplication reduced modulo
a fixed irreducible polynomial; the modulus is found deterministically (the first irreducible
trinomial x^s + x^k + 1, otherwise the first pentanomial) and checked with Rabin's test, so a
release file need only name s.

Evaluation is vectorised: Horner's rule ``h ← h·z + c_j`` multiplies by the *same* point z at
every step, so the products ``z·x^j`` (j < s) are tabulated once per point and each Horner step is
s masked XORs — no per-bit reduction inside the loop.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from svtgui.core import validation

MAX_BITS = 63
_CHUNK = 1 << 15  # points per vectorised block: keeps the s × chunk product table in cache-sized memory


def _clmul(a: int, b: int) -> int:
    """Carry-less product of two polynomials over GF(2) held as Python ints."""
    out = 0
    while b:
        if b & 1:
            out ^= a
        a <<= 1
        b >>= 1
    return out


def _polymod(a: int, m: int) -> int:
    dm = m.bit_length()
    while a.bit_length() >= dm:
        a ^= m << (a.bit_length() - dm)
    return a


def _polygcd(a: int, b: int) -> int:
    while b:
        a, b = b, _polymod(a, b)
    return a


def _prime_factors(n: int) -> list[int]:
    out, p = [], 2
    while p * p <= n:
        if n % p == 0:
            out.append(p)
            while n % p == 0:
                n //= p
        p += 1
    if n > 1:
        out.append(n)
    return out


def is_irreducible(poly: int) -> bool:
    """Rabin's test for a polynomial over GF(2) given by its bits (degree = bit_length − 1).

    p of degree s is irreducible iff x^(2^s) ≡ x (mod p) and gcd(x^(2^(s/q)) − x, p) = 1 for every
    prime q dividing s.
    """
    s = poly.bit_length() - 1
    if s < 1:
        return False

    def x_pow_2k(k: int) -> int:
        y = 0b10  # the polynomial x
        for _ in range(k):
            y = _polymod(_clmul(y, y), poly)
        return y

    if x_pow_2k(s) != _polymod(0b10, poly):
        return False
    return all(_polygcd(poly, x_pow_2k(s // q) ^ 0b10) == 1 for q in _prime_factors(s))


@cache
def modulus(bits: int) -> int:
    """The fixed irreducible polynomial of degree ``bits`` (with its x^bits term) used for GF(2^bits)."""
    s = validation.count("field bits s", bits)
    if s > MAX_BITS:
        raise ValueError(f"field bits s must be <= {MAX_BITS} (uint64 arithmetic), got {bits!r}")
    top = 1 << s
    if s == 1:
        return 0b11  # x + 1
    for k in range(1, s):
        if is_irreducible(top | (1 << k) | 1):
            return top | (1 << k) | 1
    for a in range(3, s):
        for b in range(2, a):
            for c in range(1, b):
                p = top | (1 << a) | (1 << b) | (1 << c) | 1
                if is_irreducible(p):
                    return p
    raise AssertionError(f"no irreducible trinomial or pentanomial of degree {s}")  # never for s <= 63


def bits_for(points: int) -> int:
    """The smallest s with 2^s ≥ ``points`` (at least 1): the field must hold every point."""
    n = validation.count("number of hash points", points)
    s = max(1, (n - 1).bit_length())
    if s > MAX_BITS:
        raise ValueError(f"{n} hash points need a field of 2^{s} elements; at most 2^{MAX_BITS} is supported")
    return s


def gf_mul(a: np.ndarray, b: np.ndarray, bits: int) -> np.ndarray:
    """Element-wise product in GF(2^bits) of two uint64 arrays (shift-and-add with reduction)."""
    a = np.asarray(a, dtype=np.uint64).copy()
    b = np.asarray(b, dtype=np.uint64)
    red = np.uint64(modulus(bits) ^ (1 << bits))
    top = np.uint64(bits - 1)
    mask = np.uint64((1 << bits) - 1)
    out = np.zeros(np.broadcast(a, b).shape, dtype=np.uint64)
    for j in range(bits):
        out ^= np.where((b >> np.uint64(j)) & np.uint64(1), a, np.uint64(0))
        carry = (a >> top) & np.uint64(1)
        a = ((a << np.uint64(1)) & mask) ^ (carry * red)
    return out


@dataclass(frozen=True)
class PolynomialHash:
    """``f(z) = Σ_j coefficients[j]·z^j`` over GF(2^bits); (len(coefficients))-wise independent.

    The description (bits and coefficients) is public: it is part of a SparseProject release.
    """

    bits: int
    coefficients: tuple[int, ...]

    def __post_init__(self) -> None:
        modulus(self.bits)  # validates bits
        if not self.coefficients:
            raise ValueError("a polynomial hash needs at least one coefficient")
        limit = 1 << self.bits
        for j, c in enumerate(self.coefficients):
            if not 0 <= int(c) < limit:
                raise ValueError(f"hash coefficient {j} = {c} is not an element of GF(2^{self.bits})")

    @classmethod
    def random(cls, independence: int, points: int, words) -> PolynomialHash:
        """A uniformly random member of the ``independence``-wise independent family on ``points`` points.

        ``words(n)`` supplies uniform 64-bit words (a :class:`~svtgui.core.noise.NoiseSource`'s ``words``).
        """
        r = validation.count("independence r", independence)
        s = bits_for(points)
        raw = np.asarray(words(r), dtype=np.uint64) & np.uint64((1 << s) - 1)
        return cls(s, tuple(int(c) for c in raw))

    @property
    def independence(self) -> int:
        return len(self.coefficients)

    def evaluate(self, points: np.ndarray) -> np.ndarray:
        """f at every point (uint64 array of field elements < 2^bits)."""
        z = np.asarray(points, dtype=np.uint64).reshape(-1)
        if z.size and int(z.max()) >> self.bits:
            raise ValueError(f"hash point {int(z.max())} is outside GF(2^{self.bits})")
        out = np.empty_like(z)
        for lo in range(0, z.size, _CHUNK):
            out[lo:lo + _CHUNK] = self._horner(z[lo:lo + _CHUNK])
        return out

    def signs(self, points: np.ndarray) -> np.ndarray:
        """±1 (int8) from the lowest output bit: bit 0 → +1, bit 1 → −1."""
        bit = (self.evaluate(points) & np.uint64(1)).astype(np.int8)
        return (1 - 2 * bit).astype(np.int8)

    def _horner(self, z: np.ndarray) -> np.ndarray:
        s = self.bits
        red = np.uint64(modulus(s) ^ (1 << s))
        mask = np.uint64((1 << s) - 1)
        one, top = np.uint64(1), np.uint64(s - 1)
        table = np.empty((s, z.size), dtype=np.uint64)  # table[j] = z·x^j
        table[0] = z
        for j in range(1, s):
            prev = table[j - 1]
            table[j] = ((prev << one) & mask) ^ (((prev >> top) & one) * red)
        h = np.full(z.size, self.coefficients[-1], dtype=np.uint64)
        acc = np.empty_like(h)
        sel = np.empty(z.size, dtype=np.int64)
        for c in reversed(self.coefficients[:-1]):
            acc.fill(0)
            hs = h.view(np.int64)
            for j in range(s):
                # all-ones where bit j of h is set: shift it to the sign bit, arithmetic shift back
                np.left_shift(hs, 63 - j, out=sel)
                np.right_shift(sel, 63, out=sel)
                acc ^= table[j] & sel.view(np.uint64)
            np.bitwise_xor(acc, np.uint64(c), out=h)
        return h
