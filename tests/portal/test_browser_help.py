"""The rules and game pages in a real browser: screenshots at 1366 and 390 px, no horizontal overflow on a phone."""

from __future__ import annotations

from typing import Any

import pytest

from ludothek.engine.registry import GAME_MODULES
from tests.browser_support import browser, server, shot  # noqa: F401 - fixtures

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def overflow(page: Any) -> int:
    return int(page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth"))


def test_rules_page_screenshots(browser: Any, server: str) -> None:  # noqa: F811
    for width, height in ((1366, 900), (390, 844)):
        page = browser.new_context(viewport={"width": width, "height": height}).new_page()
        page.goto(f"{server}/games/rolltheages/rules?lang=en&mode=both")
        page.wait_for_selector("aside.rules-short")
        shot(page, f"rules-rolltheages-en-{width}")
        assert overflow(page) <= 0
        page.click("#mode-short")
        page.wait_for_url("**mode=short**")
        assert page.locator(".rules-long").count() == 0
        page.context.close()


def test_help_pages_fit_a_phone(browser: Any, server: str) -> None:  # noqa: F811
    page = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    paths = ["/games?lang=de", "/rules"]
    for kind in GAME_MODULES:
        for lang in ("de", "en"):
            paths += [f"/games/{kind}?lang={lang}"] + [f"/games/{kind}/rules?lang={lang}&mode={m}"
                                                       for m in ("short", "long", "both")]
    for path in paths:
        page.goto(server + path)
        assert overflow(page) <= 0, path
    shot(page, "rules-carpediem-en-390-both")
    page.context.close()
