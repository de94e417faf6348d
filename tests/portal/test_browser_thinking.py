"""A thinking bot says so on its panel, in a real browser (issue 29): live on an open page in English,
on a freshly opened page in German, readable on a 390 px phone.

The bot is held: its ``choose`` waits for the test, so the bot worker holds the turn (its claim, the
marker) exactly as long as the test looks, without racing a real search.
"""

from __future__ import annotations

import random
import threading
from typing import Any

import pytest

from ludothek import bots as bots_module
from ludothek.engine import State
from tests.browser_support import ARTIFACTS, register, shot
from tests.portal.test_browser import api

pytestmark = [pytest.mark.browser]

PHONE = {"width": 390, "height": 844}


def test_a_thinking_bot_says_so_on_its_panel(browser: Any, server: str, monkeypatch: pytest.MonkeyPatch) -> None:
    gate = threading.Event()
    asked: list[int] = []

    class HeldBot:
        """Thinks until the test lets it answer (budget large enough that no fallback steps in)."""

        name = "hard"
        budget = 120.0

        def choose(self, state: State, rng: random.Random) -> str:
            asked.append(state.current_player())
            gate.wait(60)
            return state.legal_actions()[0]

    monkeypatch.setitem(bots_module.BOTS, "hard", HeldBot)
    try:
        page = register(browser, server, "ria")
        page.set_viewport_size(PHONE)
        seats = [{"kind": "me"}] + [{"kind": "bot", "bot": "hard"}] * 3
        g = api(page, "POST", f"{server}/api/games", {"game": "rolltheages", "players": 4, "seats": seats})
        gid = g["id"]
        page.goto(f"{server}/games/{gid}")
        rng = random.Random(3)
        # My turn (if I start) through the API: the open page hears of each move and of the bot's claim.
        for _ in range(60):
            g = api(page, "GET", f"{server}/api/games/{gid}?log=false")
            if not g["my_turn"]:
                break
            action = rng.choice(g["legal"])["action"]
            api(page, "POST", f"{server}/api/games/{gid}/actions", {"action": action, "seq": g["seq"]})
        page.wait_for_selector(".players .player.is-thinking .thinking:not(:empty)")
        g = api(page, "GET", f"{server}/api/games/{gid}?log=false")
        bot = g["to_move"]
        assert g["thinking"] == bot and asked == [bot]
        li = page.locator(f".players .player[data-seat='{bot}']")
        note = li.locator(".thinking")
        assert note.inner_text().strip().endswith("thinking…")
        assert note.get_attribute("aria-live") == "polite"
        assert bot_name(g, bot) in note.text_content()  # said to screen readers with the bot's name
        assert page.locator(".players .thinking:not(:empty)").count() == 1  # only the bot that thinks
        assert page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth") <= 0
        size = page.evaluate("el => parseFloat(getComputedStyle(el).fontSize)", note.element_handle())
        assert size >= 11
        shot(page, "thinking-en-phone")
        page.locator("header.game-head").screenshot(path=str(ARTIFACTS / "thinking-en-phone-head.png"))

        watcher = register(browser, server, "rosa", lang="de")
        watcher.goto(f"{server}/games/{gid}")
        german = watcher.locator(f".players .player[data-seat='{bot}'] .thinking")
        german.wait_for()
        assert "denkt nach" in german.inner_text()
        shot(watcher, "thinking-de-desktop")

        gate.set()  # the bot answers: its move is stored, the page fetches the board, the marker goes with it
        page.wait_for_function("seq => Number(document.getElementById('game').dataset.seq) > seq", arg=g["seq"])
    finally:
        gate.set()


def bot_name(g: dict[str, Any], seat: int) -> str:
    return str(next(s["name"] for s in g["seats"] if s["seat"] == seat))
