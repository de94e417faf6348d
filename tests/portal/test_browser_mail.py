"""In a real browser: the links in received mails work, and a game becoming my turn reaches an open tab."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser_support import register
from tests.portal.mail_support import Received, Sink, smtp_server
from tests.portal.server import free_port, running_server
from tests.portal.test_browser import api, check_page

pytestmark = [pytest.mark.browser, pytest.mark.slow]

#: Records every browser notification the page makes (Playwright injects it, not the page: no CSP issue).
RECORD_NOTIFICATIONS = """
window.__notes = [];
const Real = window.Notification;
class Recording extends Real {
  constructor(title, options) { super(title, options); window.__notes.push({title, body: options && options.body}); }
}
Object.defineProperty(Recording, "permission", { get: () => Real.permission });
Recording.requestPermission = (...a) => Real.requestPermission(...a);
window.Notification = Recording;
"""


@pytest.fixture
def mail_server(tmp_path: Path) -> Iterator[tuple[str, Sink]]:
    from tests.portal.conftest import make_settings

    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with smtp_server() as (sink, smtp_port):
        settings = make_settings(f"sqlite:///{tmp_path / 'mail.sqlite3'}", smtp_url=f"smtp://127.0.0.1:{smtp_port}",
                                 mail_interval=0.2, base_url=base)
        with running_server(settings, port) as url:
            yield url, sink


def until(check: Any, seconds: float = 30) -> None:
    """Poll ``check`` (the strict CSP forbids Playwright's string-evaluating ``wait_for_function``)."""
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.1)


def wait_mail(sink: Sink, to: str, subject_part: str, seconds: float = 30) -> Received:
    deadline = time.monotonic() + seconds
    seen: list[Received] = []
    while time.monotonic() < deadline:
        seen += sink.take()
        for m in seen:
            if to in m.rcpt and subject_part in m.subject:
                return m
        time.sleep(0.1)
    raise AssertionError(f"no mail to {to} about {subject_part!r}; got {[m.subject for m in seen]}")


def test_mail_links_and_live_turns(browser: Any, mail_server: tuple[str, Sink]) -> None:
    base, sink = mail_server
    mara = register(browser, base, "mara")
    mara.context.grant_permissions(["notifications"], origin=base)
    mara.add_init_script(RECORD_NOTIFICATIONS)
    # 1. The address, confirmed by the link in the mail.
    mara.goto(f"{base}/account")
    mara.fill("input[name=address]", "mara@example.org")
    mara.fill("form[action='/account/email'] input[name=password]", "password-mara")  # a sensitive change
    mara.click("form[action='/account/email'] button")
    mara.wait_for_selector("#notice")
    check_page(mara, "account-mail")
    verify = wait_mail(sink, "mara@example.org", "Confirm")
    mara.goto(verify.link("/mail/verify/"))
    assert "is confirmed" in mara.inner_text("#notice")
    mara.goto(verify.link("/mail/verify/"))  # a second time: used
    assert "used already" in mara.inner_text("#link-error")
    # 2. A game becomes my turn while the home page is open: title, list and notification, without a reload.
    nils = register(browser, base, "nils")
    mara.goto(f"{base}/")
    mara.wait_for_load_state("networkidle")
    assert mara.title() == "Ludothek"
    gid = api(nils, "POST", f"{base}/api/games",
              {"game": "toypig", "players": 2, "options": {"length": "long"},
               "seats": [{"kind": "me"}, {"kind": "invite", "user": "mara"}]})["id"]
    api(mara, "POST", f"{base}/api/games/{gid}/join")
    for _ in range(100):
        g = api(nils, "GET", f"{base}/api/games/{gid}")
        if not g["my_turn"]:
            break
        api(nils, "POST", f"{base}/api/games/{gid}/actions", {"action": "hold", "seq": g["seq"]})
    until(lambda: mara.title() == "(1) Ludothek")
    mara.wait_for_selector(f"#running-games li[data-game='{gid}'].my-turn")
    # The tab channel's notices (issue 30), in mara's words, naming the players: the invitation, then the turn.
    until(lambda: any("your turn" in n["title"] for n in mara.evaluate("window.__notes")))
    notes = mara.evaluate("window.__notes")
    assert notes[0]["title"] == "nils invites you to Pig"
    (note,) = [n for n in notes if "your turn" in n["title"]]
    assert f"#{gid}" in note["title"] and "nils" in note["body"]
    # 3. The turn mail's unsubscribe link works without logging in.
    turn = wait_mail(sink, "mara@example.org", "it is your turn")
    assert turn.link(f"/games/{gid}")
    stranger = browser.new_context().new_page()
    stranger.goto(turn.link("/mail/unsubscribe/"))
    stranger.click("#unsubscribe")
    assert "gets no more notifications" in stranger.inner_text("#notice")
    assert api(mara, "GET", f"{base}/api/me/notifications")["turns"] == "off"
    # 4. Password reset by mail.
    fresh = browser.new_context().new_page()
    fresh.goto(f"{base}/login")
    fresh.click("#forgot")
    fresh.fill("input[name=who]", "mara")
    fresh.click("form[action='/password-reset'] button")
    assert "on its way" in fresh.inner_text("#notice")
    reset = wait_mail(sink, "mara@example.org", "Reset your password")
    fresh.goto(reset.link("/password-reset/"))
    fresh.fill("input[name=password]", "brand-new-password")
    fresh.click("#reset-set")
    assert "Password changed" in fresh.inner_text("#notice")
    mara.goto(f"{base}/account")  # the old session has ended
    assert mara.locator("#account-link").count() == 0
    fresh.goto(f"{base}/login")
    fresh.fill("input[name=name]", "mara")
    fresh.fill("input[name=password]", "brand-new-password")
    fresh.click("form[action='/login'] button[type=submit]")
    fresh.wait_for_selector("#account-link")
    fresh.goto(reset.link("/password-reset/"))  # a used link says so when opened (issue 30, item 6)
    assert "used already" in fresh.inner_text("#link-error")
    assert fresh.locator("input[name=password]").count() == 0
