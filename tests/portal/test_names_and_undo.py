"""Issue 10: every text names people by their names, the end shows the score in its parts, and undo.

A game of each of the four games is played to the end through the API by
players with real names.  Along the way and at the end, every board page and
every API text (view labels, legal-action sentences, the log, refusals) is
scanned for "Player 1" / "Spieler 1" / "seat 0" style placeholders.
"""

from __future__ import annotations

import random
import re
from typing import Any

import pytest
from fastapi.testclient import TestClient

from ludothek import engine as eng
from ludothek.engine.registry import GAME_MODULES
from tests.portal.conftest import all_pages, page_login
from tests.portal.test_api import refused

NAMES = ["anna", "bruno", "carla", "dora"]
#: Seats per game: three where a game has them to spare, two for the others.
SEATS = {"machikoro": 3, "snowdonia": 3}
GAMES = [(game_id, SEATS.get(game_id, 2)) for game_id in GAME_MODULES]
#: A seat spoken of by number instead of by name, in either language.
PLACEHOLDER = re.compile(r"\b(?:Player|Spieler|player|seat|Seat|Platz) \d+\b")


def _user(client: TestClient, name: str, lang: str) -> dict[str, str]:
    r = client.post("/api/users", json={"name": name, "password": "password-" + name, "lang": lang})
    assert r.status_code == 201, r.text
    return {"Authorization": f"Bearer {r.json()['token']}"}


def _seated(client: TestClient, game_id: str, n: int, **options: str) -> tuple[int, dict[int, dict[str, str]]]:
    """A running game of ``n`` named players; anna and carla read German, bruno and dora English."""
    heads = [_user(client, name, "de" if i % 2 == 0 else "en") for i, name in enumerate(NAMES[:n])]
    body = {"game": game_id, "players": n, "options": options}
    gid = client.post("/api/games", json=body, headers=heads[0]).json()["id"]
    for h in heads[1:]:
        assert client.post(f"/api/games/{gid}/join", headers=h).status_code == 200
    site = client.app.state.portal.site  # type: ignore[attr-defined]
    info = site.games.game(gid)
    by_seat = {info.seat_of(client.get("/api/me", headers=h).json()["id"]): h for h in heads}
    return gid, by_seat


def _texts(obj: Any) -> list[str]:
    if isinstance(obj, str):
        return [obj]
    if isinstance(obj, dict):
        return [t for v in obj.values() for t in _texts(v)]
    if isinstance(obj, list):
        return [t for v in obj for t in _texts(v)]
    return []


def _scan(where: str, texts: list[str]) -> None:
    for text in texts:
        found = PLACEHOLDER.search(text)
        assert found is None, f"{where}: placeholder {found.group(0)!r} in {text[:300]!r}"


def _page_text(html: str) -> str:
    """The page as a person reads it: tag contents and titles, without scripts and attribute names."""
    html = re.sub(r"<script.*?</script>|<style.*?</style>", "", html, flags=re.S)
    titles = re.findall(r'(?:title|aria-label|alt)="([^"]*)"', html)
    return re.sub(r"<[^>]+>", " ", html) + " " + " ".join(titles)


@pytest.mark.parametrize(("game_id", "n"), GAMES)
def test_every_text_of_a_played_game_names_the_players(client: TestClient, game_id: str, n: int) -> None:
    gid, by_seat = _seated(client, game_id, n)
    site = client.app.state.portal.site  # type: ignore[attr-defined]
    info = site.games.game(gid)
    pages: list[tuple[str, TestClient]] = []
    for seat in range(n):  # each player's own board, logged in as a person is
        page_client = TestClient(client.app)
        page_login(page_client, info.seats[seat].name or "", register=False)
        pages.append((f"seat {seat}", page_client))
    for lang in ("de", "en"):  # and a visitor in each language
        pages.append((f"visitor {lang}?lang={lang}", TestClient(client.app)))
    rng = random.Random(5)
    for step in range(5000):
        info = site.games.game(gid)
        if step % 40 == 0 or info.status == "finished":
            for seat, h in [*by_seat.items(), (None, {})]:
                for lang in ("de", "en"):
                    g = client.get(f"/api/games/{gid}?lang={lang}", headers=h).json()
                    texts = _texts([g.get("legal"), g.get("log"), g.get("view"), g.get("seats")])
                    _scan(f"API {game_id} seat {seat} {lang} step {step}", texts)
            for who, page_client in pages:
                query = who.partition("?")[2]
                html = page_client.get(f"/games/{gid}?{query}").text
                _scan(f"page {game_id} {who} step {step}", [_page_text(html)])
        if info.status == "finished":
            break
        h = by_seat[info.to_move]
        g = client.get(f"/api/games/{gid}", headers=h).json()
        action = rng.choice(g["legal"])["action"]
        r = client.post(f"/api/games/{gid}/actions", json={"action": action, "seq": g["seq"]}, headers=h)
        assert r.status_code == 200, r.text
    else:
        raise AssertionError(f"{game_id} did not finish")
    # Refusals name seats by name too (another seat's undo, a move out of turn).
    other = next(h for s, h in by_seat.items() if s != info.to_move)
    r = client.post(f"/api/games/{gid}/undo", json={"seq": info.seq}, headers=other)
    assert r.status_code == 409
    _scan(f"undo refusal {game_id}", [r.json()["detail"]])
    # The end: each player's score in its parts, adding up, in the API and on the page.
    final = client.get(f"/api/games/{gid}", headers=by_seat[0]).json()
    scores = {r["seat"]: r["score"] for r in final["result"]}
    breakdown = final["view"]["breakdown"]
    assert sorted(b["seat"] for b in breakdown) == sorted(scores)
    for b in breakdown:
        assert sum(p["points"] for p in b["parts"] if p["points"] is not None) == pytest.approx(scores[b["seat"]])
    for lang in ("de", "en"):
        html = TestClient(client.app).get(f"/games/{gid}?lang={lang}").text
        # long labels carry soft hyphens (they break at syllables on a phone)
        table = html.split('id="breakdown"')[1].split("</table>")[0].replace("\u00ad", "")
        for b in breakdown:
            for p in b["parts"]:
                assert p["label"][lang] in table
        assert all(name in table for name in NAMES[:n])


def _rtta_turn_with_undo(client: TestClient) -> tuple[int, dict[int, dict[str, str]], dict[str, Any]]:
    """A Roll Through the Ages game where the mover has just made a decision it may take back."""
    gid, by_seat = _seated(client, "rolltheages", 2)
    site = client.app.state.portal.site  # type: ignore[attr-defined]
    for _ in range(200):
        info = site.games.game(gid)
        h = by_seat[info.to_move]
        g = client.get(f"/api/games/{gid}", headers=h).json()
        assert not g["can_undo"] or g["my_turn"]
        action = g["legal"][0]["action"]
        before = g
        r = client.post(f"/api/games/{gid}/actions", json={"action": action, "seq": g["seq"]}, headers=h).json()
        if r["can_undo"]:
            return gid, by_seat, {"before": before, "after": r, "mover": info.to_move, "action": action,
                                  "names": info.seat_names()}
    raise AssertionError("no undoable decision came up")


def test_undo_through_the_api_restores_the_position_and_is_stored(client: TestClient) -> None:
    gid, by_seat, t = _rtta_turn_with_undo(client)
    mover, after, before = t["mover"], t["after"], t["before"]
    other = by_seat[1 - mover]
    assert client.get(f"/api/games/{gid}", headers=other).json()["can_undo"] is False
    refused(client, "POST", f"/api/games/{gid}/undo", 409, "has acted since", json={"seq": after["seq"]},
            headers=other)
    refused(client, "POST", f"/api/games/{gid}/undo", 409, "stale", json={"seq": after["seq"] - 1},
            headers=by_seat[mover])
    refused(client, "POST", f"/api/games/{gid}/undo", 401, "log in", json={"seq": after["seq"]})
    r = client.post(f"/api/games/{gid}/undo", json={"seq": after["seq"]}, headers=by_seat[mover])
    assert r.status_code == 200, r.text
    undone = r.json()
    assert undone["seq"] == after["seq"] + 1
    assert undone["view"] == before["view"] and undone["legal"] == before["legal"]
    log = all_pages(client, f"/api/games/{gid}/log?lang=en", headers=other)
    assert log[-1]["action"] == eng.UNDO and log[-1]["text"] == f"{t['names'][mover]} takes back their last action."
    assert log[-2]["action"] == t["action"] and log[-2]["undone"] is True
    rec = client.get(f"/api/games/{gid}/record", headers=other).json()
    assert [a["action"] for a in rec["actions"][-2:]] == [t["action"], eng.UNDO]
    assert eng.replay(rec).view(mover) == undone["view"]
    # The same action again, sent as a plain move with action "undo", works the same way.
    client.post(f"/api/games/{gid}/actions", json={"action": t["action"], "seq": undone["seq"]},
                headers=by_seat[mover])
    again = client.post(f"/api/games/{gid}/actions", json={"action": eng.UNDO, "seq": undone["seq"] + 1},
                        headers=by_seat[mover])
    assert again.status_code == 200 and again.json()["view"] == before["view"]


def test_board_offers_undo_exactly_when_allowed(client: TestClient) -> None:
    gid, _, t = _rtta_turn_with_undo(client)
    mover = t["mover"]
    site = client.app.state.portal.site  # type: ignore[attr-defined]
    me = TestClient(client.app)
    csrf = page_login(me, t["names"][mover], register=False)
    other = TestClient(client.app)
    page_login(other, t["names"][1 - mover], register=False)
    assert 'id="undo"' in me.get(f"/games/{gid}").text
    assert 'id="undo"' not in other.get(f"/games/{gid}").text
    seq = site.games.game(gid).seq
    r = me.post(f"/games/{gid}/act", data={"csrf": csrf, "action": "undo", "seq": str(seq)},
                headers={"hx-request": "true"})
    assert r.status_code == 200
    assert site.games.game(gid).seq == seq + 1
    assert "<del" in r.text  # the undone action is struck through in the log
    # Walk back as far as allowed; then the button is gone and a forced undo is refused with a clear message.
    while 'id="undo"' in (page := me.get(f"/games/{gid}").text):
        seq = site.games.game(gid).seq
        me.post(f"/games/{gid}/act", data={"csrf": csrf, "action": "undo", "seq": str(seq)},
                headers={"hx-request": "true"})
    seq = site.games.game(gid).seq
    r = me.post(f"/games/{gid}/act", data={"csrf": csrf, "action": "undo", "seq": str(seq)},
                headers={"hx-request": "true"})
    assert r.status_code == 409 and 'id="undo"' not in page
    assert "can no longer be taken back" in r.text or "lässt sich nicht mehr zurücknehmen" in r.text
    assert site.games.game(gid).seq == seq
