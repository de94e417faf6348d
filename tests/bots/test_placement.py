"""`hard`'s placement utility (`SearchSettings.placement`, issue 29): a finished game is worth the share of
the other seats a seat placed ahead of, and the search prefers the same place sooner."""

from __future__ import annotations

import random

from ludothek.bots.ismcts import PLACEMENT_DISCOUNT, IsmctsBot
from ludothek.bots.strategy import placement_utility, strategy_for
from ludothek.engine import load
from ludothek.games.machikoro.rules import MachiKoroState


def _finished(players: int, order: list[int]) -> MachiKoroState:
    """A Yucata-ending Machi Koro game in which the seats finished in ``order`` (the last one left over)."""
    state = load("machikoro").new_state(players, {})
    assert isinstance(state, MachiKoroState)
    state._placing = list(order)  # what `_finish` records
    state._game_over()
    return state


def test_places_count_from_one_for_the_first_to_zero_for_the_last() -> None:
    assert placement_utility(_finished(4, [2, 0, 3, 1])) == [2 / 3, 0.0, 1.0, 1 / 3]
    assert placement_utility(_finished(3, [1, 0, 2])) == [0.5, 1.0, 0.0]


def test_with_two_players_it_is_the_win() -> None:
    state = _finished(2, [1, 0])
    assert placement_utility(state) == state.returns() == [0.0, 1.0]


def test_machi_koro_plays_for_places_and_others_for_the_win() -> None:
    assert strategy_for("machikoro").search.placement
    assert IsmctsBot().settings(strategy_for("machikoro")).placement
    for game_id in ("carpediem", "snowdonia", "rolltheages"):
        assert not strategy_for(game_id).search.placement


def test_the_same_place_later_is_worth_a_little_less() -> None:
    """Second place now, or second place after playing on: the discount prefers finishing."""
    strategy = strategy_for("machikoro")
    bot = IsmctsBot(seconds=None, rollout_depth=0)
    settings = bot.settings(strategy)
    state = _finished(3, [1, 0, 2])
    now = bot._rollout(state.clone(), strategy, settings, random.Random(0), depth=1)
    later = bot._rollout(state.clone(), strategy, settings, random.Random(0), depth=5)
    assert later[0] < now[0] < 1.0
    assert later[0] == now[0] * PLACEMENT_DISCOUNT ** 4
