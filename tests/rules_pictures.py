"""Regenerate the board pictures of the rules pages: ``python -m tests.rules_pictures [game ...]``.

Each game's short rules show a real board in the middle of a game.  This script starts a portal on a
scratch SQLite file, lets the user ``ada`` sit down with bots (the setups of `tests.portal.test_phones`),
plays a few of her turns with seeded random legal actions, and photographs the board (``#board``) in
English and German with Debian's chromium.  The browser itself encodes the picture as WebP (a canvas,
so no imaging library is needed), scaled to at most `MAX_WIDTH` pixels, into
``ludothek/games/<game>/web/<game>_rules_board_<lang>.webp``, where ``/static/boards/`` serves it.

The pictures are committed; run this again when a board's look changes.  The rules files refer to
them as ``/static/boards/<game>_rules_board_<lang>.webp`` (tested in `tests.portal.test_rulebooks`).
"""

from __future__ import annotations

import base64
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
MAX_WIDTH = 900
QUALITY = 0.72
#: game -> (bot seats besides ada, options, ada's turns before the picture is taken)
SETUPS: dict[str, tuple[list[str], dict[str, str], int]] = {
    "machikoro": (["bot", "bot"], {}, 9),
    "rolltheages": (["bot"], {}, 7),
    "snowdonia": (["bot"], {}, 12),
    "carpediem": (["bot"], {}, 10),
}
#: game -> the part of the board whose bottom ends the picture (the rest of the board is left out)
CROP_AT = {"snowdonia": "#sd-route"}

CLIP = """([crop]) => {
  const board = document.getElementById('board').getBoundingClientRect();
  const last = crop ? document.querySelector(crop) : null;
  const bottom = last ? last.getBoundingClientRect().bottom : board.bottom;
  return {x: board.left + window.scrollX, y: board.top + window.scrollY,
          width: board.width, height: Math.min(board.bottom, bottom) - board.top};
}"""

ENCODE_WEBP = """async ([png, maxWidth, quality]) => {
  const img = new Image();
  img.src = 'data:image/png;base64,' + png;
  await img.decode();
  const scale = Math.min(1, maxWidth / img.width);
  const canvas = document.createElement('canvas');
  canvas.width = Math.round(img.width * scale);
  canvas.height = Math.round(img.height * scale);
  const ctx = canvas.getContext('2d');
  ctx.imageSmoothingQuality = 'high';
  ctx.drawImage(img, 0, 0, canvas.width, canvas.height);
  return canvas.toDataURL('image/webp', quality).split(',')[1];
}"""


def picture_path(game: str, lang: str) -> Path:
    return ROOT / "ludothek" / "games" / game / "web" / f"{game}_rules_board_{lang}.webp"


def photograph(page: Any, base: str, game: str, seed: int) -> None:
    """Play ``game`` to mid-game as the logged-in ``ada`` and save its board picture in both languages."""
    from tests.browser_support import new_game
    from tests.portal.test_phones import play_some_turns

    seats, options, turns = SETUPS[game]
    new_game(page, base, game, seats, options)
    page.wait_for_selector("#game[data-status=running]")
    gid = int(page.get_attribute("#game", "data-game"))
    play_some_turns(page, base, gid, turns, seed=seed)
    for lang in ("en", "de"):
        page.click(f".langswitch button[value={lang}]")
        page.wait_for_selector(f"html[lang={lang}]")
        page.goto(f"{base}/games/{gid}")
        page.wait_for_selector("#board")
        page.wait_for_timeout(300)
        clip = page.evaluate(CLIP, [CROP_AT.get(game)])
        png = base64.b64encode(page.screenshot(clip=clip, full_page=True)).decode()
        webp = page.evaluate(ENCODE_WEBP, [png, MAX_WIDTH, QUALITY])
        path = picture_path(game, lang)
        path.write_bytes(base64.b64decode(webp))
        print(f"{path.relative_to(ROOT)}: {path.stat().st_size // 1024} KiB")


def main(games: list[str]) -> None:
    from playwright.sync_api import sync_playwright

    from tests.browser_support import ARGS, CHROMIUM, register
    from tests.portal.conftest import make_settings
    from tests.portal.server import running_server

    with tempfile.TemporaryDirectory() as tmp, \
            running_server(make_settings(f"sqlite:///{tmp}/pictures.sqlite3")) as base, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        page = register(browser, base, "ada")
        page.set_viewport_size({"width": 1000, "height": 900})
        page.set_default_timeout(20_000)
        for seed, game in enumerate(games or list(SETUPS)):
            photograph(page, base, game, seed)
        browser.close()


if __name__ == "__main__":
    main(sys.argv[1:])
