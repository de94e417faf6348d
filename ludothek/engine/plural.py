"""Plural forms for game texts, by the CLDR rules that Babel ships ("1 worker", "2 workers").

Game packages keep their own texts; this only picks the right form, so no game writes
``"1 workers"`` or ``"1 Waren"`` and a new language brings its rules with it.
"""

from __future__ import annotations

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
