"""Web Push (issue 30): subscriptions, the site's VAPID keys, the push channel against a stand-in push
service that verifies the signature and decrypts the payload, the API and account page, and the
installable site's files (/sw.js, /manifest.webmanifest, /offline)."""

from __future__ import annotations

import base64
import json
import multiprocessing
import re
import socket
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from py_vapid import Vapid

from ludothek.portal import create_app
from ludothek.services import Site
from ludothek.services.push import MAX_DEVICES, Device, Push, check_endpoint, load_private_key, public_key_of
from ludothek.storage import BadRequest, Conflict, NotFound, make_engine, migrate
from ludothek.workers.channels.base import (
    Delivery,
    Failed,
    Message,
    Notice,
    Retry,
    Sent,
    Skipped,
    retry_after,
)
from ludothek.workers.channels.push import PushChannel, push_channel
from tests.portal.conftest import FAST_HASHER, api_user, csrf_of, make_settings, page_login
from tests.portal.push_service import PushService, push_service

SUBJECT = "mailto:operator@example.org"
NOW = datetime(2026, 11, 29, 10, 0, tzinfo=UTC)


def make_site(url: str) -> Site:
    engine = make_engine(url)
    migrate(engine)
    return Site(engine, hasher=FAST_HASHER)


@pytest.fixture
def site(tmp_path: Path) -> Site:
    return make_site(f"sqlite:///{tmp_path / 'push.sqlite3'}")


@pytest.fixture
def channel(site: Site) -> PushChannel:
    return push_channel(site.push, subject=SUBJECT, allow_loopback=True)


@pytest.fixture
def service(channel: PushChannel) -> Any:
    with push_service(channel.public_key) as s:
        yield s


def subscribe(site: Site, service: PushService, user_id: int, name: str) -> Device:
    sub = service.subscription(name)
    return site.push.subscribe(user_id, sub["endpoint"], sub["keys"]["p256dh"], sub["keys"]["auth"], name)


def delivery(device: Device, kind: str = "turn", game_id: int | None = 12) -> Delivery:
    notice = Notice(id=7, user_id=device.user_id, kind=kind, game_id=game_id, seq=3,
                    payload={"secret": "never-in-a-push"}, created_at=NOW)
    return Delivery(id=1, channel="push", target=device.id, notice=notice, attempts=0)


MESSAGE = Message("de", "Du bist am Zug", "Machi Koro #12 – anna, bernd", "/games/12")


# ----------------------------------------------------------------------------- VAPID keys
def test_keys_are_made_once_and_kept(site: Site) -> None:
    first = site.push.vapid_keys(SUBJECT)
    again = site.push.vapid_keys(SUBJECT)
    assert first == again and first.subject == SUBJECT
    # the stored public key is the private key's, as the browsers' applicationServerKey (65-byte point)
    assert public_key_of(Vapid.from_pem(first.private_pem.encode())) == first.public_key
    assert len(base64.urlsafe_b64decode(first.public_key + "=")) == 65


def _start_and_report(url: str, barrier: Any, out: Any) -> None:
    engine = make_engine(url)
    push = Push(Site(engine, hasher=FAST_HASHER).db)
    barrier.wait()
    out.put(push.vapid_keys(SUBJECT).public_key)


@pytest.mark.parametrize("processes", [2, 4])
def test_processes_starting_at_once_end_with_one_key_pair(any_db: str, processes: int) -> None:
    migrate(make_engine(any_db))
    ctx = multiprocessing.get_context("spawn")
    barrier, out = ctx.Barrier(processes), ctx.Queue()
    procs = [ctx.Process(target=_start_and_report, args=(any_db, barrier, out)) for _ in range(processes)]
    for p in procs:
        p.start()
    keys = [out.get(timeout=120) for _ in procs]
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    assert len(set(keys)) == 1
    assert make_site(any_db).push.vapid_keys(SUBJECT).public_key == keys[0]


def test_a_configured_key_wins_over_the_database(site: Site, tmp_path: Path) -> None:
    vapid = Vapid()
    vapid.generate_keys()
    pem = vapid.private_pem().decode()
    raw = vapid.private_key.private_numbers().private_value.to_bytes(32, "big")
    raw_b64 = base64.urlsafe_b64encode(raw).rstrip(b"=").decode()
    expected = public_key_of(vapid)
    assert site.push.vapid_keys(SUBJECT, pem).public_key == expected
    assert site.push.vapid_keys(SUBJECT, raw_b64).public_key == expected
    key_file = tmp_path / "vapid.pem"
    key_file.write_text(pem)
    assert push_channel(site.push, subject=SUBJECT, private_key_file=str(key_file)).public_key == expected
    # ... and nothing was written to the database
    assert site.push._key_row() is None


@pytest.mark.parametrize("bad", ["not a key", "AAAA", "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----"])
def test_a_bad_configured_key_is_a_clear_error(bad: str) -> None:
    with pytest.raises(ValueError, match="VAPID private key"):
        load_private_key(bad)


@pytest.mark.parametrize("subject", ["operator@example.org", "http://example.org", "mailto:nobody", ""])
def test_a_bad_subject_is_a_clear_error(site: Site, subject: str) -> None:
    with pytest.raises(ValueError, match="VAPID subject"):
        site.push.vapid_keys(subject)


def test_a_missing_key_file_is_a_clear_error(site: Site, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="cannot read the VAPID private key file"):
        push_channel(site.push, subject=SUBJECT, private_key_file=str(tmp_path / "none.pem"))


# ----------------------------------------------------------------------------- subscriptions
def test_subscribe_update_list_and_unsubscribe(site: Site, service: PushService) -> None:
    anna = site.accounts.register("anna", "password-anna").id
    bernd = site.accounts.register("bernd", "password-bernd").id
    phone = subscribe(site, service, anna, "phone")
    assert [d.label for d in site.push.devices(anna)] == ["phone"]
    # The same endpoint again (new keys: the browser renewed them) updates the row.
    renewed = service.browser("phone")
    again = site.push.subscribe(anna, phone.endpoint, renewed.p256dh, renewed.auth_b64, "  my   phone ")
    assert again.id == phone.id and again.p256dh == renewed.p256dh and again.label == "my phone"
    assert len(site.push.devices(anna)) == 1
    # Another login on the same browser: the device moves.
    moved = site.push.subscribe(bernd, phone.endpoint, renewed.p256dh, renewed.auth_b64, "shared")
    assert moved.id == phone.id and site.push.devices(anna) == [] and site.push.device_ids(bernd) == [phone.id]
    with pytest.raises(NotFound):
        site.push.unsubscribe(anna, phone.id)  # not hers any more
    site.push.unsubscribe(bernd, phone.id)
    assert site.push.devices(bernd) == []


def test_a_user_has_at_most_so_many_devices(site: Site, service: PushService) -> None:
    anna = site.accounts.register("anna", "password-anna").id
    devices = [subscribe(site, service, anna, f"d{i}") for i in range(MAX_DEVICES)]
    with pytest.raises(Conflict):
        subscribe(site, service, anna, "one-more")
    # an update of a known device is still fine
    browser = service.browsers["d0"]
    site.push.subscribe(anna, devices[0].endpoint, browser.p256dh, browser.auth_b64, "d0")
    assert len(site.push.devices(anna)) == MAX_DEVICES


@pytest.mark.parametrize("endpoint", [
    "http://push.example.org/x", "ftp://push.example.org/x", "https://127.0.0.1/x", "https://10.1.2.3/x",
    "https://[::1]/x", "https://localhost/x", "https://user:pw@push.example.org/x", "https:///x",
    "https://push.example.org/x#frag", "https://push.example.org/" + "a" * 2048, "https://push.exa mple.org/x",
    "javascript:alert(1)", "https://push.example.org:0/x", "https://169.254.169.254/latest", 12, None,
    "https://push.example.org/\x00",
])
def test_bad_endpoints_are_refused(endpoint: Any) -> None:
    with pytest.raises(BadRequest):
        check_endpoint(endpoint)


def test_good_endpoints_pass() -> None:
    for endpoint in ("https://fcm.googleapis.com/fcm/send/abc:def", "https://updates.push.services.mozilla.com/wpush/v2/gAAA",
                     "https://web.push.apple.com/QGx", "https://wns2-par02p.notify.windows.com/w/?token=BQYAAA%2f"):
        assert check_endpoint(endpoint) == endpoint
    assert check_endpoint("http://127.0.0.1:8123/push/x", allow_loopback=True) == "http://127.0.0.1:8123/push/x"
    with pytest.raises(BadRequest):
        check_endpoint("http://10.0.0.1/push/x", allow_loopback=True)


def test_bad_keys_are_refused_and_nothing_is_stored(site: Site, service: PushService) -> None:
    anna = site.accounts.register("anna", "password-anna").id
    sub = service.subscription("phone")
    p256dh, auth = sub["keys"]["p256dh"], sub["keys"]["auth"]
    not_on_curve = "BA" + "A" * 85
    for bad_p256dh, bad_auth in [("", auth), ("!!!", auth), (not_on_curve, auth), (p256dh[:40], auth),
                                 (p256dh, ""), (p256dh, "AAAA"), (p256dh, auth + auth), (p256dh, "a b")]:
        with pytest.raises(BadRequest):
            site.push.subscribe(anna, sub["endpoint"], bad_p256dh, bad_auth)
    with pytest.raises(BadRequest):
        site.push.subscribe(anna, sub["endpoint"], p256dh, auth, "x" * 81)
    assert site.push.devices(anna) == []


# ----------------------------------------------------------------------------- the channel
def test_a_push_is_signed_encrypted_and_carries_no_secrets(site: Site, channel: PushChannel,
                                                           service: PushService) -> None:
    anna = site.accounts.register("anna", "password-anna").id
    phone = subscribe(site, service, anna, "phone")
    laptop = subscribe(site, service, anna, "laptop")
    assert channel.targets(anna, "turn") == [phone.id, laptop.id]
    for target in (phone, laptop):
        assert channel.deliver(delivery(target), MESSAGE, NOW) == Sent()
    assert service.refused == []
    assert [r.browser for r in service.received] == ["phone", "laptop"]
    for got in service.received:
        assert got.payload == {"kind": "turn", "game": 12, "title": "Du bist am Zug",
                               "body": "Machi Koro #12 – anna, bernd", "path": "/games/12", "lang": "de"}
        assert got.claims["sub"] == SUBJECT and got.claims["aud"] == service.origin
        assert got.headers["topic"] == "turn-12" and got.headers["urgency"] == "normal"
        text = json.dumps(got.payload)
        for secret in ("never-in-a-push", phone.endpoint, phone.auth, laptop.auth, "password", "token"):
            assert secret not in text
    assert site.push.device(phone.id).last_success_at is not None  # type: ignore[union-attr]


@pytest.mark.parametrize("status", [404, 410])
def test_a_gone_subscription_is_removed(site: Site, channel: PushChannel, service: PushService, status: int) -> None:
    anna = site.accounts.register("anna", "password-anna").id
    phone = subscribe(site, service, anna, "phone")
    laptop = subscribe(site, service, anna, "laptop")
    service.answer("phone", status)
    outcome = channel.deliver(delivery(phone), MESSAGE, NOW)
    assert isinstance(outcome, Failed) and outcome.gone
    assert site.push.device_ids(anna) == [laptop.id]
    # a retry of the same delivery finds nothing to send to
    assert isinstance(channel.deliver(delivery(phone), MESSAGE, NOW), Skipped)


def test_429_retries_after_what_retry_after_says(site: Site, channel: PushChannel, service: PushService) -> None:
    anna = site.accounts.register("anna", "password-anna").id
    phone = subscribe(site, service, anna, "phone")
    service.answer("phone", 429, {"Retry-After": "120"})
    assert channel.deliver(delivery(phone), MESSAGE, NOW) == Retry(
        "the push service asks to slow down (429)", timedelta(seconds=120))
    now = datetime.now(UTC).replace(microsecond=0)
    service.answer("phone", 429, {"Retry-After": format_datetime(now + timedelta(minutes=10), usegmt=True)})
    outcome = channel.deliver(delivery(phone), MESSAGE, now)
    assert isinstance(outcome, Retry) and outcome.after == timedelta(minutes=10)
    service.answer("phone", 429)
    outcome = channel.deliver(delivery(phone), MESSAGE, now)
    assert isinstance(outcome, Retry) and outcome.after is None  # the channel's back-off
    assert site.push.device_ids(anna) == [phone.id]


def test_retry_after_forms() -> None:
    assert retry_after("30", NOW) == timedelta(seconds=30)
    assert retry_after("Sun, 29 Nov 2026 10:05:00 GMT", NOW) == timedelta(minutes=5)
    assert retry_after("Sun, 29 Nov 2026 09:00:00 GMT", NOW) == timedelta(0)
    assert retry_after("9999999", NOW) == timedelta(days=1)
    assert retry_after("soon", NOW) is None and retry_after(None, NOW) is None and retry_after("-5", NOW) is None


@pytest.mark.parametrize(("status", "kind"), [(500, Retry), (503, Retry), (400, Failed), (403, Failed),
                                              (413, Failed), (302, Failed), (307, Failed)])
def test_other_answers(site: Site, channel: PushChannel, service: PushService, status: int, kind: type) -> None:
    anna = site.accounts.register("anna", "password-anna").id
    phone = subscribe(site, service, anna, "phone")
    # a redirect is never followed (it could point inside the network)
    service.answer("phone", status, {"Location": service.endpoint("elsewhere")})
    outcome = channel.deliver(delivery(phone), MESSAGE, NOW)
    assert isinstance(outcome, kind) and not getattr(outcome, "gone", False)
    assert site.push.device_ids(anna) == [phone.id] and service.received == []


def test_no_answer_is_retried(site: Site, channel: PushChannel, service: PushService) -> None:
    anna = site.accounts.register("anna", "password-anna").id
    phone = subscribe(site, service, anna, "phone")
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    browser = service.browsers["phone"]
    dead = site.push.subscribe(anna, f"http://127.0.0.1:{port}/push/phone", browser.p256dh, browser.auth_b64)
    assert isinstance(channel.deliver(delivery(dead), MESSAGE, NOW), Retry)
    assert channel.deliver(delivery(phone), MESSAGE, NOW) == Sent()


def test_private_addresses_are_never_sent_to_in_production(site: Site, service: PushService) -> None:
    """Without the tests' loopback allowance the channel refuses a host that resolves inside the network
    (an endpoint stored before a DNS change, say), before any request is made."""
    anna = site.accounts.register("anna", "password-anna").id
    phone = subscribe(site, service, anna, "phone")
    strict = PushChannel(site.push, site.push.vapid_keys(SUBJECT))
    outcome = strict.deliver(delivery(phone), MESSAGE, NOW)
    assert isinstance(outcome, Failed) and "private address" in outcome.error and not outcome.gone
    assert service.received == []


def test_targets(site: Site, channel: PushChannel, service: PushService) -> None:
    anna = site.accounts.register("anna", "password-anna").id
    bernd = site.accounts.register("bernd", "password-bernd").id
    phone = subscribe(site, service, anna, "phone")
    assert channel.targets(bernd, "turn") == []
    for kind in ("verify", "reset", "email_changed", "digest"):
        assert channel.targets(anna, kind) == []  # mail only
    picky = PushChannel(site.push, channel.keys, prefs=lambda user, kind: kind == "turn")
    assert picky.targets(anna, "turn") == [phone.id] and picky.targets(anna, "ended") == []
    assert PushChannel(site.push, channel.keys, on=False).targets(anna, "turn") == []
    assert channel.enabled() and channel.name == "push" and len(channel.backoff) >= 3
    # a delivery for a device that now belongs to someone else is skipped
    moved = site.push.subscribe(bernd, phone.endpoint, phone.p256dh, phone.auth)
    assert isinstance(channel.deliver(delivery(phone), MESSAGE, NOW), Skipped) and moved.id == phone.id


def test_an_unusable_browser_key_fails_without_raising(site: Site, channel: PushChannel, service: PushService) -> None:
    anna = site.accounts.register("anna", "password-anna").id
    phone = subscribe(site, service, anna, "phone")
    broken = Device(phone.id, anna, phone.endpoint, "BAAA", phone.auth, "", NOW, None)
    assert isinstance(channel.send(broken, delivery(phone).notice, MESSAGE, NOW), Failed)


# ----------------------------------------------------------------------------- API and account page
@pytest.fixture
def portal(tmp_path: Path) -> Any:
    app = create_app(make_settings(f"sqlite:///{tmp_path / 'portal.sqlite3'}", push_allow_loopback=True))
    with TestClient(app) as client, push_service(app.state.portal.push.public_key) as service:
        yield client, service


def test_api_subscribe_list_test_and_unsubscribe(portal: Any) -> None:
    client, service = portal
    anna = api_user(client, "anna")
    key = client.get("/api/v1/push/public-key").json()["public_key"]
    assert key == service.site_key
    r = client.post("/api/v1/me/push/devices", json={**service.subscription("phone"), "label": "Firefox · Android"},
                    headers=anna)
    assert r.status_code == 201, r.text
    device = r.json()
    assert device["label"] == "Firefox · Android" and device["last_success_at"] is None and "endpoint" not in device
    r = client.post("/api/v1/me/push/test", headers=anna)
    assert r.json() == {"sent": 1, "failed": 0, "gone": 0}
    assert service.received[0].payload["title"] == "Ludothek test notification"
    assert service.received[0].payload["path"] == "/account#push"
    listed = client.get("/api/v1/me/push/devices", headers=anna).json()
    assert [d["id"] for d in listed["devices"]] == [device["id"]] and listed["devices"][0]["last_success_at"]
    bernd = api_user(client, "bernd")
    assert client.delete(f"/api/v1/me/push/devices/{device['id']}", headers=bernd).status_code == 404
    assert client.post("/api/v1/me/push/unsubscribe", json={"endpoint": service.endpoint("phone")},
                       headers=bernd).status_code == 404
    assert client.delete(f"/api/v1/me/push/devices/{device['id']}", headers=anna).status_code == 204
    assert client.get("/api/v1/me/push/devices", headers=anna).json()["devices"] == []
    client.post("/api/v1/me/push/devices", json=service.subscription("tablet"), headers=anna)
    assert client.post("/api/v1/me/push/unsubscribe", json={"endpoint": service.endpoint("tablet")},
                       headers=anna).status_code == 204
    assert client.get("/api/v1/me/push/devices", headers=anna).json()["devices"] == []


def test_api_refuses_bad_subscriptions(portal: Any) -> None:
    client, service = portal
    anna = api_user(client, "anna")
    good = service.subscription("phone")
    bad_bodies = [
        {**good, "endpoint": "http://push.example.org/x"},
        {**good, "endpoint": "https://192.168.1.1/x"},
        {**good, "endpoint": "https://push.example.org/" + "x" * 3000},
        {**good, "keys": {"p256dh": "nope", "auth": good["keys"]["auth"]}},
        {**good, "keys": {"p256dh": good["keys"]["p256dh"], "auth": "short"}},
        {**good, "keys": {"p256dh": good["keys"]["p256dh"]}},
        {**good, "keys": "both"},
        {**good, "endpoint": 5},
        {**good, "label": "x" * 200},
        {"endpoint": good["endpoint"]},
        [],
    ]
    for body in bad_bodies:
        r = client.post("/api/v1/me/push/devices", json=body, headers=anna)
        assert r.status_code in (400, 422), (body, r.status_code, r.text)
        assert r.json()["code"] in ("bad_request", "malformed"), r.text
    assert client.get("/api/v1/me/push/devices", headers=anna).json()["devices"] == []
    assert client.post("/api/v1/me/push/devices", json=good).status_code == 401
    assert client.post("/api/v1/me/push/test").status_code == 401


def test_test_push_is_rate_limited_and_reports_gone_devices(portal: Any) -> None:
    client, service = portal
    anna = api_user(client, "anna")
    for name in ("phone", "old"):
        assert client.post("/api/v1/me/push/devices", json=service.subscription(name), headers=anna).status_code == 201
    service.answer("old", 410)
    assert client.post("/api/v1/me/push/test", headers=anna).json() == {"sent": 1, "failed": 1, "gone": 1}
    assert len(client.get("/api/v1/me/push/devices", headers=anna).json()["devices"]) == 1
    for _ in range(4):
        assert client.post("/api/v1/me/push/test", headers=anna).status_code == 200
    r = client.post("/api/v1/me/push/test", headers=anna)
    assert r.status_code == 429 and int(r.headers["Retry-After"]) > 0
    assert len(service.received) == 5


def test_account_page_section_forms(portal: Any) -> None:
    client, service = portal
    csrf = page_login(client, "anna")
    page = client.get("/account").text
    assert 'id="push-none"' in page and 'src="/static/push.js"' in page
    assert f'data-key="{service.site_key}"' in page
    sub = service.subscription("phone")
    r = client.post("/api/v1/me/push/devices", json={**sub, "label": "Chrome · Linux"},
                    headers={"X-CSRF-Token": csrf})
    assert r.status_code == 201, r.text
    device_id = r.json()["id"]
    page = client.get("/account").text
    assert "Chrome · Linux" in page and sub["endpoint"] not in page
    r = client.post("/account/push/test", data={"csrf": csrf})
    assert r.status_code == 200 and "accepted the test notification for 1 device (of 1)" in r.text
    client.post("/lang", data={"csrf": csrf, "lang": "de", "next": "/account"})
    page = client.get("/account").text
    assert "Push-Benachrichtigungen" in page and re.search(r"letzte Nachricht \d\d\.\d\d\.\d\d", page), page
    r = client.post(f"/account/push/devices/{device_id}/remove", data={"csrf": csrf}, follow_redirects=False)
    assert r.status_code == 303
    assert client.post(f"/account/push/devices/{device_id}/remove", data={"csrf": csrf}).status_code == 404
    assert client.post("/account/push/test", data={"csrf": "wrong"}).status_code in (400, 403)
    assert "Push-Benachrichtigungen" in client.get("/account").text


def test_push_off(tmp_path: Path) -> None:
    app = create_app(make_settings(f"sqlite:///{tmp_path / 'off.sqlite3'}", push=False))
    with TestClient(app) as client:
        assert client.get("/api/v1/push/public-key").status_code == 404
        page_login(client, "anna")
        assert 'id="push"' not in client.get("/account").text
        assert client.get("/sw.js").status_code == 200  # the offline shell works without push


# ----------------------------------------------------------------------------- the installable site
def test_manifest_service_worker_and_offline_page(portal: Any) -> None:
    client, _ = portal
    r = client.get("/manifest.webmanifest")
    assert r.status_code == 200 and r.headers["content-type"] == "application/manifest+json"
    manifest = r.json()
    assert manifest["display"] == "standalone" and manifest["start_url"] == "/" and manifest["short_name"]
    icons = {(i["sizes"], i.get("purpose", "any")) for i in manifest["icons"]}
    assert {("192x192", "any"), ("512x512", "any"), ("512x512", "maskable")} <= icons
    for icon in manifest["icons"]:
        got = client.get(icon["src"])
        assert got.status_code == 200 and got.headers["content-type"] == icon["type"]
        if icon["type"] == "image/png":
            width, height = int.from_bytes(got.content[16:20], "big"), int.from_bytes(got.content[20:24], "big")
            assert f"{width}x{height}" == icon["sizes"]
    assert client.get("/manifest.webmanifest?lang=de").json()["lang"] == "de"
    sw = client.get("/sw.js")
    assert sw.status_code == 200 and sw.headers["content-type"] == "text/javascript; charset=utf-8"
    assert sw.headers["cache-control"] == "no-cache"
    assert "__VERSION__" not in sw.text and "__SHELL__" not in sw.text
    shell = json.loads(re.search(r"const SHELL = (\[.*\]);", sw.text).group(1))  # type: ignore[union-attr]
    assert "/offline?lang=de" in shell and "/offline?lang=en" in shell
    for url in shell:
        assert client.get(url).status_code == 200, url
    assert "Du bist offline" in client.get("/offline?lang=de").text
    assert "You are offline" in client.get("/offline?lang=en").text
    home = client.get("/").text
    assert '<link rel="manifest" href="/manifest.webmanifest">' in home
    assert 'rel="apple-touch-icon" href="/static/icons/apple-touch-icon.png"' in home
    assert client.get("/static/icons/apple-touch-icon.png").status_code == 200
    assert csrf_of(client)
