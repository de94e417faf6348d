"""In a real browser (headless chromium): the service worker, the manifest, the subscribe flow as far as
headless chromium allows, a push message shown by the worker, and the offline page."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser_support import ARTIFACTS, register, shot
from tests.portal.push_service import PushService, push_service
from tests.portal.server import running_server
from tests.portal.test_browser import api, check_page

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture
def site(tmp_path: Path) -> Iterator[tuple[str, PushService]]:
    """A portal that accepts the stand-in push service's loopback endpoints, and that service."""
    from tests.portal.conftest import make_settings

    settings = make_settings(f"sqlite:///{tmp_path / 'push.sqlite3'}", push_allow_loopback=True)
    with running_server(settings) as base:
        import httpx

        key = httpx.get(f"{base}/api/v1/push/public-key").json()["public_key"]
        with push_service(key) as service:
            yield base, service


def until(check: Any, seconds: float = 30) -> Any:
    """Poll ``check`` (the strict CSP forbids Playwright's string-evaluating ``wait_for_function``)."""
    deadline = time.monotonic() + seconds
    while not (value := check()):
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.1)
    return value


def controlled(page: Any) -> bool:
    return bool(page.evaluate("() => !!navigator.serviceWorker.controller"))


def test_service_worker_manifest_subscribe_push_and_offline(browser: Any, site: tuple[str, PushService]) -> None:
    base, service = site
    page = register(browser, base, "anna")
    page.context.grant_permissions(["notifications"], origin=base)

    # The service worker registers from every page and takes control of it.
    until(lambda: page.evaluate("() => document.documentElement.dataset.serviceWorker") == "ready")
    page.goto(f"{base}/account")
    until(lambda: controlled(page))
    scope = page.evaluate("async () => (await navigator.serviceWorker.ready).scope")
    assert scope == f"{base}/"

    # The browser finds the manifest and can read it.
    cdp = page.context.new_cdp_session(page)
    manifest = cdp.send("Page.getAppManifest")
    assert manifest["url"] == f"{base}/manifest.webmanifest" and not manifest["errors"], manifest
    assert json.loads(manifest["data"])["display"] == "standalone"

    # The subscribe button: permission is granted; headless chromium has no push service to register with,
    # so pushManager.subscribe fails, and the page must say so (not fail silently).
    page.click("#push-subscribe")
    status = until(lambda: page.get_attribute("#push-status", "data-state") not in (None, "msgWorking")
                   and page.get_attribute("#push-status", "data-state"))
    text = page.inner_text("#push-status")
    shot(page, "push-subscribe-headless")
    if status == "msgFailed":
        assert text.startswith("This browser could not subscribe to push notifications (") and "Error" in text, text
    else:  # a chromium that can reach a push service: the device is saved and listed
        assert status == "msgSaved", text
        page.wait_for_selector("#push-devices")

    # What a browser with a push service would have posted: the page's own script path, through the API.
    api(page, "POST", f"{base}/api/v1/me/push/devices", {**service.subscription("phone"), "label": "Chrome · Linux"})
    page.reload()
    assert page.inner_text("#push-devices").count("Chrome · Linux") == 1
    page.click("#push-test")
    page.wait_for_selector("#notice")
    assert "accepted the test notification for 1 device" in page.inner_text("#notice")
    assert service.refused == [] and service.received[0].payload["title"] == "Ludothek test notification"
    check_page(page, "push-account")
    page.set_viewport_size({"width": 390, "height": 844})  # the section itself on a phone, to look at
    page.evaluate("() => document.getElementById('push').scrollIntoView()")
    page.screenshot(path=str(ARTIFACTS / "push-account-section-phone.png"))

    # The worker shows a push message as a notification (delivered through DevTools, as a push service would).
    cdp.send("ServiceWorker.enable")
    registrations: list[str] = []
    cdp.on("ServiceWorker.workerRegistrationUpdated",
           lambda event: registrations.extend(r["registrationId"] for r in event["registrations"]))
    until(lambda: page.evaluate("() => true") and registrations)  # a call into Playwright lets its events in
    payload = {"kind": "turn", "game": 12, "title": "It is your turn", "body": "Machi Koro #12", "path": "/games/12"}
    cdp.send("ServiceWorker.deliverPushMessage",
             {"origin": base, "registrationId": registrations[0], "data": json.dumps(payload)})
    shown = until(lambda: page.evaluate(
        "async () => (await (await navigator.serviceWorker.ready).getNotifications())"
        ".map(n => ({title: n.title, body: n.body, tag: n.tag, data: n.data}))"))
    assert shown == [{"title": "It is your turn", "body": "Machi Koro #12", "tag": "ludothek-turn-12",
                      "data": {"path": "/games/12"}}]

    # Offline: a page that cannot be loaded shows the offline page, in the reader's language.
    page.context.set_offline(True)
    page.goto(f"{base}/games/12")
    page.wait_for_selector("#offline")
    assert page.inner_text("h1") == "You are offline"
    check_page(page, "push-offline-en")
    page.context.set_offline(False)
    page.goto(f"{base}/account")
    page.click(".langswitch button[value=de]")
    page.wait_for_selector("html[lang=de]")
    until(lambda: page.evaluate("() => document.documentElement.dataset.serviceWorker") == "ready")
    until(lambda: page.evaluate(  # the worker has stored the language the page told it
        "async () => { const hit = await (await caches.open('ludothek-meta')).match('/__lang');"
        " return hit ? hit.text() : null; }") == "de")
    page.context.set_offline(True)
    page.goto(f"{base}/games/12")
    page.wait_for_selector("#offline")
    assert page.inner_text("h1") == "Du bist offline"
    check_page(page, "push-offline-de")
    page.context.set_offline(False)
    page.click("#offline-retry")
    page.wait_for_selector("#account-link")
    page.context.close()
