"""Curator text the ledger keeps and reports publish (public names, reasons, notes): read as it shows."""

from __future__ import annotations

import pytest

from svtgui.core.public_text import NAME_LIMIT, public_text


@pytest.mark.parametrize("char", [
    "\u202a", "\u202b", "\u202c", "\u202d", "\u202e",  # embeddings and overrides: reorder what follows
    "\u2066", "\u2067", "\u2068", "\u2069",  # isolates
    "\u200b", "\u200e", "\u200f", "\u2060", "\u2061", "\ufeff", "\u00ad", "\u061c",  # invisible formats
    "\U000e0041",  # a tag character
    "\x00", "\x1b", "\x07", "\x7f", "\x9b",  # C0, DEL and C1 controls (ESC and CSI rewrite a terminal line)
])
def test_a_control_or_invisible_format_character_is_refused_by_its_code_point(char):
    with pytest.raises(ValueError) as refused:
        public_text(f"Census{char}2024", "the public name", NAME_LIMIT)
    said = str(refused.value)
    assert said.startswith("the public name holds ") and f"U+{ord(char):04X}" in said
    assert "at character 7" in said and "\n" not in said


def test_white_space_is_one_space_and_the_joiners_that_spell_words_are_kept():
    assert public_text(" Clinic\t\nsurvey\u2028 2024 ", "the name", NAME_LIMIT) == "Clinic survey 2024"
    persian = "\u06a9\u062a\u0627\u0628\u200c\u0647\u0627"  # ZWNJ: a word of Persian
    family = "\U0001f469\u200d\U0001f467"  # ZWJ: one emoji
    assert public_text(persian, "the name", NAME_LIMIT) == persian
    assert public_text(family, "the name", NAME_LIMIT) == family
    assert public_text("", "the note", 10) == ""  # the caller says whether empty is allowed


def test_the_length_is_capped_after_the_white_space_is_made_one():
    assert public_text("x" * NAME_LIMIT, "the public name", NAME_LIMIT) == "x" * NAME_LIMIT
    assert public_text("x  " * 100, "the public name", NAME_LIMIT) == " ".join("x" * 100)  # 199 characters
    with pytest.raises(ValueError, match=f"is {NAME_LIMIT + 1} characters long, more than the {NAME_LIMIT}"):
        public_text("x" * (NAME_LIMIT + 1), "the public name", NAME_LIMIT)
