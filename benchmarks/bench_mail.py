"""What mail costs: moves per second with the outbox on and off, and mails per second to SMTP.

Moves: two people play Machi Koro through ``Store.submit`` (the same write path
as the API, without HTTP) on SQLite.  "on" queues an outbox row with *every*
move (the worst case; normally only a move that hands the turn to another
person does), "off" switches the outbox off.  Runs alternate and the best of
several is kept, because the machine is shared.  Target: within 10 %.

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

from ludothek.storage import Store, make_engine, migrate
from ludothek.storage.models import utcnow

Row = tuple[str, float, str, str]
MOVES = 1500
ROUNDS = 3
MAILS = 300


def _store(path: Path) -> Store:
    engine = make_engine(f"sqlite:///{path}")
    migrate(engine)
    return Store(engine, hasher=PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1))


def _moves_per_second(store: Store, on: bool, rng: random.Random) -> float:
    """Play ``MOVES`` moves in fresh two-person games; moves per second of wall time."""
    anna = store.user_by_name("anna") or store.register("anna", "password-anna")
    bert = store.user_by_name("bert") or store.register("bert", "password-bert")
    store.mail_on_moves = on
    every = [(bert.id, "turn", '{"by": 0}')]
    if on:  # every move queues a mail: the worst case for the move path
        store._move_mails = lambda info, seat, to_move: every  # type: ignore[method-assign]
    done = 0
    elapsed = 0.0
    while done < MOVES:
        gid = store.create_game(anna, "machikoro", 2, {}, [{"kind": "me"}, {"kind": "invite", "user": "bert"}])
        store.join(gid, bert)
        while done < MOVES:
            with store.state(gid) as (info, tracked):
                if tracked is None or info.status != "running":
                    break
                seat, seq = info.to_move, info.seq
                action = rng.choice(tracked.state.legal_actions())
            start = time.perf_counter()
            store.submit(gid, seat, action, seq)
            elapsed += time.perf_counter() - start
            done += 1
    if on:
        del store._move_mails  # type: ignore[attr-defined]
    return done / elapsed


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
        store = _store(tmp / "send.sqlite3")
        for i in range(MAILS):
            user = store.register(f"user{i}", "password-bench")
            store.request_verification(user.id, f"user{i}@example.org")
        job = MailJob(store, MailLinks("bench-secret", "http://127.0.0.1:8000"),
                      SmtpTransport(f"smtp://127.0.0.1:{port}"), batch=100)
        start = time.perf_counter()
        sent = 0
        while sent < MAILS:
            n = job.run_once(utcnow())
            if n == 0:
                break
            sent += n
        elapsed = time.perf_counter() - start
        store.engine.dispose()
    finally:
        controller.stop()
    return sent / elapsed


def run() -> list[Row]:
    rng = random.Random(1)
    with tempfile.TemporaryDirectory() as tmp:
        store = _store(Path(tmp) / "moves.sqlite3")
        best = {True: 0.0, False: 0.0}
        for _ in range(ROUNDS):
            for on in (False, True):
                best[on] = max(best[on], _moves_per_second(store, on, rng))
        rows_in_outbox = store.mail_counts().get("pending", 0)
        store.engine.dispose()
        mails = _mails_per_second(Path(tmp))
    change = (best[True] / best[False] - 1) * 100
    return [
        ("mail: moves/s, outbox off (SQLite)", best[False], "moves/s", f"best of {ROUNDS} x {MOVES} moves"),
        ("mail: moves/s, a mail per move (SQLite)", best[True], "moves/s",
         f"{change:+.1f} % against off; {rows_in_outbox} rows queued"),
        ("mail: mails/s sent to local aiosmtpd", mails, "mails/s", f"{MAILS} verification mails, batches of 100"),
    ]
