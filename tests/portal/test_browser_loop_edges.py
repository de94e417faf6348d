"""In a real browser: the async loop's rough edges of issue 30 (items 2, 4 and 5).

- every open tab of a user follows their waiting games, whichever tab (or device) moved;
- both players' open game pages show an offer to abandon, and its withdrawal, without a reload;
- resigning asks first, and only the confirmation resigns.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from tests.browser_support import click_action, register, shot
from tests.portal.test_browser import api

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def until(check: Any, seconds: float = 20) -> None:
    """Poll ``check`` (the strict CSP forbids Playwright's string-evaluating ``wait_for_function``)."""
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def game_between(base: str, creator: Any, other: Any, other_name: str) -> int:
    """A long toypig game of two people, started; it is ``other``'s turn afterwards."""
    gid = int(api(creator, "POST", f"{base}/api/games",
                  {"game": "toypig", "players": 2, "options": {"length": "long"},
                   "seats": [{"kind": "me"}, {"kind": "invite", "user": other_name}]})["id"])
    api(other, "POST", f"{base}/api/games/{gid}/join")
    for _ in range(100):
        g = api(creator, "GET", f"{base}/api/games/{gid}")
        if not g["my_turn"]:
            break
        api(creator, "POST", f"{base}/api/games/{gid}/actions", {"action": "hold", "seq": g["seq"]})
    return gid


def test_every_tab_of_a_user_follows_a_move_made_in_another(browser: Any, server: str) -> None:
    """Issue 30, item 2: the other tabs kept "(1) Ludothek" and "Your turn" until reloaded."""
    base = server
    mara = register(browser, base, "mara")
    nils = register(browser, base, "nils")
    gid = game_between(base, nils, mara, "mara")
    home = mara.context.new_page()  # a second tab of the same login
    home.goto(f"{base}/")
    home.wait_for_selector(f"#running-games li[data-game='{gid}'].my-turn")
    assert home.title() == "(1) Ludothek"
    mara.goto(f"{base}/games/{gid}")
    until(lambda: mara.get_attribute("#game", "data-my-turn") == "yes")
    assert mara.title().startswith("(1) ")
    # The move, in the game's tab: the home tab follows by itself.  (The toy game may hand the turn
    # straight back: hold until it has passed.)
    while mara.get_attribute("#game", "data-my-turn") == "yes":
        click_action(mara, "hold")
    until(lambda: home.title() == "Ludothek")
    until(lambda: home.locator(f"#running-games li[data-game='{gid}'].my-turn").count() == 0)
    assert home.locator(f"#running-games li[data-game='{gid}'] .badge.turn").count() == 0
    shot(home, "loop-edges-other-tab")
    # A move made elsewhere (the API, another device) is followed the same way, both ways.
    for _ in range(100):
        g = api(nils, "GET", f"{base}/api/games/{gid}")
        if not g["my_turn"]:
            break
        api(nils, "POST", f"{base}/api/games/{gid}/actions", {"action": "hold", "seq": g["seq"]})
    until(lambda: home.title() == "(1) Ludothek" and mara.title().startswith("(1) "))
    g = api(mara, "GET", f"{base}/api/games/{gid}")
    while g["my_turn"]:
        api(mara, "POST", f"{base}/api/games/{gid}/actions", {"action": "hold", "seq": g["seq"]})
        g = api(mara, "GET", f"{base}/api/games/{gid}")
    until(lambda: home.title() == "Ludothek" and not mara.title().startswith("("))


def test_both_game_pages_show_an_offer_to_abandon_and_its_withdrawal_live(browser: Any, server: str) -> None:
    """Issue 30, item 4: an offer to abandon (and its decline) reached the other player only on a reload."""
    base = server
    anna = register(browser, base, "anna")
    bert = register(browser, base, "bert")
    gid = game_between(base, anna, bert, "bert")
    for page in (anna, bert):
        page.goto(f"{base}/games/{gid}")
        page.wait_for_selector("#leave-game")
    anna.click("#leave-game summary")
    anna.click("#abandon")  # the creator offers (a form post: anna's page reloads)
    bert.wait_for_selector("#leave-game[open] #abandon-decline")  # bert's page shows the offer by itself
    assert bert.inner_text("#abandon") == "Agree to abandon"
    assert anna.inner_text("#abandon-decline") == "Withdraw the offer"
    shot(bert, "loop-edges-abandon-offered")
    bert.click("#abandon-decline")
    until(lambda: anna.locator("#abandon-decline").count() == 0)  # anna's page: the offer is off
    assert anna.locator("#abandon").count() == 1


def test_resigning_asks_in_a_dialog_and_without_javascript_on_a_page(browser: Any, server: str) -> None:
    """Issue 30, item 5: "Resign" resigned at the first click."""
    base = server
    anna = register(browser, base, "anna")
    bert = register(browser, base, "bert")
    gid = game_between(base, anna, bert, "bert")
    anna.goto(f"{base}/games/{gid}")
    anna.click("#leave-game summary")
    anna.click("#resign")
    anna.wait_for_selector("#resign-dialog[open]")
    assert "Resign from Pig #" in anna.inner_text("#resign-dialog")
    shot(anna, "loop-edges-resign-dialog")
    anna.set_viewport_size({"width": 390, "height": 844})
    shot(anna, "loop-edges-resign-dialog-phone")
    assert anna.evaluate("() => document.documentElement.scrollWidth - window.innerWidth") <= 1
    anna.click("#resign-cancel")  # keep playing: nothing happened
    until(lambda: anna.locator("#resign-dialog[open]").count() == 0)
    assert all(s["kind"] == "player" for s in api(bert, "GET", f"{base}/api/games/{gid}")["seats"])
    # Without JavaScript: the button's post shows the question as a page.
    context = browser.new_context(java_script_enabled=False, locale="de")
    plain = context.new_page()
    plain.goto(f"{base}/login")
    plain.fill("input[name=name]", "bert")
    plain.fill("input[name=password]", "password-bert")
    plain.click("form[action='/login'] button[type=submit]")
    plain.goto(f"{base}/games/{gid}")
    plain.click("#leave-game summary")
    plain.click("#resign")
    plain.wait_for_selector("#resign-ask")
    assert "Resign from Pig #" in plain.inner_text("#resign-ask")  # bert's language, not the browser's
    shot(plain, "loop-edges-resign-page")
    assert all(s["kind"] == "player" for s in api(anna, "GET", f"{base}/api/games/{gid}")["seats"])
    plain.click("#resign-confirm")
    plain.wait_for_selector("#game")
    assert any(s["kind"] == "bot" for s in api(anna, "GET", f"{base}/api/games/{gid}")["seats"])
    # With JavaScript, the dialog's confirmation resigns.
    anna.set_viewport_size({"width": 1360, "height": 900})
    anna.goto(f"{base}/games/{gid}")
    assert anna.locator("#resign").count() == 1
    anna.click("#leave-game summary")
    anna.click("#resign")
    anna.click("#resign-confirm")
    until(lambda: sum(s["kind"] == "bot" for s in api(bert, "GET", f"{base}/api/games/{gid}")["seats"]) == 2
          or api(bert, "GET", f"{base}/api/games/{gid}")["status"] == "finished")
    # Both left: the bots play it out.  The result card says who left, and fits a phone (issue 30, item 3).
    until(lambda: api(bert, "GET", f"{base}/api/games/{gid}")["status"] == "finished", 120)
    anna.goto(f"{base}/games/{gid}")
    anna.set_viewport_size({"width": 390, "height": 844})
    notes = anna.locator("#result .left-note")
    assert notes.count() == 2 and "resigned" in notes.first.inner_text()
    assert anna.evaluate("() => document.documentElement.scrollWidth - window.innerWidth") <= 1
    assert anna.evaluate("() => parseFloat(getComputedStyle(document.querySelector('#result .left-note')).fontSize)") >= 11
    shot(anna, "loop-edges-result-leavers-phone")
