"""What mail costs: moves per second with the outbox on and off, and mails per second to SMTP.

Moves: two people play Machi Koro through ``Play.submit`` (the same write path
as the API, without HTTP) on SQLite.  "on" queues an outbox row with *every*
move (the worst case; normally only a move that hands the turn to another
person does), "off" switches the outbox off.  The two run side by side, one
move each in turn on their own database files, so that a busy machine slows
both alike.  Target: within 10 %.

Sending: `MailJob` delivers verification mails to a local ``aiosmtpd`` over
one SMTP connection per batch.

Run: ``.venv/bin/python -m benchmarks mail`` (or ``make bench``).
"""

from __future__ import annotations

import random
import tempfile
import time
from pathlib import Path

from argon2 import PasswordHasher

from ludothek.services import Site
from ludothek.storage import make_engine, migrate
from ludothek.storage.models import utcnow

Row = tuple[str, float, str, str]
MOVES = 5000
MAILS = 300


def _site(path: Path) -> Site:
    engine = make_engine(f"sqlite:///{path}")
    migrate(engine)
    return Site(engine, hasher=PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1))


class _Player:
    """Two people playing Machi Koro in one store, one move at a time (a new game when one ends)."""

    def __init__(self, site: Site, on: bool, rng: random.Random, every_move: bool = True) -> None:
        self.site, self.rng = site, rng
        self.anna = site.accounts.register("anna", "password-anna")
        self.bert = site.accounts.register("bert", "password-bert")
        site.play.mail_on_moves = on
        if on and every_move:  # every move queues a mail: the worst case for the move path
            every = [(self.bert.id, "turn", '{"by": 0}')]
            site.play._move_mails = lambda info, seat, to_move: every  # type: ignore[method-assign]
        self.gid = self._new_game()
        self.elapsed = 0.0
        self.moves = 0

    def _new_game(self) -> int:
        gid = self.site.lobby.create_game(self.anna, "machikoro", 2, {},
                                     [{"kind": "me"}, {"kind": "invite", "user": "bert"}])
        self.site.lobby.join(gid, self.bert)
        return gid

    def move(self) -> None:
        with self.site.play.state(self.gid) as (info, tracked):
            if tracked is None or info.status != "running":
                action = None
            else:
                seat, seq = info.to_move, info.seq
                action = self.rng.choice(tracked.state.legal_actions())
        if action is None:
            self.gid = self._new_game()
            return
        start = time.perf_counter()
        self.site.play.submit(self.gid, action, seq, seat=seat)
        self.elapsed += time.perf_counter() - start
        self.moves += 1


def _moves_per_second(tmp: Path) -> tuple[float, float, float, int]:
    """Moves/s off, on (a mail per move) and as played, move by move in turn: the machine's load hits all alike."""
    players = {
        "off": _Player(_site(tmp / "off.sqlite3"), False, random.Random(1)),
        "every": _Player(_site(tmp / "every.sqlite3"), True, random.Random(1)),
        "played": _Player(_site(tmp / "played.sqlite3"), True, random.Random(1), every_move=False),
    }
    for _ in range(MOVES):
        for p in players.values():
            p.move()
    queued = players["every"].site.outbox.mail_counts().get("pending", 0)
    for p in players.values():
        p.site.engine.dispose()
    off, every, played = (p.moves / p.elapsed for p in players.values())
    return off, every, played, queued


def _mails_per_second(tmp: Path) -> float:
    from aiosmtpd.controller import Controller

    from ludothek.workers.mail import MailJob, SmtpTransport
    from ludothek.workers.mail_links import MailLinks

    class Sink:
        count = 0

        async def handle_DATA(self, server: object, session: object, envelope: object) -> str:
            Sink.count += 1
            return "250 OK"

    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    controller = Controller(Sink(), hostname="127.0.0.1", port=port)
    controller.start()
    try:
        site = _site(tmp / "send.sqlite3")
        for i in range(MAILS):
            user = site.accounts.register(f"user{i}", "password-bench")
            site.notify.request_verification(user.id, f"user{i}@example.org")
        job = MailJob(site, MailLinks("bench-secret", "http://127.0.0.1:8000"),
                      SmtpTransport(f"smtp://127.0.0.1:{port}"), batch=100)
        start = time.perf_counter()
        sent = 0
        while sent < MAILS:
            n = job.run_once(utcnow())
            if n == 0:
                break
            sent += n
        elapsed = time.perf_counter() - start
        site.engine.dispose()
    finally:
        controller.stop()
    return sent / elapsed


def run() -> list[Row]:
    with tempfile.TemporaryDirectory() as tmp:
        off, on, played, queued = _moves_per_second(Path(tmp))
        mails = _mails_per_second(Path(tmp))
    change = (on / off - 1) * 100
    return [
        ("mail: moves/s, outbox off (SQLite)", off, "moves/s", f"{MOVES} moves, alternating with the runs below"),
        ("mail: moves/s, a mail per move (SQLite)", on, "moves/s", f"{change:+.1f} % against off; {queued} rows queued"),
        ("mail: moves/s, mails as played (SQLite)", played, "moves/s",
         f"{(played / off - 1) * 100:+.1f} % against off; a mail when the turn passes to the other person"),
        ("mail: mails/s sent to local aiosmtpd", mails, "mails/s", f"{MAILS} verification mails, batches of 100"),
    ]
