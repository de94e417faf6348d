"""Undo in a real browser: the button appears after my own decision, one click takes it back."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser_support import click, click_action, my_turns, new_game, register, shot

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_undo_button_takes_back_my_last_decision(browser: Any, server: str) -> None:
    page = register(browser, server, "ulla", lang="de")
    new_game(page, server, "rolltheages", ["bot"])
    page.wait_for_selector("#game[data-status=running]")
    for actions in my_turns(page, 60):
        assert page.locator("#undo").count() == 0 or page.get_attribute("#game", "data-my-turn") == "yes"
        board_before = page.inner_html("#board")
        click_action(page, "done" if "done" in actions else actions[0])
        if page.locator("#undo").count():
            break
    else:
        raise AssertionError("no decision that can be taken back came up")
    shot(page, "undo-offered")
    click(page, "#undo")
    assert page.locator(".log-list del").count() >= 1  # the undone decision is struck through
    assert "nimmt die letzte Aktion zurück" in page.inner_text("#log")
    assert page.inner_html("#board") == board_before
    shot(page, "undo-done")
