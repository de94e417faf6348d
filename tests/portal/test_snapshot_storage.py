"""Snapshots in the store (issue 34): a cold game is its snapshot plus the rows after it, and the rows stay
the truth: a damaged snapshot, or one of another rules version, is replayed over and written again."""

from __future__ import annotations

import random

from ludothek import engine as eng
from ludothek.engine import snapshots
from ludothek.portal.gameview import engine_log_equivalent
from ludothek.services import Site
from ludothek.storage.db import make_engine
from tests.portal.test_storage import FAST_HASHER
from tests.portal.test_undo_storage import _random_step, _rtta_game


def _site(url: str, every: int = 8) -> Site:
    from ludothek.storage.db import migrate

    engine = make_engine(url)
    migrate(engine)
    return Site(engine, hasher=FAST_HASHER, snapshot_every=every)


def _play(site: Site, gid: int, steps: int, seed: int = 3, undo: float = 0.3) -> None:
    rng = random.Random(seed)
    for _ in range(steps):
        if _random_step(site, gid, rng, lambda: rng.random() < undo) is None:
            return


def _cold(url: str, gid: int, every: int = 8) -> tuple[Site, dict[str, object]]:
    """Open the game in a new process (nothing cached) and compare it with the replayed record."""
    site = _site(url, every)
    with site.play.state(gid) as (info, tracked):
        assert tracked is not None and tracked.state.move_number() == info.seq
        seen = {"snapshot": tracked.state.snapshot(), "seq": info.seq,
                "logs": {v: tracked.log_for(v, "en") for v in (0, 1, None)},
                "engine_logs": {v: engine_log_equivalent(tracked, v, "en") for v in (0, 1, None)}}
    replayed = eng.replay(site.play.record(gid))
    assert seen["snapshot"] == replayed.snapshot()
    assert seen["logs"] == seen["engine_logs"]
    return site, seen


def _stored(site: Site, gid: int) -> tuple[int, str, bytes]:
    found = site.snapshots.rows.read(gid)
    assert found is not None
    return found


def test_a_cold_game_is_restored_from_its_snapshot_and_the_rows_after_it(any_db: str) -> None:
    site = _site(any_db)
    gid = _rtta_game(site)
    _play(site, gid, 60)
    seq = site.games.game(gid).seq
    snap_seq, _, data = _stored(site, gid)
    assert 0 <= seq - snap_seq < 8 + 12 or site.games.game(gid).status == "finished"  # a move adds its chance steps
    assert snapshots.header(data)["seq"] == snap_seq
    site.engine.dispose()
    cold, _ = _cold(any_db, gid)
    assert (cold.snapshots.restored, cold.snapshots.refused) == (1, 0)
    # And the restored game goes on: moves and undos, then again cold, equal to the replay.
    _play(cold, gid, 30, seed=9)
    cold.engine.dispose()
    again, _ = _cold(any_db, gid)
    forced, _ = _cold(any_db, gid, every=0)  # snapshots off: replayed from the first row, the same game
    assert forced.snapshots.restored == 0 and again.snapshots.restored == 1
    for s in (again, forced):
        s.engine.dispose()


def _damage(site: Site, gid: int, sql: str, *params: object) -> None:
    with site.engine.begin() as conn:
        conn.exec_driver_sql(sql.replace("?", site.db.mark), (*params, gid))


def test_a_damaged_snapshot_is_replayed_over_and_written_again(any_db: str) -> None:
    site = _site(any_db)
    gid = _rtta_game(site)
    _play(site, gid, 40)
    seq, _, data = _stored(site, gid)
    _damage(site, gid, "UPDATE game_snapshots SET data = ? WHERE game_id = ?", data[:-50] + bytes(50))
    cold, _ = _cold(any_db, gid)
    assert (cold.snapshots.restored, cold.snapshots.refused, cold.snapshots.written) == (0, 1, 1)
    now_seq, _, fresh = _stored(cold, gid)
    assert now_seq == cold.games.game(gid).seq >= seq
    assert snapshots.load(fresh).snapshot() == eng.replay(cold.play.record(gid)).snapshot()
    for s in (site, cold):
        s.engine.dispose()


def test_a_snapshot_of_another_rules_version_is_replayed_over_and_written_again(any_db: str) -> None:
    site = _site(any_db)
    gid = _rtta_game(site)
    _play(site, gid, 40)
    _damage(site, gid, "UPDATE game_snapshots SET rules_version = ? WHERE game_id = ?", "0")
    cold, _ = _cold(any_db, gid)
    assert (cold.snapshots.restored, cold.snapshots.refused, cold.snapshots.written) == (0, 1, 1)
    assert _stored(cold, gid)[1] == eng.load("rolltheages").rules_version
    warm, _ = _cold(any_db, gid)
    assert warm.snapshots.restored == 1
    for s in (site, cold, warm):
        s.engine.dispose()


def test_rows_that_do_not_follow_the_snapshot_are_replayed(any_db: str) -> None:
    """A snapshot of a position the rows do not lead to (here: the start state, claimed at a later
    move) makes the rows after it fail to apply; the game is replayed from its rows."""
    site = _site(any_db)
    gid = _rtta_game(site)
    _play(site, gid, 40)
    start = eng.initial_state(site.play.record(gid))
    bogus = snapshots.dump(start)
    _damage(site, gid, "UPDATE game_snapshots SET data = ? WHERE game_id = ?", bogus)
    cold, _ = _cold(any_db, gid)
    assert cold.snapshots.restored == 0 and cold.snapshots.refused == 1
    for s in (site, cold):
        s.engine.dispose()


def test_undo_across_a_snapshot_boundary(any_db: str) -> None:
    """A snapshot after every entry: the undo's action lies before the snapshot a cold process restores."""
    site = _site(any_db, every=1)
    gid = _rtta_game(site)
    rng = random.Random(4)
    undone = 0
    for _ in range(200):
        info = site.games.game(gid)
        if info.status != "running" or undone >= 3:
            break
        with site.play.state(gid) as (_, tracked):
            assert tracked is not None
            last = tracked.state.history()[-1]
            can = last.seat == info.to_move and tracked.state.can_undo(info.to_move)
            action = rng.choice(tracked.state.legal_actions())
        if can:
            assert _stored(site, gid)[0] == info.seq  # the snapshot holds the action to be taken back
            site.engine.dispose()
            site = _site(any_db, every=1)  # a new process: the game is restored, not replayed
            site.play.undo(gid, info.to_move, info.seq)
            assert site.snapshots.restored == 1
            undone += 1
            with site.play.state(gid) as (_, tracked):
                assert tracked is not None
                after = tracked.state.snapshot()
            assert after == eng.replay(site.play.record(gid)).snapshot()
            continue
        site.play.submit(gid, action, info.seq, seat=info.to_move)
    assert undone >= 1
    site.engine.dispose()
    cold, _ = _cold(any_db, gid, every=1)
    assert cold.snapshots.restored == 1
    cold.engine.dispose()


def test_the_state_cache_is_bounded_by_bytes(any_db: str) -> None:
    site = _site(any_db)
    site.states.max_bytes = 0
    gid = _rtta_game(site)
    _play(site, gid, 10)
    with site.play.state(gid) as (_, tracked):
        assert tracked is not None and tracked.size_estimate() > 0
    assert len(site.states) == 0 and site.states.bytes == 0  # larger than the whole budget: not kept
    site.states.max_bytes = 10 * 1024 * 1024
    with site.play.state(gid) as (_, tracked):
        assert tracked is not None
    assert len(site.states) == 1 and 0 < site.states.bytes <= site.states.max_bytes
    site.engine.dispose()
