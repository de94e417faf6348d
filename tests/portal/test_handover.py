"""Handing a turn on (issue 29): a player may take back any decision of their turn until it is handed on.

Service level, on SQLite and PostgreSQL: per game, the turn's end leaves a pending hand-over (the next
turn's chance steps wait, bots wait, the next seat is refused), undo works during it, and a confirmation
or the clock job hands the turn on exactly once, also when they race each other or an undo.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest

from ludothek import engine as eng
from ludothek.engine import CHANCE
from ludothek.services import Site
from ludothek.services.handover import HandoverPending
from ludothek.services.play import UndoRefused
from ludothek.storage import BadRequest, Conflict, StaleMove
from ludothek.storage.models import utcnow
from ludothek.workers.bots import BotWorker, bot_step
from ludothek.workers.clocks import ClockJob
from tests.portal.test_storage import new_site

GRACE = 5


def _site(url: str, grace: int = GRACE) -> Site:
    site = new_site(url)
    site.play.default_grace = grace
    return site


def _humans(site: Site, game: str, options: dict[str, str] | None = None, clock: Any = None) -> int:
    a = site.accounts.register("alice", "password-a")
    b = site.accounts.register("bob", "password-b")
    gid = site.lobby.create_game(a, game, 2, options or {}, time_control=clock)
    site.lobby.join(gid, b)
    return gid


def _against_bot(site: Site, game: str, options: dict[str, str] | None = None) -> tuple[int, int]:
    """A game of alice against a random bot: the game and alice's seat."""
    a = site.accounts.register("alice", "password-a")
    gid = site.lobby.create_game(a, game, 2, options or {}, seats=[{"kind": "me"}, {"kind": "bot", "bot": "random"}])
    seat = site.games.game(gid).seat_of(a.id)
    assert seat is not None
    return gid, seat


def _snapshot(site: Site, gid: int) -> dict[str, Any]:
    with site.play.state(gid) as (_, tracked):
        assert tracked is not None
        return tracked.state.snapshot()


def _legal(site: Site, gid: int) -> list[str]:
    with site.play.state(gid) as (_, tracked):
        assert tracked is not None
        return tracked.state.legal_actions()


def _play_to_handover(site: Site, gid: int, seat: int, pick: Callable[[list[str]], str] = lambda a: a[0],
                      ) -> tuple[dict[str, Any], str]:
    """Play ``seat`` (first legal action, or ``pick``) and the bots until ``seat``'s turn waits for its
    confirmation; the position before ``seat``'s last action and that action."""
    before: dict[str, Any] = {}
    action = ""
    for _ in range(400):
        info = site.games.game(gid)
        assert info.status == "running"
        if info.handover_seat is not None:
            assert info.handover_seat == seat
            return before, action
        if info.to_move == seat:
            before, action = _snapshot(site, gid), pick(_legal(site, gid))
            site.play.submit(gid, action, info.seq, seat=seat)
        else:
            assert bot_step(site, gid), f"nobody moved at {info}"
    raise AssertionError("the turn never ended")


def _assert_waits(site: Site, gid: int, seat: int) -> None:
    """A pending hand-over: nobody to move, no bot turn pending, the last entry is the seat's own."""
    info = site.games.game(gid)
    assert info.handover_seat == seat and info.to_move == CHANCE and info.handover_due is not None
    assert site.bots.count_pending_bot_turns() == 0
    assert BotWorker(site, delay=0.0).run_once() == 0  # a bot worker finds nothing to claim
    assert not bot_step(site, gid)
    with site.play.state(gid) as (_, tracked):
        assert tracked is not None
        assert tracked.state.history()[-1].seat == seat  # nothing of the next turn was drawn


def _assert_record_replays(site: Site, gid: int) -> None:
    rec = site.play.record(gid)
    assert eng.replay(rec).snapshot() == _snapshot(site, gid)


def _undo_redo_confirm(site: Site, gid: int, seat: int, before: dict[str, Any], action: str) -> None:
    """Take back the action that ended the turn, make another, confirm; the undone one is out of force."""
    info = site.games.game(gid)
    site.play.undo(gid, seat, info.seq)
    info = site.games.game(gid)
    assert info.handover_seat is None and info.to_move == seat
    assert _snapshot(site, gid) == before
    legal = _legal(site, gid)
    other = next((a for a in legal if a != action), action)
    site.play.submit(gid, other, info.seq, seat=seat)
    for _ in range(50):  # the other decision may leave more of the turn to play: play it to its end
        info = site.games.game(gid)
        if info.handover_seat is not None:
            site.play.confirm(gid, seat, info.seq)
            break
        assert info.to_move == seat
        site.play.submit(gid, _legal(site, gid)[0], info.seq, seat=seat)
    info = site.games.game(gid)
    assert info.handover_seat is None and info.to_move != CHANCE
    with site.play.state(gid) as (_, tracked):
        assert tracked is not None
        kept = [tracked.state.history()[i] for i in tracked.state._in_force()]
        undone = [tracked.state.history()[i] for i in sorted(tracked.state.undone())]
    assert undone[-1].action == action and undone[-1].seat == seat
    assert kept[-1].seat != seat or other != action
    _assert_record_replays(site, gid)
    with pytest.raises(UndoRefused):  # handed on: it can no longer be taken back
        site.play.undo(gid, seat, site.games.game(gid).seq)


# ----------------------------------------------------------------------------- Machi Koro
def _build(legal: list[str]) -> str:
    return next(a for a in legal if a.startswith("build:"))


def test_machikoro_build_can_be_taken_back_and_the_next_roll_waits(any_db: str) -> None:
    site = _site(any_db)
    gid = _humans(site, "machikoro")
    info = site.games.game(gid)
    before = _snapshot(site, gid)
    mails = site.db.single("SELECT count(*) FROM outbox WHERE kind = 'turn'", ())[0]
    site.play.submit(gid, _build(_legal(site, gid)), info.seq, seat=0)
    _assert_waits(site, gid, 0)
    with site.play.state(gid) as (_, tracked):
        assert tracked is not None and tracked.state.current_player() == CHANCE  # bob's roll, not yet drawn
    info = site.games.game(gid)
    with pytest.raises(HandoverPending, match=f"waiting for {info.seat_names()[0]}"):
        site.play.submit(gid, "pass", info.seq, seat=1)
    with pytest.raises(Conflict):
        site.play.confirm(gid, 1, info.seq)  # only alice confirms her turn
    # No "your turn" mail for bob yet.
    assert site.db.single("SELECT count(*) FROM outbox WHERE kind = 'turn'", ()) == (mails,)
    site.play.undo(gid, 0, info.seq)
    assert _snapshot(site, gid) == before
    info = site.games.game(gid)
    site.play.submit(gid, "pass", info.seq, seat=0)
    info = site.games.game(gid)
    event = site.play.confirm(gid, 0, info.seq)
    assert event.to_move == 1
    with site.play.state(gid) as (_, tracked):
        assert tracked is not None
        entries = [(e.seat, e.action) for e in tracked.state.history()]
    assert entries[-4:-1] == [(0, entries[-4][1]), (0, "undo"), (0, "pass")] and entries[-1][0] == CHANCE
    assert site.db.single("SELECT count(*) FROM outbox WHERE kind = 'turn'", ()) == (mails + 1,)
    _assert_record_replays(site, gid)
    with pytest.raises(UndoRefused, match=r"random outcome|handed on"):
        site.play.undo(gid, 0, site.games.game(gid).seq)


def test_the_clock_job_hands_on_when_the_grace_period_ends(any_db: str) -> None:
    site = _site(any_db)
    gid = _humans(site, "machikoro")
    info = site.games.game(gid)
    site.play.submit(gid, _build(_legal(site, gid)), info.seq, seat=0)
    now = utcnow()
    job = ClockJob(site)
    assert site.play.hand_on_due(now + timedelta(seconds=GRACE - 1)) == []
    assert site.games.game(gid).handover_seat == 0
    assert job.run_once(now + timedelta(seconds=GRACE + 1)) >= 1
    info = site.games.game(gid)
    assert info.handover_seat is None and info.to_move == 1
    assert site.play.hand_on_due(now + timedelta(seconds=GRACE + 2)) == []  # once only


def test_no_grace_hands_on_at_once_and_bots_always_do(any_db: str) -> None:
    site = _site(any_db, grace=0)
    gid = _humans(site, "machikoro")
    info = site.games.game(gid)
    site.play.submit(gid, "pass", info.seq, seat=0)
    info = site.games.game(gid)
    assert info.handover_seat is None and info.to_move == 1  # bob's roll drawn at once, as before
    # A person's own setting overrides the site's default.
    site.play.set_grace(info.seats[1].user_id or 0, 10)
    site.play.submit(gid, "pass", info.seq, seat=1)
    info = site.games.game(gid)
    assert info.handover_seat == 1 and info.handover_due is not None
    with pytest.raises(BadRequest, match="0, 5, 10, 30"):
        site.play.set_grace(info.seats[1].user_id or 0, 7)


# ----------------------------------------------------------------------------- against bots, every game
@pytest.mark.parametrize(("game", "options"), [
    ("machikoro", {}),
    ("snowdonia", {}),
    ("snowdonia", {"map": "blaenau_ffestiniog"}),
    ("machikoro", {"market": "komme_was_wolle"}),
    ("carpediem", {}),
    ("rolltheages", {}),
])
def test_against_a_bot_a_turn_waits_can_be_taken_back_and_is_confirmed(
        game: str, options: dict[str, str], tmp_path: Any) -> None:
    site = _site(f"sqlite:///{tmp_path / 'h.sqlite3'}")
    gid, seat = _against_bot(site, game, options)
    before, action = _play_to_handover(site, gid, seat)
    _assert_waits(site, gid, seat)
    _undo_redo_confirm(site, gid, seat, before, action)
    # The bot moves once the turn is handed on (unless alice's own turn came round again).
    info = site.games.game(gid)
    assert info.to_move == seat or bot_step(site, gid)


# ----------------------------------------------------------------------------- races
def _race(first: Callable[[], Any], second: Callable[[], Any]) -> list[Any]:
    """Run both at once (as two processes would); each one's result or exception."""
    barrier = threading.Barrier(2)
    out: list[Any] = [None, None]

    def run(i: int, fn: Callable[[], Any]) -> None:
        barrier.wait()
        try:
            out[i] = fn()
        except Exception as exc:
            out[i] = exc

    threads = [threading.Thread(target=run, args=(i, fn)) for i, fn in enumerate((first, second))]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    return out


def _pending_machikoro(site: Site, other: Site, n: int) -> int:
    """A Machi Koro game (the ``n``-th of this database) whose turn waits for alice's confirmation."""
    a = site.accounts.register(f"alice{n}", "password-a")
    b = site.accounts.register(f"bob{n}", "password-b")
    gid = site.lobby.create_game(a, "machikoro", 2, {})
    site.lobby.join(gid, b)
    info = site.games.game(gid)
    site.play.submit(gid, "pass", info.seq, seat=0)
    assert other.games.game(gid).handover_seat == 0
    return gid


def _drawn_after_pass(site: Site, gid: int) -> int:
    with site.play.state(gid) as (_, tracked):
        assert tracked is not None
        history = tracked.state.history()
    last = max(i for i, e in enumerate(history) if e.seat == 0)
    return sum(1 for e in history[last + 1:] if e.seat == CHANCE)


def test_a_confirmation_racing_the_clock_job_hands_on_once(any_db: str) -> None:
    site, other = _site(any_db), _site(any_db)  # two processes on one database
    for n in range(4):
        gid = _pending_machikoro(site, other, n)
        seq = site.games.game(gid).seq
        later = utcnow() + timedelta(seconds=GRACE + 1)
        confirmed, handed = _race(lambda: site.play.confirm(gid, 0, seq),  # noqa: B023
                                  lambda: other.play.hand_on_due(later))  # noqa: B023
        # Exactly one of them handed the turn on; the other found nothing left to do.
        assert (isinstance(confirmed, Exception)) == (handed == [gid]), (confirmed, handed)
        if isinstance(confirmed, Exception):
            assert isinstance(confirmed, (Conflict, StaleMove)), confirmed
        fresh = _site(any_db)
        info = fresh.games.game(gid)
        assert info.handover_seat is None and info.to_move == 1
        assert _drawn_after_pass(fresh, gid) == 1  # bob's roll, drawn once
        _assert_record_replays(fresh, gid)


def test_an_undo_racing_the_clock_job_either_undoes_or_is_refused(any_db: str) -> None:
    site, other = _site(any_db), _site(any_db)
    for n in range(4):
        gid = _pending_machikoro(site, other, n)
        seq = site.games.game(gid).seq
        later = utcnow() + timedelta(seconds=GRACE + 1)
        undo, handed = _race(lambda: site.play.undo(gid, 0, seq),  # noqa: B023
                             lambda: other.play.hand_on_due(later))  # noqa: B023
        fresh = _site(any_db)
        info = fresh.games.game(gid)
        if handed:  # the turn was handed on first: the undo was refused and wrote nothing
            assert isinstance(undo, (UndoRefused, StaleMove)), undo
            assert info.to_move == 1 and info.handover_seat is None
        else:  # the undo came first: alice is to move again and nothing was handed on
            assert not isinstance(undo, Exception), undo
            assert info.to_move == 0 and info.handover_seat is None
        _assert_record_replays(fresh, gid)


# ----------------------------------------------------------------------------- clocks
def test_the_next_players_clock_starts_at_the_hand_on_and_an_undo_gives_the_mover_theirs_back(any_db: str) -> None:
    site = _site(any_db)
    gid = _humans(site, "machikoro", clock="move:1")
    info = site.games.game(gid)
    assert info.deadline is not None
    site.play.submit(gid, "pass", info.seq, seat=0)
    info = site.games.game(gid)
    assert info.deadline is None  # nobody's clock runs while the turn waits
    site.play.undo(gid, 0, info.seq)
    info = site.games.game(gid)
    assert info.to_move == 0 and info.deadline is not None  # alice's clock runs again
    site.play.submit(gid, "pass", info.seq, seat=0)
    start = utcnow()
    site.play.confirm(gid, 0, site.games.game(gid).seq)
    info = site.games.game(gid)
    assert info.to_move == 1 and info.deadline is not None
    assert info.deadline >= start + timedelta(days=1) - timedelta(seconds=1)
    assert site.clocks.expire_due(start + timedelta(hours=23)) == []
