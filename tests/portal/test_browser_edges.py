"""In a real browser (issue 30, items 7 to 10): the way back after logging in, the account forms that
redirect (a reload sends nothing again), ending a vacation, local dates on a phone, and the time of day
on a chat line that arrives live."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest

from tests.browser_support import VIEWPORT, register
from tests.portal.test_browser import api, check_page

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def until(check: Any, seconds: float = 20) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.1)


def test_logging_in_comes_back_to_the_game(browser: Any, server: str) -> None:
    ann = register(browser, server, "ann")
    game = api(ann, "POST", f"{server}/api/games", {"game": "toypig", "players": 2})
    register(browser, server, "bob").context.close()
    visitor = browser.new_context(viewport=VIEWPORT, locale="en").new_page()
    visitor.goto(f"{server}/games/{game['id']}")
    visitor.click("header nav a[href^='/login']")
    visitor.fill("input[name=name]", "bob")
    visitor.fill("input[name=password]", "password-bob")
    visitor.click("form[action='/login'] button[type=submit]")
    visitor.wait_for_selector("#account-link")
    assert visitor.url == f"{server}/games/{game['id']}"
    visitor.context.close()
    ann.context.close()


def test_account_forms_redirect_and_a_vacation_ends_early(browser: Any, server: str) -> None:
    page = register(browser, server, "carla", lang="de")
    api(page, "PUT", f"{server}/api/me/notifications", {"timezone": "Europe/Berlin"})
    page.goto(f"{server}/account")
    assert "btn-accent" not in (page.get_attribute("#next-game", "class") or "")  # nothing waits
    page.click("#vacation-form button")
    page.wait_for_selector("#vacation-end-form")
    text = page.inner_text("main")
    assert "UTC" not in text and not re.search(r"\d{4}-\d{2}-\d{2}", text), text
    assert re.search(r"Urlaub vom \d\d\.\d\d\.\d{4}, \d\d:\d\d bis", text), text
    check_page(page, "edges-account-vacation")
    posts: list[str] = []
    page.on("request", lambda r: posts.append(r.url) if r.method == "POST" else None)
    page.click("#vacation-end-form button")
    page.wait_for_selector("#notice")
    assert page.url == f"{server}/account"
    assert "Urlaub ist beendet" in page.inner_text("#notice")
    assert page.query_selector("#vacation-end-form") is None
    page.reload()
    page.wait_for_selector("#account-link")
    assert page.query_selector("#notice") is None  # shown once
    assert posts == [f"{server}/account/vacation/end"]  # the reload sent nothing again
    # A new token is shown once, on the POST's answer; the address becomes /account at once.
    page.fill("form[action='/account/tokens'] input[name=password]", "password-carla")
    page.click("form[action='/account/tokens'] button")
    page.wait_for_selector("#new-token")
    until(lambda: page.url == f"{server}/account")
    check_page(page, "edges-account-token")
    page.reload()
    page.wait_for_selector("#account-link")
    assert page.query_selector("#new-token") is None
    assert posts == [f"{server}/account/vacation/end", f"{server}/account/tokens"]
    page.context.close()


def test_a_live_chat_line_shows_the_local_time(browser: Any, server: str) -> None:
    ann = register(browser, server, "ann")
    bob = register(browser, server, "bob", lang="de")
    api(bob, "PUT", f"{server}/api/me/notifications", {"timezone": "Asia/Tokyo"})
    game = api(ann, "POST", f"{server}/api/games", {"game": "toypig", "players": 2})
    api(bob, "POST", f"{server}/api/games/{game['id']}/join")
    bob.goto(f"{server}/games/{game['id']}")
    bob.wait_for_selector("#chat")
    assert bob.get_attribute("#chat", "data-tz") == "Asia/Tokyo"
    time.sleep(0.5)  # the live socket connects
    sent = api(ann, "POST", f"{server}/api/games/{game['id']}/chat", {"text": "hallo"})
    bob.wait_for_selector(f"#chat-list li[data-id='{sent['id']}']")
    line = bob.inner_text(f"#chat-list li[data-id='{sent['id']}'] .chat-at")
    from datetime import datetime
    from zoneinfo import ZoneInfo

    at = datetime.fromisoformat(sent["at"]).astimezone(ZoneInfo("Asia/Tokyo"))
    assert re.fullmatch(r"Zug \d+ · \d\d:\d\d", line), line
    assert line.endswith(at.strftime("%H:%M")), (line, at)
    bob.reload()
    bob.wait_for_selector(f"#chat-list li[data-id='{sent['id']}']")
    assert bob.inner_text(f"#chat-list li[data-id='{sent['id']}'] .chat-at") == line  # the server writes the same
    ann.context.close()
    bob.context.close()
