"""Ratings: the numbers are openskill's own, games are rated once when they end, and recomputing agrees.

Games are played through the real move path with `toyrank` (each seat chooses its score), so
every result is made by hand: ties, four players, bots, resignations, an abandoned game.
"""

from __future__ import annotations

from typing import Any

import pytest
from openskill.models import PlackettLuce
from sqlalchemy import delete, select, update

from ludothek import engine as eng
from ludothek.cli import main as cli_main
from ludothek.services import Site
from ludothek.storage import make_engine, migrate
from ludothek.storage.models import PlayerStats, Rating, RatingChange, SeatRow
from ludothek.storage.rating_update import LEADERBOARD_MIN_GAMES
from ludothek.workers.bots import bot_step
from tests.portal.conftest import FAST_HASHER
from tests.portal.toyrank import GAME as RANKGAME

if "toyrank" not in eng.games():
    eng.register(RANKGAME)

MODEL = PlackettLuce()


def new_site(url: str) -> Site:
    engine = make_engine(url)
    migrate(engine)
    return Site(engine, hasher=FAST_HASHER)


class Expected:
    """openskill applied by hand, game after game, as the tests predict it."""

    def __init__(self) -> None:
        self.ratings: dict[str, Any] = {}
        self.games: dict[str, int] = {}
        self.wins: dict[str, int] = {}

    def game(self, places: dict[str, int]) -> None:
        names = sorted(places)
        teams = [[self.ratings.get(n) or MODEL.rating()] for n in names]
        rated = MODEL.rate(teams, ranks=[places[n] for n in names])
        for n, team in zip(names, rated, strict=True):
            self.ratings[n] = team[0]
            self.games[n] = self.games.get(n, 0) + 1
            self.wins[n] = self.wins.get(n, 0) + (places[n] == 1)


def play(site: Site, users: dict[str, Any], scores: dict[str, int], bots: int = 0,
         resign: tuple[str, ...] = ()) -> int:
    """A toyrank game of ``users`` (first one creates it) plus ``bots``; each user plays its score."""
    names = list(scores)
    creator = users[names[0]]
    seats = [{"kind": "me"}] + [{"kind": "invite", "user": n} for n in names[1:]] + [{"kind": "bot"}] * bots
    gid = site.lobby.create_game(creator, "toyrank", len(seats), {}, seats)
    for n in names[1:]:
        site.lobby.join(gid, users[n])
    for n in resign:
        site.clocks.resign(gid, users[n])
    while True:
        info = site.games.game(gid)
        if info.status != "running":
            return gid
        if info.is_bot_seat(info.to_move):
            bot_step(site, gid)
            continue
        user = next(n for n in names if info.seat_of(users[n].id) == info.to_move)
        site.play.submit(gid, f"score:{scores[user]}", info.seq, seat=info.to_move)


def stored_places(site: Site, gid: int, users: dict[str, Any], names: tuple[str, ...]) -> dict[str, int]:
    info = site.games.game(gid)
    by_seat = {r["seat"]: r["rank"] for r in info.result or []}
    return {n: by_seat[info.seat_of(users[n].id)] for n in names}


def ratings_table(site: Site) -> dict[tuple[str, str], tuple[float, float, int, int]]:
    with site.engine.begin() as conn:
        rows = conn.execute(select(Rating.user_id, Rating.game, Rating.mu, Rating.sigma, Rating.games,
                                   Rating.wins)).all()
    return {(str(r.user_id), r.game): (r.mu, r.sigma, r.games, r.wins) for r in rows}


def changes_table(site: Site) -> list[tuple[Any, ...]]:
    with site.engine.begin() as conn:
        rows = conn.execute(select(RatingChange.game_id, RatingChange.user_id, RatingChange.place,
                                   RatingChange.mu_before, RatingChange.sigma_before, RatingChange.mu,
                                   RatingChange.sigma).order_by(RatingChange.id)).all()
    return [tuple(r) for r in rows]


def check(site: Site, users: dict[str, Any], expected: Expected) -> None:
    for name, rating in expected.ratings.items():
        mine = site.ratings.ratings_of(users[name].id)["toyrank"]
        assert mine.mu == pytest.approx(rating.mu, abs=1e-9), name
        assert mine.sigma == pytest.approx(rating.sigma, abs=1e-9), name
        assert mine.conservative == pytest.approx(rating.ordinal(), abs=1e-9)
        assert (mine.games, mine.wins) == (expected.games[name], expected.wins[name])


def test_ratings_match_openskill_and_recompute_agrees(any_db: str) -> None:
    site = new_site(any_db)
    users = {n: site.accounts.register(n, "password-" + n) for n in ("anna", "bruno", "carla", "dora", "emil")}
    expected = Expected()

    play(site, users, {"anna": 5, "bruno": 3})
    expected.game({"anna": 1, "bruno": 2})
    check(site, users, expected)

    play(site, users, {"anna": 7, "bruno": 7, "carla": 3, "dora": 1})  # four players, a tie for first
    expected.game({"anna": 1, "bruno": 1, "carla": 3, "dora": 4})
    check(site, users, expected)

    play(site, users, {"carla": 4, "dora": 4, "emil": 4})  # everybody ties
    expected.game({"carla": 1, "dora": 1, "emil": 1})
    # With bots, the people are rated by their stored places among themselves (the bots score at random).
    gid = play(site, users, {"dora": 9, "emil": 2}, bots=1)
    expected.game(stored_places(site, gid, users, ("dora", "emil")))
    gid = play(site, users, {"anna": 1, "emil": 0}, bots=2)
    expected.game(stored_places(site, gid, users, ("anna", "emil")))
    check(site, users, expected)

    # A resignation places the player last, whatever the bot playing on for them scores.
    play(site, users, {"bruno": 2, "carla": 1, "anna": 9}, resign=("anna",))
    expected.game({"bruno": 1, "carla": 2, "anna": 3})
    check(site, users, expected)

    before_ratings, before_changes = ratings_table(site), changes_table(site)
    assert len(before_changes) == 2 + 4 + 3 + 2 + 2 + 3
    assert site.ratings.recompute_ratings() == (6, 5)
    assert ratings_table(site) == before_ratings
    assert changes_table(site) == before_changes


def test_games_that_do_not_count(any_db: str) -> None:
    site = new_site(any_db)
    anna, bruno = site.accounts.register("anna", "password-a"), site.accounts.register("bruno", "password-b")
    users = {"anna": anna, "bruno": bruno}
    play(site, users, {"anna": 5}, bots=2)  # one person and bots: not rated
    assert site.ratings.ratings_of(anna.id) == {}
    gid = site.lobby.create_game(anna, "toyrank", 2, {}, [{"kind": "me"}, {"kind": "invite", "user": "bruno"}])
    site.lobby.join(gid, bruno)
    site.clocks.vote_abandon(gid, anna)
    site.clocks.vote_abandon(gid, bruno)
    assert site.games.game(gid).status == "abandoned"
    assert site.ratings.ratings_of(anna.id) == {} and site.ratings.ratings_of(bruno.id) == {}
    assert site.ratings.recompute_ratings() == (0, 0)
    # The place of every seat of a finished game is stored, bots included.
    with site.engine.begin() as conn:
        places = conn.execute(select(SeatRow.place).where(SeatRow.game_id == 1)).scalars().all()
    assert sorted(p for p in places if p is not None) and None not in places


def test_leaderboard_needs_five_games_and_sorts_by_conservative_rating(tmp_path: Any) -> None:
    url = f"sqlite:///{tmp_path / 'lb.sqlite3'}"
    site = new_site(url)
    users = {n: site.accounts.register(n, "password-" + n) for n in ("anna", "bruno", "carla")}
    for _ in range(LEADERBOARD_MIN_GAMES):
        play(site, users, {"anna": 5, "bruno": 3})
    play(site, users, {"carla": 9, "anna": 1})
    board = site.ratings.leaderboard("toyrank")
    assert [r.name for r in board.rows] == ["anna", "bruno"] and board.total == 2
    assert board.rows[0].conservative > board.rows[1].conservative
    assert (board.rows[0].games, board.rows[0].wins) == (LEADERBOARD_MIN_GAMES + 1, LEADERBOARD_MIN_GAMES)
    assert site.ratings.ratings_of(users["carla"].id)["toyrank"].rank is None  # one game: not on the board
    assert site.ratings.ratings_of(users["bruno"].id)["toyrank"].rank == 2
    history = site.ratings.rating_history(users["anna"].id, "toyrank")
    assert len(history) == LEADERBOARD_MIN_GAMES + 1 and history[-1].place == 2
    # ``ludothek ratings --recompute`` gives the same numbers.
    before = ratings_table(site), changes_table(site)
    assert cli_main(["ratings", "--recompute", "--db", url]) == 0
    assert (ratings_table(site), changes_table(site)) == before


def stats_table(site: Site) -> dict[tuple[int, str], tuple[int, int]]:
    with site.engine.begin() as conn:
        rows = conn.execute(select(PlayerStats.user_id, PlayerStats.game, PlayerStats.played, PlayerStats.won)).all()
    return {(r.user_id, r.game): (r.played, r.won) for r in rows}


def test_player_stats_kept_when_games_end_and_rebuilt_by_recompute(any_db: str) -> None:
    """Profiles read ``player_stats`` and ``seats.ended_at``: kept by every end, equal to a recount."""
    site = new_site(any_db)
    users = {n: site.accounts.register(n, "password-" + n) for n in ("anna", "bruno", "carla")}
    play(site, users, {"anna": 5, "bruno": 3})
    play(site, users, {"anna": 2, "bruno": 2, "carla": 1})  # a tie for first: both won
    play(site, users, {"carla": 9}, bots=1)  # one person and a bot: counted, not rated; 9 wins whatever the bot plays
    play(site, users, {"bruno": 9, "carla": 1}, resign=("bruno",))  # the leaver is placed last
    abandoned = site.lobby.create_game(users["anna"], "toyrank", 2, {}, [{"kind": "me"}, {"kind": "invite", "user": "bruno"}])
    site.lobby.join(abandoned, users["bruno"])
    site.clocks.vote_abandon(abandoned, users["anna"])
    site.clocks.vote_abandon(abandoned, users["bruno"])
    a, b, c = (users[n].id for n in ("anna", "bruno", "carla"))
    expected = {(a, "toyrank"): (2, 2), (b, "toyrank"): (3, 1), (c, "toyrank"): (3, 2)}
    assert stats_table(site) == expected
    profile = site.profiles.profile("Bruno")
    assert [(s.game, s.played, s.won) for s in profile.stats] == [("toyrank", 3, 1)]
    # The abandoned game is over: the first of bruno's last games, and no count, place or rating.
    last = site.profiles.finished_games_of(b, 10)
    assert last[0].id == abandoned and last[0].status == "abandoned"
    assert len(last) == 4 and all(g.status in ("finished", "abandoned") for g in last)
    assert [g.id for g in site.profiles.finished_games_of(c, 1)] == [4]
    with site.engine.begin() as conn:
        ended = dict(conn.execute(select(SeatRow.game_id, SeatRow.ended_at)).all())
    assert None not in ended.values()
    # Recomputing gives the same counts, and repairs them when they were lost.
    assert site.ratings.recompute_ratings()[0] == 3
    assert stats_table(site) == expected
    with site.engine.begin() as conn:
        conn.execute(delete(PlayerStats))
        conn.execute(update(SeatRow).values(ended_at=None))
    assert site.profiles.finished_games_of(b, 10) == []
    site.ratings.recompute_ratings()
    assert stats_table(site) == expected
    assert [g.id for g in site.profiles.finished_games_of(b, 10)] == [g.id for g in last]


def test_migration_0011_fills_counts_and_ends_of_older_games(tmp_path: Any) -> None:
    """Games that ended before ``0011_profile_stats``: their counts and ends are filled in by the migration."""
    from alembic import command
    from sqlalchemy import text

    from ludothek.storage.db import _alembic_config

    engine = make_engine(f"sqlite:///{tmp_path / 'old.sqlite3'}")
    cfg = _alembic_config(engine)
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "0010_bot_turns")
    with engine.begin() as conn:
        conn.execute(text("INSERT INTO users (id, name, name_key, is_guest, lang, created_at) VALUES "
                          "(1, 'ann', 'ann', 0, 'en', '2026-01-01'), (2, 'ben', 'ben', 0, 'en', '2026-01-01')"))
        for gid, status, finished in ((1, "finished", "2026-01-02 10:00:00.000000"),
                                      (2, "finished", "2026-01-03 10:00:00.000000"),
                                      (3, "abandoned", "2026-01-04 10:00:00.000000"), (4, "running", None)):
            conn.execute(text("INSERT INTO games (id, game, rules_version, num_players, options_json, status, "
                              "creator_id, created_at, seq, to_move, finished_at) VALUES "
                              f"({gid}, 'toyrank', '1', 2, '{{}}', '{status}', 1, '2026-01-01', 0, 0, :f)"), {"f": finished})
        conn.execute(text("INSERT INTO seats (game_id, seat, kind, user_id, place) VALUES "
                          "(1, 0, 'player', 1, 1), (1, 1, 'player', 2, 2), (2, 0, 'player', 1, 2), (2, 1, 'player', 2, 1),"
                          "(3, 0, 'player', 1, NULL), (3, 1, 'player', 2, NULL), (4, 0, 'player', 1, NULL),"
                          "(4, 1, 'bot', NULL, NULL)"))
    migrate(engine)
    site = Site(engine, hasher=FAST_HASHER)
    assert stats_table(site) == {(1, "toyrank"): (2, 1), (2, "toyrank"): (2, 1)}
    assert [g.id for g in site.profiles.finished_games_of(1, 10)] == [3, 2, 1]  # running game 4 is not over
    with engine.begin() as conn:
        assert conn.execute(text("SELECT count(*) FROM seats WHERE ended_at IS NULL")).scalar() == 2


def test_games_of_the_same_players_ending_at_the_same_moment_all_count(any_db: str) -> None:
    """Two server processes store the last moves of many games between the same two people at once.

    Each ending locks its players' rows to rate them; it used to take them after rows that refer to
    the players (the mails, the counts), so two endings could each hold what the other waited for and
    PostgreSQL broke the deadlock by refusing one move (a server error, the move lost).  Every ending
    must be stored, rated and counted."""
    import threading

    sites = [new_site(any_db), new_site(any_db)]
    first = sites[0]
    anna, bruno = first.accounts.register("anna", "password-anna"), first.accounts.register("bruno", "password-bruno")
    games = []
    for _ in range(16):
        gid = first.lobby.create_game(anna, "toyrank", 2, {}, [{"kind": "me"}, {"kind": "invite", "user": "bruno"}])
        first.lobby.join(gid, bruno)
        info = first.games.game(gid)
        first.play.submit(gid, "score:5" if info.seat_of(anna.id) == info.to_move else "score:3", info.seq, seat=info.to_move)
        games.append(gid)
    for s in sites:  # both caches warm, as on two busy servers
        for gid in games:
            with s.play.state(gid):
                pass
    barrier = threading.Barrier(len(games))
    failures: list[BaseException] = []

    def last_move(site: Site, gid: int) -> None:
        info = site.games.game(gid)
        anna_last = info.seat_of(anna.id) == info.to_move
        barrier.wait()
        try:
            site.play.submit_as(gid, anna.id if anna_last else bruno.id, "score:5" if anna_last else "score:3", info.seq)
        except BaseException as exc:  # collected and shown below
            failures.append(exc)

    threads = [threading.Thread(target=last_move, args=(sites[i % 2], gid)) for i, gid in enumerate(games)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []
    assert all(first.games.game(gid).status == "finished" for gid in games)
    ratings = first.ratings.ratings_of(anna.id)["toyrank"], first.ratings.ratings_of(bruno.id)["toyrank"]
    assert [(r.games, r.wins) for r in ratings] == [(16, 16), (16, 0)]
    assert len(changes_table(first)) == 32
    for s in sites:
        s.engine.dispose()


def test_games_starting_while_games_of_the_same_players_end_all_succeed(any_db: str) -> None:
    """Joins that start games and last moves that end games, between the same two people, at once.

    A join writes rows that refer to the players (its seat, then every seat of the started game and
    the "your turn" mail), which share-locks their user rows one by one, the joiner's first; an
    ending locks the same rows for the ratings in id order.  A join by the player with the higher id
    then held one row while waiting for the other, which the ending held while waiting for the
    first: PostgreSQL broke the deadlock by refusing the join (a server error in the portal
    benchmark).  Every join and every ending must go through."""
    import threading

    sites = [new_site(any_db), new_site(any_db)]
    first = sites[0]
    anna, bruno = first.accounts.register("anna", "password-anna"), first.accounts.register("bruno", "password-bruno")
    assert anna.id < bruno.id  # bruno, the joiner, has the higher id
    first.lobby.max_open_games = 100  # anna's waiting games are the point here
    ending, starting = [], []
    for _ in range(12):
        gid = first.lobby.create_game(anna, "toyrank", 2, {}, [{"kind": "me"}, {"kind": "invite", "user": "bruno"}])
        first.lobby.join(gid, bruno)
        info = first.games.game(gid)
        first.play.submit(gid, "score:5" if info.seat_of(anna.id) == info.to_move else "score:3", info.seq, seat=info.to_move)
        ending.append(gid)
        starting.append(first.lobby.create_game(anna, "toyrank", 2, {}, [{"kind": "me"}, {"kind": "open"}]))
    for s in sites:  # both caches warm, as on two busy servers
        for gid in ending:
            with s.play.state(gid):
                pass
    barrier = threading.Barrier(len(ending) + len(starting))
    failures: list[BaseException] = []

    def last_move(site: Site, gid: int) -> None:
        info = site.games.game(gid)
        anna_last = info.seat_of(anna.id) == info.to_move
        barrier.wait()
        try:
            site.play.submit_as(gid, anna.id if anna_last else bruno.id, "score:5" if anna_last else "score:3", info.seq)
        except BaseException as exc:  # collected and shown below
            failures.append(exc)

    def join(site: Site, gid: int) -> None:
        barrier.wait()
        try:
            site.lobby.join(gid, bruno)
        except BaseException as exc:  # collected and shown below
            failures.append(exc)

    threads = [threading.Thread(target=last_move, args=(sites[i % 2], gid)) for i, gid in enumerate(ending)]
    threads += [threading.Thread(target=join, args=(sites[(i + 1) % 2], gid)) for i, gid in enumerate(starting)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []
    assert all(first.games.game(gid).status == "finished" for gid in ending)
    assert all(first.games.game(gid).status == "running" for gid in starting)
    assert first.ratings.ratings_of(bruno.id)["toyrank"].games == len(ending)
    for s in sites:
        s.engine.dispose()


@pytest.mark.postgres
def test_a_move_refused_to_break_a_deadlock_is_written_again(caplog: pytest.LogCaptureFixture) -> None:
    """Should PostgreSQL still end a game's last move to break some deadlock, the move is written again
    (the whole transaction, which it rolled back) instead of being lost; a warning says so."""
    import psycopg

    from ludothek.devtools.postgres import UNREACHABLE, postgres_url, reset_database
    from tests.conftest import needs

    url = postgres_url()
    needs(None if url else UNREACHABLE)
    assert url is not None
    reset_database(url)
    site = new_site(url)
    try:
        users = {n: site.accounts.register(n, "password-" + n) for n in ("anna", "bruno")}
        real = site.play.writer.transaction
        refusals = [1]

        def deadlocked_once(*args: Any, **kwargs: Any) -> bool:
            if refusals:
                refusals.pop()
                raise psycopg.errors.DeadlockDetected("deadlock detected")
            return real(*args, **kwargs)

        site.play.writer.transaction = deadlocked_once  # type: ignore[method-assign]
        with caplog.at_level("WARNING", logger="ludothek.storage.play"):
            gid = play(site, users, {"anna": 5, "bruno": 3})
        assert site.games.game(gid).status == "finished" and not refusals
        assert site.ratings.ratings_of(users["anna"].id)["toyrank"].games == 1
        assert any("writing it again" in r.getMessage() for r in caplog.records)
    finally:
        site.engine.dispose()
        reset_database(url)
