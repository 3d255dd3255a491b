"""Text a curator types that the ledger keeps and reports, listings and the window show to others.

A dataset's public name is printed in every report; the reasons and notes of logged actions are the
audit trail. Such text must read as what it holds: a right-to-left override (U+202E) or an isolate
(U+2066–U+2069) reorders what follows it on screen and on paper, so "Census 2024" can hold the
characters of another name; a zero-width or other invisible format character makes two names that
look the same differ; a control character (ESC) rewrites a terminal line. One check, for every
layer (it imports nothing but the standard library), refuses them with the character named.

Kept: white space of any kind, made one space (a tab or a line break in a name is a typing slip,
not a lie), and the zero-width non-joiner and joiner (U+200C, U+200D), which Persian, the Indic
scripts and emoji sequences need to be spelled at all and which reorder nothing.
"""

from __future__ import annotations

import unicodedata

#: The longest public name: a report's title line, not a paragraph.
NAME_LIMIT = 200
#: The longest reason or note kept with a logged action.
NOTE_LIMIT = 2000

_JOINERS = frozenset("\u200c\u200d")  # needed to write several scripts; they move nothing


def _hidden(ch: str) -> bool:
    """A character that is not white space and shows nothing, or changes how others show."""
    if ch.isspace():
        return False  # made one space below
    category = unicodedata.category(ch)
    return category in ("Cc", "Cs") or (category == "Cf" and ch not in _JOINERS)


def public_text(text: str, what: str, limit: int) -> str:
    """``text`` with each run of white space made one space and the ends trimmed, or a ValueError
    naming ``what`` and the first control, bidirectional or invisible format character in it (by
    code point, name and position), or a length past ``limit`` characters. An empty result is the
    caller's to refuse (a name must be given, a note may be empty)."""
    for i, ch in enumerate(text, 1):
        if _hidden(ch):
            name = unicodedata.name(ch, "a control character")
            raise ValueError(f"{what} holds U+{ord(ch):04X} ({name}) at character {i}: a control or "
                             "invisible formatting character can make the published text show "
                             "something other than it holds; remove it")
    cleaned = " ".join(text.split())
    if len(cleaned) > limit:
        raise ValueError(f"{what} is {len(cleaned):,} characters long, more than the {limit:,} it may "
                         "have")
    return cleaned
