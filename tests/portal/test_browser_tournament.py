"""A real tournament in a real browser (issue 31).

Three people register; anna creates a two-round Swiss of Machi Koro for two-player tables through the
form (starting once three have entered), and all three enter: anna on the tournament's page, ben from
Machi Koro's game page, cara from the tournaments list.  The round job (the server's job thread)
starts each round by itself; the two seated players of each round find their game from the
tournament's page and play it to the end by clicking, the third has the bye.  At the end everyone
sees the standings.  The pages are then looked at on a 390 px phone in both languages (no sideways
scroll, no text under 11 px, axe: nothing moderate or worse).  Screenshots go to ``test-artifacts/``.
"""

from __future__ import annotations

import random
import re
import time
from typing import Any

import pytest

from tests.browser_support import (  # noqa: F401 - fixtures
    browser,
    click_action,
    legal_actions,
    register,
    seq_of,
    server,
    shot,
)
from tests.portal.test_browser import machikoro_choice
from tests.portal.test_phones import serious_violations

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SMALLEST_TEXT = """() => Math.min(...[...document.querySelectorAll('main *')]
  .filter((e) => e.childNodes.length && [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim()))
  .map((e) => parseFloat(getComputedStyle(e).fontSize)))"""


def wait_for_state(page: Any, url: str, state: str, round_no: int, seconds: float = 60) -> None:
    """Reload the tournament's page until it shows ``state`` and round ``round_no`` (the job runs every second)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        page.goto(url)
        here = page.locator("#tournament")
        if here.get_attribute("data-state") == state and int(here.get_attribute("data-round") or 0) == round_no:
            return
        time.sleep(0.5)
    raise AssertionError(f"the tournament did not reach {state} round {round_no}")


def play_game(pages: dict[str, Any], url: str, rng: random.Random, seconds: float = 300) -> int:
    """The two players at ``url`` play Machi Koro to the end by clicking; the number of clicks."""
    for page in pages.values():
        page.goto(url)
        page.wait_for_selector("#game[data-status=running]")
    clicks = 0
    deadline = time.monotonic() + seconds
    names = list(pages)
    while time.monotonic() < deadline:
        if all(p.get_attribute("#game", "data-status") == "finished" for p in pages.values()):
            break
        mover = next((n for n, p in pages.items() if p.get_attribute("#game", "data-my-turn") == "yes"), None)
        if mover is None:
            time.sleep(0.05)
            continue
        page = pages[mover]
        actions = legal_actions(page)
        if not actions:
            time.sleep(0.05)
            continue
        click_action(page, machikoro_choice(actions, rng))
        clicks += 1
        other = pages[names[1] if mover == names[0] else names[0]]
        other.wait_for_function("s => Number(document.getElementById('game').dataset.seq) >= s",
                                arg=seq_of(page))
    for page in pages.values():
        page.wait_for_selector("#result")
    return clicks


def test_three_people_play_a_two_round_swiss_and_see_the_standings(browser: Any, server: str) -> None:  # noqa: F811
    rng = random.Random(31)
    anna = register(browser, server, "anna")
    ben = register(browser, server, "ben", lang="de")
    cara = register(browser, server, "cara")
    people = {"anna": anna, "ben": ben, "cara": cara}

    anna.goto(f"{server}/tournaments/new?game=machikoro")
    anna.fill("#tournament-name", "Harbour cup")
    anna.select_option("#table-size", "2")
    anna.fill("#rounds", "2")
    anna.select_option("#time-control", "move:3")
    anna.fill("#max-entrants", "3")
    anna.select_option("#start-rule", "full")
    shot(anna, "tournament-create-anna")
    anna.click("#create-tournament")
    anna.wait_for_selector("#tournament[data-state=open]")
    url = anna.url
    tid = int(re.search(r"/tournaments/(\d+)$", url).group(1))  # type: ignore[union-attr]
    anna.click("#enter-tournament")
    anna.wait_for_selector("#tournament[data-me=entered]")

    ben.goto(f"{server}/games/machikoro")  # entry from the game's page
    ben.click(f"#kind-tournaments [data-enter='{tid}']")
    ben.wait_for_selector("#tournament[data-me=entered]")
    shot(ben, "tournament-entered-ben")

    cara.goto(f"{server}/tournaments")
    shot(cara, "tournaments-list-cara")
    cara.click(f"#tournaments-open [data-tournament='{tid}'] a")
    cara.click("#enter-tournament")
    cara.wait_for_selector("#tournament[data-me=entered]")

    byes: list[str] = []
    for round_no in (1, 2):
        wait_for_state(anna, url, "running", round_no)
        shot(anna, f"tournament-round{round_no}-anna")
        table = anna.locator(f"#round-{round_no} li.table").first
        seated = [s.strip().split(" ")[0] for s in table.locator(".seat").all_inner_texts()]
        assert sorted(seated + [n for n in people if n not in seated]) == sorted(people) and len(seated) == 2
        byes += [n for n in people if n not in seated]
        game_url = server + table.locator("a").first.get_attribute("href")
        clicks = play_game({n: people[n] for n in seated}, game_url, rng)
        assert clicks > 5
        shot(people[seated[0]], f"tournament-round{round_no}-game-end")
        people[seated[0]].goto(game_url)  # the game's page leads back to its tournament
        assert people[seated[0]].get_attribute("#tournament-link a", "href") == f"/tournaments/{tid}"
    assert len(set(byes)) == 2  # the bye moved on: nobody sat out twice

    wait_for_state(anna, url, "finished", 2)
    for name, page in people.items():
        page.goto(url)
        page.wait_for_selector("#standings-table")
        rows = page.locator("#standings-table tbody tr")
        assert rows.count() == 3
        assert sorted(rows.evaluate_all("rs => rs.map(r => r.dataset.name)")) == sorted(people)
        shot(page, f"tournament-standings-{name}")
    assert "Tabelle" in ben.inner_text("#standings") and "Standings" in anna.inner_text("#standings")
    # Each round's table, its result and the replay link are on the page.
    assert anna.locator("#round-1 li.table a[href$='/replay']").count() == 1
    assert anna.locator("#round-2 li.table a[href$='/replay']").count() == 1
    anna.goto(f"{server}/users/anna")
    assert anna.locator(f"#profile-tournaments a[href='/tournaments/{tid}']").count() == 1

    # The pages on a phone, in both languages: no sideways scroll, no tiny text, axe clean.
    for name, page in (("anna", anna), ("ben", ben)):
        page.set_viewport_size({"width": 390, "height": 844})
        for path in ("/tournaments", f"/tournaments/{tid}", "/tournaments/new", "/games/machikoro",
                     f"/users/{name}"):
            page.goto(server + path)
            assert page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth") <= 0, path
            assert page.evaluate(SMALLEST_TEXT) >= 11, path
            assert serious_violations(page) == [], (path, serious_violations(page))
        shot(page, f"tournament-page-390-{name}")
        page.goto(f"{server}/tournaments/{tid}")
        # The standings fit the phone as a whole: no column hidden behind a sideways scroll.
        assert page.evaluate("() => { const w = document.querySelector('#standings .table-wrap');"
                             " return w.scrollWidth - w.clientWidth; }") <= 0
        shot(page, f"tournament-standings-390-{name}")

    # Calling off asks first, in a dialog: "keep it going" changes nothing, "yes" calls it off.
    anna.set_viewport_size({"width": 390, "height": 844})
    anna.goto(f"{server}/tournaments/new?game=machikoro")
    assert anna.locator("#format option").evaluate_all("os => os.map(o => o.value)") == [
        "swiss", "round_robin", "knockout"]
    anna.fill("#tournament-name", "Spare cup")
    anna.select_option("#format", "knockout")
    anna.select_option("#table-size", "2")
    anna.select_option("#time-control", "move:3")
    anna.fill("#max-entrants", "4")
    anna.select_option("#start-rule", "full")
    anna.click("#create-tournament")
    anna.wait_for_selector("#tournament[data-state=open]")
    anna.click("#cancel-tournament")
    anna.wait_for_selector("#cancel-tournament-dialog[open]")
    shot(anna, "tournament-cancel-dialog-390")
    assert serious_violations(anna) == []
    anna.click("#cancel-tournament-keep")
    assert anna.locator("#cancel-tournament-dialog[open]").count() == 0
    assert anna.get_attribute("#tournament", "data-state") == "open"
    anna.click("#cancel-tournament")
    anna.click("#cancel-tournament-confirm")
    anna.wait_for_selector("#tournament[data-state=cancelled]")
