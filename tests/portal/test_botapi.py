"""The bot API (issue 33): bot accounts, challenges, marking, and ratings kept apart from people's.

The stream itself runs against a live server in `test_botapi_stream.py`.
"""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import select

from ludothek import engine as eng
from ludothek.portal import create_app
from ludothek.storage.models import BotRating, Rating
from tests.portal.conftest import api_user, make_settings
from tests.portal.test_ratings import Expected, new_site, play
from tests.portal.toyrank import GAME as RANKGAME

if "toyrank" not in eng.games():
    eng.register(RANKGAME)


def new_bot(client: TestClient, owner: dict[str, str], name: str, **kw: Any) -> dict[str, str]:
    r = client.post("/api/v1/bots", json={"name": name, **kw}, headers=owner)
    assert r.status_code == 201, r.text
    assert r.json()["bot"]["name"] == name
    return {"Authorization": f"Bearer {r.json()['token']}"}


def challenge(client: TestClient, creator: dict[str, str], bot: str, game: str = "machikoro") -> int:
    r = client.post("/api/v1/games", json={"game": game, "players": 2,
                                           "seats": [{"kind": "me"}, {"kind": "invite", "user": bot}]}, headers=creator)
    assert r.status_code == 201, r.text
    return int(r.json()["id"])


def test_bot_accounts_are_registered_by_people(any_db: str) -> None:
    with TestClient(create_app(make_settings(any_db))) as client:
        ann = api_user(client, "ann")
        robo = new_bot(client, ann, "robo")
        me = client.get("/api/v1/me", headers=robo).json()
        assert me["name"] == "robo"
        mine = client.get("/api/v1/me/bots", headers=ann).json()
        assert [b["name"] for b in mine["bots"]] == ["robo"] and mine["bots"][0]["owner"] == "ann"
        assert client.get("/api/v1/bots/ROBO").json()["owner"] == "ann"
        assert client.get("/api/v1/bots/ann").status_code == 404  # a person is no bot account
        # Refusals, each changing nothing.
        assert client.post("/api/v1/bots", json={"name": "ROBO"}, headers=ann).status_code == 409
        assert client.post("/api/v1/bots", json={"name": "robo2"}, headers=robo).json()["code"] == "forbidden"
        guest = {"Authorization": "Bearer " + client.post("/api/v1/guests").json()["token"]}
        assert client.post("/api/v1/bots", json={"name": "gbot"}, headers=guest).status_code == 403
        assert client.post("/api/v1/bots", json={"name": "x"}, headers=ann).status_code == 422
        assert client.post("/api/v1/bots", json={"name": "robo3"}).status_code == 401
        assert [b["name"] for b in client.get("/api/v1/me/bots", headers=ann).json()["bots"]] == ["robo"]
        # A bot cannot log in with a password (it has none); its owner makes its tokens.
        assert client.post("/api/v1/tokens", json={"name": "robo", "password": "password-robo"}).status_code == 401
        second = client.post("/api/v1/bots/robo/tokens", json={"label": "laptop"}, headers=ann)
        assert second.status_code == 201
        assert client.get("/api/v1/me", headers={"Authorization": "Bearer " + second.json()["token"]}).json()["name"] == "robo"
        listed = client.get("/api/v1/bots/robo/tokens", headers=ann).json()
        assert [tk["label"] for tk in listed] == ["laptop", "bot"]
        # The owner revokes a bot's token (the bot has no password for its own DELETE /tokens/{id}).
        assert client.delete(f"/api/v1/bots/robo/tokens/{listed[0]['id']}", headers=ann).status_code == 204
        assert client.get("/api/v1/me", headers={"Authorization": "Bearer " + second.json()["token"]}).status_code == 401
        assert client.get("/api/v1/me", headers=robo).json()["name"] == "robo"
        bob = api_user(client, "bob")
        assert client.get("/api/v1/bots/robo/tokens", headers=bob).status_code == 404
        assert client.delete(f"/api/v1/bots/robo/tokens/{listed[1]['id']}", headers=bob).status_code == 404
        assert client.delete(f"/api/v1/bots/robo/tokens/{listed[0]['id']}", headers=ann).status_code == 404
        assert client.post("/api/v1/bots/robo/tokens", json={}, headers=bob).status_code == 404  # not bob's bot
        assert client.patch("/api/v1/bots/robo", json={"rated_with_people": True}, headers=bob).status_code == 404
        r = client.patch("/api/v1/bots/robo", json={"rated_with_people": True}, headers=ann)
        assert r.status_code == 200 and r.json()["rated_with_people"] is True
        # Its turns are handed on at once: no confirmation wait for a program.
        assert client.get("/api/v1/me/play", headers=robo).json()["handover_seconds"] == 0


def test_challenges_are_accepted_and_declined_by_the_bot_only(any_db: str) -> None:
    with TestClient(create_app(make_settings(any_db))) as client:
        ann, bob = api_user(client, "ann"), api_user(client, "bob")
        robo = new_bot(client, ann, "robo")
        other = new_bot(client, bob, "other")
        gid = challenge(client, ann, "robo")
        assert client.post("/api/v1/bot/challenge/999999/accept", headers=robo).status_code == 404
        assert client.post("/api/v1/bot/challenge/0/accept", headers=robo).status_code == 404
        refused = client.post(f"/api/v1/bot/challenge/{gid}/accept", headers=other)  # not addressed to it
        assert refused.status_code == 403 and refused.json()["code"] == "forbidden"
        person = client.post(f"/api/v1/bot/challenge/{gid}/accept", headers=bob)  # not a bot account
        assert person.status_code == 403
        assert client.get(f"/api/v1/games/{gid}", headers=ann).json()["status"] == "open"  # nothing changed
        r = client.post(f"/api/v1/bot/challenge/{gid}/accept", headers=robo)
        assert r.status_code == 200 and r.json() == {"id": gid, "answer": "accepted", "game": gid}
        game = client.get(f"/api/v1/games/{gid}", headers=robo).json()
        assert game["status"] == "running" and game["my_seat"] is not None
        again = client.post(f"/api/v1/bot/challenge/{gid}/decline", headers=robo)
        assert again.status_code == 409 and again.json()["code"] == "conflict"
        # Declining gives the seat back as an open one; a second answer is refused.
        gid2 = challenge(client, ann, "robo")
        assert client.post(f"/api/v1/bot/challenge/{gid2}/decline", headers=robo).json()["answer"] == "declined"
        seats = client.get(f"/api/v1/games/{gid2}", headers=ann).json()["seats"]
        assert [s["kind"] for s in seats] == ["player", "open"]
        assert client.post(f"/api/v1/bot/challenge/{gid2}/accept", headers=robo).status_code == 403
        # A challenge its creator called off.
        gid3 = challenge(client, ann, "robo")
        assert client.post(f"/api/v1/games/{gid3}/cancel", headers=ann).status_code in (200, 204)
        assert client.post(f"/api/v1/bot/challenge/{gid3}/accept", headers=robo).status_code == 409


def test_a_bot_cannot_act_for_another_user(tmp_path: Any) -> None:
    with TestClient(create_app(make_settings(f"sqlite:///{tmp_path / 'a.sqlite3'}"))) as client:
        ann = api_user(client, "ann")
        robo = new_bot(client, ann, "robo")
        gid = challenge(client, ann, "robo")
        client.post(f"/api/v1/bot/challenge/{gid}/accept", headers=robo)
        game = client.get(f"/api/v1/games/{gid}", headers=ann).json()
        mover = ann if game["my_turn"] else robo
        waiter = robo if mover is ann else ann
        state = client.get(f"/api/v1/games/{gid}", headers=mover).json()
        move = {"action": state["legal"][0]["action"], "seq": state["seq"]}
        r = client.post(f"/api/v1/games/{gid}/actions", json=move, headers=waiter)
        assert r.status_code == 409 and r.json()["code"] == "not_your_turn"
        # Nor in a game it has no seat in, nor on its owner's behalf through the owner's endpoints.
        lone = client.post("/api/v1/games", json={"game": "machikoro", "players": 2,
                                                  "seats": [{"kind": "me"}, {"kind": "bot"}]}, headers=ann).json()
        if lone["my_turn"]:
            own = client.get(f"/api/v1/games/{lone['id']}", headers=ann).json()
            r = client.post(f"/api/v1/games/{lone['id']}/actions",
                            json={"action": own["legal"][0]["action"], "seq": own["seq"]}, headers=robo)
            assert r.status_code == 403
        assert client.get("/api/v1/me/bots", headers=robo).json()["bots"] == []
        assert client.post("/api/v1/bots/robo/tokens", json={}, headers=robo).status_code == 404
        assert client.get(f"/api/v1/games/{gid}", headers=ann).json()["seq"] == game["seq"]


def test_a_bot_account_is_marked_in_answers_and_pages(tmp_path: Any) -> None:
    with TestClient(create_app(make_settings(f"sqlite:///{tmp_path / 'm.sqlite3'}"))) as client:
        ann = api_user(client, "ann")
        robo = new_bot(client, ann, "robo")
        gid = challenge(client, ann, "robo")
        seats = client.get(f"/api/v1/games/{gid}", headers=ann).json()["seats"]
        assert [(s["kind"], s["bot_account"]) for s in seats] == [("player", False), ("invited", True)]
        client.post(f"/api/v1/bot/challenge/{gid}/accept", headers=robo)
        seats = client.get(f"/api/v1/games/{gid}", headers=ann).json()["seats"]
        assert {s["name"]: s["bot_account"] for s in seats} == {"ann": False, "robo": True}
        listed = client.get("/api/v1/games?which=mine", headers=ann).json()["items"][0]["seats"]
        assert {s["name"]: s["bot_account"] for s in listed} == {"ann": False, "robo": True}
        assert client.get("/api/v1/users/robo").json()["bot_owner"] == "ann"
        assert client.get("/api/v1/users/ann").json()["bot_owner"] is None
        page = client.get(f"/games/{gid}").text
        assert page.count('class="chip bot-account"') >= 1
        profile = client.get("/users/robo").text
        assert 'id="bot-mark"' in profile and "ann" in profile
        assert 'id="bot-mark"' not in client.get("/users/ann").text
        assert client.get("/bot-leaderboard/machikoro").status_code == 200
        assert client.get("/bot-leaderboard/nosuchgame").status_code == 404
        assert client.get("/api/v1/bot-leaderboard/machikoro").json()["rows"] == []


def test_bots_are_rated_among_bots_and_among_people_only_when_opted_in(any_db: str) -> None:
    site = new_site(any_db)
    ann = site.accounts.register("ann", "password-ann")
    bob = site.accounts.register("bob", "password-bob")
    users: dict[str, Any] = {"ann": ann, "bob": bob,
             "bot1": site.accounts.user(site.botaccounts.register(ann, "bot1").id),
             "bot2": site.accounts.user(site.botaccounts.register(bob, "bot2").id)}

    def rated(table: Any) -> dict[str, int]:
        with site.engine.begin() as conn:
            rows = conn.execute(select(table.user_id, table.games).where(table.game == "toyrank")).all()
        names = {u.id: n for n, u in users.items()}
        return {names[r.user_id]: r.games for r in rows}

    # A person against a bot account: nobody is rated among people; one bot is no bot game.
    play(site, users, {"ann": 3, "bot1": 5})
    assert rated(Rating) == {} and rated(BotRating) == {}
    # Two bot accounts and a person: the bots among bots; the person alone is not rated.
    play(site, users, {"ann": 1, "bot1": 5, "bot2": 3})
    assert rated(Rating) == {} and rated(BotRating) == {"bot1": 1, "bot2": 1}
    expected = Expected()
    expected.game({"bot1": 1, "bot2": 2})
    with site.engine.begin() as conn:
        bot1 = conn.execute(select(BotRating.mu, BotRating.wins).where(BotRating.user_id == users["bot1"].id)).one()
    assert abs(bot1.mu - expected.ratings["bot1"].mu) < 1e-9 and bot1.wins == 1
    # Two people and a bot account: the people among themselves, as with the site's own bots.
    play(site, users, {"ann": 2, "bob": 4, "bot1": 9})
    assert rated(Rating) == {"ann": 1, "bob": 1}
    # Opted in, bot1 counts as a person too.
    site.botaccounts.set_rated_with_people(ann, "bot1", True)
    play(site, users, {"bob": 2, "bot1": 4})
    assert rated(Rating) == {"ann": 1, "bob": 2, "bot1": 1}
    assert rated(BotRating) == {"bot1": 1, "bot2": 1}
    # Recomputing applies today's choices to every game: bot1 is opted in now, so all four of its games
    # count among people (ann's first two as well); bot2 is not, so it stays out.
    site.ratings.recompute_ratings()
    assert rated(Rating) == {"ann": 3, "bob": 2, "bot1": 4}
    for _ in range(4):
        play(site, users, {"bot1": 6, "bot2": 1})
    board, total = site.botaccounts.leaderboard("toyrank")
    assert total == 2 and [r.name for r in board] == ["bot1", "bot2"] and board[0].owner == "ann"


def test_the_owner_registers_and_manages_bots_on_their_page(tmp_path: Any) -> None:
    from tests.portal.conftest import page_login

    with TestClient(create_app(make_settings(f"sqlite:///{tmp_path / 'p.sqlite3'}"))) as client:
        csrf = page_login(client, "ann")
        assert 'id="bots-link"' in client.get("/account").text
        assert client.post("/account/bots", data={"csrf": "wrong", "name": "robo"}).status_code == 403
        page = client.post("/account/bots", data={"csrf": csrf, "name": "robo"})
        assert page.status_code == 200 and 'id="new-bot-token"' in page.text
        token = page.text.split('id="new-bot-token"')[1].split(">")[1].split("<")[0]
        assert client.get("/api/v1/me", headers={"Authorization": f"Bearer {token}"}).json()["name"] == "robo"
        again = client.post("/account/bots", data={"csrf": csrf, "name": "robo"})
        assert again.status_code == 409 and 'id="bots-error"' in again.text
        # A new token needs the owner's password; a wrong one changes nothing.
        wrong = client.post("/account/bots/robo/token", data={"csrf": csrf, "password": "not-the-password"})
        assert wrong.status_code == 401 and 'id="new-bot-token"' not in wrong.text
        right = client.post("/account/bots/robo/token", data={"csrf": csrf, "password": "password-ann"})
        assert 'id="new-bot-token"' in right.text
        client.post("/account/bots/robo/rated", data={"csrf": csrf, "rated_with_people": "on"})
        assert client.get("/api/v1/bots/robo").json()["rated_with_people"] is True
        client.post("/account/bots/robo/rated", data={"csrf": csrf})
        assert client.get("/api/v1/bots/robo").json()["rated_with_people"] is False
        assert client.post("/account/bots/nobot/rated", data={"csrf": csrf}).status_code == 404


def test_the_streams_news_follow_the_snapshots() -> None:
    """`news` by itself: what a stream tells for each change of the bot's state, and nothing twice."""
    from datetime import UTC, datetime

    from ludothek.portal.live.botstream import Told, news
    from ludothek.services.botaccounts import Challenge, EndedGame, RunningGame, Snapshot

    now = datetime.now(UTC)
    told = Told()
    snap = Snapshot(challenges={5: Challenge(5, "toypig", 2, {}, "ann", now)},
                    running={3: RunningGame(3, "toypig", 7, 1, True)})
    assert [e["type"] for e in news(told, snap)] == ["challenge", "game_start", "your_turn"]
    assert news(told, snap) == []  # the same state: nothing new
    snap = Snapshot(challenges={}, running={3: RunningGame(3, "toypig", 9, 1, False)},
                    ended={5: EndedGame(5, "toypig", "open", None, True)})
    assert news(told, snap) == []  # accepted, waiting for players; not the bot's turn
    snap = Snapshot(running={3: RunningGame(3, "toypig", 11, 1, True), 5: RunningGame(5, "toypig", 2, 0, True)})
    assert [(e["type"], e.get("game"), e.get("seq")) for e in news(told, snap)] == [
        ("game_start", 5, 2), ("your_turn", 3, 11), ("your_turn", 5, 2)]
    snap = Snapshot(running={5: RunningGame(5, "toypig", 2, 0, True)},
                    ended={3: EndedGame(3, "toypig", "running", None, False)})
    assert news(told, snap) == [{"type": "game_end", "game": 3, "status": "left", "place": None}]
