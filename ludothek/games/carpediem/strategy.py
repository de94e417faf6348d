"""Carpe Diem knowledge for the bots: the running total plus what goods are worth.

The fast policy is the greedy placement player in `greedy`, which judges a
tile by the features it completes and the parts it joins.  Here it runs with
its placement judgements remembered (`cached_best_placement`): the same
district is asked about the same tiles again and again (when choosing a
rondel space, then the tile, then its placement, and in every iteration of
`hard`'s search, which starts from the same position), and that judgement is
almost all of the policy's cost.  The moves are the same as `GreedyBot`'s.
"""

from __future__ import annotations

import random

from ludothek.engine import State

from . import scoring
from .components import Tile
from .district import District
from .geometry import FACING, NEIGHBOURS, cell_name
from .greedy import STORE_VALUE, GreedyBot, best_placement, goods_value, placement_value
from .rules import CarpeDiemState

#: Remembered placement judgements at most (about 0.5 kB each, so some 25 MB); the memo is emptied when full.
_MEMO_MAX = 50_000
_MEMO: dict[tuple[object, ...], tuple[float, str]] = {}


def cached_best_placement(district: District, tile: Tile, banners: frozenset[int]) -> tuple[float, str]:
    """`greedy.best_placement`, remembered by what it depends on: the district's board, frame and tiles.

    The frame goals met follow from the tiles built (and the frame), so they
    need not be part of the key; the banners follow from the board.
    """
    key = (district.board, tuple(district.frame), tuple(district.cells), tile.id)
    found = _MEMO.get(key)
    if found is None:
        if len(_MEMO) >= _MEMO_MAX:
            _MEMO.clear()
        found = _MEMO[key] = best_placement(district, tile, banners)
    return found


def rank(state: State) -> dict[str, float]:
    """How the greedy player judges each action of a tile decision (`hard` widens its root in this order).

    Every placement by `greedy.placement_value` (storing the tile last but one
    resort), a tile or a rondel space by the best placement it allows.  Other
    decisions are not ranked (the search tries them in random order).
    """
    assert isinstance(state, CarpeDiemState)
    stage = state.stage
    if stage not in ("build", "sealbuild", "take", "seal", "move"):
        return {}
    p = state.players[state.actor]
    banners = state.comp.boards[p.district.board].banners
    tiles = state.comp.tiles
    out: dict[str, float] = {}
    for a in state.legal_actions():
        kind, _, rest = a.partition(":")
        if kind == "build":
            assert state.held is not None
            cell, _, rotation = rest.partition(":")
            out[a] = placement_value(p.district, tiles[state.held], _CELLS[cell], int(rotation), banners)
        elif kind == "store":
            out[a] = STORE_VALUE
        elif kind == "move":
            space = int(rest.split(":")[0]) - 1
            out[a] = max(cached_best_placement(p.district, tiles[t], banners)[0] for t in state.rondel[space])
            if a.endswith(":bread"):
                out[a] -= 2.5
        elif kind in ("take", "seal") and rest in tiles:
            out[a] = cached_best_placement(p.district, tiles[rest], banners)[0]
    return out


#: Cell names back to cell numbers.
_CELLS = {cell_name(c): c for c in range(36)}


class CachedGreedy(GreedyBot):
    """`GreedyBot` with its placement judgements remembered (same moves, a fraction of the cost)."""

    def choose(self, state: State, rng: random.Random) -> str:
        assert isinstance(state, CarpeDiemState)
        stage = state.stage
        if stage not in ("build", "sealbuild", "take", "seal", "move"):
            return super().choose(state, rng)
        seat = state.actor
        p = state.players[seat]
        banners = state.comp.boards[p.district.board].banners
        legal = state.legal_actions()
        tiles = state.comp.tiles
        if stage in ("build", "sealbuild"):
            assert state.held is not None
            _value, action = cached_best_placement(p.district, tiles[state.held], banners)
            return action if action in legal else legal[0]
        if stage in ("take", "seal"):
            scored = [(cached_best_placement(p.district, tiles[a.split(":")[1]], banners)[0], a) for a in legal]
            return max(scored)[1]
        scored = []
        for a in legal:
            space = int(a.split(":")[1]) - 1
            v = max(cached_best_placement(p.district, tiles[t], banners)[0] for t in state.rondel[space])
            if a.endswith(":bread"):
                v -= 2.5
            scored.append((v, a))
        return max(scored)[1]


_GREEDY = CachedGreedy()


def evaluate(state: State, seat: int) -> float:
    """How good ``state`` is for ``seat``, in points."""
    assert isinstance(state, CarpeDiemState)
    return goods_value(state, seat)


def district_shape(district: District) -> float:
    """What a district's shape promises beyond its points: its tiles, its joined parts, its dead ends.

    Each built tile counts 1 (a tile that is built can still complete
    features; a stored one is worth half a point at the end, which the
    running total does not count either), each join of matching parts 0.4 as
    in `greedy.placement_value`, and a labelled half facing the board's edge
    −0.15 (it can never be closed).  Half-open edges towards empty cells are
    not counted against a position, unlike in the greedy player's judgement of
    a single placement: as a state evaluation that would make storing a tile
    look better than building it.
    """
    value = float(district.placed)
    orients = district.orient
    for cell, orient in enumerate(orients):
        if orient is None:
            continue
        nbs = NEIGHBOURS[cell]
        for h, label in enumerate(orient.labels):
            if not label:
                continue
            n = nbs[h // 2]
            if n is None:
                value -= 0.15
                continue
            other = orients[n]
            if other is not None and other.labels[FACING[h]] == label:
                value += 0.2  # counted from both sides: 0.4 per join
    return value


def search_evaluate(state: State, seat: int) -> float:
    """`hard`'s cut-off evaluation: `evaluate`, the fountain cards' points, and the district's shape.

    `evaluate` alone (running total and goods) makes the search blind to what a
    placement prepares, which the greedy policy (and so `medium`) does see; a
    search judging by it undervalues the policy's own moves.  Fountain cards
    (dealt afresh for the opponents, like everything hidden) score at the end.
    """
    assert isinstance(state, CarpeDiemState)
    p = state.players[seat]
    return (goods_value(state, seat) + scoring.fountain_vp(state.comp, p.fountains, p.district)
            + district_shape(p.district) + 0.5 * len(p.stored))


def policy(state: State, rng: random.Random) -> str:
    """A quick sensible action for the seat to move."""
    return _GREEDY.choose(state, rng)


#: `hard`'s constants (see `ludothek.bots.strategy.SearchSettings`): the greedy placement player's move
#: starts with 20 virtual visits, so a short search does not overrule it on thin evidence.  The logistic's
#: scale is 30 points, not the default 6: Carpe Diem's leads run to 20-60 points (games end around 70-100
#: points each), and with 6 points every lead past about 20 was worth the same, so once ahead the search
#: stopped caring about points and played loosely (against `random` it scored about half what `medium` does;
#: against `medium` it let leads slip).  With 30 a lead of 20, 40 or 60 points is worth 0.66, 0.79 or 0.88.
#: The root is searched in rounds on common random numbers (``root_rounds``; chance by its index, no
#: `luck_key`): on the same deals (docs/bots.md, 25 Nov 2026) it scores far more at the same iteration
#: budget.  Against `medium` at 400 iterations, 24 deals: 22 won, 113.2 against 66.2 points (without: 23
#: won, 84.9 against 71.6; the margin larger on 21 deals, smaller on 2); at 100 iterations 38 of 40 won
#: (without: 20).  Against `random` at 100 iterations 110.4 against 16.1 points on 12 deals (without: 50.7
#: against 22.3 over 400).
#: 100 iterations a decision: the budget of the 400-game figures (373 of 400 against `medium`); 400 were no
#: stronger on the same deals (113.2 against 112.6 points), and a decision takes about 50 ms of CPU, not 2 s.
SEARCH = {"prior": 20, "policy_share": 1.0, "rollout_depth": 8, "scale": 30.0, "root_rounds": True,
          "iterations": 100}
