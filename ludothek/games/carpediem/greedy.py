"""A simple greedy bot, used to check that the provisional component set plays like the game.

It looks one decision ahead with a hand-made value: completed features and
their rewards, banner cells, frame goals, and a small bonus for joining
matching parts; stored tiles are a last resort.  In scoring rounds it tries
every free circle and both card orders on copies of the state.

``simulate`` plays many games and collects the figures the docs report.
"""

from __future__ import annotations

import random
import statistics
from collections.abc import Iterable
from typing import Any

from ludothek.engine import CHANCE, State, sample_chance

from .components import LANDSCAPES, Tile
from .district import District
from .geometry import FACING, NEIGHBOURS, cell_name
from .rules import CarpeDiemState

STORE_VALUE = -1.0


def placement_value(district: District, tile: Tile, cell: int, rotation: int, banners: frozenset[int]) -> float:
    """How much the bot likes building ``tile`` on ``cell`` turned by ``rotation``."""
    trial = district.copy()
    done = trial.place(tile, rotation, cell)
    # The frame points the build adds: exactly what `new_goals` marks met now (frame_vp after minus before).
    value = float(sum(vp for _, _, vp in trial.new_goals()))
    for f in done:
        if f.family == "landscape":
            value += 2 + len(f.cells)
        elif f.family == "dwelling":
            value += 4
        elif f.family == "villa":
            value += 2 + district.comp.villa_vp(f.chimneys)
        else:
            value += 2.5
    if cell in banners:
        value += 1
    orient = trial.orient[cell]
    assert orient is not None
    for h, label in enumerate(orient.labels):
        if not label:
            continue
        n = NEIGHBOURS[cell][h // 2]
        other = trial.orient[n] if n is not None else None
        if other is not None and other.labels[FACING[h]] == label:
            value += 0.4  # joins a matching part
        elif other is None:
            value -= 0.15  # leaves something open
    value += 0.05 * sum(1 for n in NEIGHBOURS[cell] if n is not None and trial.cells[n] is not None)
    return value


def best_placement(district: District, tile: Tile, banners: frozenset[int]) -> tuple[float, str]:
    best = (STORE_VALUE, "store")
    for cell, rotation in district.placements(tile):
        v = placement_value(district, tile, cell, rotation, banners)
        if v > best[0]:
            best = (v, f"build:{cell_name(cell)}:{rotation}")
    return best


def goods_value(state: CarpeDiemState, seat: int) -> float:
    p = state.players[seat]
    return state.running_total(seat) + 0.6 * (sum(p.wares.values()) + p.coins + p.bread)


class GreedyBot:
    """Chooses the action with the best one-step value."""

    name = "greedy"

    def choose(self, state: State, rng: random.Random) -> str:
        assert isinstance(state, CarpeDiemState)
        seat = state.actor
        p = state.players[seat]
        banners = state.comp.boards[p.district.board].banners
        legal = state.legal_actions()
        stage = state.stage
        if stage in ("build", "sealbuild"):
            assert state.held is not None
            _value, action = best_placement(p.district, state.comp.tiles[state.held], banners)
            return action if action in legal else legal[0]
        if stage in ("take", "seal"):
            scored = [(best_placement(p.district, state.comp.tiles[a.split(":")[1]], banners)[0], a) for a in legal]
            return max(scored)[1]
        if stage == "move":
            scored = []
            for a in legal:
                space = int(a.split(":")[1]) - 1
                tiles = state.rondel[space]
                v = max(best_placement(p.district, state.comp.tiles[t], banners)[0] for t in tiles)
                if a.endswith(":bread"):
                    v -= 2.5
                scored.append((v, a))
            return max(scored)[1]
        if stage in ("disc", "card", "freturn"):
            return self._lookahead(state, seat, legal, rng)
        return rng.choice(legal)

    def _lookahead(self, state: CarpeDiemState, seat: int, legal: list[str], rng: random.Random) -> str:
        best: tuple[float, str] | None = None
        for action in legal:
            child = state.clone()
            child.apply_action(action)
            if child.stage == "card" and child.actor == seat:
                child.apply_action(self._lookahead(child, seat, child.legal_actions(), rng))
            value = goods_value(child, seat)
            if state.stage == "freturn":
                value = _fountain_value(child, seat)
            if best is None or value > best[0]:
                best = (value, action)
        assert best is not None
        return best[1]


def _fountain_value(state: CarpeDiemState, seat: int) -> float:
    p = state.players[seat]
    return sum(state.comp.fountains[k].vp_each * (p.district.count(state.comp.fountains[k].counts) + 1)
               for k in p.fountains)


def play(state: CarpeDiemState, rng: random.Random, bots: Iterable[Any] | None = None) -> dict[str, Any]:
    """Play ``state`` to the end with greedy bots; return per-seat statistics."""
    seats = list(bots) if bots is not None else [GreedyBot() for _ in range(state.num_players)]
    offered = placeable = 0
    while not state.is_terminal():
        player = state.current_player()
        if player == CHANCE:
            state.apply_action(sample_chance(state, rng))
            continue
        if state.stage == "take":
            d = state.players[player].district
            for a in state.legal_actions():
                offered += 1
                placeable += d.can_place(state.comp.tiles[a.split(":")[1]])
        state.apply_action(seats[player].choose(state, rng))
    stats = []
    for s, p in enumerate(state.players):
        feats = p.district.features
        stats.append({
            "landscapes": sum(1 for f in feats if f.family == "landscape"),
            "landscape_sizes": [len(f.cells) for f in feats if f.kind in LANDSCAPES],
            "dwellings": sum(1 for f in feats if f.family == "dwelling"),
            "villas": sum(1 for f in feats if f.family == "villa"),
            "villa_chimneys": [f.chimneys for f in feats if f.family == "villa"],
            "built": sum(1 for c in p.district.cells if c),
            "stored": len(p.stored),
            "score": state.final[s] if state.final else 0,
            "goals": len(p.district.goals_done),
        })
    return {"players": stats, "offered": offered, "placeable": placeable}


def simulate(num_players: int, games: int, seed: int = 0) -> dict[str, Any]:
    """Figures over ``games`` greedy games: means and ranges per player, and placeable share."""
    from . import GAME

    rng = random.Random(seed)
    rows: list[dict[str, Any]] = []
    offered = placeable = 0
    for _ in range(games):
        state = GAME.new_state(num_players)
        assert isinstance(state, CarpeDiemState)
        out = play(state, rng)
        rows.extend(out["players"])
        offered += out["offered"]
        placeable += out["placeable"]

    def dist(key: str) -> dict[str, float]:
        values = [r[key] for r in rows]
        qs = statistics.quantiles(values, n=10) if len(values) > 1 else [values[0]] * 9
        return {"mean": round(statistics.fmean(values), 2), "min": min(values), "p10": qs[0],
                "median": statistics.median(values), "p90": qs[-1], "max": max(values)}

    sizes = [x for r in rows for x in r["landscape_sizes"]]
    chimneys = [x for r in rows for x in r["villa_chimneys"]]
    return {
        "players": num_players, "games": games,
        **{k: dist(k) for k in ("landscapes", "dwellings", "villas", "built", "stored", "goals", "score")},
        "landscape_sizes": {n: sizes.count(n) for n in sorted(set(sizes))},
        "villa_chimneys_mean": round(statistics.fmean(chimneys), 2) if chimneys else 0,
        "villa_chimneys_max": max(chimneys) if chimneys else 0,
        "placeable_share": round(placeable / offered, 3) if offered else 0.0,
    }


if __name__ == "__main__":  # pragma: no cover - a manual tool
    import json
    import sys

    n = int(sys.argv[1]) if len(sys.argv) > 1 else 2
    g = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    print(json.dumps(simulate(n, g), indent=1))
