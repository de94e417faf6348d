"""Ratings and bot accounts (issue 33): who is rated among people, and the bots' own rating among bots.

Rulings (``docs/research.md``, "Bot API"):

- A bot account counts as a *person* for the people's ratings (``ratings``, the game leaderboards)
  only when its owner opted in (``bot_accounts.rated_with_people``).  Otherwise it is left out of the
  people's rating exactly like the site's own bots: the people at its table are rated by their places
  among themselves, and a game of one person against a bot account rates nobody.
- Every finished game with at least two bot accounts at the table rates those bot accounts among
  themselves, by their places, in ``bot_ratings`` (the bot leaderboard), whether or not they opted in
  and whatever people sat with them.  Same model as the people's (openskill Plackett–Luce, μ − 3σ).

Plain DB-API like `ludothek.storage.rating_update`, whose `finish_game` calls `split_seats` and
`rate_bots` in the transaction that stores the game's end.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .rating_update import conservative, initial, new_ratings


def bot_accounts_of(cur: Any, mark: str, user_ids: Iterable[int]) -> dict[int, bool]:
    """``{user_id: rated_with_people}`` for the bot accounts among ``user_ids``."""
    ids = sorted(set(user_ids))
    if not ids:
        return {}
    cur.execute(f"SELECT user_id, rated_with_people FROM bot_accounts WHERE user_id IN ({', '.join([mark] * len(ids))})",
                ids)
    return {int(r[0]): bool(r[1]) for r in cur.fetchall()}


def split_seats(cur: Any, mark: str, seat_users: Mapping[int, int | None]) -> tuple[dict[int, int | None], set[int]]:
    """The seats as the people's rating sees them (bot accounts that did not opt in become bots), and the
    bot accounts at the table."""
    bots = bot_accounts_of(cur, mark, (uid for uid in seat_users.values() if uid is not None))
    if not bots:
        return dict(seat_users), set()
    people = {seat: (None if uid is not None and uid in bots and not bots[uid] else uid)
              for seat, uid in seat_users.items()}
    return people, set(bots)


def bot_placings(seat_users: Mapping[int, int | None], places: Mapping[int, int], bots: set[int]) -> dict[int, int]:
    """``{bot user_id: place}`` of the bot accounts of a finished game; empty unless two or more played."""
    out = {uid: places[seat] for seat, uid in seat_users.items() if uid in bots and seat in places}
    return out if len(out) >= 2 else {}


def rate_bots(cur: Any, mark: str, kind: str, placings: Mapping[int, int], when: Any) -> None:
    """Update the bot ratings of ``placings`` (``{user_id: place}``) in game kind ``kind``."""
    ids = sorted(placings)
    marks = ", ".join([mark] * len(ids))
    cur.execute(f"SELECT user_id, mu, sigma, games, wins FROM bot_ratings WHERE game = {mark} AND user_id IN ({marks})",
                [kind, *ids])
    known = {int(r[0]): (float(r[1]), float(r[2]), int(r[3]), int(r[4])) for r in cur.fetchall()}
    start = initial()
    after = new_ratings({uid: known[uid][:2] if uid in known else start for uid in ids}, placings)
    for uid in ids:
        mu, sigma = after[uid]
        won = 1 if placings[uid] == 1 else 0
        if uid in known:
            games, wins = known[uid][2] + 1, known[uid][3] + won
            cur.execute(f"UPDATE bot_ratings SET mu = {mark}, sigma = {mark}, conservative = {mark}, games = {mark}, "
                        f"wins = {mark}, updated_at = {mark} WHERE user_id = {mark} AND game = {mark}",
                        (mu, sigma, conservative(mu, sigma), games, wins, when, uid, kind))
        else:
            cur.execute("INSERT INTO bot_ratings (user_id, game, mu, sigma, conservative, games, wins, updated_at) "
                        f"VALUES ({', '.join([mark] * 8)})", (uid, kind, mu, sigma, conservative(mu, sigma), 1, won, when))
