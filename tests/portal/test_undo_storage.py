"""Undo in the store: stored as a row of its own, refused without writing, replayed after a restart."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from ludothek import engine as eng
from ludothek.portal.gameview import engine_log_equivalent
from ludothek.services import Site
from ludothek.services.play import UndoRefused
from tests.portal.test_storage import new_site


def _rtta_game(site: Site) -> int:
    a = site.accounts.register("alice", "password-a")
    b = site.accounts.register("bob", "password-b")
    gid = site.lobby.create_game(a, "rolltheages", 2, {})
    site.lobby.join(gid, b)
    return gid


def _random_step(site: Site, gid: int, rng: random.Random, undo: Callable[[], bool]) -> bool | None:
    """The seat to move plays a random legal action, or takes back its own last one where it may and
    ``undo()`` says so (asked only then, so the random stream is the same as without the chance).

    ``None`` once the game is over, else whether it undid.
    """
    info = site.games.game(gid)
    if info.status != "running":
        return None
    with site.play.state(gid) as (_, tracked):
        assert tracked is not None
        can = tracked.state.can_undo(info.to_move) and tracked.state.history()[-1].seat == info.to_move
        action = rng.choice(tracked.state.legal_actions())
    if can and undo():
        site.play.undo(gid, info.to_move, info.seq)
        return True
    site.play.submit(gid, action, info.seq, seat=info.to_move)
    return False


def test_undo_rows_replay_after_a_restart(any_db: str) -> None:
    site = new_site(any_db)
    gid = _rtta_game(site)
    rng = random.Random(2)
    undos = 0
    for _ in range(150):
        # The store draws chance from the system's generator, so the game differs every run: take the
        # first three chances to undo for sure (RTTA offers many in 150 actions), later ones by coin.
        undid = _random_step(site, gid, rng, lambda: undos < 3 or rng.random() < 0.5)  # noqa: B023
        if undid is None:
            break
        undos += undid
    assert undos >= 3
    with site.play.state(gid) as (info, tracked):
        assert tracked is not None
        before, seq = tracked.state.snapshot(), info.seq
        logs = {(v, lang): tracked.log_for(v, lang) for v in (0, 1, None) for lang in eng.LANGS}
        assert sum(1 for line in logs[(0, "en")] if line["undone"]) == undos
    rec = site.play.record(gid)
    assert sum(1 for a in rec["actions"] if a["action"] == eng.UNDO) == undos
    assert eng.replay(rec).snapshot() == before
    site.engine.dispose()

    again = new_site(any_db)  # a new process: the state and the log are rebuilt from the rows
    with again.play.state(gid) as (info, tracked):
        assert tracked is not None and info.seq == seq
        assert tracked.state.snapshot() == before
        for (viewer, lang), log in logs.items():
            assert tracked.log_for(viewer, lang) == log
            assert log == engine_log_equivalent(tracked, viewer, lang)
    again.engine.dispose()


def test_refused_undo_writes_nothing(any_db: str) -> None:
    site = new_site(any_db)
    gid = _rtta_game(site)
    info = site.games.game(gid)
    other = 1 - info.to_move
    with pytest.raises(UndoRefused):  # the game began with chance outcomes only
        site.play.undo(gid, info.to_move, info.seq)
    with pytest.raises(UndoRefused, match=r"has acted since|random outcome"):
        site.play.undo(gid, other, info.seq)
    assert site.games.game(gid).seq == info.seq
    assert len(site.play.record(gid)["actions"]) == info.seq
    site.engine.dispose()


def test_a_long_run_is_taken_back_step_by_step_past_the_kept_positions() -> None:
    from ludothek.services.tracked import KEEP_BEFORES, Tracked
    from tests.rolltheages.helpers import new_game, roll

    state = new_game(2, start=1, trade="on")
    roll(state, "W", "S", "S")
    while state.phase != "trade":
        state.apply_action("done" if "done" in state.legal_actions() else state.legal_actions()[0])
    tracked = Tracked(state, ["anna", "bruno"])
    snapshots = []
    while len(snapshots) < KEEP_BEFORES + 4:
        drafting = [a for a in state.legal_actions() if a.startswith(("offer:", "give:", "ask:", "cancel"))]
        if not drafting:
            break
        snapshots.append(state.snapshot())
        tracked.apply(0, drafting[0])
    assert len(snapshots) > KEEP_BEFORES
    for expected in reversed(snapshots):
        tracked.undo(0)
        assert tracked.state.snapshot() == expected
    assert sum(1 for e in tracked.log if e.undone) == len(snapshots)
    full = eng.log(tracked.state, viewer=0, lang="en", names=["anna", "bruno"])[-len(tracked.log):]
    assert [(e["text"], e["undone"]) for e in tracked.log_for(0, "en")] == [(e["text"], e["undone"]) for e in full]


def test_a_cache_behind_catches_up_with_the_rows_stored_since(any_db: str) -> None:
    """Another process (or a bot worker) moves and undoes while this one's cached game waits: reading it
    applies only the rows stored since, to the same position, log and undo chances as a fresh replay."""
    mine = new_site(any_db)
    gid = _rtta_game(mine)
    other = new_site(any_db)
    rng = random.Random(5)
    undos = 0
    # The store's dice are real, so the game differs every run: the other process takes its first chance
    # to undo for sure (by coin alone, about one run in 700 undid nothing in twelve rounds), later ones by
    # coin, and the rounds go on past twelve until it has undone once.
    for _round in range(40):
        if _round >= 12 and undos:
            break
        with mine.play.state(gid) as (_, cached):  # warm (or caught up) at the game's number now
            assert cached is not None
        for _ in range(rng.randint(1, 6)):  # the other process plays a few actions meanwhile
            undid = _random_step(other, gid, rng, lambda: undos == 0 or rng.random() < 0.4)  # noqa: B023
            if undid is None:
                break
            undos += undid
        with mine.play.state(gid) as (info, tracked):
            assert tracked is cached, "caught up in place, not replayed"
            assert tracked.state.move_number() == info.seq == other.games.game(gid).seq
            assert tracked.state.snapshot() == eng.replay(other.play.record(gid)).snapshot()
            for viewer in (0, 1, None):
                assert tracked.log_for(viewer, "en") == engine_log_equivalent(tracked, viewer, "en")
        if info.status != "running":
            break
        if info.to_move >= 0:  # and this process moves on from the caught-up position
            with mine.play.state(gid) as (_, tracked):
                assert tracked is not None
                action = rng.choice(tracked.state.legal_actions())
            mine.play.submit(gid, action, info.seq, seat=info.to_move)
    assert undos >= 1
    fresh = new_site(any_db)
    with mine.play.state(gid) as (_, tracked), fresh.play.state(gid) as (_, replayed):
        assert tracked is not None and replayed is not None
        assert tracked.state.snapshot() == replayed.state.snapshot()
        assert tracked.log_for(0, "de") == replayed.log_for(0, "de")
    for s in (mine, other, fresh):
        s.engine.dispose()


def test_a_cached_replay_book_extended_by_two_requests_at_once_holds_each_entry_once(any_db: str) -> None:
    """Two replay requests of one process read the same new entries for the cached book; the second must
    not apply them again (it did: "action 6 does not apply: it is not your turn", a server error found by
    the API chaos test)."""
    site = new_site(any_db)
    gid = _rtta_game(site)
    rng = random.Random(4)
    for _ in range(20):
        _random_step(site, gid, rng, lambda: rng.random() < 0.3)
    book = site.history.replay_book(site.games.game(gid))
    start = book.length
    for _ in range(20):
        _random_step(site, gid, rng, lambda: rng.random() < 0.3)
    info = site.games.game(gid)
    assert info.status == "running" and info.seq > start
    entries = [(a["seat"], a["action"]) for a in site.play.record(gid)["actions"][start:info.seq]]
    book.extend(entries, start)  # the first request
    book.extend(entries, start)  # the second, which read the same entries before the first was done
    assert book.length == info.seq and site.history.replay_book(info) is book
    with site.play.state(gid) as (_, tracked):
        assert tracked is not None
        assert book.state_at(book.length).snapshot() == tracked.state.snapshot()
    with pytest.raises(eng.ReplayError):  # a gap is refused, never papered over
        book.extend(entries, book.length + 1)
    site.engine.dispose()
