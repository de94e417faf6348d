"""Who hears what on their own live channel when a game changes (issue 30, item 2), without a browser.

`turn_listener` tells the person to move ``turn`` and the person whose wait ended (their move, from any
tab, or their leaving) ``waiting``; at a game's end everyone at the table hears ``waiting``.  Without
Redis, the database watch notices a wait that ended in another process.
"""

from __future__ import annotations

from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Any

from ludothek.portal.live.dbwatch import DatabaseWatch
from ludothek.portal.live.hub import event_message, turn_listener
from ludothek.storage.info import GameEvent, GameInfo, SeatInfo


class Heard:
    """A hub that only records what each user's channel would carry."""

    def __init__(self, watched_users: list[int] | None = None) -> None:
        self.messages: list[tuple[int, str]] = []
        self.users = watched_users or []

    def publish_user(self, user_id: int, message: dict[str, Any]) -> None:
        self.messages.append((user_id, message["type"]))

    def watched(self) -> tuple[list[int], list[int]]:
        return [], self.users


def table(*seats: SeatInfo) -> Any:
    info = GameInfo(id=5, game="toypig", num_players=len(seats), options={}, status="running", creator_id=1, seq=9,
                    to_move=0, created_at=datetime.now(UTC), turn_since=None, result=None, seats=seats)
    return SimpleNamespace(games=SimpleNamespace(info_cache={5: info}, game=lambda gid: info, seats_of=lambda gid: info))


ANNA, BERT = SeatInfo(0, "player", 1, "anna"), SeatInfo(1, "player", 2, "bert")


def test_the_mover_hears_that_their_wait_ended_and_the_next_player_that_it_is_their_turn() -> None:
    hub = Heard()
    listen = turn_listener(table(ANNA, BERT), hub)  # type: ignore[arg-type]
    listen(GameEvent(5, 10, 1, "running", False, mover=0))  # anna moved, bert is to move
    assert hub.messages == [(1, "waiting"), (2, "turn")]
    hub.messages.clear()
    listen(GameEvent(5, 11, 1, "running", False, mover=1))  # bert acts again within his turn: no "waiting"
    assert hub.messages == [(2, "turn")]
    hub.messages.clear()
    listen(GameEvent(5, 12, -1, "running", False, mover=1))  # bert's turn waits for his confirmation
    assert hub.messages == [(2, "waiting")]
    hub.messages.clear()
    listen(GameEvent(5, 13, -4, "finished", False, mover=0))
    assert sorted(hub.messages) == [(1, "waiting"), (2, "waiting")]


def test_a_person_who_left_hears_it_though_their_seat_stays_to_move() -> None:
    hub = Heard()
    gone = SeatInfo(0, "bot", 1, "anna (Bot)", bot="medium", left_as="timed_out")
    listen = turn_listener(table(gone, BERT), hub)  # type: ignore[arg-type]
    listen(GameEvent(5, 9, 0, "running", True, mover=0, seats_rev=3))  # timed out: the bot is to move
    assert hub.messages == [(1, "waiting")]
    assert event_message(GameEvent(5, 9, 0, "running", True, mover=0, seats_rev=3))["seats_rev"] == 3
    assert "seats_rev" not in event_message(GameEvent(5, 10, 1, "running"))


def test_without_redis_the_database_watch_tells_a_wait_that_ended_elsewhere() -> None:
    hub = Heard(watched_users=[1])
    watch = DatabaseWatch(None, hub)  # type: ignore[arg-type]
    watch.announce([], [(1, 5, 9)])  # first look: anna's turn in game 5
    watch.announce([], [(1, 5, 9)])  # nothing changed
    assert hub.messages == []
    watch.announce([], [])  # she moved in another process
    assert hub.messages == [(1, "waiting")]
