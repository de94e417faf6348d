"""Finding and repairing lobby damage that older versions could leave behind.

Before every lobby change claimed its game row (see `Lobby._open_game`),
two server processes could interleave a leave with the last join, or a cancel
with a join.  That left two kinds of damage, which `lobby_problems` finds and
`repair_lobby` mends (``ludothek admin check-lobby [--repair]``):

- a started game with an empty seat (``open`` or ``invited``): nobody can act
  for that seat, so the game is stuck.  The repair seats a bot there, the same
  one that takes over after a timeout, so the game can go on;
- a game marked ``cancelled`` although it had started (it has stored actions):
  the repair puts it back to ``running``, or ``finished`` if it had ended.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Engine, exists, select, update

from ludothek.botlevels import BOT_NAMES
from ludothek.engine import TERMINAL

from .models import ActionRow, GameRow, SeatRow

#: The bot that fills a seat left empty by the old race (the timeout takeover bot, where known).
REPAIR_BOT = "medium" if "medium" in BOT_NAMES else "random"


@dataclass(frozen=True)
class LobbyProblem:
    game_id: int
    kind: str  # "empty_seat" or "cancelled_after_start"
    detail: str


def lobby_problems(engine: Engine) -> list[LobbyProblem]:
    """Every started game with an empty seat, and every cancelled game that had started."""
    out: list[LobbyProblem] = []
    with engine.begin() as conn:
        empty = conn.execute(
            select(GameRow.id, SeatRow.seat, SeatRow.kind)
            .join(SeatRow, SeatRow.game_id == GameRow.id)
            .where(GameRow.status.in_(("running", "finished")), SeatRow.kind.in_(("open", "invited")))
            .order_by(GameRow.id, SeatRow.seat)
        ).all()
        for gid, seat, kind in empty:
            out.append(LobbyProblem(gid, "empty_seat", f"game {gid} has started, but seat {seat} is still {kind}"))
        started = exists().where(ActionRow.game_id == GameRow.id)
        cancelled = conn.execute(
            select(GameRow.id).where(GameRow.status == "cancelled", started).order_by(GameRow.id)
        ).scalars()
        for gid in cancelled:
            out.append(LobbyProblem(gid, "cancelled_after_start", f"game {gid} is cancelled, but it had started"))
    return out


def repair_lobby(engine: Engine) -> list[LobbyProblem]:
    """Mend every problem `lobby_problems` finds, in one transaction; returns what was mended."""
    problems = lobby_problems(engine)
    with engine.begin() as conn:
        for p in problems:
            if p.kind == "empty_seat":
                conn.execute(
                    update(SeatRow)
                    .where(SeatRow.game_id == p.game_id, SeatRow.kind.in_(("open", "invited")))
                    .values(kind="bot", user_id=None, bot=REPAIR_BOT)
                )
            else:
                to_move = conn.execute(select(GameRow.to_move).where(GameRow.id == p.game_id)).scalar()
                status = "finished" if to_move == TERMINAL else "running"
                conn.execute(
                    update(GameRow).where(GameRow.id == p.game_id, GameRow.status == "cancelled").values(status=status)
                )
    return problems
