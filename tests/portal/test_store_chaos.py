"""Every kind of change at once, between the same few people, from two stores: refusals, never a database error.

Two server processes share one database, and the same three people create, join, leave and cancel
games, play and end them (which rates them), resign, vote to abandon, befriend, block and chat, all
at the same moment.  Each transaction takes row locks in its own order; where two of them could each
hold what the other waits for, PostgreSQL breaks the deadlock by refusing one, and the request
answers a server error (a join was refused this way in the portal benchmark).  Whatever the
interleaving, a request may only be refused with a `StoreError` (a 4xx with a reason), and the
database must stay consistent: `lobby_problems` finds nothing.  Found this way (25 Nov 2026): a
block or a friend request answered with an entry read after its commit, which an unblock from another
tab could already have taken away (a server error), and an unblock that did not wait for a block in
progress.
"""

from __future__ import annotations

import contextlib
import functools
import os
import random
import threading
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest

from ludothek import engine as eng
from ludothek.services import Site
from ludothek.storage import StoreError, make_engine, migrate
from ludothek.storage.errors import SeatTakenOver, StaleMove
from ludothek.storage.info import UserInfo
from ludothek.storage.lobby_check import lobby_problems
from ludothek.storage.models import utcnow
from ludothek.workers.bots import BotWorker, bot_step
from tests.portal.conftest import FAST_HASHER
from tests.portal.together import run_threads
from tests.portal.toyrank import GAME as RANKGAME

eng.register(RANKGAME)  # a game whose players choose its result: games end after a move each

#: Operations per thread; six threads (each person on each store).  ``CHAOS_STEPS=300`` for a longer hunt.
STEPS = int(os.environ.get("CHAOS_STEPS") or 80)


def _site(url: str) -> Site:
    engine = make_engine(url)
    migrate(engine)
    site = Site(engine, hasher=FAST_HASHER)
    site.lobby.max_open_games = 1000
    return site


class Table:
    """What the threads share: the games created so far and the chat messages posted."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.games: list[int] = []
        self.messages: list[int] = []

    def pick(self, rng: random.Random, items: list[int]) -> int | None:
        with self.lock:
            return rng.choice(items) if items else None


def _operations(site: Site, me: UserInfo, others: list[str], table: Table,
                rng: random.Random) -> list[Callable[[], Any]]:
    """One closure per kind of change ``me`` can ask for."""

    def create() -> None:
        kind = rng.choice(["open", "invite", "both"])
        seats: list[dict[str, Any]] = [{"kind": "me"}]
        if kind in ("invite", "both"):
            seats.append({"kind": "invite", "user": rng.choice(others)})
        if kind in ("open", "both"):
            seats.append({"kind": "open"})
        if rng.random() < 0.3:
            seats.append({"kind": "bot", "bot": rng.choice(["random", "medium"])})
        clock = rng.choice([None, None, "move:1", "bank:1+1/3"])
        gid = site.lobby.create_game(me, "toyrank", len(seats), {}, seats, clock)
        with table.lock:
            table.games.append(gid)

    def game() -> int:
        gid = table.pick(rng, table.games)
        if gid is None:
            create()
            gid = table.pick(rng, table.games)
        assert gid is not None
        return gid

    def join() -> None:  # a waiting game, mostly
        with table.lock:
            games = list(table.games)
        waiting = [g for g in rng.sample(games, min(6, len(games))) if site.games.game(g).status == "open"]
        site.lobby.join(rng.choice(waiting) if waiting else game(), me)

    def move() -> None:  # in one of my games where it is my turn, if there is one
        with table.lock:
            games = list(table.games)
        rng.shuffle(games)
        for gid in games:
            info = site.games.game(gid)
            if info.status == "running" and info.seat_of(me.id) == info.to_move:
                site.play.submit_as(gid, me.id, f"score:{rng.randrange(10)}", info.seq)
                return

    def undo() -> None:  # right after my own move, where nobody has moved since
        with table.lock:
            games = list(table.games)
        for gid in rng.sample(games, min(3, len(games))):
            info = site.games.game(gid)
            if info.status == "running" and info.seat_of(me.id) is not None:
                site.play.undo_as(gid, me.id, info.seq)
                return

    def bots() -> None:  # a bot worker's turn, as `ludothek bots` runs it beside the servers
        BotWorker(site, delay=0.0, owner=f"{me.name}-{rng.randrange(99)}").run_once()

    def clocks() -> None:  # the clock worker a few days on: timeouts hand seats to bots, reminders go out
        later = utcnow() + timedelta(days=rng.choice([1, 3]))
        site.clocks.queue_reminders(later)
        site.clocks.expire_due(later)

    def token() -> None:  # a new API token, used, and revoked again
        label = f"bot {rng.randrange(10**9)}"  # this call's own (the other store's thread is the same person)
        secret = site.sessions.create_token(me.id, label)
        assert site.sessions.user_by_token(secret) is not None
        site.sessions.revoke_token(me.id, next(t.id for t in site.sessions.tokens(me.id) if t.label == label))
        assert site.sessions.user_by_token(secret) is None

    def chat() -> None:
        posted = site.chat.post_chat(game(), me, "gg " + str(rng.randrange(1000)))
        with table.lock:
            table.messages.append(posted.line.id)

    def report() -> None:
        mid = table.pick(rng, table.messages)
        if mid is not None:
            site.chat.report_chat(mid, me, "spam")

    other = lambda: rng.choice(others)  # noqa: E731 (a one-liner read where it is used)
    return [
        create, create, move, move, move, move, move, move,
        join, join, join,
        lambda: site.lobby.leave(game(), me), lambda: site.lobby.cancel(game(), me),
        lambda: site.clocks.resign(game(), me), lambda: site.clocks.vote_abandon(game(), me, rng.random() < 0.7),
        lambda: site.social.befriend(me, other()), lambda: site.social.unfriend(me, other()),
        lambda: site.social.block(me, other()), lambda: site.social.unblock(me, other()), lambda: site.social.unblock(me, other()),
        chat, report, undo, bots, bots, clocks,
        lambda: site.clocks.declare_vacation(me, rng.choice([0.5, 2.0])),
        lambda: site.admin.end_game(game()),  # an administrator calls a game off
        lambda: site.profiles.set_about(me.id, f"I play on {rng.randrange(7)} days a week"),
        lambda: site.notify.set_prefs(me.id, turns=rng.choice(["each", "digest", "off"]), invites=rng.random() < 0.5), token,
    ]


def test_every_kind_of_change_at_once_is_refused_at_worst_never_fails(any_db: str) -> None:
    sites = [_site(any_db), _site(any_db)]
    names = ["anna", "bruno", "carla"]
    users = [sites[0].accounts.register(n, "password-" + n) for n in names]
    table = Table()
    failures: list[tuple[str, BaseException]] = []
    barrier = threading.Barrier(len(users) * len(sites))

    def person(site: Site, me: UserInfo, seed: int) -> None:
        rng = random.Random(seed)
        ops = _operations(site, me, [n for n in names if n != me.name], table, rng)
        barrier.wait()
        for _ in range(STEPS):
            op = rng.choice(ops)
            try:
                op()
            except StoreError:
                pass  # a refusal with a reason: what a request may get
            except BaseException as exc:  # collected and shown below
                failures.append((getattr(op, "__name__", "?"), exc))

    run_threads(person, ((site, me, 10 * i + j) for i, me in enumerate(users) for j, site in enumerate(sites)))
    assert [f"{name}: {exc!r}"[:400] for name, exc in failures] == []
    assert lobby_problems(sites[0].engine) == []
    # No rating update was lost or counted twice: replaying the results in order gives the same numbers.
    def ratings() -> list[tuple[str, str, float, float, int, int]]:
        return sorted((me.name, kind, round(r.mu, 9), round(r.sigma, 9), r.games, r.wins)
                      for me in users for kind, r in sites[0].ratings.ratings_of(me.id).items())
    if not ratings():  # this interleaving let no game end rated (it happens): end one now
        _finish_one_rated_game(sites[0], users)
    before = ratings()
    assert before  # games were rated
    sites[0].ratings.recompute_ratings()
    assert ratings() == before
    statuses = {sites[0].games.game(gid).status for gid in table.games}
    assert statuses & {"running", "finished"}, statuses  # the games did get played
    for s in sites:
        s.engine.dispose()


def _finish_one_rated_game(site: Site, users: list[UserInfo]) -> None:
    """Two of ``users`` play a game of their own to its end (blocks between them lifted first)."""
    first, second = users[0], users[1]
    for me, other in ((first, second), (second, first)):
        with contextlib.suppress(StoreError):  # there was no block
            site.social.unblock(me, other.name)
    gid = site.lobby.create_game(first, "toyrank", 2, {}, [{"kind": "me"}, {"kind": "invite", "user": second.name}], None)
    site.lobby.join(gid, second)
    info = site.games.game(gid)
    while info.status == "running":
        seat = info.seats[info.to_move]
        assert seat.user_id is not None
        site.play.submit_as(gid, seat.user_id, "score:3", info.seq)
        info = site.games.game(gid)
    assert info.status == "finished"


def _at_once(*calls: Callable[[], Any]) -> list[BaseException]:
    """Run ``calls`` in threads released together; what they raised."""
    barrier = threading.Barrier(len(calls))
    failures: list[BaseException] = []

    def run(call: Callable[[], Any]) -> None:
        barrier.wait()
        try:
            call()
        except BaseException as exc:  # collected for the caller
            failures.append(exc)

    run_threads(run, ((c,) for c in calls))
    return failures


def test_settings_saved_from_two_tabs_at_once_both_count(any_db: str) -> None:
    """Two tabs save different notification settings at the same moment, for the first time: both
    changes are kept, and neither tab gets an error (a second insert of the new row used to fail with a
    server error, 26 of 80 such saves on PostgreSQL; and whichever saved second wrote back the other's
    setting as it had read it).  The same for two first requests to verify an address."""
    sites = [_site(any_db), _site(any_db)]
    for k in range(8):
        user = sites[0].accounts.register(f"tabs{k}", "password-tabs")
        uid = user.id
        assert _at_once(functools.partial(sites[0].notify.set_prefs, uid, invites=False),
                        functools.partial(sites[1].notify.set_prefs, uid, turns="off")) == []
        prefs = sites[0].notify.prefs(uid)
        assert (prefs.invites, prefs.turns) == (False, "off")
        assert _at_once(functools.partial(sites[0].notify.request_verification, uid, "one@example.org"),
                        functools.partial(sites[1].notify.request_verification, uid, "two@example.org")) == []
        assert sites[0].notify.email_of(uid).pending in ("one@example.org", "two@example.org")
    for s in sites:
        s.engine.dispose()


def test_a_vacation_sent_twice_at_once_is_taken_once(any_db: str) -> None:
    """A double click on "declare a vacation" (two requests at the same moment, on two processes):
    one vacation, the other request refused; before, both could pass the checks for overlaps and for the
    days left, and the clocks were paused twice."""
    sites = [_site(any_db), _site(any_db)]
    for k in range(6):
        user = sites[0].accounts.register(f"away{k}", "password-away")
        failures = _at_once(*(functools.partial(sites[i % 2].clocks.declare_vacation, user, 10.0) for i in range(4)))
        assert len(failures) == 3 and all(isinstance(f, StoreError) for f in failures), failures
        assert len(sites[0].clocks.vacations(user.id)) == 1
    for s in sites:
        s.engine.dispose()


def test_a_move_that_meets_a_change_of_seats_says_truly_what_happened(any_db: str) -> None:
    """A move stored while another process changed the game's seats (or clocks, or abandonment votes) at
    the same move number is refused.  Only when the mover's own seat changed hands is that final ("a bot
    plays this seat now"); otherwise it is a stale move that may be sent again, and sending it again works.
    Before, every such refusal said "a bot plays this seat now", also to a bot worker, which then kept its
    claim on the turn for the whole lease."""
    sites = [_site(any_db), _site(any_db)]
    users = [sites[0].accounts.register(name, "password-" + name) for name in ("ann", "bob", "cid")]
    gid = sites[0].lobby.create_game(users[0], "machikoro", 3, {})
    for u in users[1:]:
        sites[0].lobby.join(gid, u)

    def to_move() -> tuple[UserInfo, list[UserInfo], int, str]:
        while bot_step(sites[0], gid):  # the resigned seat's bot, when it is its turn
            pass
        with sites[0].play.state(gid) as (info, tracked):  # store 0 caches the game as it is now
            assert tracked is not None and info.status == "running"
            mover = next(u for u in users if info.seat_of(u.id) == info.to_move)
            return mover, [u for u in users if u is not mover], info.seq, tracked.state.legal_actions()[0]

    mover, others, seq, action = to_move()
    sites[1].clocks.resign(gid, others[0])  # another seat changes hands in the other process
    with pytest.raises(StaleMove) as refused:
        sites[0].play.submit_as(gid, mover.id, action, seq)
    assert refused.value.params.get("code_key") == "stale_seats" and not isinstance(refused.value, SeatTakenOver)
    sites[0].play.submit_as(gid, mover.id, action, seq)  # sent again: stored
    assert sites[1].games.game(gid).seq > seq

    mover, others, seq, action = to_move()
    sites[1].clocks.resign(gid, mover)  # now the mover's own seat
    with pytest.raises(SeatTakenOver):
        sites[0].play.submit_as(gid, mover.id, action, seq)
    assert sites[1].games.game(gid).seq == seq
    for s in sites:
        s.engine.dispose()
