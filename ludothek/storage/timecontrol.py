"""Time controls and deadlines as pure arithmetic (the store's use of them: `ludothek.services.clocks`).

Kept apart from the store so that the move path (`ludothek.storage.moves`) can
compute the next deadline without importing the clock store built on top of it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import Connection, select

from ludothek.botlevels import BOT_NAMES

from .errors import BadRequest
from .info import GameInfo
from .models import SeatRow, Vacation

DAY = 86_400.0
#: The fixed times per move a game may choose, in days.
MOVE_DAYS = (1, 2, 3, 5, 7, 14)
#: The bot that plays on for a player who timed out or resigned.
TAKEOVER_BOT = "medium" if "medium" in BOT_NAMES else "random"
VACATION_DAYS_PER_YEAR = 30


@dataclass(frozen=True)
class TimeControl:
    """``kind`` is ``move`` (``move_days`` per turn) or ``bank`` (start, bonus per turn, cap; days)."""

    kind: str
    move_days: int = 0
    start_days: float = 0
    add_days: float = 0
    max_days: float = 0

    def to_json(self) -> dict[str, Any]:
        if self.kind == "move":
            return {"kind": "move", "days": self.move_days}
        return {"kind": "bank", "start_days": self.start_days, "add_days": self.add_days, "max_days": self.max_days}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TimeControl:
        if data["kind"] == "move":
            return cls("move", move_days=int(data["days"]))
        return cls("bank", start_days=float(data["start_days"]), add_days=float(data["add_days"]),
                   max_days=float(data["max_days"]))


def parse_time_control(spec: Any) -> TimeControl | None:
    """A time control from the API (a dict) or the form (``none``, ``move:3``, ``bank:3+1/14``).

    Anything else is a `BadRequest` that names what is allowed.
    """
    allowed = ("none; move:D for D in " + ", ".join(map(str, MOVE_DAYS))
               + " days; bank:S+A/M (start S, add A, at most M days; 1 <= S <= M <= 60, 0 <= A <= 7)")
    if spec is None or spec == "none" or spec == {"kind": "none"}:
        return None
    original = spec
    try:
        if isinstance(spec, str):
            kind, _, rest = spec.partition(":")
            if kind == "move":
                spec = {"kind": "move", "days": int(rest)}
            elif kind == "bank":
                start, _, tail = rest.partition("+")
                add, _, cap = tail.partition("/")
                spec = {"kind": "bank", "start_days": float(start), "add_days": float(add), "max_days": float(cap)}
            else:
                raise ValueError(kind)
        if not isinstance(spec, dict):
            raise ValueError(spec)
        if spec.get("kind") == "move" and set(spec) <= {"kind", "days"}:
            days = spec.get("days")
            if isinstance(days, bool) or days not in MOVE_DAYS:
                raise ValueError(days)
            return TimeControl("move", move_days=int(days))
        if spec.get("kind") == "bank" and set(spec) <= {"kind", "start_days", "add_days", "max_days"}:
            values = [spec.get(k, d) for k, d in (("start_days", 3), ("add_days", 1), ("max_days", 14))]
            if any(isinstance(v, bool) or not isinstance(v, int | float) for v in values):
                raise ValueError(spec)
            first, bonus, most = (float(v) for v in values)
            if not (1 <= first <= most <= 60 and 0 <= bonus <= 7):
                raise ValueError(spec)
            return TimeControl("bank", start_days=first, add_days=bonus, max_days=most)
    except (ValueError, TypeError, OverflowError):
        pass
    raise BadRequest(f"unknown time control {original!r}; choose {allowed}", code_key="bad_time_control",
                     spec=str(original))


# ----------------------------------------------------------------------------- pure deadline arithmetic
def _aware(dt: datetime) -> datetime:
    return dt if dt.tzinfo is not None else dt.replace(tzinfo=UTC)


def paused_deadline(start: datetime, seconds: float, absences: list[tuple[datetime, datetime]]) -> datetime:
    """``start + seconds`` with the clock stopped during every absence (sorted or not)."""
    deadline = start + timedelta(seconds=seconds)
    for a_start, a_end in sorted((_aware(s), _aware(e)) for s, e in absences):
        begin = max(a_start, start)
        if a_end <= begin or begin >= deadline:
            continue
        deadline += a_end - begin
    return deadline


def absences(conn: Connection, user_id: int | None, since: datetime) -> list[tuple[datetime, datetime]]:
    if user_id is None:
        return []
    rows = conn.execute(
        select(Vacation.starts, Vacation.ends).where(Vacation.user_id == user_id, Vacation.ends > since)
    ).all()
    return [(_aware(r.starts), _aware(r.ends)) for r in rows]


def turn_deadline(conn: Connection, info: GameInfo, tc: TimeControl, seat: int, now: datetime) -> datetime | None:
    """When ``seat``'s new turn runs out: None for a bot (bots never time out)."""
    seat_info = next((s for s in info.seats if s.seat == seat), None)
    if seat_info is None or seat_info.kind != "player":
        return None
    if tc.kind == "move":
        seconds = tc.move_days * DAY
    else:
        bank = conn.execute(
            select(SeatRow.bank_seconds).where(SeatRow.game_id == info.id, SeatRow.seat == seat)
        ).scalar()
        seconds = float(bank if bank is not None else tc.start_days * DAY)
    return paused_deadline(now, seconds, absences(conn, seat_info.user_id, now))


def clock_after_move(conn: Connection, info: GameInfo, mover: int, to_move: int,
                     now: datetime) -> tuple[datetime | None, tuple[int, float] | None]:
    """The deadline after ``mover``'s move, and the mover's new bank (seat, seconds) for time banks.

    While the same seat stays to move (a turn of several actions) its deadline stands; a seat to move
    with no clock running (it took back the action that ended its turn, whose hand-over stopped its
    clock: `ludothek.services.handover`) gets its clock back, from its bank as it stands.
    """
    if info.clock is None:
        return None, None
    if to_move == mover and (info.deadline is not None or mover < 0):
        return info.deadline, None
    tc = TimeControl.from_json(info.clock)
    bank: tuple[int, float] | None = None
    if tc.kind == "bank" and info.deadline is not None and mover >= 0:
        left = max(0.0, (info.deadline - now).total_seconds())
        bank = (mover, min(tc.max_days * DAY, left + tc.add_days * DAY))
    if to_move < 0:
        return None, bank
    return turn_deadline(conn, info, tc, to_move, now), bank


def placed_last(result: list[dict[str, Any]], left: dict[int, str]) -> list[dict[str, Any]]:
    """The engine's result with every seat whose player left (timed out, resigned) placed last.

    The others keep their order (ranks renumbered, ties kept); the leavers share the last place
    and carry ``"left": "timed_out"`` or ``"resigned"``.
    """
    if not left:
        return result
    stay = sorted((r for r in result if r["seat"] not in left), key=lambda r: r["rank"])
    out: list[dict[str, Any]] = []
    rank = 0
    prev: int | None = None
    for i, r in enumerate(stay):
        if r["rank"] != prev:
            rank = i + 1
            prev = r["rank"]
        out.append({**r, "rank": rank})
    last = len(stay) + 1
    out += [{**r, "rank": last, "left": left[r["seat"]]} for r in result if r["seat"] in left]
    return sorted(out, key=lambda r: r["seat"])



def clock_json_of(tc: TimeControl | None) -> str | None:
    return None if tc is None else json.dumps(tc.to_json(), sort_keys=True)
