"""In a real browser: the Content-Security-Policy blocks nothing our pages need, and the account page works."""

from __future__ import annotations

from typing import Any

import pytest

from ludothek import engine as eng
from tests.browser_support import new_game, register
from tests.portal.test_browser import check_page

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_no_page_breaks_the_policy_and_live_updates_connect(browser: Any, server: str) -> None:
    page = register(browser, server, "hanna")
    violations: list[str] = []
    page.on("console", lambda m: violations.append(m.text) if "Content Security Policy" in m.text else None)
    page.on("pageerror", lambda e: violations.append(str(e)))
    for game in eng.games():
        if game == "toypig":
            continue
        new_game(page, server, game, ["bot"])
        page.wait_for_selector("#live-status.on")
    for url in ("/", "/account", "/new", "/login"):
        page.goto(server + url)
        page.wait_for_load_state("networkidle")
    assert not violations, violations


def test_tokens_and_log_out_everywhere_on_the_account_page(browser: Any, server: str) -> None:
    page = register(browser, server, "ida")
    other = register(browser, server, "ida2")
    other.goto(f"{server}/login")  # the same account in a second browser
    other.context.clear_cookies()
    other.goto(f"{server}/login")
    other.fill("input[name=name]", "ida")
    other.fill("input[name=password]", "password-ida")
    other.click("form[action='/login'] button[type=submit]")
    other.wait_for_selector("#account-link")
    page.goto(f"{server}/account")
    page.fill("input[name=label]", "my bot")
    page.select_option("select[name=expires_in_days]", "30")
    page.fill("form[action='/account/tokens'] input[name=password]", "password-ida")  # a sensitive change
    page.click("form[action='/account/tokens'] button")
    page.wait_for_selector("#new-token")
    assert page.locator("#tokens li").count() == 1
    check_page(page, "account-tokens")  # fits a phone, no raw text keys
    page.fill("#tokens li form input[name=password]", "password-ida")
    page.click("#tokens li form button")
    page.wait_for_selector("#tokens", state="detached")
    page.click("#logout-everywhere")
    page.wait_for_selector("a[href='/login']")
    other.goto(f"{server}/account")
    assert other.locator("#account-link").count() == 0
