"""What a tournament player expects of the pages (issue 31): a tournament game's page leads back to its
tournament, and calling a tournament off asks first, as resigning does (without JavaScript two plain
forms: the first post shows the question and changes nothing; with it the same question in a dialog)."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from ludothek.services import Site
from tests.portal.conftest import api_user, page_login
from tests.portal.tournament_support import later, round_games, spec


def csrf_in(html: str) -> str:
    m = re.search(r'name="csrf" value="([^"]+)"', html)
    assert m
    return m.group(1)


def site_of(client: TestClient) -> Site:
    return client.app.state.portal.site  # type: ignore[attr-defined]


def organised(client: TestClient, token: str) -> int:
    r = client.post("/api/v1/tournaments", json=spec(name="Pig cup"), headers={"X-CSRF-Token": token})
    assert r.status_code == 201, r.text
    return int(r.json()["id"])


@pytest.mark.parametrize("lang", ["en", "de"])
def test_a_tournament_game_links_back_to_its_tournament(client: TestClient, lang: str) -> None:
    token = page_login(client, "anna")
    client.post("/lang", data={"csrf": token, "lang": lang, "next": "/"})
    tid = organised(client, token)
    client.post(f"/api/v1/tournaments/{tid}/enter", headers={"X-CSRF-Token": token})
    client.post(f"/api/v1/tournaments/{tid}/enter", headers=api_user(client, "bert"))
    site = site_of(client)
    site.tournaments.run_due(later())
    (gid,) = round_games(site, tid, 1)
    page = client.get(f"/games/{gid}").text
    link = re.search(r'<p class="tournament-link" id="tournament-link"><a href="([^"]+)">([^<]+)</a>', page)
    assert link is not None and link.group(1) == f"/tournaments/{tid}"
    assert link.group(2) == ("← Pig cup, Runde 1" if lang == "de" else "← Pig cup, round 1")
    other = client.post("/api/games", json={"game": "toypig", "players": 2}, headers={"X-CSRF-Token": token})
    assert 'id="tournament-link"' not in client.get(f"/games/{other.json()['id']}").text  # ordinary games: none


@pytest.mark.parametrize("lang", ["en", "de"])
def test_calling_off_asks_first_and_only_the_answer_calls_it_off(client: TestClient, lang: str) -> None:
    token = page_login(client, "anna")
    client.post("/lang", data={"csrf": token, "lang": lang, "next": "/"})
    tid = organised(client, token)
    site = site_of(client)
    page = client.get(f"/tournaments/{tid}").text
    assert 'id="cancel-tournament-dialog"' in page and 'id="cancel-tournament-form"' in page  # for the dialog
    asked = client.post(f"/tournaments/{tid}/cancel", data={"csrf": csrf_in(page)}, follow_redirects=False)
    assert asked.status_code == 200
    question = {"en": "Call off Pig cup?", "de": "Pig cup absagen?"}[lang]
    assert question in asked.text and 'name="confirm" value="yes"' in asked.text
    assert f'href="/tournaments/{tid}"' in asked.text  # "keep it going" goes back
    assert site.tournaments.get(tid).state == "open"  # nothing changed
    with TestClient(client.app) as carl:  # somebody else is not even asked
        carl_token = page_login(carl, "carl")
        refused = carl.post(f"/tournaments/{tid}/cancel", data={"csrf": carl_token}, follow_redirects=False)
        assert refused.status_code == 403 and site.tournaments.get(tid).state == "open"
        refused = carl.post(f"/tournaments/{tid}/cancel", data={"csrf": carl_token, "confirm": "yes"},
                            follow_redirects=False)
        assert refused.status_code == 403 and site.tournaments.get(tid).state == "open"
    done = client.post(f"/tournaments/{tid}/cancel", data={"csrf": csrf_in(asked.text), "confirm": "yes"},
                       follow_redirects=False)
    assert done.status_code == 303 and site.tournaments.get(tid).state == "cancelled"
    again = client.post(f"/tournaments/{tid}/cancel", data={"csrf": csrf_in(asked.text)}, follow_redirects=False)
    assert again.status_code == 409 and 'id="cancel-tournament-confirm"' not in again.text  # nothing to ask


@pytest.mark.parametrize("lang", ["en", "de"])
def test_a_knockout_called_off_for_its_field_says_why(client: TestClient, lang: str) -> None:
    site = site_of(client)
    ann = site.accounts.register("ann", "password-ann", lang)
    tid = site.tournaments.create(ann, spec(name="Pig cup", format="knockout"))
    msg = site.messages.message(ann.id, "tournament_ended", None, None,
                                {"tournament": tid, "cancelled": True, "no_final": True}, later())
    assert msg is not None and "Pig cup" in msg.body and "{" not in msg.title + msg.body
    assert ("Finaltisch" if lang == "de" else "final table") in msg.body
