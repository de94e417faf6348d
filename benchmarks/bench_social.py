"""Friends, blocks and the game chat in the store (SQLite file, one process): the reads every page makes.

- A friend list at its largest (500 friends, each with a last activity): ``Social.friends``.
- The game page's chat panel (the latest 100 of a chat at its largest, 2,000 messages, for a reader who
  blocked one of the authors): ``Chat.chat``; and a replay step's chat (``replay_extras`` at a random step).
- Writing a message (``Chat.post_chat``, without the rate limit), and the lobby's open-games list for a
  user with 200 blocks among 300 waiting games (``Lobby.open_games``, which leaves out blocked creators),
  beside the same list for a visitor (nothing to leave out: what the block filter costs or saves).

p50/p95 over ``REPEAT`` calls each.  Run alone: ``python -m benchmarks social``.
"""

from __future__ import annotations

import random
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

from argon2 import PasswordHasher
from sqlalchemy import insert

from ludothek.services import Site
from ludothek.services.community.chat import MAX_CHAT_PER_GAME
from ludothek.services.community.social import MAX_FRIENDS
from ludothek.storage import make_engine, migrate
from ludothek.storage.models import Block, ChatMessage, Friend, User, UserActivity

from .bench_portal import _pct

Row = tuple[str, float, str, str]

USERS = 2000
REPEAT = 300


def _timed(call: Callable[[], object], n: int = REPEAT) -> tuple[float, float]:
    times = []
    for _ in range(n):
        start = time.perf_counter()
        call()
        times.append((time.perf_counter() - start) * 1000)
    return _pct(times, 50), _pct(times, 95)


def run() -> list[Row]:
    rng = random.Random(12)
    with tempfile.TemporaryDirectory() as tmp:
        engine = make_engine(f"sqlite:///{Path(tmp) / 'social.sqlite3'}")
        migrate(engine)
        site = Site(engine, hasher=PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1))
        now = datetime(2026, 5, 1, tzinfo=UTC)
        with engine.begin() as conn:
            conn.execute(insert(User), [{"id": i + 1, "name": f"u{i:04d}", "name_key": f"u{i:04d}", "password_hash": None,
                                         "is_guest": False, "lang": "en", "created_at": now} for i in range(USERS)])
            conn.execute(insert(UserActivity), [{"user_id": i + 1, "seen_at": now - timedelta(minutes=rng.randrange(10**5))}
                                                for i in range(USERS)])
            conn.execute(insert(Friend), [{"user_id": 1, "friend_id": f, "created_at": now}
                                          for f in rng.sample(range(2, USERS + 1), MAX_FRIENDS)])
        me, other = site.accounts.user(1), site.accounts.user(2)
        assert me is not None and other is not None
        gid = site.lobby.create_game(me, "machikoro", 2, None, [{"kind": "me"}, {"kind": "open"}])
        site.lobby.join(gid, other)
        post = _timed(lambda: site.chat.post_chat(gid, me, "a message of ordinary length, about this long"), 100)
        seq = site.games.game(gid).seq
        with engine.begin() as conn:
            conn.execute(insert(ChatMessage), [
                {"game_id": gid, "user_id": 1 + i % 2, "seq": rng.randrange(seq + 1), "body": f"message {i}",
                 "created_at": now} for i in range(MAX_CHAT_PER_GAME - 100)])
            conn.execute(insert(Block), [{"user_id": 1, "blocked_id": b, "created_at": now}
                                         for b in range(1000, 1200)])
            conn.execute(insert(Block), [{"user_id": 2, "blocked_id": 3, "created_at": now}])
        for creator in range(900, 1200):  # 300 waiting games, 200 of them by users I blocked
            user = site.accounts.user(creator)
            assert user is not None
            site.lobby.create_game(user, "machikoro", 2, None)
        info = site.games.game(gid)
        friends = _timed(lambda: site.social.friends(1))
        panel = _timed(lambda: site.chat.chat(gid, other, limit=100))
        replay = _timed(lambda: site.chat.replay_extras(info, rng.randrange(seq + 1), 0, 2))
        lobby = _timed(lambda: site.lobby.open_games(me))
        visitor = _timed(lambda: site.lobby.open_games(None))
        shown = (len(site.lobby.open_games(me)), len(site.lobby.open_games(None)))
        engine.dispose()
    note = "SQLite file, store calls in one process; shared 2-core machine"
    return [
        ("social: friend list of 500 (p50)", friends[0], "ms", note),
        ("social: friend list of 500 (p95)", friends[1], "ms", note),
        ("social: chat panel, latest 100 of 2,000 (p95)", panel[1], "ms", note),
        ("social: replay step's chat, latest 100 (p95)", replay[1], "ms", note),
        ("social: post a chat message (p50)", post[0], "ms", note),
        ("social: post a chat message (p95)", post[1], "ms", note),
        ("social: open games, 200 blocks, 300 waiting (p95)", lobby[1], "ms", f"{shown[0]} games listed; {note}"),
        ("social: open games for a visitor, 300 waiting (p95)", visitor[1], "ms",
         f"{shown[1]} games listed, no blocks to leave out; {note}"),
    ]
