"""What every real-browser test shares: Debian's chromium through Playwright, a live portal, helpers.

Registered as a pytest plugin in ``tests/conftest.py`` (``pytest_plugins``), so the fixtures
``browser`` (one chromium per test module) and ``server`` (a portal on a fresh SQLite file and a free
loopback port) are available to every test without importing them.  The helpers below are plain
functions: ``register`` a user in a new browser context, ``new_game`` through the form, ``click_action``
and wait until the game moved on, ``shot`` a screenshot into ``test-artifacts/``.

Without ``/usr/bin/chromium`` or the playwright package the browser tests are skipped with the
reason (and fail in CI, where ``LUDOTHEK_REQUIRE_SERVICES=1``; see ``tests.conftest.needs``).
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import needs

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts"
VIEWPORT = {"width": 1360, "height": 900}


def browser_problem() -> str | None:
    """Why no browser test can run here, or ``None``."""
    if not os.path.exists(CHROMIUM):
        return f"{CHROMIUM} is missing (run python -m ludothek.devtools.services)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright package is not installed"
    return None


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """A headless chromium, shared by the tests of one module."""
    needs(browser_problem())
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(exist_ok=True)
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        yield b
        b.close()


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    """The base URL of a portal on a fresh database (bots move without delay)."""
    from tests.portal.conftest import make_settings
    from tests.portal.server import running_server

    with running_server(make_settings(f"sqlite:///{tmp_path / 'e2e.sqlite3'}")) as url:
        yield url


def shot(page: Any, name: str) -> None:
    """A full-page screenshot ``test-artifacts/<name>.png``."""
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def register(browser: Any, base: str, name: str, lang: str = "en") -> Any:
    """A page in a new browser context (own cookies), logged in as the newly registered ``name``."""
    context = browser.new_context(viewport=VIEWPORT, locale=lang)
    page = context.new_page()
    page.set_default_timeout(15_000)
    page.goto(f"{base}/register")
    page.fill("input[name=name]", name)
    page.fill("input[name=password]", f"password-{name}")
    page.click("form[action='/register'] button[type=submit]")
    page.wait_for_selector("#account-link")
    return page


def new_game(page: Any, base: str, game: str, seats: list[str], options: dict[str, str] | None = None) -> None:
    """Create ``game`` through the form: seat 1 is me, ``seats`` are the kinds of seats 2..N."""
    page.goto(f"{base}/new?game={game}")
    page.select_option("select[name=players]", str(len(seats) + 1))
    for name, value in (options or {}).items():
        page.select_option(f"select[name=opt_{name}]", value)
    for i, kind in enumerate(seats, start=1):
        page.select_option(f"select[name=seat{i}]", kind)
    page.click("#create")
    page.wait_for_selector("#game")


def seq_of(page: Any) -> int:
    return int(page.get_attribute("#game", "data-seq"))


def legal_actions(page: Any) -> list[str]:
    return list(page.eval_on_selector_all("#legal [data-action]", "els => els.map(e => e.dataset.action)"))


def my_turns(page: Any, seconds: float) -> Iterator[list[str]]:
    """Yield my legal actions whenever it is my turn, until the game is finished or ``seconds`` pass.

    The caller plays one action per turn; the loop itself waits while others (bots) move.
    """
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and page.get_attribute("#game", "data-status") != "finished":
        if page.get_attribute("#game", "data-my-turn") == "yes":
            actions = legal_actions(page)
            if actions:
                yield actions
                continue
        time.sleep(0.05)


def wait_past(page: Any, before: int) -> None:
    """Wait until the page shows a later move than ``before``."""
    page.wait_for_function(
        "before => { const g = document.getElementById('game'); return g && Number(g.dataset.seq) > before; }",
        arg=before,
    )


def click(page: Any, selector: str) -> None:
    """Click ``selector`` once and wait until the game moved on: one click must be enough."""
    before = seq_of(page)
    page.locator(selector).first.click()
    wait_past(page, before)


def click_action(page: Any, action: str) -> None:
    """Click the action where it sits on the board if it is there, else in the plain list."""
    on_board = f'#board [data-action="{action}"]:visible'
    if not page.locator(on_board).count():
        # a picker's "all actions" fallback is collapsed: open it, as a person would
        page.eval_on_selector_all("#legal details.all-actions", "els => els.forEach(e => { e.open = true; })")
    click(page, on_board if page.locator(on_board).count() else f'#legal [data-action="{action}"]')


#: Finds every line break inside a word: a break that follows neither a space, a hyphen (hard or soft),
#: a dash nor a slash.  Returns "…before|after…" for each, read from the rendered line boxes.
_MID_WORD_BREAKS = r"""(root) => {
  const bad = [];
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT, {acceptNode: n =>
    n.parentElement && !n.parentElement.closest('svg, script, style, textarea') ? NodeFilter.FILTER_ACCEPT
                                                                                 : NodeFilter.FILTER_REJECT});
  const range = document.createRange();
  let node;
  while ((node = walker.nextNode())) {
    const text = node.textContent;
    let prevTop = null;
    for (let i = 0; i < text.length; i++) {
      if (/[\s\u00ad]/.test(text[i])) continue;
      range.setStart(node, i); range.setEnd(node, i + 1);
      const rects = range.getClientRects();
      if (!rects.length) continue;
      const top = rects[rects.length - 1].top;  // a letter after a soft hyphen also reports the hyphen drawn on the line before
      if (prevTop !== null && top > prevTop + 2 && !/[\s\u00ad\-\u2010\u2013\u2014\/]/.test(text[i - 1])) {
        bad.push(text.slice(Math.max(0, i - 12), i) + '|' + text.slice(i, i + 12));
      }
      prevTop = top;
    }
  }
  return bad;
}"""


def mid_word_breaks(page: Any, selector: str = "main") -> list[str]:
    """Where the rendered text under ``selector`` breaks a line inside a word ("Bronzezei|t")."""
    return list(page.eval_on_selector(selector, _MID_WORD_BREAKS))
