"""The admin page as an administrator sees it, in both languages, on a desktop and a phone."""

from __future__ import annotations

from typing import Any

import pytest

from ludothek.cli import main
from tests.browser_support import register
from tests.portal.test_browser import api, check_page

pytestmark = [pytest.mark.browser]


def test_admin_page_in_both_languages(browser: Any, server: str, tmp_path: Any) -> None:
    db = f"sqlite:///{tmp_path / 'e2e.sqlite3'}"
    victim = register(browser, server, "vera")
    # A reported message for the queue: vera writes in a game with walt, walt reports it.
    walt = register(browser, server, "walt")
    game = api(victim, "POST", f"{server}/api/v1/games", {"game": "machikoro", "players": 2})
    api(walt, "POST", f"{server}/api/v1/games/{game['id']}/join")
    line = api(victim, "POST", f"{server}/api/v1/games/{game['id']}/chat",
               {"text": "a rather long message without spaces: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"})
    api(walt, "POST", f"{server}/api/v1/chat/{line['id']}/report", {"reason": "spam"})
    for lang in ("de", "en"):
        page = register(browser, server, f"root-{lang}", lang=lang)
        assert main(["admin", "make-admin", f"root-{lang}", "--db", db]) == 0
        page.goto(f"{server}/admin")
        page.wait_for_selector("#admin-users")
        page.wait_for_selector("#admin-reports")
        check_page(page, f"admin-{lang}")
        page.click("tr[data-user=vera] button")
        page.wait_for_selector("#admin-notice")
        check_page(page, f"admin-{lang}-blocked")
        page.click("tr[data-user=vera] button")  # unblock again
        page.wait_for_selector("#admin-notice")
        page.context.close()
    # vera's session ended with the first block: she is logged out.
    victim.goto(server)
    assert victim.locator("#account-link").count() == 0
