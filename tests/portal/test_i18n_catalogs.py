"""The gettext catalogues: complete in both languages, real plural forms, the `TEXTS` fallback and the import tool."""

from __future__ import annotations

from pathlib import Path

import pytest

from ludothek.devtools import po_import
from ludothek.portal import catalogs, i18n
from ludothek.portal.i18n import LANGS, TEXTS, t, tn


def test_catalogues_are_complete_in_both_languages() -> None:
    """Same keys in every language, every text translated, plural entries with all forms."""
    keys = {}
    for lang in LANGS:
        catalog = catalogs.read_catalog(lang)
        assert catalog.num_plurals == 2, lang  # German and English: one / other
        messages = [m for m in catalog if m.id]
        assert messages, f"no catalogue for {lang}"
        for m in messages:
            forms = m.string if isinstance(m.string, tuple | list) else (m.string,)
            assert all(forms) and len(forms) in (1, catalog.num_plurals), (lang, m.id)
            assert not m.fuzzy, (lang, m.id)
        keys[lang] = {m.id if isinstance(m.id, str) else m.id[0] for m in messages}
    assert keys["de"] == keys["en"]


def test_every_texts_entry_is_in_the_catalogues() -> None:
    """Fails after new keys were added to TEXTS: run ``python -m ludothek.devtools.po_import``."""
    assert po_import.main(["--check"]) == 0


@pytest.mark.parametrize(("lang", "n", "expected"), [
    ("en", 1, "1 day per move"), ("en", 2, "2 days per move"), ("en", 0, "0 days per move"),
    ("de", 1, "1 Tag pro Zug"), ("de", 3, "3 Tage pro Zug"), ("de", 0, "0 Tage pro Zug"),
])
def test_plural_forms(lang: str, n: int, expected: str) -> None:
    assert tn("tc_move", n, lang) == expected


def test_plural_refusal_and_sessions() -> None:
    assert tn("sessions_count", 1, "en") == "You are logged in in one browser."
    assert tn("sessions_count", 2, "de") == "Du bist in 2 Browsern angemeldet."


def test_texts_fallback_and_t_api(monkeypatch: pytest.MonkeyPatch) -> None:
    """Keys added to TEXTS after the last import still work, singular and plural."""
    assert t("new_game", "de") == "Neues Spiel" and t("new_game", "en") == "New game"
    assert t("seat", "en", n=3) == "Seat 3"
    assert t("no_such_key", "de") == "no_such_key"
    monkeypatch.setitem(TEXTS, "fresh", {"de": "Frisch {x}", "en": "Fresh {x}"})
    monkeypatch.setitem(TEXTS, "fresh_cubes#one", {"de": "{n} Würfel", "en": "{n} cube"})
    monkeypatch.setitem(TEXTS, "fresh_cubes#other", {"de": "{n} Würfel", "en": "{n} cubes"})
    assert t("fresh", "de", x=1) == "Frisch 1"
    assert tn("fresh_cubes", 1, "en") == "1 cube" and tn("fresh_cubes", 4, "en") == "4 cubes"
    assert tn("fresh_cubes", 4, "de") == "4 Würfel"
    assert po_import.main(["--check"]) == 1


def test_import_tool_moves_texts_into_catalogues(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(catalogs, "po_path", lambda lang: tmp_path / lang / "messages.po")
    catalogs.translations.cache_clear()
    try:
        monkeypatch.setattr(po_import, "TEXTS", {
            "hello": {"de": "Hallo", "en": "Hello"},
            "stones#one": {"de": "{n} Stein", "en": "{n} stone"},
            "stones#other": {"de": "{n} Steine", "en": "{n} stones"},
        })
        assert po_import.main(["--check"]) == 1
        assert po_import.main([]) == 0
        assert po_import.main(["--check"]) == 0
        assert catalogs.lookup("hello", "de") == "Hallo"
        assert catalogs.lookup_plural("stones", 1, "de") == "{n} Stein"
        assert catalogs.lookup_plural("stones", 5, "de") == "{n} Steine"
        assert catalogs.plural_categories("en") == ["one", "other"]
    finally:
        monkeypatch.undo()
        catalogs.translations.cache_clear()
    assert i18n.t("new_game", "en") == "New game"
