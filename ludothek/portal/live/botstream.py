"""The bot event stream (issue 33): what a bot account hears so that it never needs to poll.

The stream is *level-based*: it never replays a log of events.  It keeps, per open stream, what it
has told the bot (the challenges, the running games and the move number of each "your turn"), and
each time the bot's own live channel (`Hub.watch_user`, the one the tabs listen on) says something
changed it reads the bot's state (`BotAccounts.snapshot`, in a database thread) and sends the
difference.  A stream that (re)connects starts from nothing told, so its first lines are the whole
current state: every pending challenge, ``game_start`` for every running game and ``your_turn`` where
the bot is to move.  Nothing is lost by a reconnect, and no database is polled in a loop: between
live messages the stream only writes a keep-alive line.

The live channel already carries "your turn" and "a wait ended" (`turn_listener`); `bot_listener`
adds a wake-up for the bot accounts of a game that was created with their invitation, that started
or that was called off, so those reach the stream as well (through Redis to every server process).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from ludothek.services import Site
from ludothek.services.botaccounts import Snapshot
from ludothek.storage import GameEvent

from .. import jsonbody
from .hub import Hub

T = TypeVar("T")

#: Seconds between keep-alive lines (an empty line) while nothing happens.
KEEPALIVE_SECONDS = 15.0
#: Open streams one token may hold at once in one server process (more: 429).
STREAMS_PER_TOKEN = 2
#: The message a bot account's live channel gets when one of its games changed outside its turns.
WAKE = {"type": "bot"}


def bot_listener(site: Site, hub: Hub) -> Callable[[GameEvent], None]:
    """Store listener: wake the streams of the bot accounts seated or invited in a game that changed.

    Reads the game's summary from the cache the other listeners fill (a query only on a miss), and
    publishes only for games with a bot account in them, so games between people cost nothing more.
    """

    def on_event(event: GameEvent) -> None:
        info = site.games.seats_of(event.game_id)
        if info is None:
            return
        for seat in info.seats:
            if seat.bot_account and seat.user_id is not None:
                hub.publish_user(seat.user_id, dict(WAKE, game=event.game_id))

    return on_event


@dataclass
class Told:
    """What one stream has told its bot so far."""

    challenges: set[int] = field(default_factory=set)
    running: set[int] = field(default_factory=set)
    turns: dict[int, int] = field(default_factory=dict)

    def known(self) -> set[int]:
        return self.challenges | self.running


def news(told: Told, snap: Snapshot) -> list[dict[str, Any]]:
    """The events between what was told and ``snap``, in a fixed order; updates ``told``."""
    out: list[dict[str, Any]] = []
    for cid in sorted(set(snap.challenges) - told.challenges):
        c = snap.challenges[cid]
        out.append({"type": "challenge", "id": c.id, "game": c.game, "players": c.players, "options": c.options,
                    "by": c.by, "created_at": c.created_at.isoformat()})
    for cid in sorted(told.challenges - set(snap.challenges)):
        if cid in snap.running:
            continue  # accepted, and the game started: game_start follows
        ended = snap.ended.get(cid)
        if ended is not None and ended.status == "open" and ended.place is None and ended.seated:
            continue  # accepted; the game waits for other players
        reason = "cancelled" if ended is None or ended.status == "cancelled" else (
            "declined" if ended.status == "open" else ended.status)
        out.append({"type": "challenge_canceled", "id": cid, "reason": reason})
    told.challenges = set(snap.challenges)
    for gid in sorted(set(snap.running) - told.running):
        g = snap.running[gid]
        out.append({"type": "game_start", "game": g.id, "kind": g.game, "seat": g.seat, "seq": g.seq})
    for gid in sorted(told.running - set(snap.running)):
        ended = snap.ended.get(gid)
        # Still running without it: its clock ran out (or it resigned) and a bot of the site plays on.
        status = "unknown" if ended is None else "left" if ended.status == "running" else ended.status
        out.append({"type": "game_end", "game": gid, "status": status, "place": ended.place if ended else None})
        told.turns.pop(gid, None)
    told.running = set(snap.running)
    for gid in sorted(snap.running):
        g = snap.running[gid]
        if g.my_turn and told.turns.get(gid) != g.seq:
            told.turns[gid] = g.seq
            out.append({"type": "your_turn", "game": gid, "seq": g.seq})
        elif not g.my_turn:
            told.turns.pop(gid, None)
    return out


def line(event: dict[str, Any]) -> bytes:
    return jsonbody.dumps(event) + b"\n"


async def stream(site: Site, hub: Hub, bot_id: int, name: str,
                 offload: Callable[..., Awaitable[Any]], keepalive: float | None = None) -> AsyncIterator[bytes]:
    """The NDJSON lines of one bot's stream, until the client goes away (the generator is closed)."""
    queue = hub.watch_user(bot_id)  # before the first look: nothing that happens after it is missed
    seconds = KEEPALIVE_SECONDS if keepalive is None else keepalive
    try:
        told = Told()
        yield line({"type": "hello", "bot": name, "keepalive": seconds})
        while True:
            snap = await offload(site.botaccounts.snapshot, bot_id, told.known())
            for event in news(told, snap):
                yield line(event)
            try:
                await asyncio.wait_for(queue.get(), timeout=seconds)
            except TimeoutError:
                yield b"\n"
                continue
            while not queue.empty():  # a burst of messages: one look covers them all
                with contextlib.suppress(asyncio.QueueEmpty):
                    queue.get_nowait()
    finally:
        hub.unwatch_user(bot_id, queue)
