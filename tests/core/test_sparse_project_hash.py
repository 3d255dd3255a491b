"""GF(2^s) arithmetic and the r-wise independent polynomial hash behind SparseProject's matrix."""

import itertools

import numpy as np
import pytest

from svtgui.core import gf2hash
from svtgui.core.gf2hash import PolynomialHash


def _reference_mul(a: int, b: int, s: int) -> int:
    """Schoolbook product mod the field polynomial, in plain Python (independent of the numpy code)."""
    mod = gf2hash.modulus(s)
    prod = 0
    for j in range(s):
        if (b >> j) & 1:
            prod ^= a << j
    for j in range(2 * s, s - 1, -1):
        if (prod >> j) & 1:
            prod ^= mod << (j - s)
    return prod


def test_irreducibility_test_on_known_polynomials():
    assert gf2hash.is_irreducible(0x11B)  # AES field polynomial x^8 + x^4 + x^3 + x + 1
    assert gf2hash.is_irreducible(0b10011)  # x^4 + x + 1
    assert not gf2hash.is_irreducible(0x101)  # x^8 + 1 = (x + 1)^8
    assert not gf2hash.is_irreducible(0b10101)  # x^4 + x^2 + 1 = (x^2 + x + 1)^2


def test_every_nonzero_element_of_gf16_has_an_inverse():
    s = 4
    elems = np.arange(1, 16, dtype=np.uint64)
    table = gf2hash.gf_mul(elems[:, None], elems[None, :], s)
    assert all((row == 1).sum() == 1 for row in table)  # a field: exactly one inverse each


@pytest.mark.parametrize("s", [1, 7, 33, 63])
def test_vectorised_multiplication_matches_reference(s):
    rng = np.random.default_rng(s)
    a = rng.integers(0, 2**s, size=300, dtype=np.uint64)
    b = rng.integers(0, 2**s, size=300, dtype=np.uint64)
    got = gf2hash.gf_mul(a, b, s)
    assert [int(x) for x in got] == [_reference_mul(int(x), int(y), s) for x, y in zip(a, b, strict=True)]


def test_horner_evaluation_matches_reference():
    s = 40
    rng = np.random.default_rng(5)
    coeffs = tuple(int(c) for c in rng.integers(0, 2**s, size=9, dtype=np.uint64))
    h = PolynomialHash(s, coeffs)
    z = rng.integers(0, 2**s, size=200, dtype=np.uint64)
    expected = []
    for x in z.tolist():
        acc = 0
        for c in reversed(coeffs):
            acc = _reference_mul(acc, x, s) ^ c
        expected.append(acc)
    assert h.evaluate(z).tolist() == expected


def test_three_coefficients_give_exactly_three_wise_independent_values():
    """Over all 16^3 polynomials of degree 2 in GF(16), three fixed points take every triple once."""
    points = np.array([3, 7, 12], dtype=np.uint64)
    seen = set()
    for coeffs in itertools.product(range(16), repeat=3):
        seen.add(tuple(PolynomialHash(4, coeffs).evaluate(points).tolist()))
    assert len(seen) == 16**3


def test_signs_are_balanced():
    # Pairwise independence makes Var(mean of N signs) = 1/N exactly; by Chebyshev a 10σ deviation
    # has probability ≤ 1%, and the seed is fixed.
    rng = np.random.default_rng(11)
    h = PolynomialHash(40, tuple(int(c) for c in rng.integers(0, 2**40, size=6, dtype=np.uint64)))
    signs = h.signs(np.arange(100_000, dtype=np.uint64))
    assert set(np.unique(signs).tolist()) == {-1, 1}
    assert abs(signs.mean()) < 10 / np.sqrt(100_000)


def test_bits_for_and_bad_inputs():
    assert gf2hash.bits_for(1) == 1 and gf2hash.bits_for(2) == 1 and gf2hash.bits_for(3) == 2
    assert gf2hash.bits_for(2**20) == 20 and gf2hash.bits_for(2**20 + 1) == 21
    with pytest.raises(ValueError, match="at most 2\\^63"):
        gf2hash.bits_for(2**63 + 1)
    with pytest.raises(ValueError, match="field bits s must be <= 63"):
        gf2hash.modulus(64)
    with pytest.raises(ValueError, match="coefficient 1 = 16 is not an element of GF\\(2\\^4\\)"):
        PolynomialHash(4, (1, 16))
    with pytest.raises(ValueError, match="outside GF\\(2\\^4\\)"):
        PolynomialHash(4, (1, 2)).evaluate(np.array([16], dtype=np.uint64))
