"""The webhook channel (`ludothek.workers.channels.webhook`) against a local receiver that checks signatures.

`deliver` and `targets` are driven directly, as the notice worker calls them; `drive` plays the
worker's part for retries (the wait is the receiver's ``Retry-After`` or the channel's back-off).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient

from ludothek.portal import create_app
from ludothek.services.webhooks import Webhooks
from ludothek.workers.channels.base import Delivery, Failed, Message, Notice, Outcome, Retry, Sent, Skipped
from ludothek.workers.channels.webhook import BACKOFF, KINDS, WebhookChannel
from tests.portal.conftest import make_settings
from tests.portal.webhook_receiver import Answer, Receiver, running_receiver

BASE = "https://ludothek.example"
NOW = datetime(2026, 11, 29, 18, 0, tzinfo=UTC)
MESSAGE = Message(lang="en", title="Your turn: Snowdonia", body="anna moved; it is your turn, bernd.",
                  path="/games/12")


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with running_receiver() as r:
        yield r


@pytest.fixture
def site(any_db: str) -> Iterator[Any]:
    settings = make_settings(any_db, webhook_allow_loopback=True, webhook_max_failures=3, webhook_timeout=3.0,
                             webhook_max_answer=1024)
    with TestClient(create_app(settings)) as client:
        yield client.app.state.portal.site  # type: ignore[attr-defined]


@pytest.fixture
def bernd(site: Any) -> int:
    return int(site.accounts.register("bernd", "password-bernd").id)


def notice(user_id: int, notice_id: int = 41, kind: str = "turn") -> Notice:
    return Notice(id=notice_id, user_id=user_id, kind=kind, game_id=12, seq=7, payload={}, created_at=NOW)


def delivery(hook_id: int, user_id: int, notice_id: int = 41, attempts: int = 0) -> Delivery:
    return Delivery(id=900 + notice_id, channel="webhook", target=hook_id, notice=notice(user_id, notice_id),
                    attempts=attempts)


def channel(site: Any) -> WebhookChannel:
    return WebhookChannel(site.webhooks, BASE)


def drive(ch: WebhookChannel, d: Delivery, start: datetime) -> tuple[list[Outcome], list[timedelta]]:
    """The notice worker's retry loop for one delivery: outcomes and the waits between attempts."""
    outcomes: list[Outcome] = []
    waits: list[timedelta] = []
    now = start
    for attempt in range(len(ch.backoff) + 1):
        outcome = ch.deliver(replace(d, attempts=attempt), MESSAGE, now)
        outcomes.append(outcome)
        if not isinstance(outcome, Retry) or attempt == len(ch.backoff):
            break
        wait = outcome.after if outcome.after is not None else ch.backoff[attempt]
        waits.append(wait)
        now += wait
    return outcomes, waits


# ----------------------------------------------------------------------------- bodies and signatures
@pytest.mark.parametrize("fmt", ["generic", "discord", "slack"])
def test_each_format_arrives_signed_in_its_shape(site: Any, bernd: int, receiver: Receiver, fmt: str) -> None:
    hook = site.webhooks.add(bernd, receiver.url(f"/{fmt}"), fmt, "mine")
    assert isinstance(channel(site).deliver(delivery(hook.id, bernd), MESSAGE, NOW), Sent)
    [got] = receiver.received
    assert got.path == f"/{fmt}"
    assert got.signed_by(hook.secret) and not got.signed_by("whsec_other")
    assert got.headers["x-ludothek-timestamp"] == str(int(NOW.timestamp()))
    assert got.headers["x-ludothek-event"] == "41"
    assert got.headers["content-type"] == "application/json"
    body = got.json()
    if fmt == "generic":
        assert body == {"event_id": "41", "kind": "turn", "game_id": 12, "title": MESSAGE.title,
                        "body": MESSAGE.body, "url": BASE + "/games/12", "lang": "en",
                        "timestamp": NOW.isoformat()}
    elif fmt == "discord":
        assert set(body) == {"content", "allowed_mentions"} and body["allowed_mentions"] == {"parse": []}
        assert "Your turn: Snowdonia" in body["content"] and BASE + "/games/12" in body["content"]
    else:
        assert set(body) == {"text"}
        assert body["text"] == f"*Your turn: Snowdonia*\n{MESSAGE.body}\n<{BASE}/games/12>"
    assert site.webhooks.hook(hook.id).last_status == "ok 204"


def test_markup_in_a_message_cannot_ping_a_channel(site: Any, bernd: int, receiver: Receiver) -> None:
    slack = site.webhooks.add(bernd, receiver.url("/slack"), "slack")
    discord = site.webhooks.add(bernd, receiver.url("/discord"), "discord")
    loud = Message(lang="en", title="<!channel> & @everyone", body="*x*" * 1500, path="/games/1")
    for hook in (slack, discord):
        assert isinstance(channel(site).deliver(delivery(hook.id, bernd), loud, NOW), Sent)
    text = receiver.received[0].json()["text"]
    assert "&lt;!channel&gt; &amp; @everyone" in text and "<!channel>" not in text
    content = receiver.received[1].json()["content"]
    assert len(content) <= 2000 and content.endswith(BASE + "/games/1")


def test_a_new_secret_signs_from_then_on(site: Any, bernd: int, receiver: Receiver) -> None:
    hook = site.webhooks.add(bernd, receiver.url(), "generic")
    renewed = site.webhooks.new_secret(bernd, hook.id)
    assert renewed.secret != hook.secret
    channel(site).deliver(delivery(hook.id, bernd), MESSAGE, NOW)
    assert receiver.received[0].signed_by(renewed.secret) and not receiver.received[0].signed_by(hook.secret)


# ----------------------------------------------------------------------------- targets
def test_targets_are_the_enabled_hooks_and_only_for_game_notices(site: Any, bernd: int, receiver: Receiver) -> None:
    anna = site.accounts.register("anna", "password-anna").id
    one = site.webhooks.add(bernd, receiver.url("/1"))
    two = site.webhooks.add(bernd, receiver.url("/2"))
    site.webhooks.add(anna, receiver.url("/anna"))
    ch = channel(site)
    assert list(ch.targets(bernd, "turn")) == [one.id, two.id]
    site.webhooks.change(bernd, two.id, enabled=False)
    assert list(ch.targets(bernd, "ended")) == [one.id]
    for secret_kind in ("verify", "reset", "email_changed", "digest"):
        assert secret_kind not in KINDS and list(ch.targets(bernd, secret_kind)) == []


def test_a_gone_or_switched_off_or_foreign_hook_is_skipped(site: Any, bernd: int, receiver: Receiver) -> None:
    anna = site.accounts.register("anna", "password-anna").id
    hook = site.webhooks.add(bernd, receiver.url())
    ch = channel(site)
    assert isinstance(ch.deliver(delivery(hook.id, anna), MESSAGE, NOW), Skipped)  # not anna's hook
    site.webhooks.change(bernd, hook.id, enabled=False)
    assert isinstance(ch.deliver(delivery(hook.id, bernd), MESSAGE, NOW), Skipped)
    site.webhooks.remove(bernd, hook.id)
    assert isinstance(ch.deliver(delivery(hook.id, bernd), MESSAGE, NOW), Skipped)
    assert receiver.received == []


# ----------------------------------------------------------------------------- retries, back-off, switching off
def test_retries_follow_retry_after_then_the_backoff_until_it_arrives(site: Any, bernd: int,
                                                                      receiver: Receiver) -> None:
    site.webhooks.policy.max_failures = 10  # three failed attempts in a row must not switch it off here
    hook = site.webhooks.add(bernd, receiver.url())
    receiver.answer(Answer(503, {"Retry-After": "120"}), Answer(429, {"Retry-After": "Sun, 29 Nov 2026 18:32:00 GMT"}),
                    Answer(500), Answer(200, body=b"ok"))
    outcomes, waits = drive(channel(site), delivery(hook.id, bernd), NOW)
    assert [type(o) for o in outcomes] == [Retry, Retry, Retry, Sent]
    # 120 s as asked; the date is 30 minutes after the second attempt; the third had no Retry-After
    assert waits == [timedelta(seconds=120), timedelta(minutes=30), BACKOFF[2]]
    assert len(receiver.received) == 4
    assert len({r.headers["x-ludothek-event"] for r in receiver.received}) == 1  # one event id for every try
    after = site.webhooks.hook(hook.id)
    assert after.failures == 0 and after.enabled and after.last_status == "ok 200"


def test_the_backoff_grows() -> None:
    assert all(a < b for a, b in itertools.pairwise(BACKOFF))


def test_a_refusal_is_final_and_a_redirect_is_not_followed(site: Any, bernd: int, receiver: Receiver) -> None:
    hook = site.webhooks.add(bernd, receiver.url())
    receiver.answer(Answer(404), Answer(302, {"Location": "http://10.0.0.1/admin"}),
                    Answer(307, {"Location": receiver.url("/elsewhere")}))
    ch = channel(site)
    first = ch.deliver(delivery(hook.id, bernd, 1), MESSAGE, NOW)
    assert isinstance(first, Failed) and "404" in first.error
    second = ch.deliver(delivery(hook.id, bernd, 2), MESSAGE, NOW)
    assert isinstance(second, Failed) and site.webhooks.hook(hook.id).last_status == "redirect 302"
    third = ch.deliver(delivery(hook.id, bernd, 3), MESSAGE, NOW)
    assert isinstance(third, Failed)
    assert [r.path for r in receiver.received] == ["/hook"] * 3  # never the redirect's target


def test_repeated_failures_switch_the_hook_off_and_a_success_resets_the_count(site: Any, bernd: int,
                                                                             receiver: Receiver) -> None:
    hook = site.webhooks.add(bernd, receiver.url())
    ch = channel(site)
    receiver.answer(Answer(500), Answer(500), Answer(204))
    for n in (1, 2, 3):
        ch.deliver(delivery(hook.id, bernd, n), MESSAGE, NOW)
    assert site.webhooks.hook(hook.id).failures == 0  # two failures, then a success
    receiver.answer(Answer(500), Answer(502), Answer(410))
    for n in (4, 5, 6):
        ch.deliver(delivery(hook.id, bernd, n), MESSAGE, NOW)
    off = site.webhooks.hook(hook.id)
    assert not off.enabled and off.failures == 3 and off.disabled_at is not None
    assert off.disabled_reason == "http 410"
    assert list(ch.targets(bernd, "turn")) == []
    assert isinstance(ch.deliver(delivery(hook.id, bernd, 7), MESSAGE, NOW), Skipped)
    assert len(receiver.received) == 6
    on = site.webhooks.change(bernd, hook.id, enabled=True)
    assert on.enabled and on.failures == 0 and on.disabled_at is None and on.disabled_reason is None
    assert isinstance(ch.deliver(delivery(hook.id, bernd, 8), MESSAGE, NOW), Sent)


# ----------------------------------------------------------------------------- request forgery at send time
def test_a_name_is_pinned_to_the_address_it_was_checked_with(site: Any, bernd: int, receiver: Receiver) -> None:
    """The connection goes to the checked address; the name (Host header) stays, no second look-up."""
    looked_up: list[str] = []

    def resolve(host: str, port: int) -> list[str]:
        looked_up.append(host)
        return ["127.0.0.1"]

    site.webhooks.policy.resolve = resolve
    hook = site.webhooks.add(bernd, receiver.url(host="hooks.rebind.invalid"))
    assert isinstance(channel(site).deliver(delivery(hook.id, bernd), MESSAGE, NOW), Sent)
    assert receiver.received[0].headers["host"] == f"hooks.rebind.invalid:{receiver.port}"
    assert looked_up == ["hooks.rebind.invalid", "hooks.rebind.invalid"]  # on adding and on sending, ours only


def test_a_name_that_now_leads_inside_is_not_called(site: Any, bernd: int, receiver: Receiver) -> None:
    answers = iter([["93.184.216.34"], ["10.0.0.7"]])
    site.webhooks.policy.resolve = lambda host, port: next(answers)
    hook = site.webhooks.add(bernd, "http://hooks.example.com/x")
    outcome = channel(site).deliver(delivery(hook.id, bernd), MESSAGE, NOW)
    assert isinstance(outcome, Failed) and site.webhooks.hook(hook.id).last_status == "address private"


def test_loopback_is_refused_at_send_time_without_the_setting(site: Any, bernd: int, receiver: Receiver) -> None:
    hook = site.webhooks.add(bernd, receiver.url())
    site.webhooks.policy.allow_loopback = False
    outcome = channel(site).deliver(delivery(hook.id, bernd), MESSAGE, NOW)
    assert isinstance(outcome, Failed)
    assert receiver.received == []


def test_an_oversized_answer_is_a_failure_and_is_not_read(site: Any, bernd: int, receiver: Receiver) -> None:
    hook = site.webhooks.add(bernd, receiver.url())
    receiver.answer(Answer(200, body=b"x" * 100_000))
    outcome = channel(site).deliver(delivery(hook.id, bernd), MESSAGE, NOW)
    assert isinstance(outcome, Failed) and site.webhooks.hook(hook.id).last_status == "too_large"


def test_an_answer_without_length_is_cut_at_the_cap(site: Any, bernd: int) -> None:
    """A receiver that streams without Content-Length: reading stops at the cap (a raw socket server)."""
    import socket
    import threading

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    sent = {"bytes": 0}

    def serve() -> None:
        conn, _ = listener.accept()
        conn.recv(65536)
        conn.sendall(b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n")
        try:
            for _ in range(1000):
                conn.sendall(b"y" * 4096)
                sent["bytes"] += 4096
        except OSError:
            pass
        conn.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    hook = site.webhooks.add(bernd, f"http://127.0.0.1:{listener.getsockname()[1]}/stream")
    outcome = channel(site).deliver(delivery(hook.id, bernd), MESSAGE, NOW)
    thread.join(10)
    listener.close()
    assert isinstance(outcome, Failed) and site.webhooks.hook(hook.id).last_status == "too_large"
    assert sent["bytes"] < 4096 * 1000  # the server could not push all of it: we stopped reading


def test_a_slow_answer_is_cut_off_and_retried(site: Any, bernd: int, receiver: Receiver) -> None:
    """One byte every 0.5 s for 40 bytes: past the 3-second deadline (each byte alone comes in time)."""
    hook = site.webhooks.add(bernd, receiver.url())
    receiver.answer(Answer(200, body=b"z" * 40, drip=0.5))
    outcome = channel(site).deliver(delivery(hook.id, bernd), MESSAGE, NOW)
    assert isinstance(outcome, Retry) and site.webhooks.hook(hook.id).last_status == "timeout"


def test_nobody_listening_is_a_retry(site: Any, bernd: int) -> None:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    hook = site.webhooks.add(bernd, f"http://127.0.0.1:{port}/x")
    outcome = channel(site).deliver(delivery(hook.id, bernd), MESSAGE, NOW)
    assert isinstance(outcome, Retry) and site.webhooks.hook(hook.id).last_status == "connect"


def test_the_service_is_what_the_channel_uses(site: Any) -> None:
    assert isinstance(site.webhooks, Webhooks)
    assert channel(site).name == "webhook" and channel(site).enabled()


# ----------------------------------------------------------------------------- TLS to a pinned address
def certificate(tmp_path: Any, name: str) -> tuple[str, str]:
    """A self-signed certificate for ``name`` (openssl), as certificate and key files."""
    import shutil
    import subprocess

    if shutil.which("openssl") is None:
        pytest.skip("openssl is needed to make a test certificate")
    cert, key = tmp_path / f"{name}.pem", tmp_path / f"{name}.key"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", f"/CN={name}",
                    "-addext", f"subjectAltName=DNS:{name}", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True)
    return str(cert), str(key)


@pytest.mark.parametrize("served_name", ["hooks.pinned.test", "someone.else.test"])
def test_https_to_the_pinned_address_checks_the_certificate_of_the_name(site: Any, bernd: int, tmp_path: Any,
                                                                        served_name: str) -> None:
    """Connected to 127.0.0.1 as checked, TLS still asks for (SNI) and verifies the hook's host name."""
    import ssl

    from ludothek.workers.channels import webhook_http

    cert, key = certificate(tmp_path, served_name)
    trust = ssl.create_default_context(cafile=cert)

    def poster(target: Any, body: bytes, headers: Any, timeout: float, cap: int) -> webhook_http.Answer:
        return webhook_http.post(target, body, headers, timeout, cap, ssl_context=trust)

    site.webhooks.policy.resolve = lambda host, port: ["127.0.0.1"]
    with running_receiver(tls=(cert, key)) as receiver:
        hook = site.webhooks.add(bernd, receiver.url(host="hooks.pinned.test"))
        outcome = WebhookChannel(site.webhooks, BASE, poster).deliver(delivery(hook.id, bernd), MESSAGE, NOW)
        assert receiver.server_names == ["hooks.pinned.test"]
        if served_name == "hooks.pinned.test":
            assert isinstance(outcome, Sent)
            assert receiver.received[0].headers["host"] == f"hooks.pinned.test:{receiver.port}"
            assert receiver.received[0].signed_by(hook.secret)
        else:  # a certificate for another name: refused, nothing sent
            assert isinstance(outcome, Retry) and receiver.received == []
            assert site.webhooks.hook(hook.id).last_status == "tls"
