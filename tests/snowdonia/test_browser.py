"""A real browser plays a 2-player Snowdonia game against a bot to the end on the Snowdonia board.

It uses the shared browser fixtures of ``tests.browser_support`` (Debian's chromium through Playwright,
a live server on a free port); screenshots go to ``test-artifacts/``.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from tests import browser_support as support

pytestmark = [pytest.mark.browser, pytest.mark.slow]

#: Placements that move the railway along (so the game ends in fewer rounds), tried in this order.
PREFERRED = ("place:D", "place:C", "place:E", "place:B", "place:A", "place:F")


def choose(actions: list[str], rng: random.Random) -> str:
    """A quick player: builds and lays track when it can, otherwise a sensible random choice."""
    for prefix in ("train:", "build:", "contract:", "play:", "maint:steel", "pub:hire"):
        picks = [a for a in actions if a.startswith(prefix)]
        if picks:
            return picks[0]
    places = [a for a in actions if a.startswith("place:")]
    if places:
        for prefix in PREFERRED:
            hits = [a for a in places if a.startswith(prefix)]
            if hits and rng.random() < 0.6:
                return rng.choice(hits)
        return rng.choice(places)
    for prefix in ("take:", "work:"):
        picks = [a for a in actions if a.startswith(prefix)]
        if picks:
            return max(picks, key=lambda a: (a.count("steel"), len(a)))
    return rng.choice(actions)


def test_play_snowdonia_against_a_bot(browser: Any, server: str) -> None:
    rng = random.Random(3)
    page = support.register(browser, server, "dora", lang="de")
    support.new_game(page, server, "snowdonia", ["bot"])
    page.wait_for_selector("#game[data-status=running]")
    page.wait_for_selector(".sd #sd-route-svg")  # the drawn route; the list view is folded below it
    support.shot(page, "snowdonia-start")
    assert "Llanberis" in (page.text_content("#sd-route-svg") or "")
    assert "Llanberis" in (page.text_content("#sd-route") or "")
    assert page.locator("#sd-panels .sd-panel").count() == 2
    clicks = 0
    on_board = 0
    for actions in support.my_turns(page, 400):
        action = choose(actions, rng)
        if page.locator(f'#board [data-action="{action}"]').count():
            on_board += 1
        support.click_action(page, action)
        clicks += 1
        if clicks == 16:  # the contract list opened at click 15 stays open across the re-render
            assert page.eval_on_selector("#sd-panels details", "el => el.open")
        if clicks == 15:
            support.shot(page, "snowdonia-midgame")
            page.click("#sd-panels details summary")  # the contracts of the first panel
            support.shot(page, "snowdonia-contracts-open")
    page.wait_for_selector("#result")
    support.shot(page, "snowdonia-end")
    assert clicks > 10 and on_board > 10
    assert "Ergebnis" in page.inner_text("#result")


def test_play_the_daffodil_line_against_a_bot(browser: Any, server: str) -> None:
    """The lobby offers the map; the board draws Ledbury, the canal cards and daffodils; the game ends."""
    rng = random.Random(5)
    page = support.register(browser, server, "narzisse", lang="de")
    page.goto(f"{server}/new?game=snowdonia")
    labels = page.eval_on_selector_all("select[name=opt_map] option", "els => els.map(e => e.textContent)")
    assert any(label.startswith("Daffodil Line") for label in labels)
    support.new_game(page, server, "snowdonia", ["bot"], {"map": "daffodil_line"})
    page.wait_for_selector("#game[data-status=running]")
    page.wait_for_selector(".sd #sd-route-svg")
    assert "Ledbury" in (page.text_content("#sd-route-svg") or "")
    assert page.is_visible("#sd-provisional")
    assert page.locator("#sd-route-svg .sd-canal").count() == 7
    support.shot(page, "snowdonia-daffodil-start")
    clicks = 0
    for actions in support.my_turns(page, 400):
        support.click_action(page, choose(actions, rng))
        clicks += 1
        if clicks == 20:
            support.shot(page, "snowdonia-daffodil-midgame")
    page.wait_for_selector("#result")
    support.shot(page, "snowdonia-daffodil-end")
    assert clicks > 10
    assert page.locator('#breakdown tr[data-part="daffodils"]').count() == 1
    assert "Narzissen" in page.inner_text("#breakdown").replace("\u00ad", "")  # labels break at syllables


def test_play_blaenau_ffestiniog_against_a_bot(browser: Any, server: str) -> None:
    """The lobby offers the variant; the board draws both ends, the outside surveyor and the provisional
    line; the player chooses an end and the game ends."""
    rng = random.Random(7)
    page = support.register(browser, server, "ffestiniog", lang="en")
    page.goto(f"{server}/new?game=snowdonia")
    labels = page.eval_on_selector_all("select[name=opt_map] option", "els => els.map(e => e.textContent)")
    assert any(label.startswith("Blaenau Ffestiniog") for label in labels)
    support.new_game(page, server, "snowdonia", ["bot"], {"map": "blaenau_ffestiniog"})
    page.wait_for_selector("#game[data-status=running]")
    page.wait_for_selector(".sd #sd-route-svg")
    route = page.text_content("#sd-route-svg") or ""
    assert "Blaenau Ffestiniog" in route and "Porthmadog Harbour" in route
    assert page.is_visible("#sd-provisional") and page.is_visible("#sd-ends")
    support.shot(page, "snowdonia-blaenau-start")
    clicks = 0
    chose_end = False
    for actions in support.my_turns(page, 400):
        ends = [a for a in actions if a.startswith(("end:", "outside:"))]
        action = ends[-1] if ends else choose(actions, rng)
        chose_end = chose_end or bool(ends)
        support.click_action(page, action)
        clicks += 1
        if clicks == 20:
            support.shot(page, "snowdonia-blaenau-midgame")
    page.wait_for_selector("#result")
    support.shot(page, "snowdonia-blaenau-end")
    assert clicks > 10 and chose_end
    assert "Porthmadog Harbour" in (page.text_content("#sd-ends") or "")
