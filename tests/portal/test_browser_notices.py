"""The account page's choices per channel (issue 30) on a 390 px phone, in a real browser."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser_support import ARTIFACTS, browser, register, server, shot  # noqa: F401 - fixtures

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SMALLEST_TEXT = """() => Math.min(...[...document.querySelectorAll('#notice-prefs label, #notice-prefs legend')]
  .map((e) => parseFloat(getComputedStyle(e).fontSize)))"""


@pytest.mark.parametrize("lang", ["en", "de"])
def test_notice_choices_fit_a_phone_and_are_saved(browser: Any, server: str, lang: str) -> None:  # noqa: F811
    page = register(browser, server, f"phone{lang}", lang)
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{server}/account")
    page.wait_for_selector("#notice-prefs #channel-tab")
    assert page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth") <= 0
    assert page.evaluate(SMALLEST_TEXT) >= 11
    shot(page, f"account-notices-390-{lang}")
    page.locator("#notice-prefs").screenshot(path=str(ARTIFACTS / f"account-notices-390-{lang}-section.png"))
    page.uncheck("input[name='tab.ended']")
    page.check("input[name='mail.friend_request']")
    page.click("#notice-prefs button")
    page.wait_for_selector("#notice-prefs")
    assert not page.is_checked("input[name='tab.ended']") and page.is_checked("input[name='tab.turn']")
    assert page.is_checked("input[name='mail.friend_request']")
    page.context.close()
