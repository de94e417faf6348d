"""Undo in a real browser: the button appears after my own decision, one click takes it back."""

from __future__ import annotations

from typing import Any

import pytest

from ludothek.engine.registry import GAME_MODULES
from tests.browser_support import click, click_action, my_turns, new_game, register, shot

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_undo_button_takes_back_my_last_decision(browser: Any, server: str) -> None:
    page = register(browser, server, "ulla", lang="de")
    new_game(page, server, "rolltheages", ["bot"])
    page.wait_for_selector("#game[data-status=running]")
    for actions in my_turns(page, 60):
        assert page.locator("#undo").count() == 0 or page.get_attribute("#game", "data-my-turn") == "yes"
        board_before = page.inner_html("#board")
        click_action(page, "done" if "done" in actions else actions[0])
        if page.locator("#undo").count():
            break
    else:
        raise AssertionError("no decision that can be taken back came up")
    shot(page, "undo-offered")
    click(page, "#undo")
    assert page.locator(".log-list del").count() >= 1  # the undone decision is struck through
    assert "nimmt die letzte Aktion zurück" in page.inner_text("#log")
    assert page.inner_html("#board") == board_before
    shot(page, "undo-done")


@pytest.mark.parametrize(("game_id", "n"), [(game_id, 2) for game_id in GAME_MODULES])
def test_finished_game_shows_the_score_breakdown(browser: Any, server: str, game_id: str, n: int) -> None:
    """Two players finish a game through the API; the result card explains each score, also on a phone."""
    import random

    import httpx

    heads = []
    for i, name in enumerate(["nora", "olaf"][:n]):
        r = httpx.post(f"{server}/api/users", json={"name": f"{name}{game_id[:3]}", "password": "password-x",
                                                    "lang": "de" if i == 0 else "en"})
        heads.append({"Authorization": f"Bearer {r.json()['token']}"})
    gid = httpx.post(f"{server}/api/games", json={"game": game_id, "players": n}, headers=heads[0]).json()["id"]
    httpx.post(f"{server}/api/games/{gid}/join", headers=heads[1])
    rng = random.Random(1)
    with httpx.Client(base_url=server) as client:
        for _ in range(6000):
            states = [client.get(f"/api/games/{gid}?log=false", headers=h).json() for h in heads]
            if states[0]["status"] == "finished":
                break
            h, g = next((h, g) for h, g in zip(heads, states, strict=True) if g["my_turn"])
            action = rng.choice(g["legal"])["action"]
            client.post(f"/api/games/{gid}/actions", json={"action": action, "seq": g["seq"]}, headers=h)
    context = browser.new_context(viewport={"width": 1360, "height": 900}, locale="de")
    page = context.new_page()
    page.goto(f"{server}/games/{gid}?lang=de")
    table = page.inner_text("#breakdown").replace("\u00ad", "")  # long labels break at syllables
    assert all(f"{name}{game_id[:3]}" in table for name in ("nora", "olaf")) and "Punkte" in table
    shot(page, f"breakdown-{game_id}")
    page.set_viewport_size({"width": 390, "height": 844})
    shot(page, f"breakdown-{game_id}-phone")
    wider = page.evaluate("() => document.getElementById('breakdown').parentElement.scrollWidth"
                          " - document.getElementById('breakdown').parentElement.clientWidth")
    card = page.evaluate("() => document.getElementById('result').scrollWidth"
                         " - document.getElementById('result').clientWidth")
    assert card <= 1, f"the result card is {card}px wider than its box on a phone (table scrolls: {wider}px)"
    context.close()
