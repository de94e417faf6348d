"""Replays, profiles and leaderboards in a real browser: stepping, playing back, phones, axe, stored XSS.

A finished game is made through the JSON API (a player against a bot); the replay page is then used
as a person would: the step buttons, the slider and "play".  A profile whose "about me" holds
script and HTML is opened by another user: nothing of it runs.
"""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest

from tests.browser_support import register, shot
from tests.portal.test_phones import overflow, serious_violations

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PHONE = {"width": 390, "height": 844}
XSS = '<script>window.__xss = 1</script><img src=x onerror="window.__xss = 2"> "quoted" & \'single\''


def finished_bot_game(base: str, name: str) -> int:
    """A toy game of ``name`` against a bot, played to its end through the API."""
    r = httpx.post(f"{base}/api/users", json={"name": name, "password": "password-" + name})
    head = {"Authorization": f"Bearer {r.json()['token']}"}
    gid = httpx.post(f"{base}/api/games", headers=head, json={
        "game": "toypig", "players": 2, "seats": [{"kind": "me"}, {"kind": "bot", "bot": "random"}]}).json()["id"]
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        g = httpx.get(f"{base}/api/games/{gid}?log=false", headers=head).json()
        if g["status"] == "finished":
            return int(gid)
        if g["legal"]:
            action = "hold" if any(a["action"] == "hold" for a in g["legal"]) else g["legal"][0]["action"]
            httpx.post(f"{base}/api/games/{gid}/actions", headers=head, json={"action": action, "seq": g["seq"]})
        else:
            time.sleep(0.05)
    raise AssertionError("the game did not finish")


def test_replay_steps_slider_and_playback_on_a_phone(browser: Any, server: str) -> None:
    gid = finished_bot_game(server, "replayer")
    page = browser.new_context(viewport=PHONE, locale="en").new_page()
    page.set_default_timeout(15_000)
    page.goto(f"{server}/games/{gid}/replay?step=0")
    last = int(page.get_attribute("#replay", "data-last"))
    assert page.get_attribute("#replay", "data-step") == "0"
    page.click("#replay-next")
    page.wait_for_selector('#replay[data-step="1"]')
    page.click("#replay-last")
    page.wait_for_selector(f'#replay[data-step="{last}"]')
    page.click("#replay-first")
    page.wait_for_selector('#replay[data-step="0"]')
    page.fill("#replay-slider", str(last // 2))
    page.dispatch_event("#replay-slider", "change")
    page.wait_for_selector(f'#replay[data-step="{last // 2}"]')
    assert f"step={last // 2}" in page.url  # the address follows, so the step can be shared
    page.select_option("#replay-speed", "0.5")
    page.click("#replay-play")
    page.wait_for_function("n => Number(document.getElementById('replay').dataset.step) >= n",
                           arg=min(last, last // 2 + 2))
    page.click("#replay-play")  # pause
    page.select_option("#replay-seat", "0")
    page.wait_for_selector('#replay-seat option[value="0"][selected]', state="attached")
    assert overflow(page) == 0
    assert serious_violations(page) == []
    shot(page, "replay-phone")
    page.context.close()


def test_about_me_script_never_runs_and_pages_fit_a_phone(browser: Any, server: str) -> None:
    finished_bot_game(server, "writer")
    author = register(browser, server, "mallory")
    author.goto(f"{server}/users/mallory")
    author.click("#profile-edit summary")
    author.fill("#about-input", XSS)
    author.click("#profile-save")
    author.wait_for_selector("#about")
    author.context.close()
    assert httpx.get(f"{server}/api/users/mallory").json()["about"] == XSS  # JSON carries it as data
    reader = browser.new_context(viewport=PHONE, locale="de").new_page()
    reader.goto(f"{server}/users/mallory")
    assert reader.inner_text("#about") == XSS  # shown as the text it is
    assert reader.evaluate("() => window.__xss") is None
    assert reader.locator("#about script, #about img").count() == 0
    assert overflow(reader) == 0 and serious_violations(reader) == []
    shot(reader, "profile-phone-xss")
    for path in ("/users/writer", "/games/toypig/leaderboard", "/replays/import", "/games/toypig"):
        reader.goto(server + path)
        assert overflow(reader) == 0, path
        assert serious_violations(reader) == [], path
        if path == "/users/writer":  # the games table fits its card too (German column heads are long)
            assert reader.evaluate("() => { const t = document.getElementById('stats-table');"
                                   " return t.scrollWidth - t.parentElement.clientWidth; }") <= 0
            assert reader.inner_text("#stats-table thead").split() == ["Spiel", "Gespielt", "Gewonnen", "Wertung"]
    shot(reader, "leaderboard-phone")
    reader.context.close()
