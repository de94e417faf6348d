"""Find counts that meet the wrong form of their noun ("1 coins", "2 Villa"): ``python -m ludothek.devtools.plurals``.

Every count a person reads goes through the plural machinery: `ludothek.texts.tn` with a plural entry
in the catalogues, or a game's `ludothek.engine.plural.Noun`.  This module knows, from exactly those
two sources, which words are the "one" form and which the "other" form of a noun in each language
(`lexicon`), and `wrong_counts` reads any rendered text for a number followed by a form that does not
fit it.  The tests render every plural text with 0, 1, 2 and 5, every game's log sentences, terminal
views and score breakdowns over random games, and the pages in the browser, and run them through it.

A word that is the same in both forms ("Arbeiter", "fish") or the "one" form of one noun and the
"other" form of another is left out: it cannot be wrong.  The command prints the lexicon's size and
the words it holds.
"""

from __future__ import annotations

import importlib
import re
import sys
from collections.abc import Iterable, Iterator
from functools import cache
from types import ModuleType

from ludothek.engine.plural import Noun, plural_category
from ludothek.engine.registry import GAME_MODULES
from ludothek.texts import LANGS, catalogs

#: The game modules whose module-level `Noun` tables (or single nouns) are read.
NOUN_MODULES = ("notation", "text", "views", "pickers")
#: A word as it may follow a number (letters, hyphens and apostrophes; German umlauts included).
_WORD = r"[^\W\d_][\w'’-]*"
#: A number (not part of a longer number, an ordinal "3." or a time "1:2") and up to three words after it.
_COUNT = re.compile(rf"(?<![\w.,:/+−-])(\d+)(?![\d.,:]\d)[ \xa0]+({_WORD}(?:[ \xa0]+{_WORD}){{0,2}})")
#: A placeholder and the word that follows it in a catalogue form: "{n} Münzen", "{n} coins".
_AFTER_N = re.compile(rf"\{{n\}}\s+({_WORD}(?:\s+{_WORD}){{0,2}})")


def game_nouns(only: str | None = None) -> Iterator[tuple[str, Noun]]:
    """``(where, noun)`` for every `Noun` a game module holds at module level (alone or in a dict).

    ``only`` limits it to one game: a word one game counts ("Bakery" in Carpe Diem) may be a name
    in another ("4 Bakery" is a pile of Machi Koro's market).
    """
    for game, module_name in GAME_MODULES.items():
        if only is not None and game != only:
            continue
        for part in NOUN_MODULES:
            try:
                module: ModuleType = importlib.import_module(f"{module_name}.{part}")
            except ImportError:
                continue
            for attr, value in vars(module).items():
                if isinstance(value, Noun):
                    yield f"{game}.{part}.{attr}", value
                elif isinstance(value, dict):
                    for key, item in value.items():
                        if isinstance(item, Noun):
                            yield f"{game}.{part}.{attr}[{key}]", item


def catalogue_forms(lang: str) -> Iterator[tuple[str, str, str]]:
    """``(key, one, other)`` for every plural entry of the catalogue of ``lang``."""
    for message in catalogs.read_catalog(lang):
        if message.id and not isinstance(message.id, str) and isinstance(message.string, tuple):
            forms = [str(f) for f in message.string]
            if len(forms) >= 2:
                yield message.id[0], forms[0], forms[-1]


def _phrases(one: str, other: str) -> tuple[str, str] | None:
    """The words after ``{n}`` in both forms of a catalogue entry, when both have them."""
    a, b = _AFTER_N.search(one), _AFTER_N.search(other)
    if a is None or b is None:
        return None
    return a.group(1), b.group(1)


@cache
def lexicon(lang: str, game: str | None = None) -> dict[str, str]:
    """Word (lower case, possibly several words) -> "one" or "other", for the forms that differ.

    From the catalogues and the nouns of every game, or with ``game`` of that game only.
    """
    seen: dict[str, set[str]] = {}

    def note(one: str, other: str) -> None:
        one_words, other_words = one.lower().split(), other.lower().split()
        if lang == "de" and one_words and one_words[0].endswith(("er", "el", "en")) and other_words[:1] == [
                one_words[0] + "n"]:
            return  # "ab 1 Spieler" / "ab 2 Spielern": a dative plural; "4 Spieler" is right too
        # "1 Münze wird" / "2 Münzen werden": the first word that differs is the noun's form
        for i, (a, b) in enumerate(zip(one_words, other_words, strict=False)):
            if a != b:
                seen.setdefault(" ".join(one_words[: i + 1]), set()).add("one")
                seen.setdefault(" ".join(other_words[: i + 1]), set()).add("other")
                return

    for _, noun in game_nouns(game):
        one, other = noun.de if lang == "de" else noun.en
        note(one, other)
    for _, one, other in catalogue_forms(lang):
        phrases = _phrases(one, other)
        if phrases is not None:
            note(*phrases)
    return {word: forms.pop() for word, forms in seen.items() if len(forms) == 1}


def wrong_counts(text: str, lang: str, game: str | None = None) -> list[str]:
    """The places in ``text`` where a number meets the other form of a noun ("1 coins", "2 Villa").

    ``game``: read a text of that game with its own nouns only (see `lexicon`).
    """
    words = lexicon(lang, game)
    found = []
    for m in _COUNT.finditer(text):
        n = int(m.group(1))
        after = m.group(2).lower().split()
        for size in range(len(after), 0, -1):
            form = words.get(" ".join(after[:size]))
            if form is not None:
                wanted = "one" if plural_category(n, lang) == "one" else "other"
                modifier = lang == "en" and form == "one" and size < len(after) and after[size].endswith("s")
                if form != wanted and not modifier:  # "2 fountain cards": the noun is the next word
                    found.append(f"{m.group(1)} {' '.join(m.group(2).split()[:size])}")
                break
    return found


def wrong_in(texts: Iterable[str], lang: str, game: str | None = None) -> dict[str, list[str]]:
    """Each text of ``texts`` that has a wrong count, with what is wrong."""
    return {text: bad for text in texts if (bad := wrong_counts(text, lang, game))}


def main() -> int:
    for lang in LANGS:
        words = lexicon(lang)
        print(f"{lang}: {len(words)} counted forms: " + ", ".join(sorted(words)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
