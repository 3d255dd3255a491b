"""The Mechanism page's preview in words (svtgui.app.preview_text) and plain numbers (wording.plain)."""

from __future__ import annotations

import re

import pytest

from svtgui.app.preview_text import describe
from svtgui.core import mechanisms
from svtgui.core.wording import plain

SVT = dict(epsilon=1.0, threshold=21000.0, cutoff=5, sensitivity=1.0, integer=True)
EXPONENT = re.compile(r"\d[eE][+-]?\d")


@pytest.mark.parametrize(("x", "text"), [
    (695187.3, "695,187"), (21.3456, "21.35"), (0.0012345, "0.001234"), (-690187.0, "−690,187"),
    (176000.0, "176,000"), (5.0, "5"), (0.0, "0"), (2.31e20, "2.31 × 10²⁰"),
])
def test_plain_numbers_are_grouped_and_never_exponents(x, text):
    assert plain(x) == text


@pytest.mark.parametrize(("mechanism_id", "extra", "numbers"), [
    ("sparse", {}, False), ("above_threshold", {}, False), ("standard_svt", {}, False),
    ("standard_svt", {"numeric_share": 0.2}, True), ("numeric_sparse", {}, True), ("gap_svt", {}, True),
])
def test_wording_follows_what_the_built_mechanism_releases(mechanism_id, extra, numbers):
    params = {k: v for k, v in SVT.items() if k in {p.name for p in mechanisms.info(mechanism_id).params}}
    text = describe(mechanism_id, {**params, **extra}, 100, 0.05).text
    built = mechanisms.create(mechanism_id, rng=mechanisms.ScaleProbe(), **params, **extra)
    assert built.releases_numbers is numbers  # the fact the words must follow
    assert ("released number is within" in text) is numbers
    assert ("no numbers" in text) is not numbers


def test_counts_in_words_and_no_exponents_even_for_huge_bounds():
    wide = {**SVT, "sensitivity": 5000.0}
    assert "no queries queued" in describe("sparse", SVT, 0, 0.05).text
    one = describe("sparse", SVT, 1, 0.05).text
    assert "1 queued query" in one and "1 queries" not in one
    assert "10,001 queued queries" in describe("sparse", SVT, 10_001, 0.05).text
    for mid in ("sparse", "numeric_sparse", "standard_svt"):
        params = {k: v for k, v in wide.items() if k in {p.name for p in mechanisms.info(mid).params}}
        text = describe(mid, params, 10_001, 0.05).text
        assert not EXPONENT.search(text), text
    assert "after 1 ⊤ answer." in describe("sparse", {**SVT, "cutoff": 1}, 3, 0.05).text


def test_threshold_mechanisms_come_with_their_exact_curve_and_selections_without():
    assert describe("sparse", SVT, 10, 0.05).curve is not None
    em = describe("em_top_c", dict(epsilon=1.0, cutoff=3, sensitivity=1.0), 10, 0.05)
    assert em.curve is None and "3 queries the exponential mechanism selects" in em.text


def test_pmw_and_sparse_project_have_previews_of_their_own():
    shown = describe("pmw", dict(epsilon=1.0, threshold=500.0, cutoff=4), 100, 0.05)
    pmw = shown.text
    assert "T = 500 rows" in pmw and "4 paid answers" in pmw and "free answer is within" in pmw
    # its curve is its own test's chance of paying, against the free answer's error (≥ 0), centred on T
    assert shown.curve is not None and shown.x_min == 0.0 and shown.y_label == "P[paid]"
    assert 0.4 < shown.curve.probability([500.0])[0] < 0.6
    shown = describe("sparse_project", dict(epsilon=1.0, projection_size=2048), 0, 0.05, planning_n=20_000)
    sp = shown.text
    assert shown.curve is None and "answers no query now" in shown.note
    assert "2,048 random signs (the projection size, not a threshold)" in sp
    assert "T =" not in sp and "planning n of 20,000" in sp and not EXPONENT.search(sp)
