"""Records that ask for much replay work: real moves, then many move/undo pairs (issue 28's probe).

The probe of issue 28 sent a valid 681 KB record of 300 real moves plus 9,850 move/undo pairs
(20,000 entries); the tests and ``benchmarks/bench_replay_bomb.py`` build the like of it here.
"""

from __future__ import annotations

import random
from typing import Any

from ludothek import engine as eng
from ludothek.engine import CHANCE, UNDO


def bomb(game: str = "machikoro", players: int = 2, real: int = 100, pairs: int = 9_850, seed: int = 1,
         salt: int = 0) -> dict[str, Any]:
    """A valid record: ``real`` random moves (with their chance outcomes), then ``pairs`` times one
    legal move taken straight back, all by the seat to move.  ``salt`` makes records that differ
    (in ``meta``) without changing the work."""
    g = eng.load(game)
    state = g.new_state(players, {})
    rng = random.Random(seed)
    actions: list[dict[str, Any]] = []
    moves = 0
    while not state.is_terminal():
        seat = state.current_player()
        if seat == CHANCE:
            action = eng.sample_chance(state, rng)
            actions.append({"seat": "chance", "action": action})
            state.apply_action(action)
            continue
        action = rng.choice(state.legal_actions())
        if moves >= real:
            actions.extend([{"seat": seat, "action": action}, {"seat": seat, "action": UNDO}] * pairs)
            break
        actions.append({"seat": seat, "action": action})
        state.apply_action(action)
        moves += 1
    return {"format": eng.RECORD_FORMAT, "game": game, "rules_version": g.rules_version, "players": players,
            "options": dict(state.options), "actions": actions, "meta": {"salt": salt}}
