"""Plural forms for game texts, by the CLDR rules that Babel ships ("1 worker", "2 workers").

Game packages keep their own texts; this only picks the right form, so no game writes
``"1 workers"`` or ``"1 Waren"`` and a new language brings its rules with it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from babel import Locale


@cache
def _locale(lang: str) -> Locale:
    return Locale.parse(lang)


def plural_category(n: int, lang: str) -> str:
    """The CLDR plural category of ``n`` in ``lang``: "one", "other" (and "few", "many" ... elsewhere)."""
    return str(_locale(lang).plural_form(abs(n)))


def plural(n: int, lang: str, one: str, other: str) -> str:
    """``one`` or ``other`` for the count ``n`` in ``lang``, with ``{n}`` filled in."""
    return (one if plural_category(n, lang) == "one" else other).format(n=n)


@dataclass(frozen=True)
class Noun:
    """A countable thing in both languages: ``(one, other)`` forms, e.g. ``de=("Münze", "Münzen")``.

    Games keep their nouns next to their other texts; `count` is the one way a number meets a
    noun, so no text says "1 coins" or "2 Villa".  Where a language does not change the word
    (``("Brunnen", "Brunnen")``, ``("fish", "fish")``) both forms are the same on purpose.
    """

    de: tuple[str, str]
    en: tuple[str, str]

    def word(self, n: int, lang: str) -> str:
        """The noun's form for the count ``n`` in ``lang`` (without the number)."""
        one, other = self.de if lang == "de" else self.en
        return one if plural_category(n, lang) == "one" else other

    def count(self, n: int, lang: str) -> str:
        """``"{n} {form}"``: "1 coin", "2 coins", "0 Münzen"."""
        return f"{n} {self.word(n, lang)}"

    def label(self, lang: str) -> str:
        """The plural form as a heading or column label ("Münzen", "coins")."""
        return (self.de if lang == "de" else self.en)[1]

