"""In a real browser on a 390 px phone: add a webhook, send a test, see it switched off, switch it on again.

Screenshots ``test-artifacts/webhooks-<lang>-*.png``; every step is checked for sideways scrolling and
text under 11 px, and axe-core finds nothing moderate or worse.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser_support import ARTIFACTS, register, shot
from tests.portal.server import running_server
from tests.portal.test_phones import serious_violations
from tests.portal.webhook_receiver import Answer, Receiver, running_receiver

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PHONE = {"width": 390, "height": 844}
SMALLEST_TEXT = """() => Math.min(...Array.from(document.querySelectorAll('body *'))
  .filter(e => e.offsetParent !== null && Array.from(e.childNodes).some(n => n.nodeType === 3 && n.textContent.trim()))
  .map(e => parseFloat(getComputedStyle(e).fontSize)))"""


@pytest.fixture
def hook_server(tmp_path: Path) -> Iterator[tuple[str, Receiver]]:
    from tests.portal.conftest import make_settings

    with running_receiver() as receiver:
        settings = make_settings(f"sqlite:///{tmp_path / 'hooks.sqlite3'}", webhook_allow_loopback=True,
                                 webhook_max_failures=2)
        with running_server(settings) as url:
            yield url, receiver


def look(page: Any, name: str) -> None:
    shot(page, name)
    page.locator("#webhooks-section").screenshot(path=str(ARTIFACTS / f"{name}-section.png"))
    overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 1, f"{name}: the page is {overflow}px wider than the phone"
    assert page.evaluate(SMALLEST_TEXT) >= 11, f"{name}: text under 11 px"
    found = serious_violations(page)
    assert not found, f"{name}: axe found {found}"


@pytest.mark.parametrize("lang", ["en", "de"])
def test_webhooks_on_a_phone(browser: Any, hook_server: tuple[str, Receiver], lang: str) -> None:
    base, receiver = hook_server
    page = register(browser, base, f"hook{lang}", lang)
    page.set_viewport_size(PHONE)
    page.goto(f"{base}/account#webhooks")
    long_url = receiver.url("/a-rather-long-path/" + "x" * 120)
    page.fill("#webhook-add input[name=url]", long_url)
    page.select_option("#webhook-add select[name=format]", "discord")
    page.fill("#webhook-add input[name=label]", "Handy")
    page.click("#webhook-add button")
    page.wait_for_selector("#webhook-list li")
    look(page, f"webhooks-{lang}-added")

    page.click("#webhook-list form[action$='/test'] button")
    page.wait_for_selector("#webhook-list .webhook-last")
    assert "204" in page.inner_text("#webhook-list .webhook-last")
    [got] = receiver.received
    secret = page.text_content("#webhook-list code.secret")  # in the page, though folded away
    assert got.signed_by(secret) and "content" in got.json()

    receiver.answer(Answer(500), Answer(500))
    for _ in range(2):
        page.click("#webhook-list form[action$='/test'] button")
        page.wait_for_load_state()
    page.wait_for_selector("#webhook-list .webhook-disabled")
    page.click("#webhook-list details.webhook-secret summary")
    look(page, f"webhooks-{lang}-switched-off")
    assert "500" in page.inner_text("#webhook-list .webhook-disabled")

    page.click("#webhook-list form[action$='/enable'] button")
    page.wait_for_selector("#webhook-list form[action$='/enable']", state="detached")
    assert page.query_selector("#webhook-list .webhook-disabled") is None
    page.click("#webhook-list form[action$='/delete'] button")
    page.wait_for_selector("#webhook-list", state="detached")
    look(page, f"webhooks-{lang}-none")
