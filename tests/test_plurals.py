"""Every count meets the right form of its noun, in German and English (issue 29).

Three layers, each rendered with real numbers and read by `ludothek.devtools.plurals.wrong_counts`:

- every plural entry of the catalogues with the counts 0, 1, 2 and 5;
- every game's counted nouns (`ludothek.engine.plural.Noun`) with 0, 1, 2 and 5;
- every text a game writes: log sentences of every legal action, the terminal view of every seat and
  the score breakdown, over random games of every game (and each Snowdonia map), in both languages.

The reader itself is tested on the sentences the issue found wrong, so a regression in it shows.
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Iterator

import pytest

from ludothek import engine
from ludothek.devtools import plurals
from ludothek.engine.conformance import random_action
from ludothek.engine.plural import Noun, plural_category
from ludothek.texts import LANGS, tn

COUNTS = (0, 1, 2, 5)
NAMES = ["Ada", "Bruno", "Clara", "Dana", "Emil"]


def test_the_reader_finds_the_errors_the_issue_names() -> None:
    assert plurals.wrong_counts("pay 1 coins + 1 banner steps → 1 points; own 2 villa", "en") == [
        "1 coins", "1 banner steps", "1 points", "2 villa"]
    assert plurals.wrong_counts("gib 1 Münzen + 1 Banderolenschritte + 1 Brote ab; besitze 2 Villa; 1 Narzissen",
                                "de") == ["1 Münzen", "1 Banderolenschritte", "1 Brote", "2 Villa", "1 Narzissen"]
    right = "gib 1 Münze + 1 Banderolenschritt + 1 Brot ab → 2 Siegpunkte; besitze 2 Villen; 1 Narzisse; 0 Münzen"
    assert plurals.wrong_counts(right, "de") == []
    assert plurals.wrong_counts("Zug 3. Stadt 12:30, 2.5 days, 1/2 coins", "en") == []


@pytest.mark.parametrize("lang", LANGS)
def test_every_plural_entry_of_the_catalogues_fits_0_1_2_and_5(lang: str) -> None:
    entries = list(plurals.catalogue_forms(lang))
    assert len(entries) >= 20
    wrong = {}
    for key, _, _ in entries:
        for n in COUNTS:
            text = tn(key, n, lang, **{name: "X" for name in ("name", "game", "when", "max")})
            if bad := plurals.wrong_counts(text, lang):
                wrong[f"{key}({n})"] = (text, bad)
    assert not wrong, wrong


def test_the_plural_forms_follow_the_language_rule() -> None:
    """1 takes the "one" form, 0, 2 and 5 the "other" form, in both languages."""
    for lang in LANGS:
        assert [plural_category(n, lang) for n in COUNTS] == ["other", "one", "other", "other"]


def test_every_counted_noun_of_every_game_renders_0_1_2_and_5() -> None:
    nouns = list(plurals.game_nouns())
    assert {where.split(".")[0] for where, _ in nouns} >= {"carpediem", "machikoro", "rolltheages", "snowdonia"}
    for where, noun in nouns:
        for lang in LANGS:
            one, other = noun.de if lang == "de" else noun.en
            assert one and other and one[0].isalpha(), where
            assert [noun.count(n, lang) for n in COUNTS] == [f"0 {other}", f"1 {one}", f"2 {other}", f"5 {other}"]
            assert all(plurals.wrong_counts(noun.count(n, lang), lang) == [] for n in COUNTS), where


def test_a_noun_counts_by_the_language_rule() -> None:
    coin = Noun(de=("Münze", "Münzen"), en=("coin", "coins"))
    assert [coin.count(n, "de") for n in COUNTS] == ["0 Münzen", "1 Münze", "2 Münzen", "5 Münzen"]
    assert [coin.count(n, "en") for n in COUNTS] == ["0 coins", "1 coin", "2 coins", "5 coins"]
    assert coin.label("de") == "Münzen"


#: game -> the player counts and options a random game is played with (each Snowdonia map).
SETUPS: dict[str, list[tuple[int, dict[str, str]]]] = {
    "machikoro": [(2, {}), (4, {"market": "komme_was_wolle"})],
    "rolltheages": [(2, {}), (3, {"trade": "on"})],
    "snowdonia": [(2, {}), (3, {"map": "blaenau_ffestiniog"}), (2, {"map": "daffodil_line"})],
    "carpediem": [(2, {}), (4, {})],
}


def texts_of_a_game(game_id: str, players: int, options: dict[str, str], seed: int, lang: str) -> Iterator[str]:
    """Everything the game writes in ``lang`` along one random game: sentences, terminal views, breakdown."""
    with engine.naming(NAMES[:players]):  # user names, as the portal gives them: "Player 1 rolls" reads as a count
        yield from _texts(game_id, players, options, seed, lang)


def _texts(game_id: str, players: int, options: dict[str, str], seed: int, lang: str) -> Iterator[str]:
    game = engine.load(game_id)
    state = game.new_state(players, options)
    text = importlib.import_module(f"ludothek.games.{game_id}.text")
    rng = random.Random(seed)
    for step in range(20_000):
        if state.is_terminal():
            break
        actions = state.legal_actions()
        if state.current_player() >= 0:
            yield from state.describe_all(actions[:40], lang)
        else:
            yield state.describe(actions[0], lang)
        if step % 7 == 0:
            yield text.render(state, state.current_player() if state.current_player() >= 0 else None, lang)
        state.apply_action(random_action(state, rng))
    assert state.is_terminal(), f"{game_id} did not end"
    yield text.render(state, 0, lang)
    for entry in state.view(0).get("breakdown") or []:
        for part in entry["parts"]:
            yield part["label"][lang]
            if part.get("detail"):
                yield part["detail"][lang]


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("game_id", list(SETUPS))
def test_every_text_of_every_game_counts_right(game_id: str, lang: str) -> None:
    wrong: dict[str, list[str]] = {}
    seen = 0
    for i, (players, options) in enumerate(SETUPS[game_id]):
        for line in texts_of_a_game(game_id, players, options, seed=i, lang=lang):
            seen += 1
            if bad := plurals.wrong_counts(line, lang, game_id):
                wrong.setdefault(line[:300], bad)
    assert seen > 100
    assert not wrong, "\n".join(f"{bad}: {line}" for line, bad in list(wrong.items())[:15])


@pytest.mark.parametrize("lang", LANGS)
def test_the_one_form_has_no_placeholder_the_other_lacks(lang: str) -> None:
    """A slip like ``{minute} minute`` (the plural's placeholder made singular) shows the raw braces."""
    import re

    names = re.compile(r"\{(\w+)\}")
    wrong = {key: (one, other) for key, one, other in plurals.catalogue_forms(lang)
             if not set(names.findall(one)) <= set(names.findall(other))}
    assert not wrong, wrong


def test_a_plural_entry_reached_through_t_takes_its_count_from_the_parameters() -> None:
    """Refusals and templates pass counts by name (``seconds=1``); `t` picks the form by it."""
    from ludothek.texts import t

    assert t("err_chat_rate", "en", seconds=1).endswith("wait 1 second.")
    assert t("err_chat_rate", "de", seconds=5).endswith("warte 5 Sekunden.")
    assert t("err_record_too_costly", "en", seconds=1, n=7) == (
        "The record takes more than 1 second to replay; it was stopped at entry 7.")
    assert t("tc_bank", "de", start=1, add=1, most=14) == "Zeitkonto: 1 Tag, +1 pro Zug, höchstens 14"


def test_textcheck_refuses_a_count_before_a_noun_outside_a_plural_entry(monkeypatch: pytest.MonkeyPatch) -> None:
    from babel.messages.catalog import Catalog

    from ludothek.devtools import textcheck

    assert textcheck.counts_outside_plurals("de") == set()
    assert textcheck.counts_outside_plurals("en") == set()
    new = Catalog(locale="de")
    new.add("wait_a_bit", "Warte {seconds} Sekunden.")  # a new text that puts a count before a noun
    new.add("move_no", "Zug {n}")  # a number after its noun: no count, fine
    new.add("clock", "{d} T. {h} Std.")  # unit abbreviations do not change
    new.add(("wait_ok", "wait_ok"), ("Warte {n} Sekunde.", "Warte {n} Sekunden."))  # a plural entry: fine
    monkeypatch.setattr(textcheck.catalogs, "read_catalog", lambda lang: new)
    assert textcheck.counts_outside_plurals("de") == {"wait_a_bit: {seconds} Sekunden."}


def test_a_count_given_as_text_or_fraction_picks_the_form() -> None:
    from ludothek.texts import t

    assert "1 Sekunde " in t("err_record_too_costly", "de", seconds="1", n=2)
    assert "1.5 seconds" in t("err_record_too_costly", "en", seconds="1.5", n=1)
