"""axe-core on every kind of page: no critical, serious or moderate finding anywhere (issue 29).

One portal serves the module.  Two users (one reading German, one English) play a game of every
kind to its end through the JSON API with random legal moves, and a third game of every kind is
left mid-game; then axe looks at the home page, ``/new``, the account, a profile, every rules
page (both versions), every game page mid-game and finished, and a replay, in both languages, on a
phone and on a desktop.  A finding names its rule, its impact and the first nodes it hit.  The text of
every page is also read for counts with the wrong form of their noun ("1 coins"; see
`ludothek.devtools.plurals`), so the boards' templates are held to the plural rule too.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from ludothek.devtools import plurals
from ludothek.engine.registry import GAME_MODULES
from tests.browser_support import mid_word_breaks, shot
from tests.portal.test_phones import serious_violations as violations

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1366, "height": 900}
PLAYERS = ("axel", "berta")


def _play(base: str, heads: list[dict[str, str]], gid: int, moves: int | None, seed: int) -> None:
    """Random legal moves by whoever is to move: ``moves`` of them, or (None) to the end."""
    rng = random.Random(seed)
    with httpx.Client(base_url=base, timeout=30) as client:
        for done in range(20_000):
            if moves is not None and done >= moves:
                return
            states = [client.get(f"/api/games/{gid}?log=false", headers=h).json() for h in heads]
            if states[0]["status"] == "finished":
                return
            h, g = next((h, g) for h, g in zip(heads, states, strict=True) if g["my_turn"])
            action = rng.choice(g["legal"])["action"]
            client.post(f"/api/games/{gid}/actions", json={"action": action, "seq": g["seq"]}, headers=h)
    assert moves is not None, f"game {gid} did not finish"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """The portal's URL, and per game one finished and one running game of the two users."""
    from tests.portal.conftest import make_settings
    from tests.portal.server import running_server

    db: Path = tmp_path_factory.mktemp("axe") / "axe.sqlite3"
    with running_server(make_settings(f"sqlite:///{db}")) as base:
        heads = []
        for name, lang in zip(PLAYERS, ("de", "en"), strict=True):
            r = httpx.post(f"{base}/api/users", json={"name": name, "password": f"password-{name}", "lang": lang})
            heads.append({"Authorization": f"Bearer {r.json()['token']}"})
        games: dict[str, dict[str, int]] = {}
        for i, game in enumerate(GAME_MODULES):
            if game == "toypig":
                continue
            games[game] = {}
            for kind, moves in (("finished", None), ("running", 12)):
                gid = httpx.post(f"{base}/api/games", json={"game": game, "players": 2}, headers=heads[0]).json()["id"]
                httpx.post(f"{base}/api/games/{gid}/join", headers=heads[1])
                _play(base, heads, gid, moves, seed=i)
                games[game][kind] = int(gid)
        yield {"base": base, "games": games}


def login(browser: Any, base: str, name: str, lang: str, size: dict[str, int]) -> Any:
    context = browser.new_context(viewport=size, locale=lang)
    page = context.new_page()
    page.set_default_timeout(20_000)
    page.goto(f"{base}/login")
    page.fill("input[name=name]", name)
    page.fill("input[name=password]", f"password-{name}")
    page.click("form[action='/login'] button[type=submit]")
    page.wait_for_selector("#account-link")
    page.click(f".langswitch button[value={lang}]")
    page.wait_for_selector(f"html[lang={lang}]")
    return page


def pages_of(site: dict[str, Any]) -> dict[str, str]:
    """Every kind of page a signed-in player opens, by a short name."""
    paths = {"home": "/", "new": "/new", "account": "/account", "profile": f"/users/{PLAYERS[1]}", "rules": "/rules"}
    for game, gids in site["games"].items():
        paths[f"rules-{game}"] = f"/games/{game}/rules?mode=short"
        paths[f"rules-{game}-long"] = f"/games/{game}/rules?mode=long"
        paths[f"about-{game}"] = f"/games/{game}"
        paths[f"{game}-mid"] = f"/games/{gids['running']}"
        paths[f"{game}-end"] = f"/games/{gids['finished']}"
        paths[f"{game}-replay"] = f"/games/{gids['finished']}/replay?step=3"
    return paths


@pytest.mark.flaky(reruns=1)  # axe's findings do not change on a rerun; only a slow page load might
@pytest.mark.parametrize("lang", ["de", "en"])
@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_axe_finds_nothing_moderate_or_worse_anywhere(browser: Any, site: dict[str, Any], lang: str,
                                                      size: str) -> None:
    base = site["base"]
    sizes = PHONE if size == "phone" else DESKTOP
    found: dict[str, list[str]] = {}
    visitor = browser.new_context(viewport=sizes, locale=lang).new_page()
    for name, path in {"welcome": "/", "login": "/login", "register": "/register"}.items():
        visitor.goto(base + path)
        found[name] = violations(visitor)
    visitor.context.close()
    page = login(browser, base, PLAYERS[0], lang, sizes)
    counts: dict[str, list[str]] = {}
    for name, path in pages_of(site).items():
        page.goto(base + path)
        page.wait_for_load_state("networkidle")
        found[name] = violations(page)
        game = next((g for g in site["games"] if name.startswith(g)), None)
        counts[name] = plurals.wrong_counts(page.inner_text("main"), lang, game)
    page.context.close()
    found = {k: v for k, v in found.items() if v}
    assert not found, "\n".join(f"{k}: {v}" for k, v in found.items())
    counts = {k: v for k, v in counts.items() if v}
    assert not counts, f"counts with the wrong form of their noun: {counts}"


@pytest.mark.parametrize("lang", ["de", "en"])
def test_profile_breaks_words_only_at_hyphenation_points_on_a_phone(browser: Any, site: dict[str, Any],
                                                                    lang: str) -> None:
    """The games table of a profile at 390 px: "Bronze-zeit", "Snow-donia", never "Bronzezei|t" (issue 29)."""
    page = login(browser, site["base"], PLAYERS[0], lang, PHONE)
    for name in PLAYERS:
        page.goto(f"{site['base']}/users/{name}")
        assert page.locator("#stats-table tbody th").count() >= 4
        shot(page, f"profile-{name}-{lang}-phone")
        assert mid_word_breaks(page, "main") == [], name
        assert page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth") <= 0
    page.context.close()
