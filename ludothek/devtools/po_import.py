"""Move the portal's `TEXTS` entries into the gettext catalogues: ``python -m ludothek.devtools.po_import``.

`ludothek.portal.i18n.TEXTS` is where new strings land while several people add them at once; the
catalogues (``ludothek/portal/locale/<lang>/LC_MESSAGES/messages.po``) are where they belong.  This tool
adds every `TEXTS` key to the catalogue of every language (a `TEXTS` text that differs from the
catalogue's replaces it: `TEXTS` holds the newer edit), turns ``key#one`` / ``key#other`` pairs into one
plural entry, and lists the keys that may now be deleted from `TEXTS`.

``--check`` changes nothing and exits with 1 if a catalogue lacks or differs from a `TEXTS` entry.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping

from babel.messages.catalog import Catalog

from ludothek.portal import catalogs
from ludothek.portal.i18n import LANGS, TEXTS


def wanted(texts: Mapping[str, Mapping[str, str]], lang: str) -> dict[str, str | dict[str, str]]:
    """What the catalogue of ``lang`` must hold: key -> text, or key -> {CLDR category: text}."""
    out: dict[str, str | dict[str, str]] = {}
    for key, entry in texts.items():
        text = entry.get(lang) or entry.get("en") or ""
        base, sep, category = key.partition("#")
        if sep:
            forms = out.setdefault(base, {})
            if isinstance(forms, dict):
                forms[category] = text
        else:
            out[key] = text
    for key in texts:
        base, sep, _ = key.partition("#")
        if sep and base in texts:
            raise SystemExit(f"TEXTS has both {base!r} and plural forms {key!r}: give one of them another key")
    return out


def merge(catalog: Catalog, lang: str, entries: Mapping[str, str | dict[str, str]]) -> list[str]:
    """Bring ``entries`` into ``catalog``; the keys that were added or changed."""
    changed: list[str] = []
    categories = catalogs.plural_categories(lang)
    for key, value in sorted(entries.items()):
        if isinstance(value, dict):
            forms = tuple(value.get(c) or value.get("other") or "" for c in categories)
            current = catalog.get(key)
            if current is None or not current.pluralizable or tuple(current.string or ()) != forms:
                if current is not None:
                    del catalog[key]  # Catalog.add keeps an existing entry's text
                catalog.add((key, key), forms)
                changed.append(key)
        else:
            current = catalog.get(key)
            if current is None or current.pluralizable or current.string != value:
                if current is not None:
                    del catalog[key]
                catalog.add(key, value)
                changed.append(key)
    return changed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ludothek.devtools.po_import", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if an import is due")
    args = parser.parse_args(argv)
    due = False
    for lang in LANGS:
        catalog = catalogs.read_catalog(lang)
        catalog.project, catalog.version = "Ludothek", "1"
        changed = merge(catalog, lang, wanted(TEXTS, lang))
        if changed:
            due = True
            print(f"{lang}: {len(changed)} entries added or updated: {', '.join(changed[:20])}"
                  + (" …" if len(changed) > 20 else ""))
            if not args.check:
                catalogs.write_catalog(lang, catalog)
        else:
            print(f"{lang}: catalogue complete ({len(catalog)} entries)")
    if args.check:
        return 1 if due else 0
    if due:
        print("Every TEXTS entry is now in the catalogues; TEXTS entries may be deleted from i18n.py.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
