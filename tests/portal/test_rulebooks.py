"""The rules pages teach (issue 29): a short version for a first game with a picture of the board, a
long version with every table the game needs, taken from the game's data, and a language switch that
keeps the chosen version.  The browser half (390 px, font sizes, screenshots) is in
`tests.portal.test_browser_help`."""

from __future__ import annotations

import re
from html import unescape

import pytest
from fastapi.testclient import TestClient

from ludothek import engine
from ludothek.engine.registry import GAME_MODULES
from ludothek.portal.routes.help import parse_rules
from tests.rulebook_tables import TABLES
from tests.rules_pictures import picture_path

from .conftest import csrf_of

GAMES = list(GAME_MODULES)
LANGS = ["de", "en"]
#: What a newcomer's page needs, as (section title words) per language: goal, a turn, scoring/end.
SHORT_TOPICS = {
    "en": [r"goal", r"turn|round", r"scor|end"],
    "de": [r"ziel", r"zug|runde", r"wertung|ende"],
}
#: Words of the short version (intro and every short part, without the picture's alt text).
SHORT_WORDS = (320, 800)
IMAGE = re.compile(r"!\[([^\]]+)\]\((/static/boards/([a-z]+)_rules_board_([a-z]+)\.webp)\)")


def words(html: str) -> int:
    return len(re.sub(r"<[^>]+>", " ", html).split())


def source(kind: str, lang: str) -> str:
    text = engine.load(kind).rules_markdown(lang)
    assert text, f"{kind} has no rules in {lang}"
    return text


@pytest.mark.parametrize("kind", GAMES)
@pytest.mark.parametrize("lang", LANGS)
def test_every_table_comes_from_the_data(kind: str, lang: str) -> None:
    """Each table of `tests.rulebook_tables` appears verbatim in the long rules: no number can drift."""
    text = source(kind, lang)
    for table in TABLES[kind](lang):
        header = table.splitlines()[0]
        assert table in text, (f"{kind}/{lang}: the table {header!r} differs from the data; "
                               f"run python -m tests.rulebook_tables {kind} {lang} and paste it")


def test_the_tables_hold_the_numbers_that_matter() -> None:
    """A few spot checks that the generated tables say what the data says (not only that they match)."""
    mk = "\n".join(TABLES["machikoro"]("en"))
    assert "| Mine | blue – anyone's roll | Gear | 6 | 9 | 5 coins from the bank | 6 |" in mk
    assert "| Radio Tower | 22 |" in mk
    cd = "\n".join(TABLES["carpediem"]("de"))
    assert "| 14 | 26 |" in cd and "| D24 | grün: besitzen | 1 Backstube + 1 Markt + 1 Brunnen | 5 Punkte |" in cd
    assert cd.count("\n| A") + cd.count("\n| B") + cd.count("\n| C") + cd.count("\n| D") >= 60
    rt = "\n".join(TABLES["rolltheages"]("en"))
    assert "| Empire | 60 | 8 | 1 bonus point per city |" in rt and "| 5+ | revolt |" in rt
    sd = "\n".join(TABLES["snowdonia"]("en"))
    assert "| 20 | all | A | 5 markers on track | 40 |" in sd and "| 7 | Porthmadog Harbour | 2 | – | – | 21 / 0 |" in sd


@pytest.mark.parametrize("kind", GAMES)
@pytest.mark.parametrize("lang", LANGS)
def test_the_short_rules_teach_a_first_game(client: TestClient, kind: str, lang: str) -> None:
    page = parse_rules(source(kind, lang))
    short = page.shown("short")
    titles = " | ".join(s.title.lower() for s in short)
    for topic in SHORT_TOPICS[lang]:
        assert re.search(topic, titles), f"{kind}/{lang}: no short section on {topic!r} ({titles})"
    count = words(str(page.intro)) + sum(words(str(s.short)) for s in short)
    low, high = SHORT_WORDS
    assert low <= count <= high, f"{kind}/{lang}: the short rules have {count} words"
    html = client.get(f"/games/{kind}/rules?lang={lang}&mode=short").text
    assert '<div class="rules-long">' not in html
    assert f'src="/static/boards/{kind}_rules_board_{lang}.webp"' in html  # the picture is in every mode


@pytest.mark.parametrize("kind", GAMES)
@pytest.mark.parametrize("lang", LANGS)
def test_the_board_picture_exists_is_small_and_described(client: TestClient, kind: str, lang: str) -> None:
    found = IMAGE.findall(source(kind, lang))
    assert len(found) == 1, f"{kind}/{lang}: one picture of the board"
    alt, url, game, picture_lang = found[0]
    assert (game, picture_lang) == (kind, lang)
    assert len(alt.split()) >= 20, "the alt text describes what the picture shows"
    path = picture_path(kind, lang)
    data = path.read_bytes()
    assert data[:4] == b"RIFF" and data[8:12] == b"WEBP"
    assert len(data) < 150_000, f"{path.name} is {len(data)} bytes"
    served = client.get(url)
    assert served.status_code == 200 and served.content == data
    assert served.headers["content-type"] == "image/webp"
    html = client.get(f"/games/{kind}/rules?lang={lang}&mode=long").text
    img = re.search(r'<img src="' + re.escape(url) + r'" alt="([^"]+)" loading="lazy" />', html)
    assert img and unescape(img.group(1)) == alt


def test_other_languages_alt_texts_differ() -> None:
    alts = {lang: IMAGE.findall(source("carpediem", lang))[0][0] for lang in LANGS}
    assert "Rondell" in alts["de"] and "rondel" in alts["en"]


@pytest.mark.parametrize("kind", GAMES)
def test_wide_tables_stack_on_a_phone(client: TestClient, kind: str) -> None:
    """Tables of more than two columns carry their column names on every cell (the stylesheet stacks
    them below 640 px), so no table scrolls sideways."""
    html = client.get(f"/games/{kind}/rules?lang=en&mode=long").text
    tables = re.findall(r"<table[^>]*>.*?</table>", html, re.S)
    assert len(tables) >= 2
    for table in tables:
        columns = len(re.findall(r"<th>", table.split("</thead>")[0]))
        if columns > 2:
            assert table.startswith('<table class="rows-as-cards">')
            cells = re.findall(r"<td([^>]*)>", table)
            assert cells and all("data-label=" in c for c in cells)


@pytest.mark.parametrize("mode", ["short", "long", "both"])
def test_switching_language_keeps_the_version(client: TestClient, mode: str) -> None:
    page = client.get(f"/games/snowdonia/rules?lang=en&mode={mode}").text
    field = re.search(r'<input type="hidden" name="next" value="([^"]+)">', page)
    assert field and unescape(field.group(1)) == f"/games/snowdonia/rules?mode={mode}"  # lang is dropped
    r = client.post("/lang", data={"csrf": csrf_of(client), "lang": "de", "next": unescape(field.group(1))},
                    follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == f"/games/snowdonia/rules?mode={mode}"
    german = client.get(r.headers["location"]).text
    assert '<html lang="de">' in german
    assert re.search(rf'id="mode-{mode}" aria-current="page"', german)
    if mode == "short":
        assert '<div class="rules-long">' not in german and '<div class="rules-short">' in german


def test_the_switch_keeps_other_queries_and_drops_only_lang(client: TestClient) -> None:
    page = client.get("/games?lang=de").text
    assert '<input type="hidden" name="next" value="/games">' in page
    page = client.get("/games/machikoro/rules?mode=long&lang=de&x=1").text
    assert '<input type="hidden" name="next" value="/games/machikoro/rules?mode=long&amp;x=1">' in page
