"""The interface texts in German and English, read from the gettext catalogues.

The texts themselves live only in ``locale/<lang>/LC_MESSAGES/messages.po`` (see `catalogs`).  They
are a package of their own, below the portal and the workers, because both use them (the portal's
pages and answers, the mails that ``workers/mail_compose.py`` writes).

Game and card names never live there: they come from each game's data (``game.title``, option
labels, ``describe``).  A missing key falls back to English and then to the key itself, so a gap is
visible but never fatal.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from . import catalogs

LANGS = ("de", "en")

#: The language whose catalogue stands in for a key another language lacks.
FALLBACK_LANG = "en"


def t(key: str, lang: str, **params: Any) -> str:
    """The text for ``key`` in ``lang`` with ``{params}`` filled in.

    The catalogue of ``lang`` first, then the English one, then the key itself: a gap shows, but
    never breaks a page (``python -m ludothek.devtools.textcheck`` finds gaps before that).
    """
    if (count := _count_of(key, params)) is not None:
        return _plural(key, count, lang, {"n": count, **params})
    if key in catalogs.plural_keys(FALLBACK_LANG):  # no number to go by ("60–90 minutes"): the "other" form
        return _plural(key, 2, lang, params)
    text = catalogs.lookup(key, lang)
    if text is None:
        text = catalogs.lookup(key, FALLBACK_LANG) or key
    return _fill(text, params)


_PLACEHOLDER = re.compile(r"\{(\w+)\}")


def _count_of(key: str, params: Mapping[str, Any]) -> int | None:
    """The count that picks the form of a plural entry reached through `t`, or None for a singular key.

    Refusals and template texts pass their numbers by name (``seconds=30``); the count is the first
    whole-number placeholder of the entry's English "other" form ("wait {seconds} seconds").
    """
    if not params or key not in catalogs.plural_keys(FALLBACK_LANG):
        return None
    text = catalogs.lookup_plural(key, 2, FALLBACK_LANG)
    if text is None:
        return None
    for name in _PLACEHOLDER.findall(text):
        count = _as_count(params.get(name))
        if count is not None:
            return count
    return None


def _as_count(value: object) -> int | None:
    """A parameter as a count: ``5``, ``"5"``, ``2.0``; a fraction (``"1.5"``) counts as 2, the "other" form.

    German and English both say "1,5 Sekunden" / "1.5 seconds": only exactly one takes the singular.
    """
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return value
    try:
        number = float(str(value))
    except ValueError:
        return None
    return int(number) if number.is_integer() else 2


def tn(key: str, n: int, lang: str, **params: Any) -> str:
    """The plural form of ``key`` for the count ``n`` in ``lang``; ``{n}`` and ``{params}`` filled in.

    ``msgstr[i]`` by the language's plural rule, from the catalogue of ``lang``, then the English
    one; a key without a plural entry goes to `t`.  `t` comes here by itself for a plural entry, with
    the count from the parameters (see `_count_of`).
    """
    return _plural(key, n, lang, {"n": n, **params})


def _plural(key: str, n: int, lang: str, params: Mapping[str, Any]) -> str:
    text = catalogs.lookup_plural(key, n, lang)
    if text is None:
        text = catalogs.lookup_plural(key, n, FALLBACK_LANG)
    if text is None:
        text = catalogs.lookup(key, lang) or catalogs.lookup(key, FALLBACK_LANG) or key
    return _fill(text, params)


def _fill(text: str, params: Mapping[str, Any]) -> str:
    if params:
        try:
            return text.format(**params)
        except (KeyError, IndexError, ValueError):
            return text
    return text


def pick(texts: Mapping[str, str] | None, lang: str) -> str:
    """The text of a ``{"de": ..., "en": ...}`` mapping from game data, falling back to English."""
    if not texts:
        return ""
    return texts.get(lang) or texts.get("en") or next(iter(texts.values()))


def choose_lang(accept_language: str | None) -> str:
    """German or English from an Accept-Language header (English unless German comes first)."""
    for part in (accept_language or "").split(","):
        code = part.split(";")[0].strip().lower()[:2]
        if code in LANGS:
            return code
    return "en"
