"""In a real browser on a 390 px phone, in both languages: the open-data page with published months, and
the account page's choice of a pseudonym.

Screenshots ``test-artifacts/open-data-<lang>*.png``; each is checked for sideways scrolling and text under
11 px, and axe-core finds nothing moderate or worse.
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
from tests.browser_support import ARTIFACTS, register, shot
from tests.portal.server import running_server
from tests.portal.test_phones import serious_violations

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PHONE = {"width": 390, "height": 844}
SMALLEST_TEXT = """() => Math.min(...Array.from(document.querySelectorAll('body *'))
  .filter(e => e.offsetParent !== null && Array.from(e.childNodes).some(n => n.nodeType === 3 && n.textContent.trim()))
  .map(e => parseFloat(getComputedStyle(e).fontSize)))"""


@pytest.fixture
def data_server(tmp_path: Path) -> Iterator[str]:
    from tests.portal.conftest import make_settings

    url = f"sqlite:///{tmp_path / 'open.sqlite3'}"
    engine = make_engine(url)
    migrate(engine)
    site = Site(engine)
    users = add_users(engine, 6)
    fill(engine, 30, users, datetime(2026, 9, 1, tzinfo=UTC), datetime(2026, 11, 1, tzinfo=UTC), seed=5)
    after = datetime(2026, 11, 2, 3, tzinfo=UTC)
    for month in site.opendata.due_months(after):
        site.opendata.run_month(month, tmp_path / "exports", "test", lambda: after)
    engine.dispose()
    with running_server(make_settings(url, export_dir=tmp_path / "exports", exports=False)) as base:
        yield base


def look(page: Any, name: str) -> None:
    shot(page, name)
    overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 1, f"{name}: the page is {overflow}px wider than the phone"
    assert page.evaluate(SMALLEST_TEXT) >= 11, f"{name}: text under 11 px"
    found = serious_violations(page)
    assert not found, f"{name}: axe found {found}"


@pytest.mark.parametrize("lang", ["en", "de"])
def test_open_data_on_a_phone(browser: Any, data_server: str, lang: str) -> None:
    base = data_server
    page = register(browser, base, f"data{lang}", lang)
    page.set_viewport_size(PHONE)
    page.goto(f"{base}/open-data")
    page.wait_for_selector("#exports li")
    assert page.locator("#exports li").count() == 2
    assert ("Oktober 2026" if lang == "de" else "October 2026") in page.inner_text("#exports")
    look(page, f"open-data-{lang}")
    with page.expect_download() as download:
        page.click("#exports li[data-month='2026-10'] a[download]")
    assert download.value.suggested_filename == "ludothek-games-2026-10.tar"

    page.click("a[href='/account#export-prefs']")
    page.wait_for_selector("#export-prefs-form")
    page.check("#export-prefs-form input[value='1']")
    page.click("#export-prefs-form button")
    page.wait_for_selector("#notice")
    assert page.is_checked("#export-prefs-form input[value='1']")
    page.locator("#export-prefs").scroll_into_view_if_needed()
    look(page, f"open-data-{lang}-account")
    page.locator("#export-prefs-form").screenshot(path=str(ARTIFACTS / f"open-data-{lang}-account-section.png"))
