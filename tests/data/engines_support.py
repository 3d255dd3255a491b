"""Shared by the engine tests: random data written to Parquet, random query batches, comparison."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from hypothesis import strategies as st

from svtgui.data.evaluate import evaluate
from svtgui.data.predicates import Condition, Junction
from svtgui.data.queries import ClipDiff, ClippedSum, Count, ItemSupport, RangeCount
from svtgui.data.universe import Universe

CATS = ["a", "b", "13", "it's"]


@st.composite
def frames(draw: st.DrawFn) -> pd.DataFrame:
    n = draw(st.integers(1, 40))
    ints = draw(st.lists(st.one_of(st.none(), st.integers(-5, 20)), min_size=n, max_size=n))
    floats = draw(st.lists(st.one_of(st.just(float("nan")), st.floats(-1e3, 1e3, width=32)),
                           min_size=n, max_size=n))
    cats = draw(st.lists(st.one_of(st.none(), st.sampled_from(CATS)), min_size=n, max_size=n))
    flags = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    baskets = draw(st.lists(st.lists(st.integers(1, 6), max_size=4), min_size=n, max_size=n))
    # every column has one value (an all-missing column has no type to agree on)
    ints[0] = ints[0] if ints[0] is not None else 0
    floats[0] = 1.5 if floats[0] != floats[0] else floats[0]
    cats[0] = cats[0] or "a"
    return pd.DataFrame({
        "a": pd.array(ints, dtype="Int64"),
        "x": np.array(floats, dtype=np.float64),
        "c": pd.array(cats, dtype=object),
        "b": np.array(flags, dtype=bool),
        "items": pd.Series([list(b) for b in baskets], dtype=object),
    })


def _conditions() -> st.SearchStrategy:
    num = st.integers(-6, 21)
    return st.one_of(
        st.builds(Condition, st.just("a"), st.sampled_from(["=", "!=", "<", "<=", ">", ">="]), num),
        st.builds(lambda lo, w: Condition("a", "between", [lo, lo + w]), num, st.integers(0, 8)),
        st.builds(Condition, st.sampled_from(["a", "x", "c"]), st.just("is_missing")),
        st.builds(Condition, st.just("c"), st.sampled_from(["=", "!="]), st.sampled_from([*CATS, "zz", 13])),
        st.builds(lambda vs: Condition("c", "in", vs),
                  st.lists(st.sampled_from(CATS), min_size=1, max_size=3)),
        st.builds(Condition, st.just("x"), st.sampled_from(["<", ">="]), st.floats(-1e3, 1e3, width=32)),
        st.builds(Condition, st.just("b"), st.just("="), st.sampled_from([True, False, "true", "0"])),
    )


def predicates() -> st.SearchStrategy:
    leaf = _conditions()
    return st.one_of(leaf, st.builds(lambda op, cs: Junction(op, tuple(cs)), st.sampled_from(["and", "or"]),
                                     st.lists(leaf, min_size=1, max_size=3)))


def queries() -> st.SearchStrategy:
    num = st.integers(-6, 21)
    bound = st.floats(-1e3, 1e3, width=32)
    return st.one_of(
        st.builds(lambda lo, w, c: RangeCount("a", lo, lo + w, c), num, st.integers(0, 10),
                  st.sampled_from(["left", "right", "both", "neither"])),
        st.builds(lambda lo, w: ClippedSum("x", lo, lo + w), bound, st.floats(0, 1e3, width=32)),
        st.builds(lambda lo, w: ClippedSum("a", lo, lo + w), num, st.integers(0, 10)),
        st.builds(lambda b, s, n: ClipDiff("x", b, s, n), st.floats(0, 1e3, width=32),
                  st.floats(0.5, 100, width=32), st.booleans()),
        st.builds(Count, st.one_of(st.none(), predicates())),
        st.builds(lambda its: ItemSupport(tuple(its)), st.lists(st.integers(1, 7), min_size=1, max_size=3)),
    )


def write(frame: pd.DataFrame, folder: Path, name: str = "data.parquet") -> Path:
    path = folder / name
    frame.to_parquet(path, index=False)
    return path


def assert_same(expected: np.ndarray, got: np.ndarray, batch: list) -> None:
    """Counts identical; sums identical too — stricter than the issue's 1e-9 relative, because every
    engine sums by ``exact_sums``' rule (the histogram plan through ``SortedColumn``, the fallback in
    SQL with exact integers) and rounds once."""
    for q, e, g in zip(batch, expected, got, strict=True):
        if q.integer:
            assert e == g, f"{q.describe()}: memory {e}, engine {g}"
        else:
            assert e == g or (e != e and g != g), f"{q.describe()}: memory {e!r}, engine {g!r}"


def universe_cells(ds, specs: list[str]) -> dict[int, int]:
    hist = Universe.of(ds, specs).histogram(ds)
    return dict(zip(hist.cells.tolist(), hist.counts.tolist(), strict=True))


__all__ = ["evaluate"]
