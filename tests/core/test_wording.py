"""Counts in words."""

import pytest

from svtgui.core.wording import count, plural


@pytest.mark.parametrize(("n", "noun", "text"), [
    (1, "query", "1 query"), (0, "query", "0 queries"), (10_001, "query", "10,001 queries"),
    (1, "run", "1 run"), (2, "run", "2 runs"), (1, "answer", "1 answer"), (3, "row", "3 rows"),
    (2, "match", "2 matches"), (2, "bus", "2 buses"), (1, "numeric column", "1 numeric column"),
    (3, "planned query", "3 planned queries"), (2, "declared category", "2 declared categories"),
    (2, "entry", "2 entries"), (2, "day", "2 days"), (2, "key", "2 keys"),
])
def test_counts_read_as_english(n, noun, text):
    assert count(n, noun) == text


def test_plural_of_an_irregular_verb_for_agreement():
    assert plural("is", 1) == "is" and plural("is", 4) == "are"
