"""The budget ledger's exact arithmetic, refusal messages, no refunds, and bad inputs."""

from __future__ import annotations

from fractions import Fraction

import pytest

from svtgui.core.budget import Budget, BudgetExceeded, exact, fmt


def test_decimal_amounts_are_exact_so_point_one_plus_point_two_fits_point_three():
    b = Budget.of(0.3)
    b.charge("a", 0.1)
    b.charge("b", 0.2)
    assert b.spent_epsilon == Fraction(3, 10) and b.remaining_epsilon == 0
    with pytest.raises(BudgetExceeded):
        b.charge("c", 0.1)
    with pytest.raises(BudgetExceeded):
        b.charge("d", "1e-12")


def test_many_small_charges_never_drift():
    b = Budget.of(1.0)
    for i in range(10):
        b.charge(f"run{i}", 0.1)
    assert b.spent_epsilon == 1 and b.remaining_epsilon == 0


def test_refusal_names_total_spent_and_requested_separately_and_charges_nothing():
    b = Budget.of("1.0", "1e-6")
    b.charge("a", 0.75)
    with pytest.raises(BudgetExceeded) as err:
        b.charge("b", 0.5)
    msg = str(err.value)
    assert "total ε = 1" in msg and "spent ε = 0.75" in msg and "requested ε = 0.5" in msg
    assert "total δ = 1e-06" in msg and "spent δ = 0" in msg and "requested δ = 0" in msg
    assert [c.run_id for c in b.charges] == ["a"] and b.spent_epsilon == Fraction(3, 4)


def test_delta_is_budgeted_too():
    b = Budget.of(10, "1e-6")
    b.charge("a", 1, "6e-7")
    with pytest.raises(BudgetExceeded, match="overspend δ"):
        b.charge("b", 1, "5e-7")
    with pytest.raises(BudgetExceeded, match="overspend δ"):
        Budget.of(1).charge("c", 0.5, 1e-9)  # pure budget: any δ overspends


def test_charges_are_never_refunded_and_run_ids_unique():
    b = Budget.of(1)
    b.charge("a", 0.4)
    assert not hasattr(b, "refund")
    with pytest.raises(ValueError, match="'a' was already charged"):
        b.charge("a", 0.1)
    assert b.spent_epsilon == Fraction(2, 5)


def test_raise_total_only_upward():
    b = Budget.of(1, "1e-6")
    b.charge("a", 1)
    b.raise_total(2)
    b.charge("b", 1)
    with pytest.raises(ValueError, match="can only be raised"):
        b.raise_total(1.5)
    with pytest.raises(ValueError, match="total delta"):
        b.raise_total(3, "1e-7")
    with pytest.raises(ValueError, match="total delta"):
        b.raise_total(3, 1)
    assert b.total_epsilon == 2 and b.total_delta == Fraction(1, 10**6)


@pytest.mark.parametrize("eps,delta,name", [
    (0, 0, "total epsilon"), (-1, 0, "total epsilon"), (float("nan"), 0, "total epsilon"),
    (float("inf"), 0, "total epsilon"), ("abc", 0, "total epsilon"), ("1/0", 0, "total epsilon"),
    (True, 0, "total epsilon"), (1, 1, "total delta"), (1, -0.1, "total delta"), (1, "nan", "total delta"),
])
def test_bad_totals_are_named(eps, delta, name):
    with pytest.raises(ValueError, match=name):
        Budget.of(eps, delta)


@pytest.mark.parametrize("eps,delta,name", [(0, 0, "epsilon"), (-0.1, 0, "epsilon"),
                                            (float("nan"), 0, "epsilon"), (0.1, 1.0, "delta"),
                                            (0.1, -1e-9, "delta")])
def test_bad_requests_are_named_and_change_nothing(eps, delta, name):
    b = Budget.of(1, 0.5)
    with pytest.raises(ValueError, match=name):
        b.charge("x", eps, delta)
    assert b.charges == []


def test_exact_and_fmt():
    assert exact("e", 0.1) == Fraction(1, 10) and exact("e", " 0.25 ") == Fraction(1, 4)
    assert exact("e", Fraction(1, 3)) == Fraction(1, 3)
    assert fmt(Fraction(3, 10)) == "0.3" and "1/3" in fmt(Fraction(1, 3))


def test_check_does_not_charge():
    b = Budget.of(1)
    assert b.check(0.5) == (Fraction(1, 2), 0)
    assert b.charges == []
