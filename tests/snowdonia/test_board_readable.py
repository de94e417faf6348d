"""The Snowdonia board is readable on a phone and a desktop, and every decision is on the board (issue 29).

A real portal and Debian's chromium.  For the base game and Blaenau Ffestiniog a player sits down with
a bot; the board is looked at at the start, in the middle and at the end of the game, at 390 px and
1366 px, in German and English:

- the smallest rendered font of any text the board shows (SVG text scaled as drawn) is at least 11 px
  on the phone and 12 px on the desktop;
- no box inside the board scrolls or clips sideways (an element marked ``data-pan="map"`` with a
  visible label would be the one allowed exception; the Snowdonia board needs none), and the page is
  no wider than the window;
- the action areas stay in one place whoever is to move;
- at every one of my decisions, every legal action is offered on the board itself: a clickable
  element of the board or an option of a picker, not only the folded sentence list.

Screenshots ``test-artifacts/sd-read-<map>-<moment>-<lang>-<size>.png`` (look at them).
"""

from __future__ import annotations

import json
import random
import time
from typing import Any

import pytest

from tests.browser_support import ARTIFACTS, new_game, register, shot

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SIZES = {"phone": ({"width": 390, "height": 844}, 11.0), "desktop": ({"width": 1366, "height": 900}, 12.0)}

#: Every text node the board renders (not in a closed <details>, not a tooltip), with its size on screen.
FONTS_JS = """() => {
  const board = document.getElementById('board');
  const out = [];
  const walker = document.createTreeWalker(board, NodeFilter.SHOW_TEXT);
  let node;
  while ((node = walker.nextNode())) {
    const text = node.textContent.trim();
    const el = node.parentElement;
    if (!text || !el || el.closest('title, style, script, template')) continue;
    if (!el.getClientRects().length) continue;
    const cs = getComputedStyle(el);
    if (cs.visibility === 'hidden' || cs.display === 'none') continue;
    let px = parseFloat(cs.fontSize);
    if (el instanceof SVGElement) {
      const m = el.getScreenCTM();
      if (!m) continue;
      px *= Math.hypot(m.a, m.b);
    }
    out.push({px: Math.round(px * 100) / 100, text: text.slice(0, 40), tag: el.tagName,
              cls: String(el.getAttribute('class') || ''), id: el.closest('[id]') ? el.closest('[id]').id : ''});
  }
  return out;
}"""

#: Boxes inside the board that scroll or clip sideways, except a labelled pan marked data-pan="map".
SCROLL_JS = """() => {
  const out = [];
  for (const el of document.querySelectorAll('#board *')) {
    if (!el.getClientRects().length || el.closest('[data-pan="map"]')) continue;
    const ox = getComputedStyle(el).overflowX;
    if (ox === 'visible') continue;
    const extra = el.scrollWidth - el.clientWidth;
    if (extra > 1) out.push({tag: el.tagName, id: el.id, cls: String(el.getAttribute('class') || ''), extra});
  }
  return out;
}"""

#: The actions the board offers itself: clickable elements outside the folded sentence list, and the
#: options of its pickers.
ON_BOARD_JS = """() => {
  const acts = new Set();
  for (const el of document.querySelectorAll('#board [data-action]')) {
    if (el.closest('.all-actions, #sd-choices')) continue;
    acts.add(el.dataset.action);
  }
  for (const f of document.querySelectorAll('#board form.picker[data-picker]')) {
    for (const o of JSON.parse(f.dataset.picker).options) acts.add(o.action);
  }
  return [...acts];
}"""


def api(page: Any, method: str, url: str, data: Any = None) -> Any:
    headers = {"X-CSRF-Token": page.get_attribute("meta[name=csrf-token]", "content")}
    r = page.request.fetch(url, method=method, headers=headers, data=data)
    assert r.ok, r.text()
    return r.json()


def measure(page: Any, url: str, name: str) -> dict[str, Any]:
    """Fonts, inner scrolling and the position of the action areas, at both sizes and in both languages."""
    found: dict[str, Any] = {}
    for lang in ("de", "en"):
        page.set_viewport_size(SIZES["desktop"][0])
        page.goto(url)
        page.click(f".langswitch button[value={lang}]")  # the account's language wins over the browser's
        page.wait_for_selector(f"html[lang={lang}]")
        for size, (viewport, _) in SIZES.items():
            page.set_viewport_size(viewport)
            page.goto(url)
            page.wait_for_selector(f"html[lang={lang}] #board .sd")
            shot(page, f"sd-read-{name}-{lang}-{size}")
            page.locator("#board .sd-svg:visible").screenshot(path=str(ARTIFACTS / f"sd-read-{name}-{lang}-{size}-route.png"))
            page.locator("#board .sd-top").screenshot(path=str(ARTIFACTS / f"sd-read-{name}-{lang}-{size}-top.png"))
            found[lang, size] = {
                "fonts": page.evaluate(FONTS_JS),
                "scroll": page.evaluate(SCROLL_JS),
                "page": page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth"),
                "actions_top": page.evaluate(
                    "() => document.getElementById('sd-actions').getBoundingClientRect().top"
                    " - document.querySelector('#board .sd').getBoundingClientRect().top"),
                "actions_index": page.evaluate(
                    "() => { const s = [...document.querySelectorAll('#board .sd > section')]"
                    ".sort((a, b) => a.getBoundingClientRect().top - b.getBoundingClientRect().top);"
                    " return s.findIndex(e => e.id === 'sd-actions'); }"),
            }
    return found


def check(found: dict[str, Any], name: str) -> list[str]:
    problems = []
    for (lang, size), m in found.items():
        least = SIZES[size][1]
        small = sorted({(f["px"], f["text"], f["cls"] or f["tag"]) for f in m["fonts"] if f["px"] < least - 0.01})
        if small:
            problems.append(f"{name} {lang} {size}: text under {least} px: {small[:8]}")
        if m["scroll"]:
            problems.append(f"{name} {lang} {size}: boxes scroll sideways: {m['scroll'][:5]}")
        if m["page"] > 0:
            problems.append(f"{name} {lang} {size}: the page is {m['page']} px too wide")
    return problems


def choose(legal: list[str], rng: random.Random) -> str:
    """A random player that often goes to build (so that build decisions come) and builds when asked."""
    builds = [a for a in legal if a.startswith(("build:", "train:"))]
    if builds:
        return rng.choice(builds)
    to_build = [a for a in legal if a.startswith(("place:E", "place:B", "place:D"))]
    if to_build and rng.random() < 0.6:
        return rng.choice(to_build)
    return rng.choice(legal)


def play_until(page: Any, server: str, gid: int, rng: random.Random, my_moves: int,
               offered: dict[str, int], missing: list[str]) -> bool:
    """Play ``my_moves`` of my decisions (random legal ones); at each, check the board offers every
    legal action.  True when the game is over."""
    played = 0
    deadline = time.monotonic() + 240
    while played < my_moves and time.monotonic() < deadline:
        state = api(page, "GET", f"{server}/api/games/{gid}?log=false")
        if state["status"] != "running":
            return True
        legal = [a["action"] for a in state["legal"]]
        if not legal:
            time.sleep(0.05)
            continue
        kind = state["view"]["decision"]["kind"]
        if offered.get(kind, 0) < 3:  # look at the board for the first few decisions of every kind
            page.goto(f"{server}/games/{gid}")
            page.wait_for_selector("#board .sd")
            shown = set(page.evaluate(ON_BOARD_JS))
            if not set(legal) <= shown:
                missing.append(f"{kind}: {sorted(set(legal) - shown)[:6]}")
            offered[kind] = offered.get(kind, 0) + 1
        api(page, "POST", f"{server}/api/games/{gid}/actions", {"action": choose(legal, rng), "seq": state["seq"]})
        played += 1
    return api(page, "GET", f"{server}/api/games/{gid}?log=false")["status"] != "running"


@pytest.mark.flaky(reruns=0)
@pytest.mark.parametrize("map_key", ["mount_snowdon", "blaenau_ffestiniog"])
def test_the_board_is_readable_and_offers_every_decision(browser: Any, server: str, map_key: str) -> None:
    page = register(browser, server, f"reader{map_key[:4]}", lang="en")
    new_game(page, server, "snowdonia", ["bot", "bot"], {"map": map_key})
    page.wait_for_selector("#game[data-status=running]")
    gid = int(page.get_attribute("#game", "data-game"))
    url = f"{server}/games/{gid}"
    rng = random.Random(11)
    offered: dict[str, int] = {}
    missing: list[str] = []
    problems: list[str] = []
    figures: dict[str, Any] = {}
    tops: list[int] = []
    for moment, moves in (("start", 0), ("middle", 25), ("end", 2000)):
        over = play_until(page, server, gid, rng, moves, offered, missing)
        if moment == "end":
            assert over, "the game did not end"
            page.goto(url)
            page.wait_for_selector("#result")
        found = measure(page, url, f"{map_key}-{moment}")
        problems += check(found, f"{map_key} {moment}")
        for (lang, size), m in found.items():
            sizes = sorted(f["px"] for f in m["fonts"])
            route = sorted(f["px"] for f in m["fonts"] if f["tag"] in ("text", "tspan") and f["id"].startswith("sd-route"))
            figures[f"{moment} {lang} {size}"] = {"min": sizes[0], "median": sizes[len(sizes) // 2], "texts": len(sizes),
                                                  "route_min": route[0] if route else None,
                                                  "route_median": route[len(route) // 2] if route else None}
            if size == "desktop" and lang == "en":
                tops.append(m["actions_index"])
    report = {"figures": figures, "problems": problems, "missing": missing, "offered": offered, "areas_index": tops}
    (ARTIFACTS / f"sd-read-{map_key}.json").write_text(json.dumps(report, indent=1), encoding="utf-8")
    assert not problems, "\n".join(problems)
    assert not missing, f"decisions offered only in the sentence list: {missing}"
    # which other kinds come depends on the bots' game; test_board_decisions.py renders each kind
    assert {"place"} | ({"end"} if map_key == "blaenau_ffestiniog" else set()) <= set(offered)
    assert len(set(tops)) == 1, f"the action areas move: section index {tops}"
