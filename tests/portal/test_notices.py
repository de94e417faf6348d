"""Notices behind one seam (issue 30): fan-out by preference, deliveries per channel, exactly once.

The channels here are stubs (`tests.portal.notice_stub`) under the preference channels' names; the
mail channel's own behaviour is tests/portal/test_mail.py's.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from ludothek.services import Site
from ludothek.services.notices.kinds import ACCOUNT_KINDS, CHANNELS, NOTICE_KINDS
from ludothek.storage.deliveries import INTERRUPTED, LEASE
from ludothek.storage.errors import BadRequest
from ludothek.storage.models import NoticePref, utcnow
from ludothek.storage.outbox import queue_mail, queue_notice
from ludothek.workers.channels.registry import ChannelContext, build, channel_names
from ludothek.workers.mail_links import MailLinks
from ludothek.workers.notices import BEGIN_TOGETHER, NoticeJob, NoticeRunners
from tests.portal.conftest import api_user
from tests.portal.notice_stub import StubChannel
from tests.portal.test_storage import new_site

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def site(any_db: str) -> Iterator[Site]:
    s = new_site(any_db)
    yield s
    s.engine.dispose()


def users(site: Site, *names: str) -> list[int]:
    return [site.accounts.register(name, f"password-{name}").id for name in names]


def queue(site: Site, user_id: int, kind: str, **kw: Any) -> int:
    with site.engine.begin() as conn:
        queue_notice(conn, user_id, kind, kw.pop("payload", {}), **kw)
    return max(r["id"] for r in site.outbox.mail_rows())


def until(check: Callable[[], bool], seconds: float = 30) -> None:
    """Wait for ``check`` (threads and processes at work; not a timing assertion)."""
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


# ----------------------------------------------------------------------------- kinds and preferences
def test_every_kind_is_known_and_each_channel_says_what_it_carries() -> None:
    assert set(NOTICE_KINDS) == {"turn", "reminder", "timed_out", "invited", "invite_declined", "abandon_offered",
                                 "abandon_declined", "ended", "friend_request",
                                 "tournament_entered", "tournament_round", "tournament_ended"}  # issue 31
    assert set(ACCOUNT_KINDS) == {"verify", "reset", "email_changed", "digest"}
    assert list(CHANNELS) == ["mail", "tab", "push", "webhook"]
    for info in CHANNELS.values():
        assert set(info.defaults) <= set(info.kinds) <= set(NOTICE_KINDS)


def test_preferences_store_only_what_differs_and_map_the_mail_settings(site: Site) -> None:
    (anna,) = users(site, "anna")
    table = site.notices.table(anna)
    assert table["push"]["turn"] is True and table["mail"]["friend_request"] is False
    # Choosing a default stores nothing; choosing otherwise stores one row; choosing back removes it.
    site.notices.set(anna, {"push": {"turn": True}})
    assert stored(site, anna) == set()
    site.notices.set(anna, {"push": {"turn": False}, "tab": {"ended": False}})
    assert stored(site, anna) == {("push", "turn", False), ("tab", "ended", False)}
    site.notices.set(anna, {"push": {"turn": True}})
    assert stored(site, anna) == {("tab", "ended", False)}
    # Mail's turn, invited and ended are the mail settings from before channels, in both directions.
    site.notices.set(anna, {"mail": {"turn": False, "invited": False}})
    prefs = site.notify.prefs(anna)
    assert prefs.turns == "off" and prefs.invites is False and prefs.ended is True
    assert site.notices.table(anna)["mail"]["reminder"] is False  # no turn mails: no reminders either
    site.notify.set_prefs(anna, turns="digest")
    assert site.notices.table(anna)["mail"]["turn"] is False
    site.notices.set(anna, {"mail": {"turn": False}})
    assert site.notify.prefs(anna).turns == "digest"  # the digest stays chosen
    site.notices.set(anna, {"mail": {"turn": True}})
    assert site.notify.prefs(anna).turns == "each" and site.notices.table(anna)["mail"]["reminder"] is True
    assert not any(ch == "mail" and kind in ("turn", "invited", "ended") for ch, kind, _ in stored(site, anna))


def stored(site: Site, user_id: int) -> set[tuple[str, str, bool]]:
    from sqlalchemy import select

    with site.engine.begin() as conn:
        rows = conn.execute(select(NoticePref).where(NoticePref.user_id == user_id)).all()
    return {(r.channel, r.kind, bool(r.wanted)) for r in rows}


@pytest.mark.parametrize("bad", [
    [], "push", {"sms": {"turn": True}}, {"push": {"digest": True}}, {"push": {"verify": True}},
    {"push": {"turn": "yes"}}, {"push": {"turn": 1}}, {"push": ["turn"]}, {"tab": {"turn": None}},
])
def test_bad_preferences_are_refused_and_change_nothing(site: Site, bad: Any) -> None:
    (anna,) = users(site, "anna")
    before = site.notices.table(anna)
    with pytest.raises(BadRequest):
        site.notices.set(anna, {"webhook": {"ended": False}, **bad} if isinstance(bad, dict) else bad)
    assert site.notices.table(anna) == before


def test_the_api_reads_and_changes_the_choices_and_refuses_bad_ones(client: TestClient) -> None:
    h = api_user(client, "alice")
    got = client.get("/api/me/notifications", headers=h).json()
    assert got["turns"] == "each" and set(got["channels"]) >= {"mail", "tab"}
    assert got["channels"]["tab"]["turn"] is True
    r = client.put("/api/me/notifications", json={"channels": {"tab": {"ended": False}}}, headers=h)
    assert r.status_code == 200, r.text
    assert r.json()["channels"]["tab"]["ended"] is False and r.json()["turns"] == "each"
    # Old clients send only the old fields: still fine, and the channel choices stay.
    r = client.put("/api/me/notifications", json={"turns": "digest"}, headers=h)
    assert r.status_code == 200 and r.json()["channels"]["tab"]["ended"] is False
    assert r.json()["channels"]["mail"]["turn"] is False
    for body, status, words in (
        ({"channels": {"sms": {"turn": True}}}, 400, "unknown channel"),
        ({"channels": {"tab": {"digest": True}}}, 400, "carries no kind"),
        ({"channels": {"tab": {"turn": "yes"}}}, 422, "channels"),
        ({"channels": ["tab"]}, 422, "channels"),
        # A wrong channel choice refuses the whole request: the time zone does not change either.
        ({"timezone": "Europe/Berlin", "channels": {"tab": {"nope": True}}}, 400, "carries no kind"),
    ):
        r = client.put("/api/me/notifications", json=body, headers=h)
        assert r.status_code == status and words in r.text, (body, r.text)
    after = client.get("/api/me/notifications", headers=h).json()
    assert after["timezone"] == "UTC" and after["channels"]["tab"]["ended"] is False


def test_the_account_page_lists_each_channels_kinds_and_saves_them(client: TestClient) -> None:
    from tests.portal.conftest import csrf_of

    r = client.post("/register", data={"name": "bea", "password": "password-bea", "csrf": csrf_of(client)})
    assert r.status_code in (200, 303), r.text
    page = client.get("/account")
    assert page.status_code == 200 and 'id="notice-prefs"' in page.text and 'id="channel-tab"' in page.text
    assert 'name="tab.turn"' in page.text and 'name="mail.turn"' not in page.text  # mail's turn: the settings above
    form = {"csrf": csrf_of(client), "shown": ["tab", "mail"], "tab.turn": "1", "mail.reminder": "1"}
    r = client.post("/account/channels", data=form, follow_redirects=False)
    assert r.status_code == 303, r.text
    got = client.get("/api/me/notifications").json()["channels"]
    assert got["tab"]["turn"] is True and got["tab"]["ended"] is False and got["mail"]["timed_out"] is False
    assert got["mail"]["turn"] is True  # not on this form: unchanged


# ----------------------------------------------------------------------------- fan-out and delivery
def test_fan_out_follows_each_players_choices_per_channel_and_kind(site: Site) -> None:
    anna, bert = users(site, "anna", "bert")
    push, hook = StubChannel(site, "push"), StubChannel(site, "webhook")
    job = NoticeJob(site, [push, hook])
    site.notices.set(bert, {"push": {"turn": False}, "webhook": {"ended": False}})
    ids = {(u, k): queue(site, u, k) for u in (anna, bert) for k in ("turn", "ended", "friend_request", "reset")}
    ids[(anna, "invite")] = queue(site, anna, "invite")  # the older name of "invited"
    job.run_once(utcnow())
    got_push = {(n, k) for n, _, k, _, _ in push.got}
    got_hook = {(n, k) for n, _, k, _, _ in hook.got}
    assert got_push == {(ids[(anna, "turn")], "turn"), (ids[(anna, "ended")], "ended"),
                        (ids[(bert, "ended")], "ended"), (ids[(anna, "invite")], "invite")}
    assert got_hook == {(ids[(u, k)], k) for u in (anna, bert) for k in ("turn", "ended", "friend_request")
                        if (u, k) != (bert, "ended")} | {(ids[(anna, "invite")], "invite")}
    # Account kinds are mail's alone; every row is dispatched once, whatever it fanned out to.
    assert all(k != "reset" for _, k in got_push | got_hook)
    rows = {r["id"]: r for r in site.deliveries.rows()}
    assert {r["status"] for r in rows.values()} == {"sent"}
    job.run_once(utcnow() + timedelta(hours=1))
    assert len(push.got) == 4 and len(site.deliveries.rows()) == len(rows)


def test_messages_are_in_the_readers_language_and_time_zone(site: Site) -> None:
    anna, bert = users(site, "anna", "bert")
    with site.engine.begin() as conn:
        conn.execute(__import__("sqlalchemy").text("UPDATE users SET lang='de' WHERE id=:u"), {"u": bert})
    site.notify.set_prefs(bert, timezone="Europe/Berlin")
    hook = StubChannel(site, "webhook", needs_message=True)
    job = NoticeJob(site, [hook])
    queue(site, bert, "friend_request", payload={"by": anna})
    queue(site, anna, "reset", payload={"gen": 1, "address": "secret@example.org"})
    job.run_once(utcnow())
    (_, _, _, message, _), = hook.got
    assert message.lang == "de" and "anna" in message.title and message.path == "/friends"
    when = site.messages.message(bert, "reminder", None, None, {"deadline": "2026-03-01T12:00:00+00:00"}, utcnow())
    assert when is None  # no such game: nothing to say
    from ludothek.texts.dates import local_when

    assert local_when(__import__("datetime").datetime(2026, 3, 1, 12, tzinfo=__import__("datetime").UTC),
                      "de", "Europe/Berlin").endswith("13:00")
    reset = site.messages.message(anna, "reset", None, None, {"gen": 1, "address": "secret@example.org"}, utcnow())
    assert reset is not None and "secret" not in reset.title + reset.body + reset.path  # no secrets


def test_a_failing_channel_never_holds_back_another(site: Site) -> None:
    (anna,) = users(site, "anna")
    broken, raising, hook = StubChannel(site, "push", mode="fail"), StubChannel(site, "tab", mode="raise"), \
        StubChannel(site, "webhook")
    job = NoticeJob(site, [broken, raising, hook])
    first = queue(site, anna, "turn")
    now = utcnow()
    job.run_once(now)
    assert [n for n, *_ in hook.got] == [first]
    by_channel = {r["channel"]: r for r in site.deliveries.rows()}
    assert by_channel["push"]["status"] == "pending" and by_channel["push"]["attempts"] == 1
    assert by_channel["tab"]["status"] == "pending" and "raised" in by_channel["tab"]["last_error"]
    # The back-off holds: not tried again before it, then failed after the last attempt.
    job.run_once(now + timedelta(seconds=5))
    assert site.deliveries.rows(channel="push")[0]["attempts"] == 1
    job.run_once(now + timedelta(seconds=11))
    job.run_once(now + timedelta(seconds=40))
    push = site.deliveries.rows(channel="push")[0]
    assert push["status"] == "failed" and push["attempts"] == 3
    assert [n for n, *_ in hook.got] == [first]  # delivered once, whatever the others did


def test_a_hanging_channel_never_holds_back_another(site: Site) -> None:
    """In the runners (one thread per channel), as servers run them."""
    (anna,) = users(site, "anna")
    stuck, hook = StubChannel(site, "push", mode="hang"), StubChannel(site, "webhook")
    runners = NoticeRunners(NoticeJob(site, [stuck, hook]), interval=0.05)
    runners.start()
    try:
        ids = [queue(site, anna, "turn")]
        runners.wake()
        until(stuck.entered.is_set)  # the push channel hangs in its first delivery from now on
        ids += [queue(site, anna, "turn") for _ in range(2)]
        runners.wake()
        until(lambda: len(hook.got) == 3)
        assert [n for n, *_ in hook.got] == ids and stuck.got == []
    finally:
        stuck.release.set()
        runners.stop()
    assert len(stuck.got) >= 1


def test_retry_after_is_honoured(site: Site) -> None:
    from ludothek.workers.channels.base import Retry

    (anna,) = users(site, "anna")

    class Limited(StubChannel):
        def deliver(self, delivery: Any, message: Any, now: Any) -> Any:
            if delivery.attempts == 0:
                return Retry("429", after=timedelta(minutes=7))
            return super().deliver(delivery, message, now)

    hook = Limited(site, "webhook")
    job = NoticeJob(site, [hook])
    queue(site, anna, "turn")
    now = utcnow()
    job.run_once(now)
    job.run_once(now + timedelta(minutes=6))
    assert hook.got == []
    job.run_once(now + timedelta(minutes=7, seconds=1))
    assert len(hook.got) == 1 and site.deliveries.rows()[0]["status"] == "sent"


def test_an_interrupted_fan_out_is_done_again_and_an_interrupted_delivery_never(site: Site) -> None:
    (anna,) = users(site, "anna")
    hook = StubChannel(site, "webhook")
    job = NoticeJob(site, [hook])
    first, second = queue(site, anna, "turn"), queue(site, anna, "ended")
    now = utcnow()
    # A fan-out claims both rows and dies before its one transaction: nothing was made, so it is redone.
    assert len(site.outbox.claim_mail("dead-fan-out", now)) == 2
    site.outbox.release_lease("dead-fan-out")
    job.run_once(now)
    assert hook.got == []  # still leased
    later = now + LEASE + timedelta(seconds=1)
    job.fan_out.run_once(later)
    # A channel claims the first delivery and dies mid-send: failed, never tried again.
    site.deliveries.release_lease("webhook", job.jobs[0].owner)
    (claimed,) = site.deliveries.claim("webhook", "dead-sender", later, limit=1)
    assert site.deliveries.begin([claimed.id], later) == [claimed.id]
    site.deliveries.release_lease("webhook", "dead-sender")
    job.run_once(later)
    assert [n for n, *_ in hook.got] == [second if claimed.outbox_id == first else first]
    job.run_once(later + LEASE + timedelta(seconds=1))
    rows = {r["outbox_id"]: r for r in site.deliveries.rows()}
    assert rows[claimed.outbox_id]["status"] == "failed" and rows[claimed.outbox_id]["last_error"] == INTERRUPTED
    assert len(hook.got) == 1


# ----------------------------------------------------------------------------- processes
def worker(url: str, record: Path, mode: str, passes: int) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "tests.portal.notice_stub", url, str(record), mode, str(passes)],
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def recorded(record: Path) -> list[int]:
    return [int(line.split()[0]) for line in record.read_text().splitlines()] if record.exists() else []


def test_two_processes_deliver_each_notice_exactly_once(any_db: str, site: Site, tmp_path: Path) -> None:
    names = [f"user{i}" for i in range(6)]
    ids = users(site, *names)
    record = tmp_path / "record.txt"
    expected = [queue(site, ids[i % 6], "turn") for i in range(60)]
    procs = [worker(any_db, record, "ok", 30) for _ in range(2)]
    # More notices while both run: they are claimed by whichever comes first.
    expected += [queue(site, ids[i % 6], "ended") for i in range(30)]
    for p in procs:
        _, err = p.communicate(timeout=120)
        assert p.returncode == 0, err.decode()
    got = recorded(record)
    last = worker(any_db, record, "ok", 3)  # whatever arrived after both had finished
    last.communicate(timeout=120)
    got = recorded(record)
    assert sorted(got) == sorted(expected), "each notice handed over once, none lost"
    assert {r["status"] for r in site.deliveries.rows()} == {"sent"}


def test_kill_9_mid_send_never_sends_twice(any_db: str, site: Site, tmp_path: Path) -> None:
    (anna,) = users(site, "anna")
    record = tmp_path / "record.txt"
    expected = [queue(site, anna, "turn") for _ in range(10)]
    doomed = worker(any_db, record, "die_after_record", 1)
    until(lambda: len(recorded(record)) == 1)
    os.kill(doomed.pid, signal.SIGKILL)
    doomed.wait(timeout=30)
    (handed,) = recorded(record)
    # Another process takes over once the dead one's lease ran out: the rest once, the interrupted one never.
    job = NoticeJob(site, [StubChannel(site, "webhook", str(record), use_prefs=False)])
    job.run_once(utcnow() + LEASE + timedelta(seconds=1))
    job.run_once(utcnow() + LEASE + timedelta(seconds=2))
    got = recorded(record)
    assert len(got) == len(set(got)), "nothing handed over twice"
    rows = {r["outbox_id"]: r for r in site.deliveries.rows()}
    failed = {oid for oid, r in rows.items() if r["status"] == "failed"}
    assert handed in failed and {rows[oid]["last_error"] for oid in failed} == {INTERRUPTED}
    # Only the dead process's group begun with the one it was sending is lost; the rest of its batch is not.
    assert len(failed) <= BEGIN_TOGETHER and sorted(set(got) | failed) == sorted(expected)
    assert all(rows[oid]["status"] == "sent" for oid in set(got) - {handed})


# ----------------------------------------------------------------------------- the registry and the tab
def test_the_registry_builds_the_chosen_channels_in_order(site: Site) -> None:
    links = MailLinks("secret", "http://example.org")
    assert channel_names({}) == ["mail", "tab", "push", "webhook"]
    # Push comes as the settings made it (none here: the site sends no push), webhooks always.
    assert [c.name for c in build(ChannelContext(site, links, {}))] == ["mail", "tab", "webhook"]
    assert [c.name for c in build(ChannelContext(site, links, {"LUDOTHEK_CHANNELS": "tab, mail"}))] == ["tab", "mail"]
    with pytest.raises(ValueError, match="unknown channels sms"):
        channel_names({"LUDOTHEK_CHANNELS": "mail,sms"})


def test_the_tab_channel_tells_the_users_tabs(site: Site) -> None:
    anna, bert = users(site, "anna", "bert")
    heard: list[tuple[int, dict[str, Any]]] = []
    links = MailLinks("secret", "http://example.org")
    (tab,) = build(ChannelContext(site, links, {"LUDOTHEK_CHANNELS": "tab"}))
    job = NoticeJob(site, [tab])
    queue(site, anna, "friend_request", payload={"by": bert})
    job.run_once(utcnow())
    assert site.deliveries.rows()[0]["status"] == "skipped"  # no hub in this process
    site.user_messages.append(lambda user, msg: heard.append((user, msg)))
    site.notices.set(bert, {"tab": {"friend_request": False}})
    queue(site, anna, "friend_request", payload={"by": bert})
    queue(site, bert, "friend_request", payload={"by": anna})
    queue_mail_id = queue(site, anna, "verify", payload={"address": "a@example.org"})
    job.run_once(utcnow())
    assert [(u, m["type"], m["kind"], m["title"]) for u, m in heard] == [
        (anna, "notice", "friend_request", "bert wants to be your friend")]
    assert heard[0][1]["path"] == "/friends" and queue_mail_id not in [m["id"] for _, m in heard]


def test_queue_mail_is_queue_notice() -> None:
    assert queue_mail is queue_notice


def test_the_latency_benchmark_runs(tmp_path: Path) -> None:
    """A smoke run of benchmarks/bench_notice_latency.py (its figures belong to `make bench`)."""
    from benchmarks.bench_notice_latency import measure, rows

    got = measure(f"sqlite:///{tmp_path / 'bench.sqlite3'}", None, rate=20, seconds=1, processes=1)
    assert got["notices"] > 0 and got["handover_p99"] >= got["handover_p50"] > 0
    assert len(rows("SQLite", got, 20, 1)) == 6
