"""The gettext catalogues, the only home of the texts: complete in both languages, real plural forms, fallbacks,
and the text check that finds a used key a catalogue lacks."""

from __future__ import annotations

from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.pofile import write_po

from ludothek import texts
from ludothek.devtools import textcheck
from ludothek.texts import LANGS, catalogs, t, tn


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


@pytest.mark.parametrize(("lang", "n", "expected"), [
    ("en", 1, "1 day per move"), ("en", 2, "2 days per move"), ("en", 0, "0 days per move"),
    ("de", 1, "1 Tag pro Zug"), ("de", 3, "3 Tage pro Zug"), ("de", 0, "0 Tage pro Zug"),
])
def test_plural_forms(lang: str, n: int, expected: str) -> None:
    assert tn("tc_move", n, lang) == expected


def test_plural_refusal_and_sessions() -> None:
    assert tn("sessions_count", 1, "en") == "You are logged in in one browser."
    assert tn("sessions_count", 2, "de") == "Du bist in 2 Browsern angemeldet."


def test_t_api_and_fallbacks() -> None:
    """The catalogue of the language, then English, then the key itself."""
    assert t("new_game", "de") == "Neues Spiel" and t("new_game", "en") == "New game"
    assert t("seat", "en", n=3) == "Seat 3"
    assert t("no_such_key", "de") == "no_such_key"
    assert tn("no_such_key", 2, "de") == "no_such_key"


def _write_catalogue(path: Path, lang: str, entries: dict[str, str | tuple[str, ...]]) -> None:
    catalog = Catalog(locale=lang, domain=catalogs.DOMAIN)
    for key, text in entries.items():
        catalog.add((key, key) if isinstance(text, tuple) else key, text)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as fh:
        write_po(fh, catalog)


def test_catalogues_are_read_from_po_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A ``.po`` file is all a text needs; a key German lacks comes from the English catalogue."""
    _write_catalogue(tmp_path / "de" / "messages.po", "de", {
        "hello": "Hallo", "stones": ("{n} Stein", "{n} Steine"),
    })
    _write_catalogue(tmp_path / "en" / "messages.po", "en", {
        "hello": "Hello", "stones": ("{n} stone", "{n} stones"), "fresh": "Fresh {x}",
        "cubes": ("{n} cube", "{n} cubes"),
    })
    monkeypatch.setattr(catalogs, "po_path", lambda lang: tmp_path / lang / "messages.po")
    catalogs.translations.cache_clear()
    try:
        assert catalogs.lookup("hello", "de") == "Hallo"
        assert catalogs.lookup_plural("stones", 1, "de") == "{n} Stein"
        assert catalogs.lookup_plural("stones", 5, "de") == "{n} Steine"
        assert catalogs.keys("en") == {"hello", "stones", "fresh", "cubes"}
        assert t("fresh", "de", x=1) == "Fresh 1"
        assert tn("cubes", 1, "de") == "1 cube" and tn("cubes", 4, "de") == "4 cubes"
        assert tn("stones", 4, "de") == "4 Steine"
    finally:
        monkeypatch.undo()
        catalogs.translations.cache_clear()
    assert texts.t("new_game", "en") == "New game"


def test_every_used_key_is_in_every_catalogue() -> None:
    """``make lint``'s text check on the real tree; here too, since CI runs the tests, not the lint."""
    assert textcheck.main([]) == 0


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "pkg"
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


def test_textcheck_fails_on_a_key_missing_from_the_catalogues(tmp_path: Path) -> None:
    root = _tree(tmp_path, {
        "views.py": 'def f(lang):\n    return t("new_game", lang) + tn("no_such_count", 2, lang)\n',
        "templates/page.html": "<p>{{ tr('login') }} {{ tr('no_such_key' if x else 'logout') }}</p>\n",
        "speeds.py": 'SPEEDS = (("1", "speed_normal"),)\n',
    })
    report = textcheck.check(root)
    assert {lang: set(keys) for lang, keys in report.missing.items()} == {
        "de": {"no_such_count", "no_such_key"}, "en": {"no_such_count", "no_such_key"}}
    assert report.missing["de"]["no_such_count"] == {"pkg/views.py:2"}
    assert report.failed and textcheck.main(["--root", str(root)]) == 1
    (root / "views.py").write_text('def f(lang):\n    return t("new_game", lang)\n', encoding="utf-8")
    (root / "templates/page.html").write_text("{{ tr('login') }}", encoding="utf-8")
    assert textcheck.main(["--root", str(root)]) == 0


def test_textcheck_knows_keys_built_from_a_prefix(tmp_path: Path) -> None:
    """A family's values come from where the code writes them; an undeclared prefix fails."""
    root = _tree(tmp_path, {
        "chat.py": 'REPORT_REASONS = ("spam", "shouting")\n',
        "clocks.py": 'def leave(q):\n    q.values(left_as="resigned")\n',
        "errors.py": 'class Gone(Exception):\n    code = "no_such_refusal"\n\n\nCODE_KEYS = {"chat_user": "chat_rate"}\n'
                     'def f():\n    raise Gone("gone", code_key="csrf")\n',
        "speeds.py": 'SPEEDS = (("1", "speed_normal"),)\n',
        "pages.py": 'def f(s, key, lang):\n    return t(f"left_{s}", lang) + t(f"err_{key}", lang)\n',
        "templates/chat.html": "{% for r in reasons %}{{ tr('report_' ~ r) }}{% endfor %}\n",
    })
    report = textcheck.check(root)
    assert set(report.missing["en"]) == {"report_shouting"}  # report_spam and left_resigned exist
    assert report.optional_missing["en"] == {"err_no_such_refusal"}  # refusals fall back by design
    assert not report.undeclared and not report.unfound
    (root / "more.py").write_text('def g(x, lang):\n    return t("fresh_" + x, lang)\n', encoding="utf-8")
    assert textcheck.check(root).undeclared == {"fresh_": {"pkg/more.py:2"}}
