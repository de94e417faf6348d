"""In a real browser on a 390 px phone, in both languages: a game's statistics page, sorted by a column.

Screenshots ``test-artifacts/statistics-<lang>*.png``; no sideways scrolling of the page (the tables scroll
in their own box), no text under 11 px, and axe-core finds nothing moderate or worse.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from ludothek.devtools.gamefill import add_users, fill
from ludothek.services import Site
from ludothek.storage import make_engine, migrate
from tests.browser_support import ARTIFACTS, shot
from tests.portal.server import running_server
from tests.portal.test_browser_open_data import PHONE, SMALLEST_TEXT
from tests.portal.test_phones import serious_violations

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture
def stats_server(tmp_path: Path) -> Iterator[str]:
    from tests.portal.conftest import make_settings

    url = f"sqlite:///{tmp_path / 'stats.sqlite3'}"
    engine = make_engine(url)
    migrate(engine)
    site = Site(engine)
    fill(engine, 60, add_users(engine, 8), datetime(2026, 10, 1, tzinfo=UTC), datetime(2026, 11, 1, tzinfo=UTC),
         seed=8, kinds=("machikoro",))
    site.statistics.rebuild(datetime(2026, 11, 5, 3, tzinfo=UTC))
    engine.dispose()
    with running_server(make_settings(url)) as base:
        yield base


@pytest.mark.parametrize("lang", ["en", "de"])
def test_statistics_on_a_phone(browser: Any, stats_server: str, lang: str) -> None:
    context = browser.new_context(viewport=PHONE, locale=lang)
    page = context.new_page()
    page.goto(f"{stats_server}/games/machikoro/statistics")
    if lang == "de":
        page.click("form[action='/lang'] button[value='de']")
        page.wait_for_selector("html[lang=de]")
    page.wait_for_selector("table.stats[data-feature=seat]")
    page.click("table.stats[data-feature=opening] th a[href$='sort=rate']")
    page.wait_for_selector("th[aria-sort=descending]")
    rates = page.eval_on_selector_all("table.stats[data-feature=opening] tbody td:nth-child(3)",
                                      "cells => cells.map(c => parseFloat(c.textContent.replace(',', '.')))")
    assert rates == sorted(rates, reverse=True) and rates
    shot(page, f"statistics-{lang}")
    # Items by their names (never ids with underscores); a chart per table, its smallest text still >= 11 px
    # once the drawing is scaled to the phone's width.
    names = page.eval_on_selector_all("table.stats .item", "els => els.map(e => e.textContent)")
    assert names and not any("_" in n for n in names)
    assert page.locator("svg.stats-chart").count() == page.locator("table.stats").count()
    smallest = page.evaluate("""() => Math.min(...[...document.querySelectorAll('svg.stats-chart')].map(svg => {
        const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
        return Math.min(...[...svg.querySelectorAll('text')].map(t => parseFloat(getComputedStyle(t).fontSize) * scale));
    }))""")
    assert smallest >= 11, f"chart text is {smallest}px on the phone"
    page.locator("svg.stats-chart").first.scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / f"statistics-{lang}-seats.png"))  # the phone's screen, unscaled
    page.locator("table.stats[data-feature=opening]").scroll_into_view_if_needed()
    page.locator("svg.stats-chart").nth(1).screenshot(path=str(ARTIFACTS / f"statistics-{lang}-chart.png"))
    overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 1, f"the page is {overflow}px wider than the phone"
    assert page.evaluate(SMALLEST_TEXT) >= 11
    found = serious_violations(page)
    assert not found, f"axe found {found}"
    context.close()
