"""Several senders on one database (SQLite and PostgreSQL): every mail goes out exactly once.

Each sender runs in its own thread with its own store (as separate processes
would); on PostgreSQL they claim with ``FOR UPDATE SKIP LOCKED``, on SQLite
one holds the lease.  Moves queue their rows in the move's own transaction.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest

from ludothek.services import Site
from ludothek.storage import make_engine, migrate
from ludothek.storage.models import utcnow
from ludothek.workers.mail import MailJob, SmtpTransport
from ludothek.workers.mail_links import MailLinks
from tests.portal.mail_support import smtp_server
from tests.portal.test_storage import new_site

USERS = 24


@pytest.fixture
def smtp() -> Iterator[Any]:
    with smtp_server() as server:
        yield server


def test_concurrent_senders_send_each_mail_once(any_db: str, smtp: Any) -> None:
    sink, port = smtp
    site = new_site(any_db)
    for i in range(USERS):
        user = site.accounts.register(f"user{i}", "password-user")
        site.notify.request_verification(user.id, f"u{i}@example.org")
    links = MailLinks("secret", "http://example.org")
    sites = [Site(make_engine(any_db), hasher=site.hasher) for _ in range(3)]
    jobs = [MailJob(s, links, SmtpTransport(f"smtp://127.0.0.1:{port}"), batch=3) for s in sites]
    errors: list[BaseException] = []

    def work(job: MailJob) -> None:
        try:
            for _ in range(40):
                job.run_once(utcnow())
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(job,)) for job in jobs]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors, errors
    got = sorted(m.rcpt[0] for m in sink.take())
    assert got == sorted(f"u{i}@example.org" for i in range(USERS))
    assert site.outbox.mail_counts() == {"sent": USERS}
    for s in [site, *sites]:
        s.engine.dispose()


def test_the_outbox_row_is_part_of_the_move(any_db: str) -> None:
    """A move that is refused (stale) leaves no outbox row; a stored one leaves exactly one."""
    from ludothek.storage import StaleMove

    migrate(make_engine(any_db))
    site = new_site(any_db)
    anna = site.accounts.register("anna", "password-anna")
    bert = site.accounts.register("bert", "password-bert")
    gid = site.lobby.create_game(anna, "toypig", 2, {}, [{"kind": "me"}, {"kind": "invite", "user": "bert"}])
    site.lobby.join(gid, bert)
    before = len(site.outbox.mail_rows())
    info = site.games.game(gid)
    with pytest.raises(StaleMove):
        site.play.submit(gid, "hold", info.seq - 1, seat=info.to_move)
    assert len(site.outbox.mail_rows()) == before
    site.play.submit(gid, "hold", info.seq, seat=info.to_move)
    rows = site.outbox.mail_rows()[before:]
    assert all(r["game_id"] == gid and r["seq"] is not None for r in rows) and len(rows) <= 1
    site.engine.dispose()
