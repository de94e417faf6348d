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


#: The smallest font size (px) of any visible text on the page.
SMALLEST_TEXT = """() => {
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  let smallest = 1000;
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (!node.textContent.trim()) continue;
    const el = node.parentElement;
    const box = el.getBoundingClientRect();
    if (box.width === 0 || box.height === 0 || getComputedStyle(el).visibility === 'hidden') continue;
    smallest = Math.min(smallest, parseFloat(getComputedStyle(el).fontSize));
  }
  return smallest;
}"""


def test_rules_pages_on_a_phone_every_game_version_and_language(browser: Any, server: str) -> None:  # noqa: F811
    """At 390 px: nothing scrolls sideways (wide tables are stacked), no text under 11 px, the board
    picture loads and has its alt text; screenshots ``rules-<game>-<lang>-<mode>-390.png``."""
    page = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    problems: list[str] = []
    for kind in GAME_MODULES:
        for lang in ("de", "en"):
            for mode in ("short", "long"):
                page.goto(f"{server}/games/{kind}/rules?lang={lang}&mode={mode}")
                picture = page.locator(f'#rules img[src="/static/boards/{kind}_rules_board_{lang}.webp"]')
                picture.scroll_into_view_if_needed()
                page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=picture.element_handle())
                if len(picture.get_attribute("alt") or "") < 80:
                    problems.append(f"{kind}/{lang}/{mode}: short alt text")
                box = picture.bounding_box()
                if box is None or box["width"] > 390:
                    problems.append(f"{kind}/{lang}/{mode}: picture wider than the phone")
                if (extra := overflow(page)) > 0:
                    problems.append(f"{kind}/{lang}/{mode}: {extra} px sideways")
                if (smallest := page.evaluate(SMALLEST_TEXT)) < 11:
                    problems.append(f"{kind}/{lang}/{mode}: text of {smallest} px")
                if mode == "long" and page.locator("table.rows-as-cards").count():
                    display = page.eval_on_selector("table.rows-as-cards tr", "tr => getComputedStyle(tr).display")
                    if display != "block":
                        problems.append(f"{kind}/{lang}: wide table not stacked ({display})")
                shot(page, f"rules-{kind}-{lang}-{mode}-390")
    page.context.close()
    assert not problems, problems


def test_language_switch_keeps_the_short_version(browser: Any, server: str) -> None:  # noqa: F811
    page = browser.new_context(viewport={"width": 1366, "height": 900}).new_page()
    page.goto(f"{server}/games/carpediem/rules?lang=en&mode=short")
    page.click(".langswitch button[value=de]")
    page.wait_for_selector("html[lang=de]")
    assert "mode=short" in page.url
    assert page.get_attribute("#mode-short", "aria-current") == "page"
    assert page.locator(".rules-long").count() == 0
    page.click(".langswitch button[value=en]")
    page.wait_for_selector("html[lang=en]")
    assert "mode=short" in page.url and page.locator(".rules-long").count() == 0
    shot(page, "rules-carpediem-en-short-1366")
    page.context.close()


def test_axe_finds_nothing_on_the_rules_pages(browser: Any, server: str) -> None:  # noqa: F811
    """axe-core: no violation of any impact (moderate included: the summaries' landmarks are labelled
    one by one) on the rules pages in every version, on a phone and a desktop."""
    from axe_playwright_python.sync_playwright import Axe

    found = {}
    for width, height in ((390, 844), (1366, 900)):
        page = browser.new_context(viewport={"width": width, "height": height}).new_page()
        for kind in GAME_MODULES:
            for mode in ("short", "long", "both"):
                lang = "de" if kind in ("machikoro", "snowdonia") else "en"
                page.goto(f"{server}/games/{kind}/rules?lang={lang}&mode={mode}")
                violations = Axe().run(page).response["violations"]
                if violations:
                    found[f"{kind}/{mode}/{width}"] = [(v["id"], v["impact"]) for v in violations]
        page.context.close()
    assert not found, found
