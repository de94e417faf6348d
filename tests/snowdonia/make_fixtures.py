"""Regenerate the recorded games in ``fixtures/`` (run: ``python -m tests.snowdonia.make_fixtures``).

``python -m tests.snowdonia.make_fixtures NAME...`` regenerates only the named files (for example a new
map's game) and leaves the others as they are.

Only needed after a deliberate rules change (bump ``rules_version`` then, or keep old records replaying as
the Daffodil Line does: ``fixtures/first_rule/`` holds records of an earlier rule and is never touched here). The games are played by a
simple greedy player so that they use trains, contracts and building, not only random moves.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

from ludothek.engine import CHANCE, load, record, sample_chance

HERE = Path(__file__).parent / "fixtures"


def greedy(actions: list[str], rng: random.Random) -> str:
    """Buy, build, take contracts and play them; place workers where the railway grows."""
    for prefix in ("train:", "build:", "contract:", "play:", "maint:steel", "maint:1", "maint:2", "pub:hire", "keep:"):
        picks = [a for a in actions if a.startswith(prefix)]
        if picks:
            return rng.choice(picks)
    places = [a for a in actions if a.startswith("place:")]
    if places:
        good = [a for a in places if a[6] in "ABCDE"]
        return rng.choice(good if good and rng.random() < 0.8 else places)
    for prefix in ("take:", "work:", "convert:"):
        picks = [a for a in actions if a.startswith(prefix)]
        if picks:
            return max(picks, key=lambda a: (a.count("steel"), len(a)))
    return rng.choice(actions)


def play(num_players: int, options: dict[str, str], seed: int) -> dict[str, object]:
    rng = random.Random(seed)
    state = load("snowdonia").new_state(num_players, options)
    while not state.is_terminal():
        if state.current_player() == CHANCE:
            state.apply_action(sample_chance(state, rng))
        else:
            state.apply_action(greedy(state.legal_actions(), rng))
    return record(state, note=f"greedy test player, seed {seed}")


def main() -> None:
    games = {
        "game_3p_greedy_seed7.json": (3, {}, 7),
        "game_2p_greedy_seed4.json": (2, {}, 4),
        "game_solo_train6_seed11.json": (1, {"solo_train": "6"}, 11),
        "game_daffodil_3p_greedy_seed1.json": (3, {"map": "daffodil_line"}, 1),
        "game_blaenau_4p_greedy_seed2.json": (4, {"map": "blaenau_ffestiniog"}, 2),
    }
    only = sys.argv[1:]
    if not only:
        for old in HERE.glob("*.json"):
            old.unlink()
    for name, (n, options, seed) in games.items():
        if only and name not in only:
            continue
        rec = play(n, options, seed)
        (HERE / name).write_text(json.dumps(rec, indent=0) + "\n", encoding="utf-8")
        print(name, len(rec["actions"]), rec["result"])  # type: ignore[arg-type]


if __name__ == "__main__":
    main()
