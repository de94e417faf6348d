"""A bot account is marked as a bot on the pages a person sees, on a 390 px phone (issue 33)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.browser_support import shot
from tests.portal.test_phones import overflow, serious_violations

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PHONE = {"width": 390, "height": 844}


def test_a_bot_account_is_marked_in_the_lobby_on_the_board_and_on_its_profile(browser: Any, server: str) -> None:
    ann = {"Authorization": "Bearer " + httpx.post(f"{server}/api/v1/users",
                                                   json={"name": "ann", "password": "password-ann"}).json()["token"]}
    robo = {"Authorization": "Bearer " + httpx.post(f"{server}/api/v1/bots", json={"name": "robo"},
                                                    headers=ann).json()["token"]}
    gid = httpx.post(f"{server}/api/v1/games", headers=ann, json={
        "game": "machikoro", "players": 2, "seats": [{"kind": "me"}, {"kind": "invite", "user": "robo"}]}).json()["id"]
    waiting = httpx.post(f"{server}/api/v1/games", headers=ann, json={
        "game": "machikoro", "players": 2, "seats": [{"kind": "me"}, {"kind": "invite", "user": "robo"}]}).json()["id"]
    assert httpx.post(f"{server}/api/v1/bot/challenge/{gid}/accept", headers=robo).status_code == 200
    context = browser.new_context(viewport=PHONE, locale="en")
    page = context.new_page()
    page.set_default_timeout(15_000)
    page.goto(f"{server}/login")
    page.fill("input[name=name]", "ann")
    page.fill("input[name=password]", "password-ann")
    page.click("form[action='/login'] button[type=submit]")
    page.wait_for_selector("#account-link")
    # The lobby: the running game and the challenge that waits both mark robo.
    page.goto(f"{server}/")
    for game in (gid, waiting):
        row = page.locator(f'li.game-row[data-game="{game}"]').first
        assert row.locator(".bot-account").count() == 1, game
    assert page.locator(".bot-account").first.inner_text().strip() == "bot"
    assert overflow(page) == 0
    assert serious_violations(page) == []
    shot(page, "botapi-lobby-phone")
    # The board.
    page.goto(f"{server}/games/{gid}")
    player = page.locator(".player", has_text="robo").first
    assert player.locator(".bot-account").count() == 1
    assert page.locator(".player", has_text="ann").first.locator(".bot-account").count() == 0
    assert overflow(page) == 0
    assert serious_violations(page) == []
    shot(page, "botapi-board-phone")
    # The bot's profile, and the bot leaderboard.
    page.goto(f"{server}/users/robo")
    assert page.inner_text("#bot-mark").strip() == "bot"
    assert "ann" in page.inner_text("#bot-owner")
    assert overflow(page) == 0
    assert serious_violations(page) == []
    shot(page, "botapi-profile-phone")
    # The owner's page, where bots are registered.
    page.goto(f"{server}/account")
    page.click("#bots-link")
    page.wait_for_selector("#bot-list")
    page.fill("#bot-add input[name=name]", "robo2")
    page.click("#bot-add button")
    page.wait_for_selector("#new-bot-token")
    assert page.inner_text("#new-bot-token").startswith("ldk_")
    assert page.locator("#bot-list li").count() == 2
    assert overflow(page) == 0
    assert serious_violations(page) == []
    shot(page, "botapi-account-bots-phone")
    page.goto(f"{server}/bot-leaderboard/machikoro")
    assert page.locator("#bot-leaderboard-empty").count() == 1
    assert overflow(page) == 0
    assert serious_violations(page) == []
    context.close()
