"""A move stored in one round trip on PostgreSQL.

On SQLite a statement costs no round trip (the database is a file in the process).  On
PostgreSQL every statement of ``BEGIN; UPDATE games; INSERT actions; INSERT outbox; COMMIT``
waits for the server in turn, and a server process spent most of a move waiting.  Chained
data-modifying CTEs do the same in **one statement**, which on an autocommit connection is its
own transaction: all of it is stored, or none.  Every insert joins the row the optimistic
``UPDATE games ... WHERE seq = n AND seats_rev = r`` returned, so a stale move (no row) inserts
nothing either, and the unique ``(game_id, seq)`` index still backs that up.
"""

from __future__ import annotations

import functools

from .outbox import OUTBOX_COLUMNS


@functools.lru_cache(maxsize=128)
def move_statement(actions: int, mails: int, bank: bool) -> str:
    """The statement for a move with ``actions`` rows (the move and its chance outcomes) that does not
    end the game (the last move places the seats and rates the players: reads and writes in a transaction).

    Parameters, in order: new seq, to_move, turn_since, deadline, the hand-over's seat and due time, game id,
    old seq, seats_rev, the hand-over seat the move was made against (-9: none);
    created_at, then ``(seq, seat, action)`` per action; for mails: their seq, created_at,
    next_attempt_at, then ``(user_id, kind, payload)`` per mail; for a time bank: seconds, seat.
    It answers one row: 1 if the move was stored, 0 if it was stale.
    """
    assert actions >= 1
    game_set = "seq = %s, to_move = %s, turn_since = %s, deadline = %s, handover_seat = %s, handover_due = %s"
    parts = [f"g AS (UPDATE games SET {game_set} WHERE id = %s AND seq = %s AND seats_rev = %s "
             "AND coalesce(handover_seat, -9) = %s RETURNING id)"]
    values = ", ".join(["(%s::integer, %s::integer, %s::text)"] * actions)
    parts.append(
        "a AS (INSERT INTO actions (game_id, seq, seat, action, created_at) "
        f"SELECT g.id, v.seq, v.seat, v.action, %s::timestamptz FROM g, (VALUES {values}) AS v(seq, seat, action))"
    )
    if mails:
        values = ", ".join(["(%s::integer, %s::text, %s::text)"] * mails)
        parts.append(
            f"o AS (INSERT INTO outbox ({OUTBOX_COLUMNS}) "
            "SELECT v.user_id, v.kind, g.id, %s::integer, v.payload, %s::timestamptz, 'pending', 0, %s::timestamptz "
            f"FROM g, (VALUES {values}) AS v(user_id, kind, payload))"
        )
    if bank:
        parts.append("b AS (UPDATE seats SET bank_seconds = %s FROM g WHERE seats.game_id = g.id AND seats.seat = %s)")
    return "WITH " + ", ".join(parts) + " SELECT count(*) FROM g"
