"""Plural forms for game texts come from Babel's CLDR rules."""

from __future__ import annotations

import pytest

from ludothek.engine.plural import plural, plural_category
from ludothek.games.snowdonia.notation import _times


@pytest.mark.parametrize(("n", "lang", "expected"), [
    (1, "en", "1 worker"), (0, "en", "0 workers"), (2, "en", "2 workers"),
    (1, "de", "1 Ware"), (0, "de", "0 Waren"), (5, "de", "5 Waren"),
])
def test_plural(n: int, lang: str, expected: str) -> None:
    one, other = ("{n} worker", "{n} workers") if lang == "en" else ("{n} Ware", "{n} Waren")
    assert plural(n, lang, one, other) == expected


def test_categories_and_times() -> None:
    assert plural_category(1, "de") == "one" and plural_category(21, "en") == "other"
    assert [_times(n) for n in (1, 2, 3)] == ["once", "twice", "3 times"]
