"""Webhooks through the JSON API and the account page: add, list, test, switch on again, new secret, delete.

Bad input of every kind is refused with its reason and changes nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from fastapi.testclient import TestClient

from ludothek.portal import create_app
from ludothek.workers.channels.base import Delivery, Message, Notice
from ludothek.workers.channels.webhook import WebhookChannel
from tests.portal.conftest import api_user, make_settings, page_login
from tests.portal.webhook_receiver import Answer, Receiver, running_receiver


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with running_receiver() as r:
        yield r


def hook_app(db_url: str, **kw: Any) -> Any:
    kw.setdefault("webhook_allow_loopback", True)
    return create_app(make_settings(db_url, webhook_max_failures=2, **kw))


@pytest.fixture
def client(db_url: str) -> Iterator[TestClient]:
    with TestClient(hook_app(db_url)) as c:
        yield c


def site_of(client: TestClient) -> Any:
    return client.app.state.portal.site  # type: ignore[attr-defined]


def hooks_of(client: TestClient, headers: dict[str, str]) -> list[dict[str, Any]]:
    r = client.get("/api/v1/me/webhooks", headers=headers)
    assert r.status_code == 200, r.text
    return list(r.json()["webhooks"])


# ----------------------------------------------------------------------------- API
def test_the_api_adds_lists_tests_changes_and_deletes(client: TestClient, receiver: Receiver) -> None:
    h = api_user(client, "anna")
    r = client.post("/api/v1/me/webhooks", json={"url": receiver.url(), "format": "generic", "label": "bot"},
                    headers=h)
    assert r.status_code == 201, r.text
    hook = r.json()
    assert hook["enabled"] and hook["secret"].startswith("whsec_") and hook["label"] == "bot"
    assert client.get("/api/v1/me/webhooks", headers=h).json()["limit"] == 5

    test = client.post(f"/api/v1/me/webhooks/{hook['id']}/test", headers=h)
    assert test.status_code == 200, test.text
    assert test.json()["delivered"] and test.json()["status"] == "ok 204"
    assert test.json()["detail"] == "delivered (HTTP 204)"
    [got] = receiver.received
    assert got.signed_by(hook["secret"])
    body = got.json()
    assert body["kind"] == "test" and body["event_id"].startswith("test-") and body["title"] == "Ludothek test"
    assert "anna" in body["body"]

    renamed = client.patch(f"/api/v1/me/webhooks/{hook['id']}", json={"label": "phone", "enabled": False}, headers=h)
    assert renamed.status_code == 200 and renamed.json()["label"] == "phone" and not renamed.json()["enabled"]
    secret = client.post(f"/api/v1/me/webhooks/{hook['id']}/secret", headers=h).json()["secret"]
    assert secret != hook["secret"]
    assert client.delete(f"/api/v1/me/webhooks/{hook['id']}", headers=h).status_code == 204
    assert hooks_of(client, h) == []


def test_a_failed_test_says_why(client: TestClient, receiver: Receiver) -> None:
    h = api_user(client, "anna")
    hook = client.post("/api/v1/me/webhooks", json={"url": receiver.url()}, headers=h).json()
    receiver.answer(Answer(403))
    r = client.post(f"/api/v1/me/webhooks/{hook['id']}/test", headers=h)
    assert r.status_code == 200
    assert not r.json()["delivered"] and r.json()["status"] == "http 403"
    assert r.json()["detail"] == "refused by the receiver (HTTP 403)"


@pytest.mark.parametrize(("body", "status", "code_or_field"), [
    ({"url": "http://hooks.example.com/x"}, 400, "a webhook address starts with https://"),
    ({"url": "ftp://hooks.example.com/x"}, 400, "a webhook address starts with https://"),
    ({"url": "https://user:pw@hooks.example.com/x"}, 400, "must not contain a user name or password"),
    ({"url": "https://10.0.0.1/x"}, 400, "10.0.0.1 leads to a private address"),
    ({"url": "https://169.254.169.254/latest/meta-data"}, 400, "link-local"),
    ({"url": "https://[::ffff:192.168.0.1]/x"}, 400, "leads to a private address"),
    ({"url": "https://127.0.0.1/x"}, 400, "loopback"),
    ({"url": "https://x.example/" + "a" * 2100}, 422, "url"),
    ({"url": "https://hooks.example.com/x", "format": "teams"}, 422, "format"),
    ({"url": "https://hooks.example.com/x", "label": "x" * 81}, 422, "label"),
    ({"url": 5}, 422, "url"),
    ({"url": "https://hooks.example.com/x", "extra": 1}, 422, "extra"),
])
def test_bad_input_on_the_api_is_refused_clearly_and_changes_nothing(db_url: str, body: dict[str, Any], status: int,
                                                                     code_or_field: str) -> None:
    with TestClient(hook_app(db_url, webhook_allow_loopback=False)) as client:
        h = api_user(client, "anna")
        r = client.post("/api/v1/me/webhooks", json=body, headers=h)
        assert r.status_code == status, r.text
        if status == 400:
            assert code_or_field in r.json()["detail"], r.json()
        else:
            assert code_or_field in str(r.json()["errors"]), r.json()
        assert hooks_of(client, h) == []


def test_limits_and_other_peoples_hooks(client: TestClient, receiver: Receiver) -> None:
    anna, bernd = api_user(client, "anna"), api_user(client, "bernd")
    ids = [client.post("/api/v1/me/webhooks", json={"url": receiver.url(f"/{i}")}, headers=anna).json()["id"]
           for i in range(5)]
    sixth = client.post("/api/v1/me/webhooks", json={"url": receiver.url("/6")}, headers=anna)
    assert sixth.status_code == 409 and "the most there may be" in sixth.json()["detail"]
    assert len(hooks_of(client, anna)) == 5
    for method, path in (("patch", ""), ("post", "/test"), ("post", "/secret"), ("delete", "")):
        kw: dict[str, Any] = {"json": {"label": "mine now"}} if method == "patch" else {}
        r = client.request(method.upper(), f"/api/v1/me/webhooks/{ids[0]}{path}", headers=bernd, **kw)
        assert r.status_code == 404, (method, path, r.text)
    assert receiver.received == [] and len(hooks_of(client, anna)) == 5
    assert hooks_of(client, anna)[0]["label"] == ""


def test_tests_are_rate_limited(client: TestClient, receiver: Receiver) -> None:
    h = api_user(client, "anna")
    hook = client.post("/api/v1/me/webhooks", json={"url": receiver.url()}, headers=h).json()
    answers = [client.post(f"/api/v1/me/webhooks/{hook['id']}/test", headers=h) for _ in range(6)]
    assert [a.status_code for a in answers] == [200] * 5 + [429]
    assert int(answers[-1].headers["Retry-After"]) >= 1
    assert len(receiver.received) == 5


def test_guests_have_no_webhooks(client: TestClient, receiver: Receiver) -> None:
    r = client.post("/api/v1/guests")
    if r.status_code == 404:
        pytest.skip("no guest endpoint in the API")
    h = {"Authorization": f"Bearer {r.json()['token']}"}
    answer = client.post("/api/v1/me/webhooks", json={"url": receiver.url()}, headers=h)
    assert answer.status_code == 403 and hooks_of(client, h) == []


# ----------------------------------------------------------------------------- the account page
def account(client: TestClient) -> str:
    r = client.get("/account")
    assert r.status_code == 200
    return r.text


def test_the_page_adds_tests_and_deletes(client: TestClient, receiver: Receiver) -> None:
    csrf = page_login(client, "anna")
    assert "No webhooks yet." in account(client)
    r = client.post("/account/webhooks", data={"csrf": csrf, "url": receiver.url(), "format": "slack",
                                               "label": "team chat"}, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/account#webhooks"
    page = account(client)
    hook_id = int(re.search(r'data-webhook="(\d+)"', page).group(1))  # type: ignore[union-attr]
    assert "team chat" in page and receiver.url() in page and "Nothing delivered yet." in page
    secret = site_of(client).webhooks.hook(hook_id).secret
    assert secret in page  # shown to its owner

    client.post(f"/account/webhooks/{hook_id}/test", data={"csrf": csrf})
    [got] = receiver.received
    assert got.signed_by(secret) and set(got.json()) == {"text"}
    assert "delivered (HTTP 204)" in account(client)

    client.post(f"/account/webhooks/{hook_id}/secret", data={"csrf": csrf})
    assert secret not in account(client)
    client.post(f"/account/webhooks/{hook_id}/delete", data={"csrf": csrf})
    assert site_of(client).webhooks.hooks(1) == [] and "No webhooks yet." in account(client)


@pytest.mark.parametrize(("url", "error"), [
    ("ftp://hooks.example.com/x", "A webhook address starts with https://."),
    ("https://u:p@hooks.example.com/x", "must not contain a user name or password"),
    ("https://192.168.1.20/x", "leads into a private network"),
    ("", "Enter the webhook&#39;s address."),
])
def test_bad_input_on_the_page_is_refused_clearly_and_changes_nothing(db_url: str, url: str, error: str) -> None:
    with TestClient(hook_app(db_url, webhook_allow_loopback=False)) as client:
        csrf = page_login(client, "anna")
        r = client.post("/account/webhooks", data={"csrf": csrf, "url": url, "format": "discord", "label": "kept"})
        assert r.status_code == 400
        assert error in r.text
        assert 'value="kept"' in r.text and '<option value="discord" selected' in r.text  # the form keeps the input
        assert site_of(client).webhooks.hooks(1) == []


def test_a_wrong_format_or_long_label_on_the_page_changes_nothing(client: TestClient, receiver: Receiver) -> None:
    csrf = page_login(client, "anna")
    r = client.post("/account/webhooks", data={"csrf": csrf, "url": receiver.url(), "format": "teams"})
    assert r.status_code == 400 and "The format is Ludothek JSON, Discord or Slack." in r.text
    r = client.post("/account/webhooks", data={"csrf": csrf, "url": receiver.url(), "label": "x" * 81})
    assert r.status_code == 400 and "A label has at most 80 characters." in r.text
    r = client.post("/account/webhooks", data={"csrf": csrf, "url": receiver.url(), "label": "a\x00b"})
    assert r.status_code == 400
    assert site_of(client).webhooks.hooks(1) == [] and receiver.received == []


def test_a_switched_off_hook_shows_why_and_can_be_switched_on(client: TestClient, receiver: Receiver) -> None:
    csrf = page_login(client, "anna")
    client.post("/account/webhooks", data={"csrf": csrf, "url": receiver.url(), "format": "generic"})
    site = site_of(client)
    [hook] = site.webhooks.hooks(1)
    channel = WebhookChannel(site.webhooks, "https://ludothek.example")
    receiver.answer(Answer(500), Answer(500))
    now = datetime(2026, 11, 29, 17, 5, tzinfo=UTC)
    for n in (1, 2):
        notice = Notice(id=n, user_id=1, kind="turn", game_id=3, seq=1, payload={}, created_at=now)
        channel.deliver(Delivery(id=n, channel="webhook", target=hook.id, notice=notice, attempts=0),
                        Message("en", "Your turn", "It is your turn.", "/games/3"), now)
    page = account(client)
    assert "Switched off on" in page and "after 2 failed deliveries in a row" in page
    assert "refused by the receiver (HTTP 500)" in page
    assert f'action="/account/webhooks/{hook.id}/enable"' in page
    client.post(f"/account/webhooks/{hook.id}/enable", data={"csrf": csrf})
    page = account(client)
    assert "Switched off on" not in page and f'action="/account/webhooks/{hook.id}/enable"' not in page
    assert site.webhooks.hook(hook.id).enabled and site.webhooks.hook(hook.id).failures == 0


def test_the_section_in_german_with_local_times(client: TestClient, receiver: Receiver) -> None:
    csrf = page_login(client, "berta")
    client.post("/lang", data={"csrf": csrf, "lang": "de", "next": "/account"})
    site = site_of(client)
    site.notify.set_prefs(1, timezone="Europe/Berlin")
    client.post("/account/webhooks", data={"csrf": csrf, "url": receiver.url(), "format": "discord"})
    [hook] = site.webhooks.hooks(1)
    site.webhooks.record(hook.id, False, "timeout", datetime(2026, 11, 29, 17, 5, tzinfo=UTC))
    page = account(client)
    assert "Webhooks" in page and "Test senden" in page and "Neues Geheimnis" in page
    assert "29.11.2026, 18:05 · keine Antwort in der Zeit" in page  # Berlin is UTC+1 in November
