"""In a real browser: friends, one-click invitations, and two players chatting live while a spectator
sees nothing; an injected script never runs (issue 12, parts 4 and 5).

Screenshots (``test-artifacts/chat-*.png``, ``friends-*.png``) on a desktop and a 390 px phone; every page
here is checked for sideways scrolling, untranslated keys and axe-core's serious or critical findings.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser_support import register
from tests.portal.test_browser import check_page
from tests.portal.test_phones import serious_violations

pytestmark = [pytest.mark.browser, pytest.mark.slow]

#: Each would set window.__pwned if it ran.
EVIL = ('<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>'
        '<svg onload="window.__pwned=3"></svg> <a href="javascript:window.__pwned=4">click</a> \u0007 https://evil.example')


def chat_texts(page: Any) -> list[str]:
    return list(page.eval_on_selector_all("#chat-list .chat-text", "els => els.map(e => e.textContent)"))


def pwned(page: Any) -> Any:
    return page.evaluate("() => window.__pwned === undefined ? null : window.__pwned")


def test_friends_invite_with_one_click_and_chat_live(browser: Any, server: str) -> None:
    ann = register(browser, server, "ann")
    bob = register(browser, server, "bob", lang="de")
    eve = register(browser, server, "eve")
    dialogs: list[str] = []
    for page in (ann, bob, eve):
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))

    # ann puts bob on her friend list and invites him with one click on the new-game form.
    ann.goto(f"{server}/friends")
    ann.fill("#add-friend input[name=name]", "bob")
    ann.click("#add-friend button")
    ann.wait_for_selector("#friend-list li[data-friend=bob]")
    check_page(ann, "friends-en")
    ann.goto(f"{server}/new?game=machikoro")
    ann.select_option("select[name=players]", "2")
    ann.click(".friend-chip[data-invite=bob]")
    assert ann.input_value("select[name=seat1]") == "invite" and ann.input_value("input[name=seat1_name]") == "bob"
    assert ann.get_attribute(".friend-chip[data-invite=bob]", "aria-pressed") == "true"
    check_page(ann, "friends-new-game-en")
    ann.click("#create")
    ann.wait_for_selector("#game[data-status=open]")
    game_url = ann.url
    ann.wait_for_selector("#live-status.on")

    # bob accepts; the game starts, and ann's board follows live.
    bob.goto(game_url)
    bob.click("#join")
    bob.wait_for_selector("#game[data-status=running]")
    bob.wait_for_selector("#live-status.on")
    ann.wait_for_selector("#game[data-status=running]")
    eve.goto(game_url)
    assert eve.locator("#chat").count() == 0 and eve.locator("#chat-closed").count() == 1
    eve.wait_for_selector("#live-status.on")

    # ann writes; bob reads it without reloading.
    ann.fill("#chat-text", "Viel Glück, bob!")
    ann.click("#chat-send")
    bob.wait_for_function("() => [...document.querySelectorAll('#chat-list .chat-text')]"
                          ".some(e => e.textContent === 'Viel Glück, bob!')")
    # the box empties when ann's own answer arrives, which may come after bob heard the message live
    ann.wait_for_function("() => document.getElementById('chat-text').value === ''")
    # bob answers with every trick there is; ann sees it as text, and nothing runs anywhere.
    bob.fill("#chat-text", EVIL)
    bob.press("#chat-text", "Enter")
    for page in (ann, bob):  # bob's own list takes it from his answer, ann's from the live update
        page.wait_for_function("n => document.querySelectorAll('#chat-list .chat-text').length === n", arg=2)
    stored = EVIL.replace("\u0007", "")
    assert chat_texts(ann)[-1] == stored and chat_texts(bob)[-1] == stored
    for page in (ann, bob):
        assert page.locator("#chat-list img, #chat-list script, #chat-list svg, #chat-list a").count() == 0
        assert pwned(page) is None
    # Reloaded, the same text comes from the server's template: still inert.
    for page in (ann, bob):
        page.reload()
        page.wait_for_selector("#chat-list li")
        assert chat_texts(page) == ["Viel Glück, bob!", stored]
        assert page.locator("#chat-list img, #chat-list script, #chat-list svg, #chat-list a").count() == 0
        assert pwned(page) is None
    assert not dialogs
    # Too long is refused on the page, in the player's language, and nothing is added.
    bob.evaluate("() => document.getElementById('chat-text').removeAttribute('maxlength')")
    bob.fill("#chat-text", "x" * 501)
    bob.click("#chat-send")
    bob.wait_for_selector("#chat-error:not([hidden])")
    assert "höchstens 500 Zeichen" in bob.inner_text("#chat-error")
    assert len(chat_texts(bob)) == 2
    # The spectator heard none of it and still sees no chat.
    assert eve.locator("#chat").count() == 0 and "Viel Glück" not in eve.content()

    # ann reports bob's message from the page.
    ann.click("#chat-list li:last-child details.chat-report summary")
    ann.select_option("#chat-list li:last-child details.chat-report select", "spam")
    ann.click("#chat-list li:last-child details.chat-report button")
    ann.wait_for_selector("#chat-list li:last-child small:has-text('Reported')")
    for page, name in ((ann, "chat-en"), (bob, "chat-de")):
        check_page(page, name)
    for page, name in ((ann, "game with chat"), (bob, "game with chat (de)")):
        found = serious_violations(page)
        assert not found, f"{name}: {found}"
    ann.goto(f"{server}/friends")
    assert not serious_violations(ann)
    ann.goto(f"{server}/new?game=machikoro")
    assert not serious_violations(ann)

    # The replay of ann's own views shows the messages written up to each step, not before.
    ann.goto(game_url)
    written_at = int(ann.get_attribute("#chat-list li:first-child", "data-seq"))
    ann.goto(f"{game_url}/replay?step={written_at}")
    ann.wait_for_selector("#replay-extras")
    assert "Viel Glück, bob!" in ann.inner_text("#replay-extras")
    assert ann.locator("#replay-extras img, #replay-extras script, #replay-extras svg, #replay-extras a").count() == 0
    check_page(ann, "chat-replay-en")
    assert not serious_violations(ann)
    if written_at > 0:
        ann.goto(f"{game_url}/replay?step={written_at - 1}")
        assert ann.locator("#replay-extras").count() == 0
    assert pwned(ann) is None
    # bob's profile: ann has him on her list, so she can invite him from there or take him off.
    ann.goto(f"{server}/users/bob")
    ann.wait_for_selector("#profile-social #unfriend")
    check_page(ann, "friends-profile-en")
    assert not serious_violations(ann)
    for page in (ann, bob, eve):
        page.context.close()
