"""Every board as a person sees it, on a phone and on a desktop, in German and English (issue 10, 4 and 8).

One portal and one chromium serve the whole module.  For each game a player sits down with bots
(three or four seats, so the other players' areas are on the page too), plays a few turns through
the API so the board is mid-game, and then the board is looked at at 390×844 and 1366×900 in both
languages: a full-page screenshot ``test-artifacts/board-<game>-<lang>-<size>.png`` (look at them),
and the no-overflow check ``document.documentElement.scrollWidth <= window.innerWidth``.
"""

from __future__ import annotations

import random
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ludothek import engine
from tests.browser_support import new_game, register, shot
from tests.portal.test_browser import api

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1366, "height": 900}
SIZES = {"phone": PHONE, "desktop": DESKTOP}
#: Seat placeholders where a user name belongs ("Player 1", "Spieler 2", "seat 0").
PLACEHOLDER = re.compile(r"\b(Player|Spieler|[Ss]eat|Platz) \d\b")

#: game -> (bot seats besides me, options, my turns to play before looking)
SETUPS: dict[str, tuple[list[str], dict[str, str], int]] = {
    "machikoro": (["bot", "bot", "bot"], {"market": "komme_was_wolle"}, 6),
    "rolltheages": (["bot", "bot"], {}, 8),
    "snowdonia": (["bot", "bot"], {}, 6),
    "carpediem": (["bot", "bot", "bot"], {}, 6),
}


@pytest.fixture(scope="module")
def shared_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One portal for the module: every board is looked at on the same server."""
    from tests.portal.conftest import make_settings
    from tests.portal.server import running_server

    db: Path = tmp_path_factory.mktemp("phones") / "phones.sqlite3"
    with running_server(make_settings(f"sqlite:///{db}")) as url:
        yield url


def overflow(page: Any) -> int:
    """How many pixels the page is wider than the window (0 when it fits)."""
    return int(page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth"))


def play_some_turns(page: Any, base: str, gid: int, turns: int, seed: int) -> None:
    """Play ``turns`` of my decisions with random legal actions (the bots move in between)."""
    rng = random.Random(seed)
    played = 0
    deadline = time.monotonic() + 60
    while played < turns and time.monotonic() < deadline:
        state = api(page, "GET", f"{base}/api/games/{gid}?log=false")
        if state["status"] != "running":
            break
        legal = [a["action"] for a in state["legal"]]
        if not legal:
            time.sleep(0.05)
            continue
        moving = [a for a in legal if a not in ("pass", "done")] or legal
        api(page, "POST", f"{base}/api/games/{gid}/actions", {"action": rng.choice(moving), "seq": state["seq"]})
        played += 1


@pytest.fixture(scope="module")
def midgame(browser: Any, shared_server: str) -> dict[str, str]:
    """game -> URL of a running mid-game board where ``pia`` (a user) plays against bots."""
    page = register(browser, shared_server, "pia")
    urls = {}
    for i, (game, (seats, options, turns)) in enumerate(SETUPS.items()):
        new_game(page, shared_server, game, seats, options)
        page.wait_for_selector("#game[data-status=running]")
        gid = int(page.get_attribute("#game", "data-game"))
        play_some_turns(page, shared_server, gid, turns, seed=i)
        urls[game] = f"{shared_server}/games/{gid}"
    page.context.close()
    return urls


def user_page(browser: Any, base: str, lang: str, size: dict[str, int]) -> Any:
    """``pia`` logged in, in ``lang``, at ``size``."""
    context = browser.new_context(viewport=size, locale=lang)
    page = context.new_page()
    page.set_default_timeout(15_000)
    page.goto(f"{base}/login")
    page.fill("input[name=name]", "pia")
    page.fill("input[name=password]", "password-pia")
    page.click("form[action='/login'] button[type=submit]")
    page.wait_for_selector("#account-link")
    page.click(f".langswitch button[value={lang}]")  # the account's language wins over the browser's
    page.wait_for_selector(f"html[lang={lang}]")
    return page


@pytest.mark.parametrize("lang", ["de", "en"])
@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_every_board_fits_and_is_screenshotted(browser: Any, shared_server: str, midgame: dict[str, str],
                                               lang: str, size: str) -> None:
    page = user_page(browser, shared_server, lang, SIZES[size])
    too_wide: dict[str, int] = {}
    placeholders: dict[str, list[str]] = {}
    for game, url in midgame.items():
        page.goto(url)
        page.wait_for_selector("#board")
        shot(page, f"board-{game}-{lang}-{size}")
        shown = page.inner_text("body") + " ".join(page.eval_on_selector_all("[title]", "els => els.map(e => e.title)"))
        if found := sorted(set(m.group(0) for m in PLACEHOLDER.finditer(shown))):
            placeholders[game] = found
        if (extra := overflow(page)) > 0:
            too_wide[game] = extra
    pages = {"home": "/", "new": "/new", "account": "/account", "missing": "/games/424242", "rules": "/rules",
             **{f"rules-{g}": f"/games/{g}/rules" for g in SETUPS}, **{f"about-{g}": f"/games/{g}" for g in SETUPS}}
    for name, path in pages.items():
        page.goto(shared_server + path)
        if (extra := overflow(page)) > 0:
            too_wide[name] = extra
    page.context.close()
    assert not too_wide, f"{size}/{lang}: wider than the window by px: {too_wide}"
    assert not placeholders, f"{lang}: seat placeholders instead of names: {placeholders}"


@pytest.mark.parametrize("lang", ["de", "en"])
def test_login_page_fits_a_phone(browser: Any, shared_server: str, lang: str) -> None:
    page = browser.new_context(viewport=PHONE, locale=lang).new_page()
    for path in ("/", "/login", "/register"):
        page.goto(shared_server + path)
        assert overflow(page) <= 0, path
    page.context.close()


#: game -> (my own area, the other players' areas); Snowdonia is left out while its board is redrawn.
OWN_AREAS = {
    "machikoro": (".mk-city.mk-mine", ".mk-city:not(.mk-mine)"),
    "rolltheages": (".rt-sheet.rt-mine", ".rt-sheet:not(.rt-mine)"),
    "carpediem": (".cd-district.cd-me", ".cd-district:not(.cd-me)"),
}


def tops(page: Any, selector: str) -> list[float]:
    """The tops of the shown elements of ``selector`` (a district folded away behind a tab has none)."""
    return list(page.eval_on_selector_all(
        selector, "els => els.filter(e => e.getClientRects().length).map(e => e.getBoundingClientRect().top)"))


@pytest.mark.parametrize("game", list(OWN_AREAS))
def test_my_own_area_comes_before_the_other_players(browser: Any, shared_server: str, midgame: dict[str, str],
                                                     game: str) -> None:
    """On a phone my own city, sheet or district comes before the others' (no scrolling past them)."""
    page = user_page(browser, shared_server, "en", PHONE)
    page.goto(midgame[game])
    page.wait_for_selector("#board")
    mine_sel, others_sel = OWN_AREAS[game]
    mine, others = tops(page, mine_sel), tops(page, others_sel)
    page.context.close()
    assert len(mine) == 1 and others, (mine, others)
    assert all(mine[0] < t for t in others), (mine, others)


@pytest.mark.parametrize("lang", ["de", "en"])
@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_machikoro_names_whole_city_in_view_and_no_absent_cards(browser: Any, shared_server: str,
                                                                midgame: dict[str, str], lang: str, size: str) -> None:
    """Card names break only at syllables, my city shows while I buy, deck-only kinds are no ×0 cards."""
    page = user_page(browser, shared_server, lang, SIZES[size])
    page.goto(midgame["machikoro"])
    page.wait_for_selector("#board .mk-market")
    cut = page.eval_on_selector_all(
        ".mk-name, .mk-lm-name", "els => els.filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.textContent)")
    assert not cut, f"card names wider than their card: {cut}"
    piles = page.eval_on_selector_all(".mk-card .mk-pile", "els => els.map(e => e.textContent.trim())")
    assert piles and not [p for p in piles if p.startswith("×0")], piles
    mine_top = page.eval_on_selector(".mk-city.mk-mine", "e => e.getBoundingClientRect().top")
    market_top = page.eval_on_selector(".mk-market", "e => e.getBoundingClientRect().top")
    if size == "phone":
        assert mine_top < market_top, "on a phone my city comes before the market"
    else:
        assert mine_top < SIZES[size]["height"], "on a desktop my city is beside the market, above the fold"
    page.context.close()


#: The axe-core impacts no page may have (of minor, moderate, serious, critical; issue 29 added moderate).
REFUSED_IMPACTS = ("moderate", "serious", "critical")


def serious_violations(page: Any) -> list[str]:
    """axe-core's moderate, serious and critical findings on the page (axe ships inside axe-playwright-python)."""
    from axe_playwright_python.sync_playwright import Axe

    results = Axe().run(page).response
    return [f"{v['id']} ({v['impact']}): {[n['target'] for n in v['nodes']][:4]}"
            for v in results["violations"] if v["impact"] in REFUSED_IMPACTS]


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_axe_finds_no_serious_problem(browser: Any, shared_server: str, midgame: dict[str, str], size: str) -> None:
    page = browser.new_context(viewport=SIZES[size], locale="en").new_page()
    found = {}
    for name, path in {"welcome": "/", "login": "/login", "register": "/register"}.items():
        page.goto(shared_server + path)
        found[name] = serious_violations(page)
    page.context.close()
    page = user_page(browser, shared_server, "de", SIZES[size])
    urls = {"home": shared_server + "/", "new": shared_server + "/new", "account": shared_server + "/account",
            "missing": shared_server + "/games/424242", **midgame,
            **{f"rules-{g}": f"{shared_server}/games/{g}/rules" for g in engine.games() if g != "toypig"},
            **{f"about-{g}": f"{shared_server}/games/{g}" for g in engine.games() if g != "toypig"}}
    for name, url in urls.items():
        page.goto(url)
        found[name] = serious_violations(page)
    page.context.close()
    found = {k: v for k, v in found.items() if v}
    assert not found, "\n".join(f"{k}: {v}" for k, v in found.items())


def test_carpediem_rondel_and_scoring_cards_side_by_side_on_a_desktop(browser: Any, shared_server: str,
                                                                     midgame: dict[str, str]) -> None:
    """At 1366 px the rondel (with the seal spaces under it) and the scoring cards share one row."""
    page = user_page(browser, shared_server, "en", DESKTOP)
    page.goto(midgame["carpediem"])
    page.wait_for_selector("#board")
    rondel, cards = (page.eval_on_selector(sel, "e => { const r = e.closest('section').getBoundingClientRect();"
                                                " return [r.top, r.left, r.right]; }")
                     for sel in ("#cd-rondel", "#cd-grid"))
    seals = page.eval_on_selector("#cd-seals", "e => e.getBoundingClientRect().width")
    page.context.close()
    assert rondel[0] == cards[0] and rondel[2] <= cards[1], (rondel, cards)
    assert seals <= 400, seals
