"""What one seat's answer after a move costs to build: `ludothek.portal.gameview.seat_context`, in µs.

A seeded mid-game position of Machi Koro (2 players, the mover in its build
phase with 15 legal actions) and of Roll Through the Ages, held in a
`Tracked` game with seat names as the portal holds it; the answer is built for
the seat to move (its view, its legal actions with their sentences, whether it
may undo) and for the other seat, without the log (``?log=false``, and the
answer to a move).  Each figure is the median of 7 timings of 1,000 calls, in
CPU time of the process (steadier than the wall clock on a shared machine).

``python benchmarks/bench_seat_context.py`` (run as a file, it measures whichever
``ludothek`` comes first on ``PYTHONPATH``, e.g. an exported older commit).
"""

from __future__ import annotations

import random
import statistics
import time
import timeit
from datetime import UTC, datetime
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ludothek.services.tracked import Tracked
    from ludothek.storage.info import GameInfo

Row = tuple[str, float, str, str]

#: (game, player moves played before the position is taken).
POSITIONS = (("machikoro", 60), ("rolltheages", 40))


def _position(game_id: str, moves: int, seed: int = 3) -> tuple[GameInfo, Tracked]:
    """(GameInfo, Tracked) of a seeded random game after ``moves`` player moves, at a real choice."""
    from ludothek import engine as eng
    from ludothek.services.tracked import Tracked
    from ludothek.storage.info import GameInfo, SeatInfo

    rng = random.Random(seed)
    names = ["anna", "bob"]
    state = eng.load(game_id).new_state(2)
    tracked = Tracked(state, names)
    played = 0
    while True:
        player = state.current_player()
        if player == eng.TERMINAL:
            raise RuntimeError(f"{game_id} ended before move {moves}")
        if player == eng.CHANCE:
            tracked.apply(player, eng.sample_chance(state, rng))
            continue
        legal = state.legal_actions()
        if played >= moves and len(legal) > 3:
            break
        tracked.apply(player, rng.choice(legal))
        played += 1
    seats = tuple(SeatInfo(i, "player", 100 + i, name) for i, name in enumerate(names))
    info = GameInfo(1, game_id, 2, dict(state.options), "running", 100, state.move_number(),
                    state.current_player(), datetime.now(UTC), None, None, seats)
    return info, tracked


def measure() -> dict[str, float]:
    """µs per `seat_context` call, by "game mover" and "game other"."""
    from ludothek.portal.gameview import seat_context

    out: dict[str, float] = {}
    for game_id, moves in POSITIONS:
        info, tracked = _position(game_id, moves)
        mover = tracked.state.current_player()
        for label, seat in (("mover", mover), ("other", 1 - mover)):
            def call(info: GameInfo = info, tracked: Tracked = tracked, seat: int = seat) -> object:
                return seat_context(info, tracked, seat, "en", with_log=False)

            call()
            times = timeit.repeat(call, number=1000, repeat=7, timer=time.process_time)
            out[f"{game_id} {label}"] = statistics.median(times) / 1000 * 1e6
    return out


def run() -> list[Row]:
    return [(f"seat_context: {key}", value, "us", "answer without the log, mid-game, 2 players")
            for key, value in measure().items()]


if __name__ == "__main__":
    for key, value in measure().items():
        print(f"seat_context {key}: {value:.1f} us")
