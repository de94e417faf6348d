"""Soft hyphens in long card names, so narrow cards break "Fernseh-sender" at a syllable, never mid-syllable.

Debian's chromium (like most Linux browsers) ships no hyphenation dictionaries, so CSS ``hyphens: auto``
does nothing there and ``overflow-wrap: anywhere`` broke names anywhere ("Fernsehsend er").  Pyphen's
LibreOffice dictionaries give the break points; the browser shows a hyphen only where it breaks.
"""

from __future__ import annotations

from functools import lru_cache

import pyphen

SOFT_HYPHEN = "\u00ad"
DICTIONARIES = {"de": "de_DE", "en": "en_US"}
#: Words shorter than this never need a break on a card.
MIN_LENGTH = 8


@lru_cache(maxsize=4)
def _dictionary(lang: str) -> pyphen.Pyphen:
    return pyphen.Pyphen(lang=DICTIONARIES.get(lang, "en_US"), left=3, right=3)


@lru_cache(maxsize=1024)
def soft_hyphens(text: str, lang: str) -> str:
    """``text`` with soft hyphens at the syllable breaks of its long words (spaces and hyphens kept)."""
    words = text.split(" ")
    return " ".join(
        "-".join(_dictionary(lang).inserted(part, hyphen=SOFT_HYPHEN) if len(part) >= MIN_LENGTH else part
                 for part in word.split("-"))
        for word in words
    )
