"""Readable on every screen (issue 29): every board's text sizes and boxes, measured in a real browser.

For each game a player (``pia``) sits with bots at a full table, and the board is looked at at the
**start** (her first decision), in the **middle** (her decision about halfway through) and at the
**end** (the finished game with its score breakdown), at 390×844 and 1366×900, in German and English.
Two figures are measured on the whole game page (``#game``: header, board, result, side panels):

- the smallest rendered font size of visible text, SVG text scaled by its drawing (what a player
  must read: nothing under 11 px on a phone, under 12 px on a desktop);
- the sideways scroll inside every box (an element whose overflow scrolls or clips and whose
  ``scrollWidth`` exceeds its ``clientWidth``): none at either size.  The one exception is a deliberate
  pan of a large map, and then the page says so: the element carries ``data-pan="<id>"`` naming a
  visible, non-empty label (``docs/portal.md``, "Board conventions").

The bots' seats are played by this test in-process through ``site.play.submit`` (the one move path),
so the positions come quickly and no bot worker runs.  Full-page screenshots go to
``test-artifacts/measure-<game>-<stage>-<lang>-<size>.png`` (a phone's also in parts, ``…-part<i>.png``); the figures of every case are collected
in ``test-artifacts/board-measure.json``.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from ludothek.portal import create_app
from tests.browser_support import ARTIFACTS, shot
from tests.portal.test_phones import SIZES, overflow, user_page

pytestmark = [pytest.mark.browser, pytest.mark.slow]

#: The smallest font size (px) a player must read, by screen.
MIN_FONT = {"phone": 11.0, "desktop": 12.0}

#: game -> (players, options): the fullest table each board is built for.
TABLES: dict[str, tuple[int, dict[str, str]]] = {
    "machikoro": (4, {}),
    "rolltheages": (4, {}),
    "snowdonia": (3, {}),
    "carpediem": (4, {}),
}
STAGES = ("start", "middle", "end")

GAMES = list(TABLES)

#: Runs in the page: every visible text's rendered size, and every box that scrolls sideways.
MEASURE = """
(root) => {
  const fonts = [];
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const seen = new Map();
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.textContent.trim();
    if (!text) continue;
    const el = node.parentElement;
    if (!el || el.closest("title, desc, script, style, template, noscript, option")) continue;
    // folded away (a closed <details> but its summary, display: none, visibility: hidden, opacity 0)
    if (el.checkVisibility && !el.checkVisibility({ contentVisibilityAuto: true, opacityProperty: true,
                                                    visibilityProperty: true })) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    const rects = [...range.getClientRects()].filter((r) => r.width > 0 && r.height > 0);
    if (!rects.length) continue;
    const cs = getComputedStyle(el);
    if (cs.visibility !== "visible" || Number(cs.opacity) === 0) continue;
    let size = parseFloat(cs.fontSize);
    if (el instanceof SVGElement) {
      const m = el.getScreenCTM();
      if (m) size *= Math.sqrt(Math.abs(m.a * m.d - m.b * m.c));
    }
    const key = el.tagName.toLowerCase() + (el.className && typeof el.className === "string"
      ? "." + el.className.trim().split(/\\s+/).join(".") : "");
    fonts.push({ size: Math.round(size * 10) / 10, chars: text.length, text: text.slice(0, 40), where: key });
  }
  const scrolls = [];
  for (const el of root.querySelectorAll("*")) {
    const ox = getComputedStyle(el).overflowX;
    if (!["auto", "scroll", "hidden", "clip"].includes(ox)) continue;
    const extra = el.scrollWidth - el.clientWidth;
    if (extra <= 1 || el.getClientRects().length === 0 || (el.checkVisibility && !el.checkVisibility())) continue;
    const label = el.dataset.pan ? document.getElementById(el.dataset.pan) : null;
    const labelled = !!(label && label.getClientRects().length && label.textContent.trim());
    scrolls.push({ extra: extra, where: el.tagName.toLowerCase() + (el.id ? "#" + el.id : "")
      + (typeof el.className === "string" && el.className ? "." + el.className.trim().split(/\\s+/).join(".") : ""),
      pan: labelled });
  }
  return { fonts: fonts, scrolls: scrolls };
}
"""


def choose(game: str, legal: list[str], rng: random.Random) -> str:
    """A quick seeded player: random, except that Machi Koro saves for its landmarks (so it ends)."""
    if game == "machikoro":
        for a in ("build:radio_tower", "build:amusement_park", "build:shopping_mall", "build:train_station",
                  "roll:2", "keep", "notrade"):
            if a in legal:
                return a
        builds = [a for a in legal if a.startswith("build:")]
        if builds and rng.random() < 0.3:
            return rng.choice(builds)
        if "pass" in legal:
            return "pass"
    return rng.choice(legal)


class Table:
    """One game of ``pia`` against bot seats that this test plays in-process."""

    def __init__(self, site: Any, base: str, head: dict[str, str], game: str, seed: int) -> None:
        players, options = TABLES[game]
        seats = [{"kind": "me"}] + [{"kind": "bot", "bot": "easy"}] * (players - 1)
        r = httpx.post(f"{base}/api/games", headers=head, timeout=30,
                       json={"game": game, "players": players, "options": options, "seats": seats})
        assert r.status_code == 201, r.text
        self.site, self.game, self.id = site, game, int(r.json()["id"])
        self.rng = random.Random(seed)
        self.url = f"{base}/games/{self.id}"
        self.decisions = 0

    def _play(self, seat: int, legal: list[str], seq: int) -> None:
        self.site.play.submit(self.id, choose(self.game, legal, self.rng), seq, seat=seat)
        self.decisions += 1

    def advance(self, decisions: int | None) -> None:
        """Play ``decisions`` more (all seats; ``None``: to the end), then on to pia's next decision."""
        target = None if decisions is None else self.decisions + decisions
        for _ in range(20_000):
            with self.site.play.state(self.id) as (info, tracked):
                if info.status != "running" or tracked is None:
                    return
                state = tracked.state
                seat, legal, seq = state.current_player(), state.legal_actions(), info.seq
                pia = next(s.seat for s in info.seats if s.kind == "player")
            if target is not None and self.decisions >= target and seat == pia:
                return
            self._play(seat, legal, seq)
        raise AssertionError(f"{self.game} #{self.id}: no end in sight")


@pytest.fixture(scope="module")
def measured(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, dict[str, dict[str, str]]]]:
    """A portal whose bot seats nobody plays but this test, and the URLs of pia's games by game and stage."""
    from ludothek.devtools.threaded_server import serving
    from tests.portal.conftest import make_settings

    db: Path = tmp_path_factory.mktemp("measure") / "measure.sqlite3"
    app = create_app(make_settings(f"sqlite:///{db}", bots_in_process=False))
    with serving(app, None, start_timeout=20, stop_timeout=10) as base:
        r = httpx.post(f"{base}/api/users", json={"name": "pia", "password": "password-pia"}, timeout=30)
        assert r.status_code == 201, r.text
        tables: dict[str, dict[str, str]] = {}
        head = {"Authorization": f"Bearer {r.json()['token']}"}
        site = app.state.portal.site
        for i, game in enumerate(TABLES):
            whole = Table(site, base, head, game, seed=100 + i)
            whole.advance(None)
            length = whole.decisions
            start = Table(site, base, head, game, seed=200 + i)
            start.advance(0)
            middle = Table(site, base, head, game, seed=300 + i)
            middle.advance(length // 2)
            tables[game] = {"start": start.url, "middle": middle.url, "end": whole.url}
        yield base, tables


FIGURES: dict[str, Any] = {}


def measure(page: Any) -> dict[str, Any]:
    """The figures of the game page now shown (see MEASURE)."""
    found: dict[str, Any] = page.eval_on_selector("#game", MEASURE)
    return found


@pytest.mark.parametrize("size", ["phone", "desktop"])
@pytest.mark.parametrize("lang", ["en", "de"])
@pytest.mark.parametrize("stage", STAGES)
@pytest.mark.parametrize("game", GAMES)
def test_board_text_is_readable_and_no_box_scrolls_sideways(browser: Any, measured: tuple[str, Any], game: str,
                                                            stage: str, lang: str, size: str) -> None:
    base, tables = measured
    page = user_page(browser, base, lang, SIZES[size])
    url = tables[game][stage]
    page.goto(url)
    page.wait_for_selector("#board")
    if stage == "end":
        page.wait_for_selector("#breakdown")
    shot(page, f"measure-{game}-{stage}-{lang}-{size}")
    if size == "phone":
        shot_in_parts(page, f"measure-{game}-{stage}-{lang}-{size}")
    found = measure(page)
    wider = overflow(page)
    page.context.close()
    fonts = found["fonts"]
    limit = MIN_FONT[size]
    small = sorted((f for f in fonts if f["size"] < limit), key=lambda f: f["size"])
    chars = sum(f["chars"] for f in fonts) or 1
    record = {"smallest": min((f["size"] for f in fonts), default=None),
              "share_under_limit": round(sum(f["chars"] for f in small) / chars, 4),
              "under_limit": sorted({f"{f['where']} {f['size']}px" for f in small})[:40],
              "scrolls": found["scrolls"], "page_overflow": wider}
    FIGURES[f"{game}/{stage}/{lang}/{size}"] = record
    write_figures()
    assert fonts, "no text measured"
    assert not small, f"{game} {stage} {lang} {size}: text under {limit} px: " + "; ".join(
        f"{f['size']}px {f['where']} {f['text']!r}" for f in small[:12])
    scrolling = [s for s in found["scrolls"] if not s["pan"]]
    assert not scrolling, f"{game} {stage} {lang} {size}: boxes that scroll sideways: {scrolling}"
    assert wider <= 0, f"{game} {stage} {lang} {size}: the page is {wider}px wider than the window"


def shot_in_parts(page: Any, name: str, height: int = 1400) -> None:
    """A long phone page also in screen-high parts ``<name>-part<i>.png`` (small enough to look at)."""
    total = int(page.evaluate("() => document.documentElement.scrollHeight"))
    width = int(page.evaluate("() => window.innerWidth"))
    for i, top in enumerate(range(0, total, height)):
        page.screenshot(path=str(ARTIFACTS / f"{name}-part{i}.png"), full_page=True,
                        clip={"x": 0, "y": top, "width": width, "height": min(height, total - top)})


def write_figures() -> None:
    """Every case measured so far, for the record (test-artifacts/board-measure.json)."""
    path = ARTIFACTS / "board-measure.json"
    old = json.loads(path.read_text()) if path.exists() else {}
    old.update(FIGURES)
    path.write_text(json.dumps(old, indent=1, sort_keys=True))

