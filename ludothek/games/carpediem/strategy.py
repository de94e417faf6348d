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

from .components import Tile
from .district import District
from .greedy import GreedyBot, best_placement, goods_value
from .state import CarpeDiemState

#: Remembered placement judgements at most; the memo is emptied when it is full (a game needs a few thousand).
_MEMO_MAX = 200_000
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


def policy(state: State, rng: random.Random) -> str:
    """A quick sensible action for the seat to move."""
    return _GREEDY.choose(state, rng)


#: `hard`'s constants (see `ludothek.bots.strategy.SearchSettings`): the greedy placement player's move
#: starts with 20 virtual visits, so a short search does not overrule it on thin evidence.
SEARCH = {"prior": 20}
