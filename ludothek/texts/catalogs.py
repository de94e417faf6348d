"""The gettext catalogues of the interface texts (Babel): ``ludothek/texts/locale/<lang>/LC_MESSAGES/messages.po``.

Message ids are the stable text keys (``new_game``, ``err_too_many_attempts`` ...), so templates and
code keep calling ``t(key, lang)``.  A plural entry has ``msgid`` = ``msgid_plural`` = the key and one
``msgstr[i]`` per plural form of the language; the form is chosen by the catalogue's ``Plural-Forms``
header (from CLDR through Babel), so "1 worker" / "2 workers" and "1 Arbeiter" / "2 Arbeiter" come out
right.  The ``.po`` files are read at first use and compiled in memory: no build step, no ``.mo``
files to forget.  They are the only home of the texts: a new text is added to the ``.po`` file of
every language by hand, and ``python -m ludothek.devtools.textcheck`` (in ``make lint`` and the tests)
fails when the code uses a key that a catalogue lacks.
"""

from __future__ import annotations

import gettext
import io
from functools import cache
from importlib import resources
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

DOMAIN = "messages"


def po_path(lang: str) -> Path:
    """Where the catalogue of ``lang`` lives in the source tree."""
    return Path(str(resources.files("ludothek.texts"))) / "locale" / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


def read_catalog(lang: str) -> Catalog:
    """The catalogue of ``lang``, or an empty one with the language's plural rule."""
    path = po_path(lang)
    if not path.is_file():
        return Catalog(locale=lang, domain=DOMAIN)
    with path.open("rb") as fh:
        return read_po(fh, locale=lang, domain=DOMAIN)


@cache
def translations(lang: str) -> gettext.GNUTranslations | None:
    """The compiled catalogue of ``lang`` (cached), or None without one."""
    if not po_path(lang).is_file():
        return None
    buffer = io.BytesIO()
    write_mo(buffer, read_catalog(lang))
    buffer.seek(0)
    return gettext.GNUTranslations(buffer)


def lookup(key: str, lang: str) -> str | None:
    """The singular text of ``key`` in ``lang``, or None when the catalogue lacks it."""
    tr = translations(lang)
    if tr is None:
        return None
    text = tr.gettext(key)
    return None if text == key else text


def lookup_plural(key: str, n: int, lang: str) -> str | None:
    """The plural form of ``key`` for ``n`` in ``lang``, or None when the catalogue lacks it."""
    tr = translations(lang)
    if tr is None:
        return None
    text = tr.ngettext(key, key, n)
    return None if text == key else text


@cache
def plural_keys(lang: str) -> frozenset[str]:
    """The keys of ``lang``'s catalogue that are plural entries (one form per plural category)."""
    return frozenset(m.id[0] for m in read_catalog(lang) if m.id and not isinstance(m.id, str))


def keys(lang: str) -> set[str]:
    """Every key the catalogue of ``lang`` holds, singular and plural alike."""
    return {m.id if isinstance(m.id, str) else m.id[0] for m in read_catalog(lang) if m.id}
