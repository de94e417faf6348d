"""Ratings: one openskill Plackett–Luce rating per player and game kind, updated when a game ends.

The rules (issue 12, rulings in ``docs/community.md``):

- A finished game is rated when at least two of its seats were played by people (a seat with a
  user: players, and players a bot took over after they timed out or resigned).  Bots have no
  rating; in a game with bots, the people are rated by their places among themselves.
- The places are the stored result's: a player who timed out or resigned is placed last (shared
  last place, a tie, when several left).  Equal places are ties.
- An abandoned game has no result and is never rated.
- The update happens once, in the same transaction that stores the game's end (`finish_game`),
  so a game is rated exactly when it is finished, on SQLite and PostgreSQL alike.  On PostgreSQL
  the players' user rows are locked first (in id order, so two games cannot deadlock): two games
  with a player in common are rated one after the other, never from the same old rating.
- ``rating_changes`` keeps every update in the order it was made (its ``id``); recomputing every
  rating from the stored results (`Ratings.recompute_ratings`, ``ludothek ratings
  --recompute``) replays the games in that order and gives the same numbers.

The store's reading side (leaderboards, histories, recomputing) is `ludothek.services.community.ratings`.
This module speaks plain DB-API (``cursor.execute`` with the driver's parameter marks) because
the move path that finishes a game is written that way (``ludothek.storage.moves``).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

#: Players with fewer rated games than this do not appear on a leaderboard.
LEADERBOARD_MIN_GAMES = 5


@functools.cache
def model() -> Any:
    """The rating model: openskill's Plackett–Luce with its defaults (mu 25, sigma 25/3)."""
    from openskill.models import PlackettLuce  # imported on first use: most processes never rate

    return PlackettLuce()


def conservative(mu: float, sigma: float) -> float:
    """The rating shown and ranked by: mu - 3 sigma (openskill's ordinal)."""
    return mu - 3.0 * sigma


def initial() -> tuple[float, float]:
    m = model()
    return float(m.mu), float(m.sigma)


def rated_placings(seats: Iterable[tuple[int | None, int | None]]) -> dict[int, int]:
    """The people of a finished game and their places: ``{user_id: place}`` from ``(user_id, place)`` pairs.

    Seats without a user (bots) are left out; an empty dict when fewer than two people played,
    which means the game is not rated.
    """
    out = {uid: int(place) for uid, place in seats if uid is not None and place is not None}
    return out if len(out) >= 2 else {}


def new_ratings(before: Mapping[int, tuple[float, float]], placings: Mapping[int, int]) -> dict[int, tuple[float, float]]:
    """openskill's update for one game: every player a team of one, ranked by place (ties allowed)."""
    m = model()
    order = sorted(placings)
    teams = [[m.rating(mu=before[uid][0], sigma=before[uid][1])] for uid in order]
    rated = m.rate(teams, ranks=[placings[uid] for uid in order])
    return {uid: (float(team[0].mu), float(team[0].sigma)) for uid, team in zip(order, rated, strict=True)}


def places_of(result: Sequence[Mapping[str, Any]]) -> dict[int, int]:
    """``{seat: place}`` of a stored result."""
    return {int(r["seat"]): int(r["rank"]) for r in result}


def finish_game(cur: Any, mark: str, postgres: bool, game_id: int, kind: str, result: Sequence[Mapping[str, Any]],
                seat_users: Mapping[int, int | None], when: Any, also_lock: Iterable[int] = ()) -> None:
    """Inside the transaction that stores a game's end: each seat's place, then the ratings.

    ``result`` is the stored result (leavers placed last), ``seat_users`` each seat's user
    (``None`` for a bot), ``when`` the finishing time as the driver takes it.

    On PostgreSQL it first locks the rows of the players (and of ``also_lock``: users the
    transaction's mails go to), in id order, and must come before anything in the transaction
    that refers to them: a row inserted with a reference to a user (a count, a mail) holds a
    share lock on that user until the commit, and two games of the same players ending at once
    would each hold one the other's lock waits for (a deadlock; PostgreSQL refuses one of them).
    Locked first and in one order, the second ending simply waits for the first.
    """
    if postgres:
        lock_users(cur, mark, {uid for uid in seat_users.values() if uid is not None} | set(also_lock))
    places = places_of(result)
    cur.executemany(f"UPDATE seats SET place = {mark}, ended_at = {mark} WHERE game_id = {mark} AND seat = {mark}",
                    [(place, when, game_id, seat) for seat, place in sorted(places.items())])
    count_finished(cur, mark, kind, [(uid, places[seat]) for seat, uid in sorted(seat_users.items())
                                     if uid is not None and seat in places], when)
    # Bot accounts (issue 33): among people only if their owner opted in; among bots always.
    from .bot_ratings import bot_placings, rate_bots, split_seats

    people, bots = split_seats(cur, mark, seat_users)
    placings = rated_placings((people.get(seat), place) for seat, place in places.items())
    if placings:
        rate_game(cur, mark, postgres, game_id, kind, placings, when)
    among_bots = bot_placings(seat_users, places, bots)
    if among_bots:
        rate_bots(cur, mark, kind, among_bots, when)


#: One finished game more for a player (``player_stats``); the same statement on SQLite and PostgreSQL.
COUNT_FINISHED_SQL = (
    "INSERT INTO player_stats (user_id, game, played, won, last_finished_at) VALUES ({m}, {m}, 1, {m}, {m}) "
    "ON CONFLICT (user_id, game) DO UPDATE SET played = player_stats.played + 1, "
    "won = player_stats.won + excluded.won, last_finished_at = excluded.last_finished_at"
)


def count_finished(cur: Any, mark: str, kind: str, players: Sequence[tuple[int, int]], when: Any) -> None:
    """Count a finished game for each ``(user_id, place)`` in ``player_stats`` (played, won, last finished).

    Every person who sat at the table counts, rated or not (a game with one person and bots too);
    an upsert, so two games ending at once for one player both count, on either database.
    """
    if players:
        cur.executemany(COUNT_FINISHED_SQL.format(m=mark),
                        [(uid, kind, 1 if place == 1 else 0, when) for uid, place in players])


def lock_users(cur: Any, mark: str, user_ids: Iterable[int]) -> None:
    """PostgreSQL: lock the rows of ``user_ids`` for the rest of the transaction, in id order."""
    ids = sorted(set(user_ids))
    if ids:
        cur.execute(f"SELECT id FROM users WHERE id IN ({', '.join([mark] * len(ids))}) ORDER BY id FOR UPDATE", ids)
        cur.fetchall()


def rate_game(cur: Any, mark: str, postgres: bool, game_id: int, kind: str, placings: Mapping[int, int],
              when: Any) -> None:
    """Update the ratings of ``placings`` (``{user_id: place}``) for game ``game_id`` of ``kind``."""
    ids = sorted(placings)
    marks = ", ".join([mark] * len(ids))
    if postgres:  # one game at a time per player: the second waits, then reads the first one's result
        lock_users(cur, mark, ids)  # (taken already when called by `finish_game`)
    cur.execute(f"SELECT user_id, mu, sigma, games, wins FROM ratings WHERE game = {mark} AND user_id IN ({marks})",
                [kind, *ids])
    known = {int(r[0]): (float(r[1]), float(r[2]), int(r[3]), int(r[4])) for r in cur.fetchall()}
    start = initial()
    before = {uid: known[uid][:2] if uid in known else start for uid in ids}
    after = new_ratings(before, placings)
    updates, inserts, changes = [], [], []
    for uid in ids:
        mu, sigma = after[uid]
        won = 1 if placings[uid] == 1 else 0
        if uid in known:
            _, _, games, wins = known[uid]
            updates.append((mu, sigma, conservative(mu, sigma), games + 1, wins + won, when, uid, kind))
        else:
            inserts.append((uid, kind, mu, sigma, conservative(mu, sigma), 1, won, when))
        changes.append((game_id, uid, kind, placings[uid], before[uid][0], before[uid][1], mu, sigma, when))
    if updates:
        cur.executemany(
            f"UPDATE ratings SET mu = {mark}, sigma = {mark}, conservative = {mark}, games = {mark}, wins = {mark}, "
            f"updated_at = {mark} WHERE user_id = {mark} AND game = {mark}", updates)
    if inserts:
        cur.executemany(
            "INSERT INTO ratings (user_id, game, mu, sigma, conservative, games, wins, updated_at) "
            f"VALUES ({', '.join([mark] * 8)})", inserts)
    cur.executemany(
        "INSERT INTO rating_changes (game_id, user_id, game, place, mu_before, sigma_before, mu, sigma, at) "
        f"VALUES ({', '.join([mark] * 9)})", changes)


