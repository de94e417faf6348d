"""Who left a game, said wherever its result is shown (issue 30, item 3).

After a timeout the result card read "Winner: anna" above "bernd (Bot) (medium)" with a higher score
and nothing saying why bernd was placed below.  The stored result places a player who timed out or
resigned last (`placed_last`); the card, the replay, the API, the end-of-game mail and the rating
all use that order, and each says who left and how.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient

from ludothek.portal import create_app
from ludothek.services import Site
from ludothek.services.outbox import QueuedMail
from ludothek.workers.mail_compose import Composer, Parts
from ludothek.workers.mail_links import MailLinks
from tests.portal.conftest import api_user, make_settings


@pytest.fixture
def client(db_url: str) -> Iterator[TestClient]:
    with TestClient(create_app(make_settings(db_url, jobs_interval=0))) as c:
        yield c


def finished_with_a_leaver(client: TestClient, how: str) -> tuple[int, dict[str, Any], str]:
    """anna and bernd play toypig; bernd times out or resigns on his first turn, anna plays on to the end."""
    site: Site = client.app.state.portal.site  # type: ignore[attr-defined]
    anna, bernd = api_user(client, "anna"), api_user(client, "bernd")
    gid = client.post("/api/games", json={"game": "toypig", "players": 2, "time_control": "move:1"},
                      headers=anna).json()["id"]
    assert client.post(f"/api/games/{gid}/join", headers=bernd).status_code == 200
    give_up = time.monotonic() + 60
    while time.monotonic() < give_up:  # anna holds until it is bernd's turn
        g = client.get(f"/api/games/{gid}", headers=bernd).json()
        if g["my_turn"]:
            break
        a = client.get(f"/api/games/{gid}", headers=anna).json()
        if a["my_turn"]:
            client.post(f"/api/games/{gid}/actions", json={"action": "hold", "seq": a["seq"]}, headers=anna)
        else:
            time.sleep(0.01)
    if how == "timed_out":
        assert site.clocks.expire_due(datetime.now(UTC) + timedelta(days=1, minutes=1)) == [gid]
    else:
        assert client.post(f"/api/games/{gid}/resign", headers=bernd).status_code == 200
    give_up = time.monotonic() + 180  # the bot plays on for bernd: a loaded machine may take a while
    while time.monotonic() < give_up:
        g = client.get(f"/api/games/{gid}", headers=anna).json()
        if g["status"] == "finished":
            break
        if g["my_turn"]:
            client.post(f"/api/games/{gid}/actions", json={"action": "roll", "seq": g["seq"]}, headers=anna)
        else:
            time.sleep(0.01)
    assert g["status"] == "finished"
    return gid, g, "bernd"


def result_rows(html: str) -> list[str]:
    card = html[html.index('id="result"'):]
    card = card[:card.index("</table>")]
    return [re.sub(r"<[^>]+>", " ", row) for row in card.split("<tr")[2:]]


@pytest.mark.parametrize("how", ["timed_out", "resigned"])
def test_card_replay_api_mail_and_rating_agree_on_who_left(client: TestClient, how: str) -> None:
    site: Site = client.app.state.portal.site  # type: ignore[attr-defined]
    gid, g, _ = finished_with_a_leaver(client, how)
    seat = {s["name"].split(" ")[0]: s["seat"] for s in g["seats"]}
    by_seat = {r["seat"]: r for r in g["result"]}
    # The API: bernd is placed last and marked.
    assert by_seat[seat["bernd"]]["left"] == how and by_seat[seat["bernd"]]["rank"] == 2
    assert by_seat[seat["anna"]]["rank"] == 1 and by_seat[seat["anna"]].get("left") is None
    note = {"timed_out": "timed out", "resigned": "resigned"}[how]
    german = {"timed_out": "Zeit abgelaufen", "resigned": "aufgegeben"}[how]
    # The game page's card and the replay's last step: anna first, bernd second and why.
    for url in (f"/games/{gid}", f"/games/{gid}/replay"):
        for lang, words in (("en", note), ("de", german)):
            rows = result_rows(client.get(url, params={"lang": lang}).text)
            assert "anna" in rows[0] and words not in rows[0], (url, rows)
            assert "bernd" in rows[1] and words in rows[1], (url, rows)
    # The end-of-game mail.
    composer = Composer(site, MailLinks("test-secret", "http://testserver"))
    parts = composer._ended(QueuedMail(0, 0, "ended", gid, g["seq"], {}, 0, datetime.now(UTC)), "en")
    assert isinstance(parts, Parts)
    lines = [p for p in parts.paragraphs if p.startswith(("1.", "2."))]
    assert lines[0].startswith("1. anna") and lines[1].startswith("2. bernd") and note in lines[1]
    # The rating: anna above bernd, as the places say.
    users = {u: site.accounts.user_by_name(u) for u in ("anna", "bernd")}
    rated = {u: site.ratings.ratings_of(users[u].id)["toypig"] for u in users}  # type: ignore[union-attr]
    assert rated["anna"].mu > rated["bernd"].mu
