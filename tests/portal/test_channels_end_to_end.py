"""Every channel end to end (issue 30): a real move → the app's notice worker → a Web Push the stand-in
push service decrypts and a webhook the local receiver checks the signature of.

The app is `create_app`'s, with the notice worker driven by the test (``mail_interval=0``) and loopback
allowed for both channels.  bert has one push device and one webhook; anna moves.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from fastapi.testclient import TestClient

from ludothek.portal import create_app
from ludothek.portal.app import make_mail_job
from ludothek.services.tracked import CHANCE_RNG
from ludothek.storage.models import utcnow
from ludothek.workers.mail_links import MailLinks
from tests.portal.conftest import api_user, make_settings, page_login
from tests.portal.push_service import PushService, push_service
from tests.portal.webhook_receiver import Answer, Receiver, running_receiver

BASE = "https://ludothek.example"


@dataclass
class World:
    client: TestClient
    service: PushService
    receiver: Receiver
    anna: dict[str, str]
    bert: dict[str, str]
    bert_id: int
    secret: str
    game: int
    #: Outbox rows up to this id are from before the last `anna_makes_it_berts_turn`.
    since: int = 0

    @property
    def site(self) -> Any:
        return self.client.app.state.portal.site  # type: ignore[attr-defined]

    def work(self) -> int:
        """One pass of the app's own notice worker (fan-out, then every channel), as its runner does it."""
        return int(self.client.app.state.mail_job.run_once(utcnow()))  # type: ignore[attr-defined]

    def delivered(self) -> dict[tuple[str, str], int]:
        """bert's deliveries by channel and status, of the notices since the last `anna_makes_it_berts_turn`."""
        rows = [r for r in self.site.deliveries.rows() if r["outbox_id"] in self.berts_notices()]
        out: dict[tuple[str, str], int] = {}
        for r in rows:
            out[r["channel"], r["status"]] = out.get((r["channel"], r["status"]), 0) + 1
        return out

    def berts_notices(self) -> set[int]:
        return {r["id"] for r in self.site.outbox.mail_rows() if r["user_id"] == self.bert_id and r["id"] > self.since}

    def turns_of_bert(self) -> int:
        return sum(1 for r in self.site.outbox.mail_rows() if r["kind"] == "turn" and r["user_id"] == self.bert_id)

    def anna_makes_it_berts_turn(self) -> None:
        """Hold until anna's hold leaves bert to move (bert holds when it is his turn, which tells anna,
        who has no push or webhook)."""
        self.since = max((r["id"] for r in self.site.outbox.mail_rows()), default=0)
        for _ in range(60):
            before = self.turns_of_bert()
            for h in (self.anna, self.bert):
                g = self.client.get(f"/api/games/{self.game}", headers=h).json()
                assert g["status"] == "running", g
                if g["my_turn"]:
                    r = self.client.post(f"/api/games/{self.game}/actions", json={"action": "hold", "seq": g["seq"]},
                                         headers=h)
                    assert r.status_code == 200, r.text
                    break
            if h is self.anna and self.turns_of_bert() == before + 1:
                return
            if h is self.bert:
                self.work()  # anna's turn notice: nothing for bert's channels
        raise AssertionError("anna never left bert to move")


@pytest.fixture
def world(any_db: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[World]:
    # Loaded dice: every die shows 2 and every bonus card is 1, so that a hold always hands the turn on (a 1
    # would throw it straight back) and the game lasts seven holds each (real dice end it in three).
    monkeypatch.setattr(CHANCE_RNG, "random", lambda: 0.2)
    settings = make_settings(any_db, mail_interval=0, jobs_interval=0, base_url=BASE, push_allow_loopback=True,
                             webhook_allow_loopback=True)
    app = create_app(settings)
    with TestClient(app) as client, push_service(app.state.portal.push.public_key) as service, \
            running_receiver() as receiver:
        anna, bert = api_user(client, "anna"), api_user(client, "bert")
        bert_id = int(client.get("/api/me", headers=bert).json()["id"])
        gid = int(client.post("/api/games", json={"game": "toypig", "players": 2, "options": {"length": "long"}},
                              headers=anna).json()["id"])
        assert client.post(f"/api/games/{gid}/join", headers=bert).json()["status"] == "running"
        app.state.mail_job.run_once(utcnow())  # the first turn's notice
        r = client.post("/api/v1/me/push/devices", json={**service.subscription("phone"), "label": "bert's phone"},
                        headers=bert)
        assert r.status_code == 201, r.text
        r = client.post("/api/v1/me/webhooks", json={"url": receiver.url(), "format": "generic"}, headers=bert)
        assert r.status_code == 201, r.text
        yield World(client, service, receiver, anna, bert, bert_id, r.json()["secret"], gid)


def players(world: World) -> str:
    """The game's players as the texts name them, in seat order."""
    names = [s["name"] for s in world.client.get(f"/api/games/{world.game}", headers=world.bert).json()["seats"]]
    assert sorted(names) == ["anna", "bert"]
    return " and ".join(names)


def check_push(world: World, got: Any) -> None:
    assert got.browser == "phone"
    assert got.payload == {"kind": "turn", "game": world.game, "title": f"Pig #{world.game}: your turn",
                           "body": f"anna moved. It is your turn in Pig #{world.game} with {players(world)}.",
                           "path": f"/games/{world.game}", "lang": "en"}


def check_hook(world: World, got: Any) -> None:
    assert got.signed_by(world.secret) and not got.signed_by("whsec_someone-else")
    body = got.json()
    assert body["kind"] == "turn" and body["game_id"] == world.game and body["lang"] == "en"
    assert body["title"] == f"Pig #{world.game}: your turn" and body["body"].startswith("anna moved. ")
    assert body["url"] == f"{BASE}/games/{world.game}"
    assert got.headers["x-ludothek-event"] == body["event_id"]


def test_a_move_reaches_push_and_webhook_once(world: World) -> None:
    world.anna_makes_it_berts_turn()
    world.work()
    assert world.delivered() == {("push", "sent"): 1, ("webhook", "sent"): 1, ("tab", "sent"): 1}, world.delivered()
    [pushed] = world.service.received
    check_push(world, pushed)
    assert world.service.refused == []
    [hooked] = world.receiver.received
    check_hook(world, hooked)
    # Once only: the worker again sends nothing more.
    assert world.work() == 0
    assert len(world.service.received) == 1 and len(world.receiver.received) == 1


def test_the_push_preference_stops_push_and_not_the_webhook(world: World) -> None:
    r = world.client.put("/api/me/notifications", json={"channels": {"push": {"turn": False}}}, headers=world.bert)
    assert r.status_code == 200 and r.json()["channels"]["push"]["turn"] is False
    assert r.json()["channels"]["webhook"]["turn"] is True
    world.anna_makes_it_berts_turn()
    world.work()
    assert world.service.received == []
    [hooked] = world.receiver.received
    check_hook(world, hooked)
    # ... and on again: the next turn is pushed again
    world.client.put("/api/me/notifications", json={"channels": {"push": {"turn": True}}}, headers=world.bert)
    world.anna_makes_it_berts_turn()
    world.work()
    [pushed] = world.service.received
    check_push(world, pushed)
    assert len(world.receiver.received) == 2


def test_a_gone_device_is_removed_and_the_webhook_still_gets_its_copy(world: World) -> None:
    world.service.answer("phone", 410)
    world.anna_makes_it_berts_turn()
    world.work()
    assert world.delivered() == {("push", "failed"): 1, ("webhook", "sent"): 1, ("tab", "sent"): 1}
    assert world.service.received == []
    assert world.client.get("/api/v1/me/push/devices", headers=world.bert).json()["devices"] == []
    [hooked] = world.receiver.received
    check_hook(world, hooked)
    # The next turn goes to the webhook alone (no device left to push to).
    world.anna_makes_it_berts_turn()
    world.work()
    assert len(world.receiver.received) == 2 and world.service.received == []


def test_a_failing_webhook_holds_back_no_push(world: World) -> None:
    world.receiver.answer(Answer(500))
    world.anna_makes_it_berts_turn()
    world.work()
    assert world.delivered() == {("push", "sent"): 1, ("webhook", "pending"): 1, ("tab", "sent"): 1}
    [pushed] = world.service.received
    check_push(world, pushed)
    assert world.receiver.received and not world.site.webhooks.hooks(world.bert_id)[0].last_status.startswith("ok")


def test_the_account_page_lists_push_and_webhook_preferences(any_db: str) -> None:
    settings = make_settings(any_db, mail_interval=0, jobs_interval=0, push_allow_loopback=True,
                             webhook_allow_loopback=True)
    with TestClient(create_app(settings)) as client:
        page_login(client, "carla")
        page = client.get("/account").text
        prefs = page[page.index('id="notice-prefs"'):]
        prefs = prefs[:prefs.index("</form>")]
        for channel in ("mail", "tab", "push", "webhook"):
            assert f'id="channel-{channel}"' in prefs, channel
        assert 'name="push.turn"' in prefs and 'name="webhook.turn"' in prefs
    with TestClient(create_app(make_settings(any_db, mail_interval=0, jobs_interval=0, push=False))) as client:
        page_login(client, "dora")
        page = client.get("/account").text
        assert 'id="channel-webhook"' in page and 'id="channel-push"' not in page


# ----------------------------------------------------------------------------- `ludothek worker`'s channels
def test_the_worker_builds_the_same_channels_from_the_settings(any_db: str) -> None:
    """`ludothek worker` builds its notice job with `make_mail_job` from the settings alone."""
    from ludothek.services import Site
    from ludothek.storage import make_engine, migrate

    engine = make_engine(any_db)
    migrate(engine)
    site = Site(engine)
    links = MailLinks("secret", BASE, 7)
    try:
        job = make_mail_job(make_settings(any_db, webhook_allow_loopback=True, webhook_max_failures=4,
                                          webhook_timeout=2.5), site, links)
        assert [c.name for c in job.channels] == ["mail", "tab", "push", "webhook"]
        assert site.webhooks.policy.allow_loopback and site.webhooks.policy.max_failures == 4
        assert site.webhooks.policy.timeout == 2.5
        webhook = next(c for c in job.channels if c.name == "webhook")
        assert webhook.enabled()
        job = make_mail_job(make_settings(any_db, push=False), site, links)
        assert [c.name for c in job.channels] == ["mail", "tab", "webhook"]
        assert not site.webhooks.policy.allow_loopback and site.webhooks.policy.max_failures == 10
        job = make_mail_job(make_settings(any_db, channels="webhook,push"), site, links)
        assert [c.name for c in job.channels] == ["webhook", "push"]
    finally:
        engine.dispose()


def test_each_channel_speaks_the_players_language(world: World) -> None:
    world.site.accounts.set_lang(world.bert_id, "de")
    world.site.notices.forget(world.bert_id)  # the fan-out remembers a recipient for two seconds
    world.anna_makes_it_berts_turn()
    world.work()
    [pushed] = world.service.received
    [hooked] = world.receiver.received
    for title, body in ((pushed.payload["title"], pushed.payload["body"]),
                        (hooked.json()["title"], hooked.json()["body"])):
        assert title == f"Schweinchen #{world.game}: Du bist am Zug"
        assert body == f"anna hat gezogen. Du bist am Zug in Schweinchen #{world.game} mit " \
                       f"{players(world).replace(' and ', ' und ')}."
    assert pushed.payload["lang"] == "de" and hooked.json()["lang"] == "de"
