"""Resigning asks first (issue 30, item 5): the page's button leads to a question, only its answer resigns.

Without JavaScript it is two steps of plain forms: the button's post (without ``confirm``) shows the
question and changes nothing; the question's form (``confirm=yes``) resigns.  With JavaScript the same
question opens in a native ``<dialog>`` (tests/portal/test_browser_loop_edges.py).  The API stays one call.
"""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from tests.portal.conftest import api_user, page_login


def csrf_in(html: str) -> str:
    m = re.search(r'name="csrf" value="([^"]+)"', html)
    assert m
    return m.group(1)


@pytest.mark.parametrize("lang", ["en", "de"])
def test_the_first_post_asks_and_only_the_confirmation_resigns(client: TestClient, lang: str) -> None:
    token = page_login(client, "anna")
    client.post("/lang", data={"csrf": token, "lang": lang, "next": "/"})
    anna = {"X-CSRF-Token": token}
    gid = client.post("/api/games", json={"game": "toypig", "players": 2, "options": {"length": "long"}},
                      headers=anna).json()["id"]
    bert = api_user(client, "bert")
    client.post(f"/api/games/{gid}/join", headers=bert)
    page = client.get(f"/games/{gid}").text
    assert 'id="resign-dialog"' in page  # the question is on the page, for the dialog
    asked = client.post(f"/games/{gid}/resign", data={"csrf": csrf_in(page)}, follow_redirects=False)
    assert asked.status_code == 200
    question = {"en": "Resign from Pig #", "de": "Aus Schweinchen #"}[lang]
    assert question in asked.text and 'name="confirm" value="yes"' in asked.text
    assert f'href="/games/{gid}"' in asked.text  # "keep playing" goes back
    g = client.get(f"/api/games/{gid}", headers=bert).json()
    assert all(s["kind"] == "player" for s in g["seats"])  # nothing changed
    done = client.post(f"/games/{gid}/resign", data={"csrf": csrf_in(asked.text), "confirm": "yes"},
                       follow_redirects=False)
    assert done.status_code == 303
    g = client.get(f"/api/games/{gid}", headers=bert).json()
    assert any(s["kind"] == "bot" for s in g["seats"])
