"""Board pickers in a real browser: build an action with the picker, confirm, and see it applied.

The game is brought to the decision through the JSON API (quick and deterministic enough), then the
board is loaded and the picker used with clicks and keys only.  Screenshots at 1366×900 and 390×844 go
to ``test-artifacts/`` (``picker-*.png``), and the board must not scroll sideways on the phone.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any

import pytest

from tests.browser_support import ARTIFACTS, new_game, register, shot, wait_past

pytestmark = [pytest.mark.browser, pytest.mark.slow]

DESKTOP = {"width": 1366, "height": 900}
PHONE = {"width": 390, "height": 844}


def api(page: Any, method: str, url: str, data: Any = None) -> Any:
    headers = {"X-CSRF-Token": page.get_attribute("meta[name=csrf-token]", "content")}
    r = page.request.fetch(url, method=method, headers=headers, data=data)
    assert r.ok, r.text()
    return r.json()


def advance(page: Any, server: str, want: Callable[[dict[str, Any], list[str]], bool],
            choose: Callable[[dict[str, Any], list[str], random.Random], str], moves: int = 400) -> int:
    """Play through the API until ``want(view, legal)`` holds on my turn; return the game id."""
    gid = int(page.get_attribute("#game", "data-game"))
    rng = random.Random(5)
    deadline = time.monotonic() + 120
    for _ in range(moves):
        assert time.monotonic() < deadline, "the decision was not reached in time"
        state = api(page, "GET", f"{server}/api/games/{gid}?log=false")
        assert state["status"] == "running", "the game ended before the decision came"
        legal = [a["action"] for a in state["legal"]]
        if not legal:
            time.sleep(0.05)
            continue
        if want(state["view"], legal):
            return gid
        api(page, "POST", f"{server}/api/games/{gid}/actions", {"action": choose(state["view"], legal, rng), "seq": state["seq"]})
    raise AssertionError("the decision was not reached")


def look(page: Any, name: str) -> None:
    """Screenshots on desktop and phone; no sideways scrolling on the phone."""
    for size, label in ((DESKTOP, name), (PHONE, f"{name}-phone")):
        page.set_viewport_size(size)
        shot(page, label)
        overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 1, f"{label}: {overflow}px too wide"
    page.set_viewport_size(DESKTOP)


def recent_actions(page: Any, server: str, gid: int) -> list[str]:
    """The last few logged actions (chance steps may follow the player's own)."""
    return [str(e["action"]) for e in api(page, "GET", f"{server}/api/games/{gid}")["log"][-40:]]


def snowdonia_choice(view: dict[str, Any], legal: list[str], rng: random.Random) -> str:
    """Go for the stock yard and the workshop, build when it can; otherwise anything but passing."""
    for prefix in ("place:A", "place:C", "place:E", "build:", "pub:no"):
        found = [a for a in legal if a.startswith(prefix)]
        if found:
            return rng.choice(found)
    takes = [a for a in legal if a.startswith("take:")]
    if takes:
        return max(takes, key=lambda a: (a.count("iron"), len(a)))
    return rng.choice(legal)


def snowdonia_game(browser: Any, server: str, lang: str) -> Any:
    page = register(browser, server, f"sd{lang}", lang=lang)
    page.set_viewport_size(DESKTOP)
    new_game(page, server, "snowdonia", ["bot"])
    page.wait_for_selector("#game[data-status=running]")
    return page


@pytest.mark.parametrize("lang", ["en", "de"])
def test_stock_yard_picker_takes_cubes(browser: Any, server: str, lang: str) -> None:
    page = snowdonia_game(browser, server, lang)
    gid = advance(page, server, lambda v, legal: v["decision"]["kind"] == "take" and len(legal) > 3,
                  snowdonia_choice)
    page.reload()
    picker = page.locator("#picker-take")
    picker.wait_for()
    assert not page.locator("details.all-actions").first.evaluate("e => e.open")  # the sentences are folded away
    # the route is drawn (SVG that scales) and explained by a legend on the board
    assert page.locator("#sd-route-svg .sd-snode").count() == 7
    assert page.locator("#sd-legend li").count() >= 8
    assert page.locator("#sd-yard .sd-cube-i").count() > 0
    ok = picker.locator(".picker-ok")
    assert ok.is_disabled()
    look(page, f"picker-snowdonia-yard-{lang}")
    for size, svg, label in ((DESKTOP, "#sd-route-svg", ""), (PHONE, "#sd-route-svg-narrow", "-phone")):
        page.set_viewport_size(size)  # the route alone, to look at its details
        page.locator(svg).screenshot(path=str(ARTIFACTS / f"snowdonia-route-{lang}{label}.png"))
    page.set_viewport_size(DESKTOP)
    data = picker.evaluate("e => JSON.parse(e.dataset.picker)")
    # build the largest legal combination with at most one coal by clicking "+" as long as it is enabled
    for token in ("coal", "stone", "iron"):
        more = picker.locator(f".picker-token[data-token={token}] .picker-more")
        while more.count() and more.is_enabled():
            more.click()
    coal_more = picker.locator(".picker-token[data-token=coal] .picker-more")
    if coal_more.count():
        assert coal_more.is_disabled()  # never a second coal
    action = picker.get_attribute("data-picked")
    assert action in {o["action"] for o in data["options"]}
    before = int(page.get_attribute("#game", "data-seq"))
    picker.locator(".picker-ok").focus()
    page.keyboard.press("Enter")  # keyboard works as well as the mouse
    wait_past(page, before)
    assert not page.locator("#move-error").count()
    assert action in recent_actions(page, server, gid)
    page.context.close()


def snowdonia_builder(view: dict[str, Any], legal: list[str], rng: random.Random) -> str:
    """Gather stone at the stock yard, then go building."""
    me = view["me"] if isinstance(view.get("me"), int) else 0
    stone = view["panels"][me]["stone"] if "panels" in view else 0
    order = ("place:E", "build:", "place:A") if stone >= 2 else ("place:A", "place:E", "build:")
    for prefix in (*order, "pub:no"):
        found = [a for a in legal if a.startswith(prefix)]
        if found:
            return rng.choice(found)
    takes = [a for a in legal if a.startswith("take:")]
    if takes:
        return max(takes, key=lambda a: (a.count("stone"), len(a)))
    return rng.choice([a for a in legal if a != "pass"] or legal)


def test_all_actions_stay_unfolded_across_a_refresh(browser: Any, server: str) -> None:
    """A player who unfolded "all actions" keeps it open when a live update re-renders the same position."""
    page = snowdonia_game(browser, server, "en")
    advance(page, server, lambda v, legal: v["decision"]["kind"] == "take" and len(legal) > 3, snowdonia_choice)
    page.reload()
    page.wait_for_selector("#picker-take")
    details = "#legal details.all-actions"
    assert not page.eval_on_selector(details, "e => e.open")
    page.click(f"{details} > summary")
    page.wait_for_selector(f"{details}[open]")
    for _ in range(2):  # the same position rendered again, twice (a live update and the one queued behind it)
        page.evaluate("() => { document.getElementById('game').dataset.old = 'yes'; window.ludothek.refresh(); }")
        page.wait_for_function("() => { const g = document.getElementById('game'); return g && !g.dataset.old"
                               " && !g.classList.contains('sending'); }")
        assert page.eval_on_selector(details, "e => e.open")
    button = page.locator("#legal [data-action]").first
    assert button.is_visible()
    page.click(f"{details} > summary")  # folding it again is remembered as well
    page.evaluate("() => { document.getElementById('game').dataset.old = 'yes'; window.ludothek.refresh(); }")
    page.wait_for_function("() => { const g = document.getElementById('game'); return g && !g.dataset.old; }")
    assert not page.eval_on_selector(details, "e => e.open")


@pytest.mark.parametrize("kind", ["work", "build"])
def test_workshop_and_build_pickers(browser: Any, server: str, kind: str) -> None:
    page = snowdonia_game(browser, server, "en")
    choose = snowdonia_choice if kind == "work" else snowdonia_builder
    prefix = ("work:",) if kind == "work" else ("build:", "train:")

    def want(v: dict[str, Any], legal: list[str]) -> bool:
        return bool(v["decision"]["kind"] == kind and sum(a.startswith(prefix) for a in legal) >= 2)

    for attempt in range(4):  # chance and the bot decide whether it comes up in one game: try a few
        try:
            gid = advance(page, server, want, choose, moves=400)
            break
        except AssertionError:
            if attempt == 3:
                raise
            new_game(page, server, "snowdonia", ["bot"])
            page.wait_for_selector("#game[data-status=running]")
    page.reload()
    picker = page.locator(f"#picker-{kind}")
    picker.wait_for()
    look(page, f"picker-snowdonia-{kind}")
    data = picker.evaluate("e => JSON.parse(e.dataset.picker)")
    if kind == "build":
        # every site of the picker is outlined and clickable on the drawn route as well
        sites = {b["key"][6:] for b in data["bases"] if b["key"].startswith("build:")}
        drawn = set(page.eval_on_selector_all("#sd-route-svg .sd-bsite.sd-can", "els => els.map(e => e.dataset.site)"))
        assert drawn == sites
        pickable = page.locator("#sd-route-svg .sd-bsite[data-pick-base]")
        if pickable.count():  # a site that needs substitutes: clicking it picks it in the picker
            base = pickable.first.get_attribute("data-pick-base")
            pickable.first.click()
            assert picker.locator(f".picker-bases input[value='{base}']").is_checked()
    target = data["options"][-1]
    if len(data["bases"]) > 1:
        picker.locator(f".picker-bases input[value='{target['base']}']").check()
    for token, n in target["counts"].items():
        for _ in range(n):
            picker.locator(f".picker-token[data-token={token}] .picker-more").click()
    assert picker.get_attribute("data-picked") == target["action"]
    before = int(page.get_attribute("#game", "data-seq"))
    picker.locator(".picker-ok").click()
    wait_past(page, before)
    assert not page.locator("#move-error").count()
    assert target["action"] in recent_actions(page, server, gid)
    page.context.close()


def rtta_choice(view: dict[str, Any], legal: list[str], rng: random.Random) -> str:
    """Keep the first roll, otherwise anything (the pickers' decisions come up soon enough)."""
    if "done" in legal and any(a.startswith("roll:") for a in legal):
        return "done"
    return rng.choice(legal)


@pytest.mark.parametrize("pid", ["work", "buy"])
def test_rtta_pickers(browser: Any, server: str, pid: str) -> None:
    page = register(browser, server, f"rt{pid}", lang="de" if pid == "buy" else "en")
    page.set_viewport_size(DESKTOP)
    new_game(page, server, "rolltheages", ["bot"])
    page.wait_for_selector("#game[data-status=running]")
    gid = advance(page, server, lambda v, legal: sum(a.startswith(pid + ":") for a in legal) >= 2
                  and len({a.split(":")[1] for a in legal if a.startswith(pid + ":")}) >= 2, rtta_choice)
    page.reload()
    picker = page.locator(f"#picker-{pid}")
    picker.wait_for()
    look(page, f"picker-rolltheages-{pid}")
    data = picker.evaluate("e => JSON.parse(e.dataset.picker)")
    base = data["bases"][-1]["key"]
    picker.locator(f".picker-bases input[value='{base}']").check()
    if pid == "buy":
        # the cheapest payment is preselected: Confirm is ready at once
        (pre,) = [o for o in data["options"] if o["base"] == base and o.get("preset")]
        assert picker.get_attribute("data-picked") == pre["action"]
        target = pre["action"]
    else:
        target = max((o for o in data["options"] if o["base"] == base), key=lambda o: o["counts"]["workers"])["action"]
        more = picker.locator(".picker-token[data-token=workers] .picker-more")
        while more.is_enabled():
            more.click()
        assert picker.get_attribute("data-picked") == target
    before = int(page.get_attribute("#game", "data-seq"))
    picker.locator(".picker-ok").click()
    wait_past(page, before)
    assert not page.locator("#move-error").count()
    assert target in recent_actions(page, server, gid)
    page.context.close()


def machikoro_choice(view: dict[str, Any], legal: list[str], rng: random.Random) -> str:
    for a in ("build:business_center", "build:tv_station", "roll:1"):
        if a in legal:
            return a
    return rng.choice(legal)


def test_machikoro_trade_and_tv_on_the_cards(browser: Any, server: str) -> None:
    page = register(browser, server, "mkpick")
    page.set_viewport_size(DESKTOP)
    new_game(page, server, "machikoro", ["bot", "bot"])
    page.wait_for_selector("#game[data-status=running]")
    done: set[str] = set()
    deadline = time.monotonic() + 150
    while done != {"trade", "tv"} and time.monotonic() < deadline:
        def want(v: dict[str, Any], legal: list[str]) -> bool:
            return (any(a.startswith("trade:") for a in legal) and "trade" not in done) or \
                (any(a.startswith("tv:") for a in legal) and "tv" not in done)
        try:
            gid = advance(page, server, want, machikoro_choice, moves=600)
        except AssertionError:  # that game ended first: another one
            new_game(page, server, "machikoro", ["bot", "bot"])
            page.wait_for_selector("#game[data-status=running]")
            continue
        page.reload()
        page.wait_for_selector("#game[data-my-turn=yes]")
        before = int(page.get_attribute("#game", "data-seq"))
        if page.locator("#mk-trade").count() and "trade" not in done:
            look(page, "picker-machikoro-trade")
            trades = page.locator("#mk-trade").evaluate("e => JSON.parse(e.dataset.trades)")
            t = trades[-1]
            assert page.locator("#mk-trade .mk-trade-ok").is_disabled()
            theirs = page.locator(f".mk-mini[data-owner='{t['owner']}'][data-own='{t['take']}']")
            mine = page.locator(f".mk-city.mk-mine .mk-mini[data-own='{t['give']}']")
            theirs.focus()
            page.keyboard.press("Enter")  # the keyboard picks as well as the mouse
            mine.click()
            assert mine.get_attribute("aria-pressed") == "true"
            assert page.get_attribute("#mk-trade", "data-picked") == t["action"]
            page.click("#mk-trade .mk-trade-ok")
            wait_past(page, before)
            assert t["action"] in recent_actions(page, server, gid)
            done.add("trade")
        elif page.locator(".mk-tv").count():
            look(page, "picker-machikoro-tv")
            button = page.locator(".mk-tv").first
            seat = int(button.evaluate("e => e.closest('.mk-city').dataset.seat"))
            coins = int(page.inner_text(f".mk-city[data-seat='{seat}'] .mk-coin-big"))
            assert f"{min(5, coins)} " in button.inner_text()
            action = button.get_attribute("data-action")
            button.click()
            wait_past(page, before)
            assert action in recent_actions(page, server, gid)
            done.add("tv")
        else:  # the picker this turn offers was already tried: move on
            api(page, "POST", f"{server}/api/games/{gid}/actions",
                {"action": page.eval_on_selector_all("#legal [data-action]", "els => els[0].dataset.action"),
                 "seq": before})
    assert done == {"trade", "tv"}, done
    page.context.close()


def carpediem_choice(view: dict[str, Any], legal: list[str], rng: random.Random) -> str:
    builds = [a for a in legal if a.startswith("build:")]
    if builds:
        return rng.choice(builds)
    return rng.choice([a for a in legal if not a.endswith(":bread")] or legal)


def test_carpediem_card_and_fountain_pickers(browser: Any, server: str) -> None:
    page = register(browser, server, "cdpick", lang="de")
    page.set_viewport_size(DESKTOP)
    new_game(page, server, "carpediem", ["bot"])
    page.wait_for_selector("#game[data-status=running]")
    done: set[str] = set()
    deadline = time.monotonic() + 150
    while done != {"card", "fountain"} and time.monotonic() < deadline:
        def want(v: dict[str, Any], legal: list[str]) -> bool:
            cards = [a for a in legal if a.startswith("card:")]
            fountains = [a for a in legal if a.startswith("return:")]
            return (len(cards) >= 2 and "card" not in done) or (len(fountains) >= 2 and "fountain" not in done)
        try:
            gid = advance(page, server, want, carpediem_choice, moves=800)
        except AssertionError:  # that game ended first: another one
            new_game(page, server, "carpediem", ["bot"])
            page.wait_for_selector("#game[data-status=running]")
            continue
        page.reload()
        pid = "card" if page.locator("#picker-card").count() else "fountain"
        picker = page.locator(f"#picker-{pid}")
        picker.wait_for()
        look(page, f"picker-carpediem-{pid}")
        data = picker.evaluate("e => JSON.parse(e.dataset.picker)")
        target = data["options"][-1]
        picker.locator(f".picker-bases input[value='{target['base']}']").check()
        if target["counts"]:
            less = picker.locator(".picker-token[data-token=times] .picker-less")
            while less.is_enabled():
                less.click()
            more = picker.locator(".picker-token[data-token=times] .picker-more")
            for _ in range(target["counts"]["times"]):
                more.click()
        assert picker.get_attribute("data-picked") == target["action"]
        before = int(page.get_attribute("#game", "data-seq"))
        picker.locator(".picker-ok").click()
        wait_past(page, before)
        assert not page.locator("#move-error").count()
        assert target["action"] in recent_actions(page, server, gid)
        done.add(pid)
    assert done, "no scoring round or fountain came up"
    page.context.close()


def snowdonia_contracts(view: dict[str, Any], legal: list[str], rng: random.Random) -> str:
    """Head for the site office (contracts), otherwise play on quickly."""
    for prefix in ("place:F", "place:A", "pub:no"):
        found = [a for a in legal if a.startswith(prefix)]
        if found:
            return rng.choice(found)
    return rng.choice([a for a in legal if a != "pass"] or legal)


def test_snowdonia_contracts_are_picked_on_their_cards(browser: Any, server: str) -> None:
    """Taking, keeping or playing a contract: the cards are on the board, one click takes one."""
    from tests.portal.test_phones import serious_violations

    page = snowdonia_game(browser, server, "de")

    def want(v: dict[str, Any], legal: list[str]) -> bool:
        return bool(v["decision"]["kind"] in ("contract", "keep", "window") and len(legal) >= 2)

    gid = advance(page, server, want, snowdonia_contracts, moves=600)
    page.reload()
    cards = page.locator("#sd-pick-cards [data-action]")
    cards.first.wait_for()
    legal = set(page.eval_on_selector_all("#legal [data-action]", "els => els.map(e => e.dataset.action)"))
    offered = set(cards.evaluate_all("els => els.map(e => e.dataset.action)"))
    assert offered == legal
    assert not page.locator("details.all-actions").first.evaluate("e => e.open")
    look(page, "picker-snowdonia-contracts")
    assert not serious_violations(page)
    target = next(a for a in sorted(offered) if a != "pass")
    before = int(page.get_attribute("#game", "data-seq"))
    page.locator(f'#sd-pick-cards [data-action="{target}"]').click()
    wait_past(page, before)
    assert not page.locator("#move-error").count()
    assert target in recent_actions(page, server, gid)
    page.context.close()
