"""Every prompt the board can show is a real sentence in both languages (issue 29).

The Blaenau Ffestiniog setup used to show the raw decision kind ("end") under "Round 0".  Random games
on every map reach every kind of decision; the board is rendered for the player to move in German and
English, and its prompt must be the decision's text: never a raw kind, never "Round 0".
"""

from __future__ import annotations

import html as htmllib
import random
import re
from typing import Any

import pytest

from ludothek import engine as eng
from ludothek.games.snowdonia.notation import DECISIONS, decision_prompt

from .test_board_partial import render

MAPS = ("mount_snowdon", "blaenau_ffestiniog", "daffodil_line")


def decisions_reached(map_key: str, seeds: range) -> dict[str, Any]:
    """One state per decision kind reached in random games on ``map_key`` (2-4 players)."""
    game = eng.load("snowdonia")
    found: dict[str, Any] = {}
    for seed in seeds:
        rng = random.Random(seed)
        st: Any = game.new_state(2 + seed % 3, {"map": map_key})
        while not st.is_terminal():
            if st.is_chance_node():
                st.apply_action(eng.sample_chance(st, rng))
                continue
            found.setdefault(st.decision["kind"], st.clone())
            st.apply_action(rng.choice(st.legal_actions()))
    return found


REACHED = {m: decisions_reached(m, range(6)) for m in MAPS}


def prompt_of(html: str) -> str:
    match = re.search(r'<span class="sd-ask" id="sd-ask">(.*?)</span>', html, re.S)
    assert match, "the board shows no prompt"
    return htmllib.unescape(match.group(1)).strip()


def test_the_blaenau_setup_decisions_are_reached() -> None:
    assert {"end", "outside"} <= set(REACHED["blaenau_ffestiniog"])


@pytest.mark.parametrize("map_key", MAPS)
def test_every_reachable_prompt_is_a_real_text_in_both_languages(map_key: str) -> None:
    assert {"place", "build", "window"} <= set(REACHED[map_key])
    for kind, st in REACHED[map_key].items():
        seat = st.current_player()
        texts = {}
        for lang in ("de", "en"):
            html = render(st, seat, lang)
            shown = prompt_of(html)
            texts[lang] = shown
            assert shown == decision_prompt(st.decision, lang), (map_key, kind, lang)
            assert shown and shown != kind and shown not in DECISIONS, (map_key, kind, lang, shown)
            assert not re.search(r"\b(Round|Runde) 0\b", html), (map_key, kind, lang)
            assert st.view(seat)["decision"]["prompt"][lang] == shown
            # the other players see whose turn it is and what they are asked, too
            assert prompt_of(render(st, (seat + 1) % st.num_players, lang)) == shown
        assert texts["de"] != texts["en"], (map_key, kind)


def test_the_setup_says_setup_not_round_0() -> None:
    st = REACHED["blaenau_ffestiniog"]["end"]
    assert st.round == 0
    assert "Spielaufbau" in render(st, st.current_player(), "de")
    assert "Setup" in render(st, st.current_player(), "en")
    assert prompt_of(render(st, st.current_player(), "en")) == "choose your surveyor's start station"
    assert prompt_of(render(REACHED["blaenau_ffestiniog"]["outside"], None, "de")) == "fremden Vermesser aufstellen"


def test_every_decision_kind_has_both_texts() -> None:
    for kind, texts in DECISIONS.items():
        assert set(texts) == {"de", "en"} and all(texts.values()), kind
