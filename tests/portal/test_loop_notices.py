"""Being told what happened to one's games (issue 30, item 4): queued in the cause's transaction, mailed.

Before: nobody heard that their own time ran out, that an invitee declined (the named seat silently
became an open seat), that the other player offered or declined abandoning, or that someone added them
as a friend; and the offerer's button to withdraw read "Decline abandoning".
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from fastapi.testclient import TestClient

from ludothek.texts import t
from ludothek.texts.dates import local_when
from tests.portal.conftest import api_user, page_login
from tests.portal.mail_support import Sink, smtp_server
from tests.portal.test_mail import mail_app, send, set_lang, site_of, verified


@pytest.fixture
def smtp() -> Iterator[tuple[Sink, int]]:
    with smtp_server() as server:
        yield server


@pytest.fixture
def client(db_url: str, smtp: tuple[Sink, int]) -> Iterator[TestClient]:
    with TestClient(mail_app(db_url, smtp[1])) as c:
        yield c


@pytest.fixture
def sink(smtp: tuple[Sink, int]) -> Sink:
    return smtp[0]


KINDS = ("timed_out", "invite_declined", "abandon_offered", "abandon_declined", "friend_request")


def people(client: TestClient, sink: Sink) -> tuple[dict[str, str], dict[str, str]]:
    anna, bert = api_user(client, "anna"), api_user(client, "bert")
    verified(client, sink, anna, "anna@example.org")
    verified(client, sink, bert, "bert@example.org")
    set_lang(client, bert, "de")
    client.put("/api/me/notifications", json={"timezone": "Europe/Berlin"}, headers=bert)
    return anna, bert


def notices(client: TestClient) -> list[tuple[str, int]]:
    site = site_of(client)
    return [(r["kind"], r["user_id"]) for r in site.outbox.mail_rows() if r["kind"] in KINDS]


def uid(client: TestClient, h: dict[str, str]) -> int:
    return int(client.get("/api/me", headers=h).json()["id"])


def mails(client: TestClient, sink: Sink) -> dict[str, list[tuple[str, str]]]:
    send(client)
    out: dict[str, list[tuple[str, str]]] = {}
    for m in sink.take():
        out.setdefault(m.rcpt[0].split("@")[0], []).append((m.subject, m.text()))
    return out


def started(client: TestClient, anna: dict[str, str], bert: dict[str, str], tc: str | None = None) -> int:
    body: dict[str, object] = {"game": "toypig", "players": 2, "options": {"length": "long"}}
    if tc:
        body["time_control"] = tc
    gid = int(client.post("/api/games", json=body, headers=anna).json()["id"])
    assert client.post(f"/api/games/{gid}/join", headers=bert).status_code == 200
    return gid


def test_the_player_who_timed_out_is_told(client: TestClient, sink: Sink) -> None:
    anna, bert = people(client, sink)
    gid = started(client, anna, bert, "move:1")
    mails(client, sink)
    slow = anna if client.get(f"/api/games/{gid}", headers=anna).json()["my_turn"] else bert
    deadline = site_of(client).games.game(gid).deadline
    assert site_of(client).clocks.expire_due(datetime.now(UTC) + timedelta(days=1, minutes=1)) == [gid]
    assert notices(client) == [("timed_out", uid(client, slow))]
    got = mails(client, sink)
    name = "anna" if slow is anna else "bert"
    ((subject, text),) = [m for m in got[name] if "#" in m[0] and ("ran out" in m[0] or "abgelaufen" in m[0])]
    if slow is anna:
        assert subject == f"Pig #{gid}: your time ran out" and "bert" in text
        assert local_when(deadline, "en", "UTC") in text
    else:
        assert subject == f"Schweinchen #{gid}: Deine Zeit ist abgelaufen" and "anna" in text
        assert local_when(deadline, "de", "Europe/Berlin") in text
    assert not re.search(r"\d{4}-\d\d-\d\dT", text)  # no ISO time


def test_the_inviter_is_told_when_the_invitee_declines(client: TestClient, sink: Sink) -> None:
    anna, bert = people(client, sink)
    gid = client.post("/api/games", json={"game": "toypig", "players": 2,
                                          "seats": [{"kind": "me"}, {"kind": "invite", "user": "bert"}]},
                      headers=anna).json()["id"]
    mails(client, sink)
    assert client.post(f"/api/games/{gid}/leave", headers=bert).status_code == 200
    assert notices(client) == [("invite_declined", uid(client, anna))]
    ((subject, text),) = mails(client, sink)["anna"]
    assert subject == f"bert declined your invitation to Pig #{gid}"
    assert "open seat" in text


def test_abandoning_offered_declined_and_withdrawn_are_told_to_the_others(client: TestClient, sink: Sink) -> None:
    anna, bert = people(client, sink)
    gid = started(client, anna, bert)
    mails(client, sink)
    assert client.post(f"/api/games/{gid}/abandon", json={"agree": True}, headers=anna).status_code == 200
    assert notices(client) == [("abandon_offered", uid(client, bert))]
    got = mails(client, sink)
    ((subject, text),) = got["bert"]
    assert subject == f"Schweinchen #{gid}: anna schlägt vor, die Partie abzubrechen" and "ablehnen" in text
    assert client.post(f"/api/games/{gid}/abandon", json={"agree": False}, headers=bert).status_code == 200
    ((subject, text),) = mails(client, sink)["anna"]
    assert subject == f"Pig #{gid}: bert declined abandoning the game" and "goes on" in text
    # The offerer withdraws their own offer: told as a withdrawal.
    client.post(f"/api/games/{gid}/abandon", json={"agree": True}, headers=anna)
    mails(client, sink)
    client.post(f"/api/games/{gid}/abandon", json={"agree": False}, headers=anna)
    ((subject, _),) = mails(client, sink)["bert"]
    assert subject == f"Schweinchen #{gid}: anna hat den Vorschlag zum Abbruch zurückgezogen"
    # A decline with no offer standing tells nobody.
    before = len(notices(client))
    client.post(f"/api/games/{gid}/abandon", json={"agree": False}, headers=bert)
    assert len(notices(client)) == before


def test_a_withdrawn_offer_is_not_mailed_as_still_standing(client: TestClient, sink: Sink) -> None:
    anna, bert = people(client, sink)
    gid = started(client, anna, bert)
    mails(client, sink)
    client.post(f"/api/games/{gid}/abandon", json={"agree": True}, headers=anna)
    client.post(f"/api/games/{gid}/abandon", json={"agree": False}, headers=anna)
    got = mails(client, sink)  # both queued before the sender ran: only the withdrawal goes out
    assert [s for s, _ in got["bert"]] == [f"Schweinchen #{gid}: anna hat den Vorschlag zum Abbruch zurückgezogen"]
    # Push, webhooks and tabs say the same (the notice's Message), not "declined".
    site = site_of(client)
    said = site.messages.message(uid(client, bert), "abandon_declined", gid, None,
                                 {"by": uid(client, anna), "withdrawn": True}, datetime.now(UTC))
    assert said is not None and said.title == f"anna hat den Vorschlag zurückgezogen, Schweinchen #{gid} abzubrechen"


def test_someone_added_as_a_friend_is_told_once(client: TestClient, sink: Sink) -> None:
    anna, bert = people(client, sink)
    # By mail only for who asked for it (the account page's choices; tabs, webhooks tell by default).
    assert client.put("/api/friends/anna", headers=bert).status_code == 201
    assert "anna" not in mails(client, sink)
    site_of(client).notices.set(uid(client, bert), {"mail": {"friend_request": True}})
    assert client.put("/api/friends/bert", headers=anna).status_code == 201
    assert client.put("/api/friends/bert", headers=anna).status_code == 200  # again: not new, not told again
    assert notices(client)[-1:] == [("friend_request", uid(client, bert))]
    ((subject, text),) = mails(client, sink)["bert"]
    assert subject == "anna hat dich zu den Freunden hinzugefügt" and "/users/anna" in text


def test_the_offerer_withdraws_with_a_button_that_says_so(client: TestClient) -> None:
    csrf = page_login(client, "anna")  # the page's session: anna created the game and offers
    anna = {"X-CSRF-Token": csrf}
    gid = client.post("/api/games", json={"game": "toypig", "players": 2, "options": {"length": "long"}},
                      headers=anna).json()["id"]
    cleo = api_user(client, "cleo")
    client.post(f"/api/games/{gid}/join", headers=cleo)
    assert client.post(f"/api/games/{gid}/abandon", json={"agree": True}, headers=anna).status_code == 200
    page = client.get(f"/games/{gid}")
    button = re.search(r'id="abandon-decline">([^<]+)<', page.text)
    assert button is not None and button.group(1) == "Withdraw the offer"
    assert t("abandon_withdraw", "de") == "Vorschlag zurückziehen"
    page = client.get(f"/api/games/{gid}", headers=cleo)  # the other player still declines
    assert page.status_code == 200
